"""GraphMemory: namespaced, ontology-checked graph memory; the only writer.

The reads live in `memory.graph.reader.GraphReader`; this adds every write and
the one commit path they share (`GraphMemory.commit`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from memory.backend.changelog import Change, clear_commands, commit_commands, trim_commands
from memory.backend.protocol import Statement
from memory.embedder_identity import forget_identity
from memory.embedders import EmbeddingPrefetch
from memory.graph import bulk as _bulk
from memory.graph import sources as _sources
from memory.graph import transfer as _transfer
from memory.graph import writes as _upserts
from memory.graph.clients import GraphClients
from memory.graph.reader import GraphReader, NamespaceLike
from memory.model.batch import BatchResult, SourceItem, SubGraph, WriteTally
from memory.model.namespaces import Namespace, as_namespace
from memory.model.records import (
    WriteResult,
    WriteStatus,
)

logger = logging.getLogger(__name__)


class GraphMemory(GraphReader):
    """Graph memory of many namespaces in one FalkorDB server: its reads and its writes.

    Use as an async context manager (or call `connect` / `close`). Each
    namespace lives in its own FalkorDB graph, so reads never cross namespaces.

    Args:
        settings: Run settings; None loads them from the environment.
        embedder: Text embedder; None builds the one the settings choose.
        ontology: The ontology that writes are checked against, or the name of a
            registered one.
    """

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

    async def write_clients(self, namespace: NamespaceLike) -> GraphClients:
        """The clients of a write into `namespace` (its embedder checked and recorded)."""
        return replace(self.clients, embedder=await self.embedder_for(namespace, write=True))

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

    async def import_(self, namespace: NamespaceLike, document: dict[str, Any]) -> dict[str, int]:
        """Load a document made by `export` into an empty namespace.

        Raises:
            ValueError: The namespace is not empty or the document is malformed.
        """
        return await _transfer.import_namespace(self, as_namespace(namespace), document)
