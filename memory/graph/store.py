"""GraphMemory: namespaced, ontology-checked graph memory over Graphiti on FalkorDB."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from memory.backend.changelog import Change, clear_commands, commit_commands, trim_commands
from memory.backend.falkordb import Database
from memory.backend.protocol import Statement
from memory.backend.rows import (
    read_entity,
    read_relationship,
)
from memory.backend.traverse import run_traverse
from memory.embedder_identity import EmbedderChooser, forget_identity
from memory.embedders import Embedder, EmbeddingPrefetch, create_embedder, embed_async
from memory.graph import bulk as _bulk
from memory.graph import reads as _reads
from memory.graph import sources as _sources
from memory.graph import transfer as _transfer
from memory.graph import writes as _upserts
from memory.graph.clients import GraphClients
from memory.model.batch import BatchResult, SourceItem, SubGraph, WriteTally
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
    WriteResult,
    WriteStatus,
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


class GraphMemory:
    """Graph memory of many namespaces in one FalkorDB server.

    Use as an async context manager (or call `connect` / `close`). Each
    namespace lives in its own FalkorDB graph, so reads never cross namespaces.

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

    @property
    def clients(self) -> GraphClients:
        """What the write and read functions below the store are given."""
        return GraphClients(self.db, self.embedder, self.ontology, self.commit)

    async def commit(self, group_id: str, statements: Sequence[Statement], change: Change) -> None:
        """The one way a graph changes: statements and their change-log entry, atomically.

        Runs `statements` on the namespace graph and appends `change` (the node and
        edge uuids written or invalidated) to its change log in one transaction, then
        tells the write listeners. Readers in this and other processes bring their
        derived indexes up to date from the log on their next read.

        Args:
            group_id: The namespace graph.
            statements: Parameterised Cypher writes, run in order.
            change: What they change, for the log.
        """
        if not statements:
            return
        commands = commit_commands(group_id, change, keep=self.settings.change_log_keep)
        await self.db.commit(group_id, statements, commands)
        self._tell(group_id)

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

    async def write_clients(self, namespace: NamespaceLike) -> GraphClients:
        """The clients of a write into `namespace` (its embedder checked and recorded)."""
        return replace(self.clients, embedder=await self.embedder_for(namespace, write=True))

    async def _vector_dim(self, group_id: str) -> int:
        """Dimension of a graph's vectors (sizes its HNSW index)."""
        found = await self.embedders.record(self.db, group_id)
        return found.dim if found else (await self.embedders.default_identity()).dim

    def _tell(self, group_id: str) -> None:
        namespace = Namespace.from_group_id(group_id)
        for listener in list(self.on_write):
            listener(namespace)

    async def trim_change_log(self, namespace: NamespaceLike, *, keep: int) -> None:
        """Trim a namespace's change log to its newest `keep` entries now.

        Readers whose offset falls behind the trimmed entries rebuild their indexes.
        Commits trim the log on their own (``ATHENA_CHANGE_LOG_KEEP``).
        """
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        await self.db.execute(trim_commands(as_namespace(namespace).group_id, keep))

    async def __aenter__(self) -> GraphMemory:
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

    async def _graph(self, namespace: NamespaceLike) -> tuple[Namespace, str]:
        ns = as_namespace(namespace)
        await self.db.ensure_indices(ns.group_id)
        return ns, ns.group_id

    # -- entities -------------------------------------------------------------------------

    def entity_key(self, namespace: NamespaceLike, label: str, name: str) -> str:
        """Return the key an entity of this label and name has in the namespace."""
        self.ontology.check_label(label)
        return entity_key(as_namespace(namespace).group_id, label, name)

    async def get_entity(self, namespace: NamespaceLike, key: str) -> EntityRecord | None:
        """Return the entity with this key, or None."""
        return await read_entity(self.db, as_namespace(namespace).group_id, key)

    async def upsert_entity(
        self,
        namespace: NamespaceLike,
        label: str,
        name: str,
        *,
        summary: str = "",
        properties: dict[str, Any] | None = None,
        source: str | None = None,
        confidence: float | None = None,
    ) -> WriteResult:
        """Create or update the entity keyed by (namespace, label, normalised name).

        Writing the same content twice changes nothing (status `unchanged`).

        Raises:
            ValueError: Unknown label, empty name or a confidence outside [0, 1].
        """
        return await _upserts.upsert_entity(
            await self.write_clients(namespace),  # embedder identity hook
            as_namespace(namespace),
            label,
            name,
            summary=summary,
            properties=properties,
            source=source,
            confidence=confidence,
        )

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

    # -- relationships ----------------------------------------------------------------------

    async def get_relationship(
        self, namespace: NamespaceLike, uuid: str
    ) -> RelationshipRecord | None:
        """Return the edge with this uuid, or None."""
        return await read_relationship(self.db, as_namespace(namespace).group_id, uuid)

    async def upsert_relationship(
        self,
        namespace: NamespaceLike,
        source_key: str,
        relation: str,
        target_key: str,
        *,
        fact: str,
        properties: dict[str, Any] | None = None,
        source: str | None = None,
        confidence: float | None = None,
        valid_at: datetime | None = None,
    ) -> WriteResult:
        """Create or update the edge (source key, relation, target key).

        The edge id is deterministic, so the same edge twice is one edge. The
        `fact` should carry the nuance (thresholds, hard/soft, exceptions):
        semantic search works over fact text.

        Raises:
            ValueError: Unknown relation, endpoints missing or of labels the
                relation does not allow, a bad property value, or an empty fact.
        """
        return await _upserts.upsert_relationship(
            await self.write_clients(namespace),  # embedder identity hook
            as_namespace(namespace),
            source_key,
            relation,
            target_key,
            fact=fact,
            properties=properties,
            source=source,
            confidence=confidence,
            valid_at=valid_at,
        )

    async def invalidate_relationship(
        self,
        namespace: NamespaceLike,
        uuid: str,
        *,
        at: datetime | None = None,
        source: str | None = None,
    ) -> bool:
        """Mark an edge as no longer true (`invalid_at` / `expired_at`); False if unknown."""
        return await _upserts.invalidate_relationship(
            self.clients, as_namespace(namespace), uuid, at=at, source=source
        )

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

    # -- sources ----------------------------------------------------------------------------

    async def add_source(
        self,
        namespace: NamespaceLike,
        text: str,
        *,
        source_id: str,
        description: str = "",
        mentions: Iterable[str] = (),
        created_at: datetime | None = None,
    ) -> WriteResult:
        """Store raw text as a source episode and link it (MENTIONS) to entities by key.

        The episode id is derived from `source_id`, so storing the same source
        again updates it in place; unknown entity keys raise before anything is written.
        """
        return await _sources.add_source(
            self.clients,
            as_namespace(namespace),
            text,
            source_id=source_id,
            description=description,
            mentions=mentions,
            created_at=created_at,
        )

    async def get_source(self, namespace: NamespaceLike, source_id: str) -> SourceRecord | None:
        """Return the source episode stored under `source_id`, or None."""
        found = await _sources.list_sources(self.db, as_namespace(namespace), source_id=source_id)
        return found[0] if found else None

    async def sources(
        self, namespace: NamespaceLike, *, source_id: str | None = None
    ) -> list[SourceRecord]:
        """Return the namespace's source episodes with the entity keys they mention."""
        return await _sources.list_sources(self.db, as_namespace(namespace), source_id=source_id)

    async def add_sources(
        self, namespace: NamespaceLike, items: Sequence[SourceItem]
    ) -> list[WriteStatus]:
        """Write many source episodes as `add_source` would (a few queries); return statuses.

        Raises:
            ValueError: An empty source id, or a mentioned entity that does not exist.
        """
        return await _sources.add_sources(self.clients, as_namespace(namespace), items)

    async def write_batch(
        self,
        namespace: NamespaceLike,
        graphs: Sequence[SubGraph],
        *,
        source: str | Sequence[str],
        prefetch: EmbeddingPrefetch | None = None,
    ) -> tuple[WriteTally, WriteTally]:
        """Upsert many items' nodes and edges in a few queries; return (node, edge) tallies.

        The result is that of upserting each subgraph's nodes then edges one call at
        a time, nodes of shared labels (`NodeTypeDefinition.shared`) merged.

        Args:
            namespace: Where to write.
            graphs: One subgraph per item, applied in order.
            source: Provenance stamped on what each graph changes: one for all, or one per graph.
            prefetch: Embeddings started ahead of time; None embeds here.

        Raises:
            ValueError: An unknown label or relation, an empty name or fact, a bad
                confidence or property value (nothing is written then).
        """
        return await _bulk.apply_subgraphs(
            await self.write_clients(namespace),  # embedder identity hook
            namespace,
            graphs,
            source=source,
            prefetch=prefetch,
        )

    async def write_batch_and_sources(
        self,
        namespace: NamespaceLike,
        graphs: Sequence[SubGraph],
        *,
        source: str | Sequence[str],
        episodes: Sequence[SourceItem],
        prefetch: EmbeddingPrefetch | None = None,
    ) -> BatchResult:
        """`write_batch` and `add_sources` in one commit: the items and their source texts.

        The episodes are written after the items, so they may mention what the items
        write; other processes see both or neither.

        Raises:
            ValueError: As `write_batch` and `add_sources` (nothing is written then).
        """
        return await _bulk.apply_batch(
            await self.write_clients(namespace),  # embedder identity hook
            namespace,
            graphs,
            source=source,
            episodes=episodes,
            prefetch=prefetch,
        )

    def bulk_writer(
        self,
        namespace: NamespaceLike,
        prefetch: EmbeddingPrefetch | None = None,
        *,
        defer_vector_index: bool = False,
    ) -> _bulk.BulkWriter:
        """A writer of many batches (a bulk load), each batch one commit, pipelined.

        Use as ``async with memory.bulk_writer(ns) as writer: await writer.write(...)``:
        each `write` takes what `write_batch_and_sources` takes and returns its
        tallies; the batch commits while the next one is planned, and leaving the
        block waits for the last commit. Every commit goes through `commit`.
        `defer_vector_index`: see `memory.graph.bulk.BulkWriter` (large first loads).
        """
        return _bulk.BulkWriter(
            lambda: self.write_clients(namespace),  # embedder identity hook, on entry
            namespace,
            prefetch,
            defer_vector_index=defer_vector_index,
        )

    # -- reading ----------------------------------------------------------------------------

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

    async def clear(self, namespace: NamespaceLike) -> bool:
        """Delete everything in one namespace; False if it held nothing."""
        group_id = as_namespace(namespace).group_id
        commands = clear_commands(group_id)
        deleted = await self.db.delete_graph(group_id, commands)
        if not deleted:  # no graph, but a log of one may remain: retire it all the same
            await self.db.execute(commands)
        await forget_identity(self.db, group_id)  # embedder identity hook
        self.embedders.forget(group_id)
        self._tell(group_id)
        return deleted

    async def export(self, namespace: NamespaceLike) -> dict[str, Any]:
        """Return the namespace as a JSON-ready document (no embeddings, no namespace ids)."""
        return await _transfer.export_namespace(self, as_namespace(namespace))

    async def import_(self, namespace: NamespaceLike, document: dict[str, Any]) -> dict[str, int]:
        """Load a document made by `export` into an empty namespace.

        Raises:
            ValueError: The namespace is not empty or the document is malformed.
        """
        return await _transfer.import_namespace(self, as_namespace(namespace), document)
