"""Batched writes of subgraphs: one read, one embedding call and a few UNWINDs per batch.

`apply_subgraphs` (behind `GraphMemory.write_batch`) has the semantics of applying
each subgraph in turn through `GraphMemory.upsert_entity` / `upsert_relationship`
(deterministic keys and uuids, shared-node merge, unchanged writes left alone,
provenance stamped on what changed), but reads the existing nodes and edges of the
whole batch in one query each, folds the writes in Python, embeds the changed
names and facts in one call and writes them with UNWIND. Properties are stored
exactly as Graphiti's `EntityNode.save` / `EntityEdge.save` store them, so every
reader sees the same graph whichever path wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphiti_core.utils.datetime_utils import utc_now

from memory.backend.literals import Literal, Vector
from memory.backend.rows import (
    EDGES_BY_UUID,
    NODE_FIELDS,
    check_confidence,
    dumps_properties,
    entity_from_row,
    relationship_from_row,
)
from memory.embedders import EmbeddingPrefetch
from memory.graph.clients import GraphClients
from memory.model.batch import SubGraph, WriteTally, merge_shared
from memory.model.keys import entity_key, stable_uuid
from memory.model.namespaces import Namespace, as_namespace

CHUNK = 1000  # rows per UNWIND query


@dataclass
class _Node:
    """A node's state while a batch is folded (as the store would read it back)."""

    uuid: str
    label: str
    name: str
    summary: str
    properties: dict[str, Any]
    confidence: float | None
    created_at: datetime | None


@dataclass
class _Edge:
    uuid: str
    fact: str
    properties: dict[str, Any]
    confidence: float | None
    is_current: bool
    created_at: datetime | None
    valid_at: datetime | None


@dataclass
class _Plan:
    """What a batch will write: rows keyed by key / uuid (the last write of each wins)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = field(default_factory=dict)


def chunks(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Split rows into UNWIND-sized chunks."""
    for i in range(0, len(rows), CHUNK):
        yield rows[i : i + CHUNK]


def _normal(properties: dict[str, Any] | None) -> dict[str, Any]:
    """Properties as they read back from the store (a JSON round trip)."""
    normal: dict[str, Any] = json.loads(dumps_properties(properties))
    return normal


async def _read(
    memory: GraphClients, group_id: str, cypher: str, name: str, values: list[str]
) -> list[dict[str, Any]]:
    """Run a read query with `values` as the list parameter `name`, a chunk at a time."""
    rows: list[dict[str, Any]] = []
    for i in range(0, len(values), CHUNK):
        chunk = {name: values[i : i + CHUNK]}
        rows += await memory.backend.query(group_id, cypher, chunk, read_only=True)
    return rows


async def _existing_nodes(memory: GraphClients, group_id: str, keys: list[str]) -> dict[str, _Node]:
    query = f"MATCH (n:Entity) WHERE n.entity_key IN $keys RETURN {NODE_FIELDS}"
    found: dict[str, _Node] = {}
    for e in map(entity_from_row, await _read(memory, group_id, query, "keys", keys)):
        found[e.entity_key] = _Node(
            e.uuid, e.label, e.name, e.summary, e.properties, e.confidence, e.created_at
        )
    return found


async def _existing_edges(
    memory: GraphClients, group_id: str, uuids: list[str]
) -> dict[str, _Edge]:
    found: dict[str, _Edge] = {}
    for r in map(
        relationship_from_row, await _read(memory, group_id, EDGES_BY_UUID, "uuids", uuids)
    ):
        current = r.invalid_at is None and r.expired_at is None
        found[r.uuid] = _Edge(
            r.uuid, r.fact, r.properties, r.confidence, current, r.created_at, r.valid_at
        )
    return found


def _plan_node(
    memory: GraphClients,
    state: dict[str, _Node],
    plan: _Plan,
    key: str,
    spec: Any,
    graph: SubGraph,
    source: str,
    now: datetime,
    group_id: str,
) -> str:
    """Fold one node upsert into the batch state; return its write status."""
    if not isinstance(spec.name, str) or not spec.name.strip():
        raise ValueError(f"entity name must be a non-empty string, got {spec.name!r}")
    current = state.get(key)
    shared = spec.label in memory.ontology.shared_labels
    summary, props, confidence = merge_shared(spec, current, graph.confidence, shared=shared)
    check_confidence(confidence)
    props = _normal(props)
    display = current.name if current else spec.name.strip()
    if current is not None and (
        (display, summary, props, current.confidence)
        == (current.name, current.summary, current.properties, confidence)
    ):
        return "unchanged"
    node = _Node(
        current.uuid if current else stable_uuid(group_id, "entity", key),
        spec.label,
        display,
        summary,
        props,
        confidence,
        current.created_at if current and current.created_at else now,
    )
    state[key] = node
    plan.nodes[key] = {
        "uuid": node.uuid,
        "name": display,
        "group_id": group_id,
        "summary": summary,
        "created_at": node.created_at.isoformat() if node.created_at else None,
        "entity_key": key,
        "label": spec.label,
        "props_json": dumps_properties(props),
        "confidence": confidence,
        "last_update_source": source,
        "updated_at": now.isoformat(),
    }
    return "updated" if current else "created"


def _plan_edge(
    memory: GraphClients,
    state: tuple[dict[str, _Node], dict[str, _Edge]],
    plan: _Plan,
    ends: tuple[str, str],
    rel: Any,
    graph: SubGraph,
    source: str,
    now: datetime,
    group_id: str,
) -> str:
    """Fold one edge upsert into the batch state; return its write status."""
    nodes, edges = state
    source_key, target_key = ends
    if not isinstance(rel.fact, str) or not rel.fact.strip():
        raise ValueError("a relationship needs a non-empty fact text")
    check_confidence(graph.confidence)
    props = _normal(rel.properties)
    memory.ontology.validate_edge(
        nodes[source_key].label, rel.relation, nodes[target_key].label, props
    )
    uuid = stable_uuid(group_id, "edge", source_key, rel.relation, target_key)
    current = edges.get(uuid)
    if current is not None and current.is_current:
        if (current.fact, current.properties, current.confidence) == (
            rel.fact,
            props,
            graph.confidence,
        ):
            return "unchanged"
    edge = _Edge(
        uuid,
        rel.fact,
        props,
        graph.confidence,
        True,
        current.created_at if current and current.created_at else now,
        current.valid_at if current else now,
    )
    edges[uuid] = edge
    flat = {f"p_{k}": v for k, v in props.items() if isinstance(v, str | int | float | bool)}
    plan.edges[uuid] = {
        **flat,
        "source_uuid": nodes[source_key].uuid,
        "target_uuid": nodes[target_key].uuid,
        "uuid": uuid,
        "name": rel.relation,
        "group_id": group_id,
        "fact": rel.fact,
        "episodes": [],
        "created_at": edge.created_at.isoformat() if edge.created_at else None,
        "expired_at": None,
        "valid_at": edge.valid_at.isoformat() if edge.valid_at else None,
        "invalid_at": None,
        "reference_time": None,
        "props_json": dumps_properties(props),
        "source_key": source_key,
        "target_key": target_key,
        "confidence": graph.confidence,
        "last_update_source": source,
        "updated_at": now.isoformat(),
    }
    return "updated" if current else "created"


async def _write(
    memory: GraphClients, group_id: str, plan: _Plan, prefetch: EmbeddingPrefetch | None
) -> None:
    """Embed what changed in one call per kind and write it with UNWIND.

    The facts are embedded (in a worker thread) while the nodes are written, unless
    a prefetch embedded them already.
    """
    nodes = list(plan.nodes.values())
    edges = list(plan.edges.values())
    facts = [e["fact"] for e in edges]
    if prefetch is None:
        prefetch = EmbeddingPrefetch(memory.embedder)
        prefetch.start(facts)
    try:
        vectors = await prefetch.take([n["name"] for n in nodes])
        for row, vector in zip(nodes, vectors, strict=True):
            row["name_embedding"] = Vector(vector)
        for label in sorted({n["label"] for n in nodes}):
            memory.ontology.check_label(label)  # labels come from the ontology's constants only
            of_label = [n for n in nodes if n["label"] == label]
            for chunk in chunks(of_label):
                await memory.backend.query(
                    group_id,
                    "UNWIND $rows AS row MERGE (n:Entity {uuid: row.uuid}) "
                    f"SET n:{label} SET n = row "
                    "SET n.name_embedding = vecf32(row.name_embedding)",
                    {"rows": Literal(chunk)},
                )
    finally:
        vectors = await prefetch.take(facts)
    for row, vector in zip(edges, vectors, strict=True):
        row["fact_embedding"] = Vector(vector)
    for chunk in chunks(edges):
        await memory.backend.query(
            group_id,
            "UNWIND $rows AS row "
            "MATCH (s:Entity {uuid: row.source_uuid}) MATCH (t:Entity {uuid: row.target_uuid}) "
            "MERGE (s)-[e:RELATES_TO {uuid: row.uuid}]->(t) SET e = row "
            "SET e.fact_embedding = vecf32(row.fact_embedding)",
            {"rows": Literal(chunk)},
        )


async def apply_subgraphs(
    memory: GraphClients,
    namespace: Namespace | str,
    graphs: Sequence[SubGraph],
    *,
    source: str | Sequence[str],
    prefetch: EmbeddingPrefetch | None = None,
) -> tuple[WriteTally, WriteTally]:
    """Upsert many items' nodes and edges in a few queries; return (node tally, edge tally).

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
    node_tally, edge_tally = WriteTally(), WriteTally()
    keys = {
        (spec.label, spec.name): entity_key(
            group_id, memory.ontology.check_label(spec.label), spec.name
        )
        for graph in graphs
        for spec in graph.entities
    }
    nodes = await _existing_nodes(memory, group_id, sorted(set(keys.values())))
    edge_ids = {
        stable_uuid(group_id, "edge", keys[r.source], r.relation, keys[r.target])
        for graph in graphs
        for r in graph.relationships
        if r.source in keys and r.target in keys
    }
    edges = await _existing_edges(memory, group_id, sorted(edge_ids))
    plan, now = _Plan(), utc_now()
    for graph, src in zip(graphs, sources, strict=True):
        for spec in graph.entities:
            key = keys[(spec.label, spec.name)]
            node_tally.add(_plan_node(memory, nodes, plan, key, spec, graph, src, now, group_id))
        for rel in graph.relationships:
            memory.ontology.edge_type(rel.relation)
            if rel.source not in keys or rel.target not in keys:
                raise ValueError(f"edge {rel.relation} names an entity its graph does not write")
            ends = (keys[rel.source], keys[rel.target])
            status = _plan_edge(memory, (nodes, edges), plan, ends, rel, graph, src, now, group_id)
            edge_tally.add(status)
    if plan.nodes or plan.edges:
        await _write(memory, group_id, plan, prefetch)
        await memory.wrote(ns)
    return node_tally, edge_tally
