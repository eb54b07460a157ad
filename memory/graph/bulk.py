"""Batched writes of many items' subgraphs: one read per kind, one embedding call, one commit.

`apply_subgraphs` has the semantics of upserting each item's nodes then edges in
turn (deterministic keys and uuids, shared-node merge, unchanged writes left
alone, provenance stamped on what changed), but reads the existing nodes and
edges of the whole batch in one query each, folds the writes into one
`memory.graph.plan.Plan` and commits it as one transaction.

An item's *owned* nodes (node types the ontology does not mark as shared, such
as a rule) are replaced by the item's new version: their current edges that the
new version lacks are retired, kept for reads `as_of` an earlier time.

`BulkWriter` writes a stream of batches (a bulk load) the same way, pipelined:
batch n is read while the server is idle, then batch n-1's commit is sent and
batch n is planned and rendered in a worker thread while the server runs it.
What a planned batch writes to shared nodes is carried to the next batch (it is
not committed yet, so it cannot be read back); a batch that touches an owned
node, an edge or a source episode of the batch before it waits for that commit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from memory.backend.changelog import Change
from memory.backend.protocol import Statement
from memory.embedders import EmbeddingPrefetch
from memory.graph.clients import GraphClients
from memory.graph.plan import (
    NodeState,
    Plan,
    existing_edges,
    existing_nodes,
    owned_edges,
    plan_edge,
    plan_node,
    plan_retire,
    plan_statements,
)
from memory.graph.sources import plan_sources
from memory.model.batch import BatchResult, SourceItem, SubGraph, WriteTally, merge_shared
from memory.model.keys import entity_key, stable_uuid
from memory.model.namespaces import Namespace, as_namespace
from memory.model.time import utc_now


async def apply_subgraphs(
    memory: GraphClients,
    namespace: Namespace | str,
    graphs: Sequence[SubGraph],
    *,
    source: str | Sequence[str],
    prefetch: EmbeddingPrefetch | None = None,
) -> tuple[WriteTally, WriteTally]:
    """Upsert many items' nodes and edges in one commit; return (node tally, edge tally).

    See `apply_batch` (this is it without source episodes).
    """
    result = await apply_batch(memory, namespace, graphs, source=source, prefetch=prefetch)
    return result.nodes, result.edges


async def apply_batch(
    memory: GraphClients,
    namespace: Namespace | str,
    graphs: Sequence[SubGraph],
    *,
    source: str | Sequence[str],
    episodes: Sequence[SourceItem] = (),
    prefetch: EmbeddingPrefetch | None = None,
) -> BatchResult:
    """Upsert many items' nodes and edges and their source episodes in one commit.

    The episodes (`memory.graph.sources.add_sources`) are written after the items,
    in the same transaction, so they may mention what the items write: a batch's
    rules and the texts they came from are stored together or not at all.

    Args:
        memory: The store's clients.
        namespace: Where to write.
        graphs: Subgraphs (e.g. `memory.underwriting.rulebook.rule_graph`), applied in order.
        source: Provenance stamped on what each graph changes: one for all, or one per graph.
        episodes: Source episodes to write with them (mentions by entity key).
        prefetch: Embeddings started ahead of time (`EmbeddingPrefetch`); None embeds here.

    Raises:
        ValueError: An unknown label or relation, an empty name or fact, a bad
            confidence or property value, an empty source id or a mentioned entity
            that exists nowhere (nothing is written then).
    """
    writer = BulkWriter(memory, namespace, prefetch, threaded=False)
    async with writer:
        return await writer.write(graphs, source=source, episodes=episodes)


@dataclass
class _Pending:
    """A planned batch not committed yet: its statements and what it touches."""

    statements: list[Statement]
    change: Change
    owned: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    uuids: dict[str, str] = field(default_factory=dict)


class BulkWriter:
    """Writes batches of items and their source episodes, one commit per batch, pipelined.

    Use as an async context manager: leaving it sends the last batch and waits for
    every commit (an error of a commit is raised by the next `write` or on exit;
    the batches committed before it are complete).

    Args:
        memory: The store's clients, or a coroutine function giving them on entry (the
            store checks the namespace's embedder then).
        namespace: Where to write.
        prefetch: Embeddings started ahead of time; None embeds each batch when planned.
        threaded: Plan and render batches in a worker thread (while the previous
            batch commits); False does it on the event loop.
        defer_vector_index: On a graph without edges, drop its HNSW index for the
            load and create it at the end: the server then builds it once, in the
            background, instead of inserting every edge (searches meanwhile rank by
            exact cosine). For large first loads; the server also postpones its own
            housekeeping (`GraphBackend.bulk_load`: the embedded server's AOF compaction).
    """

    def __init__(
        self,
        memory: GraphClients | Callable[[], Awaitable[GraphClients]],
        namespace: Namespace | str,
        prefetch: EmbeddingPrefetch | None = None,
        *,
        threaded: bool = True,
        defer_vector_index: bool = False,
    ) -> None:
        self._clients = memory
        # The clients: given, or obtained on entry (`__aenter__`).
        self.memory = cast(GraphClients, memory if isinstance(memory, GraphClients) else None)
        self.ns = as_namespace(namespace)
        self.prefetch = prefetch
        self.threaded = threaded
        self.defer_vector_index = defer_vector_index
        self._deferred = False
        self._shared: dict[str, NodeState] = {}  # shared nodes as planned so far
        self._pending: _Pending | None = None
        self._inflight: asyncio.Task[None] | None = None
        self._bulk: contextlib.AbstractAsyncContextManager[None] | None = None

    async def __aenter__(self) -> BulkWriter:
        if not isinstance(self._clients, GraphClients):
            self.memory = await self._clients()
        if self.prefetch is None:
            self.prefetch = EmbeddingPrefetch(self.memory.embedder)
        backend, group_id = self.memory.backend, self.ns.group_id
        if self.defer_vector_index:  # a large load: the server's housekeeping waits too
            self._bulk = backend.bulk_load()
            await self._bulk.__aenter__()
        await backend.ensure_indices(group_id)
        if self.defer_vector_index:
            edges = await backend.query(
                group_id, "MATCH ()-[e:RELATES_TO]->() RETURN e.uuid AS uuid LIMIT 1"
            )
            if not edges:
                await backend.drop_vector_index(group_id)
                self._deferred = True
        return self

    async def __aexit__(self, kind: object, *exc: object) -> None:
        try:
            if kind is None:
                await self.flush()
            else:  # leave nothing running; the planned batch is dropped
                self._pending = None
                await self._wait()
        finally:
            try:
                if self._deferred:  # built once from what is stored, in the background
                    self._deferred = False
                    await self.memory.backend.ensure_vector_index(self.ns.group_id)
            finally:
                bulk, self._bulk = self._bulk, None
                if bulk is not None:
                    await bulk.__aexit__(None, None, None)

    async def flush(self) -> None:
        """Send the planned batch and wait until every commit is done."""
        await self._wait()
        self._send()
        await self._wait()

    async def _wait(self) -> None:
        task, self._inflight = self._inflight, None
        if task is not None:
            await task

    def _send(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and pending.statements:
            commit = self.memory.commit(self.ns.group_id, pending.statements, pending.change)
            self._inflight = asyncio.ensure_future(commit)

    async def write(
        self,
        graphs: Sequence[SubGraph],
        *,
        source: str | Sequence[str],
        episodes: Sequence[SourceItem] = (),
    ) -> BatchResult:
        """Plan one batch (committed when the next batch is planned, or on `flush`).

        Raises:
            ValueError: As `apply_batch` (nothing of this batch is written then).
        """
        sources = [source] * len(graphs) if isinstance(source, str) else list(source)
        if len(sources) != len(graphs):
            raise ValueError("give one source for all graphs or one per graph")
        group_id, ontology = self.ns.group_id, self.memory.ontology
        keys = {
            (spec.label, spec.name): entity_key(
                group_id, ontology.check_label(spec.label), spec.name
            )
            for graph in graphs
            for spec in graph.entities
        }
        shared = ontology.shared_labels
        owned = {
            keys[(s.label, s.name)] for g in graphs for s in g.entities if s.label not in shared
        }
        edge_ids = {
            stable_uuid(group_id, "edge", keys[r.source], r.relation, keys[r.target])
            for graph in graphs
            for r in graph.relationships
            if r.source in keys and r.target in keys
        }
        await self._wait()  # the commit before the planned one
        pending = self._pending
        if pending is not None and (
            owned & pending.owned
            or edge_ids & pending.edges
            or {e.source_id for e in episodes} & pending.sources
        ):
            self._send()  # this batch rewrites what the planned one writes: read it back
            await self._wait()
            pending = None
        state = await self._read(sorted(set(keys.values())), sorted(edge_ids), owned)
        known = {**(pending.uuids if pending else {})}
        statuses, source_statements, source_change = await plan_sources(
            self.memory, self.ns, episodes, {**known, **_uuids(group_id, keys, state[0])}
        )
        self._send()  # the previous batch commits while this one is planned
        work = (graphs, sources, keys, state)
        plan, tallies = await self._run(self._plan, *work)
        batch_keys = set(keys.values())
        self._shared.update(
            {k: n for k, n in state[0].items() if n.label in shared and k in batch_keys}
        )
        statements = await plan_statements(self.memory, plan, self.prefetch, self._run)
        self._pending = _Pending(
            statements + source_statements,
            plan.change() | source_change,
            owned,
            {*plan.edges, *plan.retire, *plan.archive},
            {e.source_id for e in episodes},
            {**known, **_uuids(group_id, keys, state[0])},
        )
        source_tally = WriteTally()
        for status in statuses:
            source_tally.add(status)
        return BatchResult(tallies[0], tallies[1], source_tally)

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args) if self.threaded else fn(*args)

    async def _read(
        self, keys: list[str], edge_ids: list[str], owned: set[str]
    ) -> tuple[dict[str, NodeState], dict[str, Any], dict[str, dict[str, tuple[str, str]]]]:
        """The stored nodes (shared ones as planned so far), edges and owned nodes' edges."""
        group_id = self.ns.group_id
        nodes = {k: self._shared[k] for k in keys if k in self._shared}
        nodes.update(
            await existing_nodes(self.memory, group_id, [k for k in keys if k not in nodes])
        )
        edges = await existing_edges(self.memory, group_id, edge_ids)
        old = await owned_edges(self.memory, group_id, [nodes[k].uuid for k in owned if k in nodes])
        return nodes, edges, old

    def _plan(
        self,
        graphs: Sequence[SubGraph],
        sources: list[str],
        keys: dict[tuple[str, str], str],
        state: tuple[dict[str, NodeState], dict[str, Any], dict[str, dict[str, tuple[str, str]]]],
    ) -> tuple[Plan, tuple[WriteTally, WriteTally]]:
        nodes, edges, old_edges = state
        shared = self.memory.ontology.shared_labels
        plan = Plan(self.ns.group_id, utc_now())
        node_tally, edge_tally = WriteTally(), WriteTally()
        for graph, src in zip(graphs, sources, strict=True):
            written: set[str] = set()
            for spec in graph.entities:
                key = keys[(spec.label, spec.name)]
                summary, props, confidence = merge_shared(
                    spec, nodes.get(key), graph.confidence, shared=spec.label in shared
                )
                status = plan_node(
                    plan,
                    nodes,
                    key,
                    spec.label,
                    spec.name,
                    summary=summary,
                    properties=props,
                    confidence=confidence,
                    source=src,
                    invalid_at=spec.invalid_at,
                )
                node_tally.add(status)
            for rel in graph.relationships:
                edge_tally.add(
                    _plan_relationship(self.memory, plan, (nodes, edges), keys, rel, graph, src)
                )
                written.add(
                    stable_uuid(
                        plan.group_id, "edge", keys[rel.source], rel.relation, keys[rel.target]
                    )
                )
            _retire_lacking(plan, graph, keys, nodes, old_edges, written, shared, src)
        return plan, (node_tally, edge_tally)


def _uuids(
    group_id: str, keys: dict[tuple[str, str], str], nodes: dict[str, NodeState]
) -> dict[str, str]:
    """The node uuid of each key a batch writes (a new node's is derived from its key)."""
    return {
        k: nodes[k].uuid if k in nodes else stable_uuid(group_id, "entity", k)
        for k in set(keys.values())
    }


def _plan_relationship(
    memory: GraphClients,
    plan: Plan,
    state: tuple[dict[str, Any], dict[str, Any]],
    keys: dict[tuple[str, str], str],
    rel: Any,
    graph: SubGraph,
    source: str,
) -> str:
    memory.ontology.edge_type(rel.relation)
    if rel.source not in keys or rel.target not in keys:
        raise ValueError(f"edge {rel.relation} names an entity its graph does not write")
    nodes = state[0]
    ends = (keys[rel.source], keys[rel.target])
    props = rel.properties
    memory.ontology.validate_edge(nodes[ends[0]].label, rel.relation, nodes[ends[1]].label, props)
    return plan_edge(
        plan,
        state,
        ends,
        rel.relation,
        fact=rel.fact,
        properties=props,
        confidence=graph.confidence,
        source=source,
        valid_at=graph.valid_at,
    )


def _retire_lacking(
    plan: Plan,
    graph: SubGraph,
    keys: dict[tuple[str, str], str],
    nodes: dict[str, Any],
    old_edges: dict[str, dict[str, tuple[str, str]]],
    written: set[str],
    shared: frozenset[str],
    source: str,
) -> None:
    """Retire the current edges of the item's owned nodes that its new version lacks."""
    for spec in graph.entities:
        if spec.label in shared:
            continue
        node = nodes.get(keys[(spec.label, spec.name)])
        for uuid, ends in old_edges.get(node.uuid if node else "", {}).items():
            if uuid not in written:
                plan_retire(plan, uuid, ends, source, graph.valid_at)


__all__ = ["BulkWriter", "apply_batch", "apply_subgraphs"]
