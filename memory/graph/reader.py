"""GraphReader: the read side of graph memory (search, records, stats, export).

`GraphMemory` (memory.graph.store) adds the writes and the one commit path on top.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Self

from memory.backend.falkordb import Database
from memory.backend.rows import (
    read_entity,
    read_relationship,
)
from memory.backend.traverse import run_traverse
from memory.embedder_identity import EmbedderChooser
from memory.embedders import Embedder, create_embedder, embed_async
from memory.graph import reads as _reads
from memory.graph import sources as _sources
from memory.graph import transfer as _transfer
from memory.model.keys import entity_key
from memory.model.namespaces import Namespace, as_namespace
from memory.model.ontology import OntologyDefinition, get
from memory.model.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SearchHit,
    SourceRecord,
    TraverseResult,
)
from memory.search import hybrid_search_many
from memory.settings import Settings, load_settings

logger = logging.getLogger(__name__)

NamespaceLike = Namespace | str


def _quietly(work: Callable[[], object]) -> None:
    """Run a best-effort warm-up; a failure shows up again where the work is needed."""
    try:
        work()
    except Exception:  # noqa: BLE001 - reported by the real call that needs it
        logger.debug("warm-up failed", exc_info=True)


class GraphReader:
    """Reads of graph memory: many namespaces in one FalkorDB server.

    Use as an async context manager (or call `connect` / `close`). Each
    namespace lives in its own FalkorDB graph, so reads never cross namespaces.
    `GraphMemory` is the reader that also writes.

    Args:
        settings: Run settings; None loads them from the environment.
        embedder: Text embedder; None builds the one the settings choose.
        ontology: The ontology that writes are checked against, or the name of a
            registered one.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        ontology: str | OntologyDefinition = "underwriting",
    ) -> None:
        self.settings = settings or load_settings()
        self.embedder = embedder or create_embedder(self.settings)
        self.ontology: OntologyDefinition = get(ontology) if isinstance(ontology, str) else ontology
        # --- embedder identity hook (memory/embedder_identity.py): each namespace reads and
        # writes with the embedder recorded at its first write (`embedder_for`).
        explicit = embedder is not None or self.settings.embedder != "auto"
        self.embedders = EmbedderChooser(self.settings, self.embedder, explicit=explicit)
        self.db = Database(
            self.settings,
            vector_dim=self._vector_dim,
            edge_indexes=[f"p_{name}" for name in self.ontology.indexed_edge_properties],
        )
        # Write listeners, called with the namespace after each write (e.g. cache invalidation).
        self.on_write: list[Callable[[Namespace], object]] = []

    @property
    def backend(self) -> Database:
        """The graph database (a `GraphBackend`)."""
        return self.db

    async def embedder_for(self, namespace: NamespaceLike, *, write: bool = False) -> Embedder:
        """The embedder of a namespace: recorded at its first write, used by its reads.

        Raises:
            EmbedderMismatchError: `write` into a namespace recorded with another embedder
                than the one this run explicitly chose (re-embed it: `athena reembed`).
        """
        group_id = as_namespace(namespace).group_id
        if write:
            return await self.embedders.for_write(self.db, group_id)
        return await self.embedders.for_read(self.db, group_id)

    async def _vector_dim(self, group_id: str) -> int:
        """Dimension of a graph's vectors (sizes its HNSW index)."""
        found = await self.embedders.record(self.db, group_id)
        return found.dim if found else (await self.embedders.default_identity()).dim

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connect to the server (starting the embedded one if needed).

        A local embedder loads its weights in a worker thread meanwhile, so a fresh
        process's first query does not wait for both one after the other.
        """
        warm_up = getattr(self.embedder, "warm_up", None)
        if callable(warm_up):
            asyncio.get_running_loop().run_in_executor(None, _quietly, warm_up)
        await self.db.connect()

    async def close(self) -> None:
        """Close the connection."""
        await self.db.close()

    def entity_key(self, namespace: NamespaceLike, label: str, name: str) -> str:
        """Return the key an entity of this label and name has in the namespace."""
        self.ontology.check_label(label)
        return entity_key(as_namespace(namespace).group_id, label, name)

    async def get_entity(self, namespace: NamespaceLike, key: str) -> EntityRecord | None:
        """Return the entity with this key, or None."""
        return await read_entity(self.db, as_namespace(namespace).group_id, key)

    async def entities(
        self, namespace: NamespaceLike, label: str | None = None
    ) -> list[EntityRecord]:
        """Return the namespace's entities, optionally of one label, sorted by label and name."""
        if label is not None:
            self.ontology.check_label(label)
        return await _reads.entities(self.db, as_namespace(namespace).group_id, label)

    async def entity_names(
        self, namespace: NamespaceLike, label: str, *, property: str | None = None
    ) -> list[tuple[str, str, Any]]:
        """Return (entity_key, name, value) of every entity of a label: a light listing.

        The value is that of the entity's `property` (None when not asked for or unset).
        """
        self.ontology.check_label(label)
        group_id = as_namespace(namespace).group_id
        return await _reads.entity_names(self.db, group_id, label, property)

    async def existing_keys(self, namespace: NamespaceLike, keys: Iterable[str]) -> set[str]:
        """Return which of `keys` are entity keys present in the namespace (index lookup)."""
        wanted = sorted(set(keys))
        return await _reads.existing_keys(self.db, as_namespace(namespace).group_id, wanted)

    async def find_similar_entities(
        self,
        namespace: NamespaceLike,
        name: str,
        *,
        label: str | None = None,
        min_similarity: float | None = None,
        limit: int = 5,
        vector: Sequence[float] | None = None,
    ) -> list[tuple[EntityRecord, float]]:
        """Return entities whose name embedding is close to `name`, best first.

        `vector` is the name's embedding when the caller has it (`embed_names`).
        """
        threshold = self.settings.similarity_threshold if min_similarity is None else min_similarity
        if vector is None:
            [vector] = await self.embed_names(namespace, [name])
        return await _reads.similar_entities(
            self.db,
            as_namespace(namespace).group_id,
            list(vector),
            label=label,
            threshold=threshold,
            limit=limit,
        )

    async def embed_names(
        self, namespace: NamespaceLike, texts: Sequence[str]
    ) -> list[list[float]]:
        """Embed texts (one call) as the namespace's reads do."""
        return await embed_async(await self.embedder_for(namespace), texts)

    async def get_relationship(
        self, namespace: NamespaceLike, uuid: str
    ) -> RelationshipRecord | None:
        """Return the edge with this uuid, or None."""
        return await read_relationship(self.db, as_namespace(namespace).group_id, uuid)

    async def relationships(
        self,
        namespace: NamespaceLike,
        *,
        relation: str | None = None,
        include_invalid: bool = False,
    ) -> list[RelationshipRecord]:
        """Return the namespace's edges (current ones unless `include_invalid`)."""
        if relation is not None:
            self.ontology.edge_type(relation)
        group_id = as_namespace(namespace).group_id
        return await _reads.relationships(self.db, group_id, relation, include_invalid)

    async def get_source(self, namespace: NamespaceLike, source_id: str) -> SourceRecord | None:
        """Return the source episode stored under `source_id`, or None."""
        found = await _sources.list_sources(self.db, as_namespace(namespace), source_id=source_id)
        return found[0] if found else None

    async def sources(
        self, namespace: NamespaceLike, *, source_id: str | None = None
    ) -> list[SourceRecord]:
        """Return the namespace's source episodes with the entity keys they mention."""
        return await _sources.list_sources(self.db, as_namespace(namespace), source_id=source_id)

    async def search(
        self,
        namespace: NamespaceLike,
        query: str,
        *,
        limit: int = 10,
        labels: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        partition: str | None = None,
        include_invalid: bool = False,
        engine: str = "fused",
        as_of: datetime | None = None,
    ) -> list[SearchHit]:
        """Hybrid search (BM25 + vector similarity, fused by RRF) over edge facts.

        Args:
            namespace: Where to search.
            query: Free text.
            limit: Most hits to return.
            labels: Keep edges with an endpoint of one of these labels.
            relations: Keep edges of these relations.
            partition: Keep edges whose partition property (the ontology's
                `partition_property`, e.g. a product) is this value or the ontology's
                wildcard (edges without the property are kept).
            include_invalid: Also return invalidated / expired edges.
            engine: `fused` (index-backed, default), `graphiti` or `graphiti-combined`
                (Graphiti's stock recipes, for comparison).
            as_of: See the edges that were valid at this time (valid_at <= as_of <
                invalid_at) instead of the current ones; a naive time is taken as UTC.

        Raises:
            ValueError: An unknown label, relation or engine, a non-positive limit, or a
                partition for an ontology without a partition property.
        """
        [hits] = await self.search_many(
            namespace,
            [query],
            limit=limit,
            labels=labels,
            relations=relations,
            partition=partition,
            include_invalid=include_invalid,
            engine=engine,
            as_of=as_of,
        )
        return hits

    async def search_many(
        self,
        namespace: NamespaceLike,
        queries: Sequence[str],
        *,
        limit: int = 10,
        labels: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        partition: str | None = None,
        include_invalid: bool = False,
        engine: str = "fused",
        as_of: datetime | None = None,
    ) -> list[list[SearchHit]]:
        """`search` for several queries at once (one embedding call, one vector query).

        Returns:
            One hit list per query, in the order given.
        """
        for label in labels or ():
            self.ontology.check_label(label)
        for relation in relations or ():
            self.ontology.edge_type(relation)
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if partition is not None and self.ontology.partition_property is None:
            raise ValueError(f"ontology {self.ontology.name!r} has no partition property")
        ns = as_namespace(namespace)
        return await hybrid_search_many(
            self.db,
            await self.embedder_for(ns),  # embedder identity hook
            ns.group_id,
            list(queries),
            limit=limit,
            labels=labels,
            relations=relations,
            partition=partition,
            include_invalid=include_invalid,
            engine=engine,
            as_of=as_of if as_of is None or as_of.tzinfo else as_of.replace(tzinfo=UTC),
            partition_property=self.ontology.partition_property,
            wildcard=self.ontology.partition_wildcard,
        )

    async def traverse(
        self,
        namespace: NamespaceLike,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_ms: int | None = None,
        max_rows: int = 1000,
    ) -> TraverseResult:
        """Run read-only Cypher on one namespace's graph, with a time limit and a row cap.

        Raises:
            ValueError: The query writes, is invalid, or exceeds the time limit.
        """
        ns = as_namespace(namespace)
        return await run_traverse(
            self.db,
            ns.group_id,
            cypher,
            params or {},
            timeout_ms=timeout_ms or self.settings.query_timeout_ms,
            max_rows=max_rows,
        )

    async def stats(self, namespace: NamespaceLike) -> GraphStats:
        """Count the namespace's nodes by label, edges by relation, and sources."""
        ns = as_namespace(namespace)
        return await _transfer.stats(self.db, ns)

    async def list_namespaces(self) -> list[Namespace]:
        """Return every namespace that has a graph on the server."""
        found = []
        for name in await self.db.list_graphs():
            try:
                found.append(Namespace.from_group_id(name))
            except ValueError:
                continue
        return found

    async def export(self, namespace: NamespaceLike) -> dict[str, Any]:
        """Return the namespace as a JSON-ready document (no embeddings, no namespace ids)."""
        return await _transfer.export_namespace(self, as_namespace(namespace))
