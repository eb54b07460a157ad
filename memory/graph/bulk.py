"""Batched writes of many items' subgraphs: one read per kind, one embedding call, one commit.

`apply_subgraphs` has the semantics of upserting each item's nodes then edges in
turn (deterministic keys and uuids, shared-node merge, unchanged writes left
alone, provenance stamped on what changed), but reads the existing nodes and
edges of the whole batch in one query each, folds the writes into one
`memory.graph.plan.Plan` and commits it as one transaction.

An item's *owned* nodes (node types the ontology does not mark as shared, such
as a rule) are replaced by the item's new version: their current edges that the
new version lacks are retired, kept for reads `as_of` an earlier time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory.embedders import EmbeddingPrefetch
from memory.graph.clients import GraphClients
from memory.graph.plan import (
    Plan,
    commit_plan,
    existing_edges,
    existing_nodes,
    owned_edges,
    plan_edge,
    plan_node,
    plan_retire,
)
from memory.model.batch import SubGraph, WriteTally, merge_shared
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

    Args:
        memory: The store's clients.
        namespace: Where to write.
        graphs: Subgraphs (e.g. `memory.underwriting.rulebook.rule_graph`), applied in order.
        source: Provenance stamped on what each graph changes: one for all, or one per graph.
        prefetch: Embeddings started ahead of time (`EmbeddingPrefetch`); None embeds here.

    Raises:
        ValueError: An unknown label or relation, an empty name or fact, a bad
            confidence or property value (nothing is written then).
    """
    sources = [source] * len(graphs) if isinstance(source, str) else list(source)
    if len(sources) != len(graphs):
        raise ValueError("give one source for all graphs or one per graph")
    ns = as_namespace(namespace)
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    keys = {
        (spec.label, spec.name): entity_key(
            group_id, memory.ontology.check_label(spec.label), spec.name
        )
        for graph in graphs
        for spec in graph.entities
    }
    nodes = await existing_nodes(memory, group_id, sorted(set(keys.values())))
    edge_ids = {
        stable_uuid(group_id, "edge", keys[r.source], r.relation, keys[r.target])
        for graph in graphs
        for r in graph.relationships
        if r.source in keys and r.target in keys
    }
    edges = await existing_edges(memory, group_id, sorted(edge_ids))
    shared = memory.ontology.shared_labels
    owned = {keys[(s.label, s.name)] for g in graphs for s in g.entities if s.label not in shared}
    old_edges = await owned_edges(memory, group_id, [nodes[k].uuid for k in owned if k in nodes])
    plan = Plan(group_id, utc_now())
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
            )
            node_tally.add(status)
        for rel in graph.relationships:
            edge_tally.add(_plan_relationship(memory, plan, (nodes, edges), keys, rel, graph, src))
            written.add(
                stable_uuid(group_id, "edge", keys[rel.source], rel.relation, keys[rel.target])
            )
        _retire_lacking(plan, graph, keys, nodes, old_edges, written, shared, src)
    await commit_plan(memory, plan, prefetch)
    return node_tally, edge_tally


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
                plan_retire(plan, uuid, ends, source)


__all__ = ["apply_subgraphs"]
