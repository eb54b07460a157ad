"""A write plan: what a batch of upserts will change, folded in Python, committed at once.

Every write of nodes and edges (one upsert or a batch of items) reads what is
stored for the keys it touches, folds its upserts into a `Plan` here, and
commits the plan as one transaction with its change-log entry
(`commit_plan`). Properties are stored as Graphiti's `EntityNode.save` /
`EntityEdge.save` store them, so Graphiti's own readers see the same graph.

Edges keep their history (bi-temporal, as Graphiti's are):

* an edge whose content changes is first *archived*: a copy of the old version
  (same endpoints, fact and embedding, a version uuid) is closed at the time of
  the change, and the edge itself becomes valid from then;
* an owned node's edges that its item's new version lacks are *retired*
  (`invalid_at` / `expired_at` set), so the current graph shows only the new
  version while a read `as_of` an earlier time still sees the old one.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import orjson

from memory.backend.changelog import Change
from memory.backend.derived import read_by_ids
from memory.backend.literals import Literal, Vector
from memory.backend.protocol import Statement
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
from memory.model.keys import stable_uuid
from memory.model.records import WriteStatus

CHUNK = 1000  # rows per UNWIND query
_FLAT = (str, int, float, bool)  # edge property values also stored flat, as p_<name>
_EDGES_WITH_ENDS = EDGES_BY_UUID + ", s.uuid AS source_uuid, t.uuid AS target_uuid"
_WRITE_NODES = (
    "UNWIND $rows AS row MERGE (n:Entity {{uuid: row.uuid}}) SET n:{label} SET n = row "
    "SET n.name_embedding = vecf32(row.name_embedding)"
)
# A node new to the graph is created with its label: FalkorDB adds a label to an existing
# node in time that grows with the graph (a 1,000-row batch of new Rule nodes labelled
# after MERGE took 0.06 s into an empty graph, 0.36 s at 20k nodes and 10 s at 100k),
# while MERGE on both labels stays flat. Its uuid is derived from its key, which holds
# the label, so a node another writer created meanwhile is matched, not duplicated.
_CREATE_NODES = (
    "UNWIND $rows AS row MERGE (n:Entity:{label} {{uuid: row.uuid}}) SET n = row "
    "SET n.name_embedding = vecf32(row.name_embedding)"
)
_WRITE_EDGES = (
    "UNWIND $rows AS row "
    "MATCH (s:Entity {uuid: row.source_uuid}) MATCH (t:Entity {uuid: row.target_uuid}) "
    "MERGE (s)-[e:RELATES_TO {uuid: row.uuid}]->(t) SET e = row "
    "SET e.fact_embedding = vecf32(row.fact_embedding)"
)
# The old version of an edge, copied before the edge is rewritten (embedding included).
_ARCHIVE_EDGES = (
    "UNWIND $rows AS row MATCH (s)-[old:RELATES_TO {uuid: row.uuid}]->(t) "
    "CREATE (s)-[a:RELATES_TO]->(t) SET a = properties(old) "
    "SET a.uuid = row.archive, a.invalid_at = coalesce(old.invalid_at, row.at), "
    "a.expired_at = coalesce(old.expired_at, row.at)"
)
_RETIRE_EDGES = (
    "UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
    "SET e.invalid_at = row.at, e.expired_at = row.now, e.last_update_source = row.source"
)


@dataclass
class NodeState:
    """A node as the plan sees it (as the store would read it back)."""

    uuid: str
    label: str
    name: str
    summary: str
    properties: dict[str, Any]
    confidence: float | None
    created_at: datetime | None


@dataclass
class EdgeState:
    """An edge as the plan sees it."""

    uuid: str
    fact: str
    properties: dict[str, Any]
    confidence: float | None
    is_current: bool
    created_at: datetime | None
    valid_at: datetime | None
    updated_at: datetime | None = None
    source_uuid: str = ""
    target_uuid: str = ""


@dataclass
class Plan:
    """What a batch will write: rows keyed by key / uuid (the last write of each wins).

    Attributes:
        group_id: The graph written.
        now: The time stamped on what changes.
        nodes: Node rows by entity key.
        edges: Edge rows by uuid.
        archive: Edges to copy before they are rewritten: uuid -> version uuid.
        retire: Edges to close: uuid -> (source node uuid, target node uuid, provenance,
            the time they stopped holding or None for `now`).
        created: Entity keys of the nodes new to the graph.
    """

    group_id: str
    now: datetime
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    edges: dict[str, dict[str, Any]] = field(default_factory=dict)
    archive: dict[str, str] = field(default_factory=dict)
    retire: dict[str, tuple[str, str, str | None, datetime | None]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges or self.retire)

    @functools.cached_property
    def now_iso(self) -> str:
        """`now` as stored (ISO 8601), made once."""
        return self.now.isoformat()

    def iso(self, when: datetime) -> str:
        """A time as stored: `now_iso` for the plan's own time."""
        return self.now_iso if when is self.now else when.isoformat()

    def change(self) -> Change:
        """The uuids this plan writes, for the change log (edge endpoints included)."""
        nodes = {row["uuid"] for row in self.nodes.values()}
        for row in self.edges.values():
            nodes.update((row["source_uuid"], row["target_uuid"]))
        for source_uuid, target_uuid, _, _ in self.retire.values():
            nodes.update((source_uuid, target_uuid))
        return Change.of(nodes, [*self.edges, *self.archive.values(), *self.retire])


def chunks(rows: list[Any]) -> Iterator[list[Any]]:
    """Split rows into UNWIND-sized chunks."""
    for i in range(0, len(rows), CHUNK):
        yield rows[i : i + CHUNK]


def normal(properties: dict[str, Any] | None) -> dict[str, Any]:
    """Properties as they read back from the store (a JSON round trip)."""
    return normal_json(properties)[0]


def normal_json(properties: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    """Properties as they read back from the store, and their stored JSON (dumped once).

    The canonical JSON of the round-tripped properties is the text it came from.
    """
    text = dumps_properties(properties)
    try:
        value: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:  # what only `json` writes (huge integers, NaN)
        value = json.loads(text)
    return value, text


async def existing_nodes(
    clients: GraphClients, group_id: str, keys: list[str]
) -> dict[str, NodeState]:
    """The stored nodes of these entity keys."""
    query = f"MATCH (n:Entity) WHERE n.entity_key IN $keys RETURN {NODE_FIELDS}"
    found: dict[str, NodeState] = {}
    rows = await read_by_ids(clients.backend, group_id, query, keys, name="keys")
    for e in map(entity_from_row, rows):
        found[e.entity_key] = NodeState(
            e.uuid, e.label, e.name, e.summary, e.properties, e.confidence, e.created_at
        )
    return found


async def existing_edges(
    clients: GraphClients, group_id: str, uuids: list[str]
) -> dict[str, EdgeState]:
    """The stored edges of these uuids."""
    rows = await read_by_ids(clients.backend, group_id, _EDGES_WITH_ENDS, uuids)
    found: dict[str, EdgeState] = {}
    for row in rows:
        ends = (str(row.pop("source_uuid") or ""), str(row.pop("target_uuid") or ""))
        r = relationship_from_row(row)
        found[r.uuid] = EdgeState(
            r.uuid,
            r.fact,
            r.properties,
            r.confidence,
            r.is_current,
            r.created_at,
            r.valid_at,
            r.updated_at,
            *ends,
        )
    return found


async def owned_edges(
    clients: GraphClients, group_id: str, node_uuids: list[str]
) -> dict[str, dict[str, tuple[str, str]]]:
    """The current edges of these nodes: node uuid -> {edge uuid: (source, target uuid)}."""
    rows = await read_by_ids(
        clients.backend,
        group_id,
        "MATCH (n:Entity)-[e:RELATES_TO]-() WHERE n.uuid IN $uuids "
        "AND e.invalid_at IS NULL AND e.expired_at IS NULL "
        "RETURN n.uuid AS owner, e.uuid AS uuid, startNode(e).uuid AS s, endNode(e).uuid AS t",
        node_uuids,
    )
    found: dict[str, dict[str, tuple[str, str]]] = {}
    for r in rows:
        found.setdefault(r["owner"], {})[r["uuid"]] = (r["s"], r["t"])
    return found


def plan_node(
    plan: Plan,
    state: dict[str, NodeState],
    key: str,
    label: str,
    name: str,
    *,
    summary: str,
    properties: dict[str, Any] | None,
    confidence: float | None,
    source: str | None,
    invalid_at: datetime | None = None,
) -> WriteStatus:
    """Fold one node upsert into the plan; return its write status.

    `invalid_at` marks a node whose meaning stopped holding then (stored as the node's
    ``invalid_at``; current reads skip it).
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"entity name must be a non-empty string, got {name!r}")
    check_confidence(confidence)
    current = state.get(key)
    # Stored properties are JSON-normal: equal to them as given means equal once normal.
    if current is not None and (summary, properties or {}, confidence) == (
        current.summary,
        current.properties,
        current.confidence,
    ):
        return "unchanged"
    props, props_json = normal_json(properties)
    display = current.name if current else name.strip()  # the first spelling stays
    if current is not None and (display, summary, props, confidence) == (
        current.name,
        current.summary,
        current.properties,
        current.confidence,
    ):
        return "unchanged"
    created = current.created_at if current and current.created_at else plan.now
    uuid = current.uuid if current else stable_uuid(plan.group_id, "entity", key)
    if current is None:
        plan.created.add(key)
    state[key] = NodeState(uuid, label, display, summary, props, confidence, created)
    plan.nodes[key] = {
        "uuid": uuid,
        "name": display,
        "group_id": plan.group_id,
        "summary": summary,
        "created_at": plan.iso(created),
        "entity_key": key,
        "label": label,
        "props_json": props_json,
        "confidence": confidence,
        "last_update_source": source,
        "updated_at": plan.now_iso,
        "invalid_at": plan.iso(invalid_at) if invalid_at is not None else None,
    }
    return "updated" if current else "created"


def plan_edge(
    plan: Plan,
    state: tuple[dict[str, NodeState], dict[str, EdgeState]],
    ends: tuple[str, str],
    relation: str,
    *,
    fact: str,
    properties: dict[str, Any] | None,
    confidence: float | None,
    source: str | None,
    valid_at: datetime | None = None,
) -> WriteStatus:
    """Fold one edge upsert into the plan; return its write status.

    An edge that exists with other content, or was retired, is archived first and
    valid from now on (or from `valid_at`).
    """
    nodes, edges = state
    source_key, target_key = ends
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError("a relationship needs a non-empty fact text")
    check_confidence(confidence)
    props, props_json = normal_json(properties)
    uuid = stable_uuid(plan.group_id, "edge", source_key, relation, target_key)
    current = edges.get(uuid)
    same = current is not None and (current.fact, current.properties, current.confidence) == (
        fact,
        props,
        confidence,
    )
    if current is not None and current.is_current and same and valid_at in (None, current.valid_at):
        return "unchanged"
    if current is not None and uuid not in plan.edges and uuid not in plan.archive:
        stamp = (current.updated_at or current.valid_at or plan.now).isoformat()
        plan.archive[uuid] = stable_uuid(plan.group_id, "edge-version", uuid, stamp)
    plan.retire.pop(uuid, None)
    created = current.created_at if current and current.created_at else plan.now
    valid = valid_at or plan.now
    source_uuid, target_uuid = nodes[source_key].uuid, nodes[target_key].uuid
    edges[uuid] = EdgeState(
        uuid, fact, props, confidence, True, created, valid, plan.now, source_uuid, target_uuid
    )
    flat = {"p_" + k: v for k, v in props.items() if isinstance(v, _FLAT)}
    plan.edges[uuid] = {
        **flat,
        "source_uuid": source_uuid,
        "target_uuid": target_uuid,
        "uuid": uuid,
        "name": relation,
        "group_id": plan.group_id,
        "fact": fact,
        "episodes": [],
        "created_at": plan.iso(created),
        "expired_at": None,
        "valid_at": plan.iso(valid),
        "invalid_at": None,
        "reference_time": None,
        "props_json": props_json,
        "source_key": source_key,
        "target_key": target_key,
        "confidence": confidence,
        "last_update_source": source,
        "updated_at": plan.now_iso,
    }
    return "updated" if current else "created"


def plan_retire(
    plan: Plan,
    uuid: str,
    ends: tuple[str, str],
    source: str | None,
    at: datetime | None = None,
) -> None:
    """Close a current edge: it held until `at` (default: the plan's time)."""
    if uuid not in plan.edges:
        plan.retire[uuid] = (*ends, source, at)


async def commit_plan(
    clients: GraphClients, plan: Plan, prefetch: EmbeddingPrefetch | None = None
) -> None:
    """Embed what the plan writes (one call per kind) and commit it as one transaction.

    The statements run in order: archive the old versions, write nodes, write
    edges, retire edges; the change-log entry is appended in the same transaction.
    """
    if not plan:
        return
    statements = await plan_statements(clients, plan, prefetch)
    await clients.commit(plan.group_id, statements, plan.change())


async def plan_statements(
    clients: GraphClients,
    plan: Plan,
    prefetch: EmbeddingPrefetch | None = None,
    run: Callable[..., Awaitable[Any]] | None = None,
) -> list[Statement]:
    """Embed what the plan writes (each distinct text once) and return its statements.

    In order: archive the old versions, write nodes, write edges, retire edges.
    `run(fn, *args)` renders them (e.g. in a worker thread); None renders here.
    """
    nodes = list(plan.nodes.values())
    edges = list(plan.edges.values())
    facts = [e["fact"] for e in edges]
    if prefetch is None:
        prefetch = EmbeddingPrefetch(clients.embedder)
        prefetch.start(facts)
    try:
        names = await prefetch.take([n["name"] for n in nodes])
    finally:
        vectors = await prefetch.take(facts)
    if run is None:
        return _render(clients, plan, names, vectors)
    rendered: list[Statement] = await run(_render, clients, plan, names, vectors)
    return rendered


def _render(
    clients: GraphClients, plan: Plan, names: np.ndarray, vectors: np.ndarray
) -> list[Statement]:
    """The plan's statements with their parameters rendered once."""
    nodes = list(plan.nodes.values())
    edges = list(plan.edges.values())
    for row, vector in zip(nodes, Vector.many(names), strict=True):
        row["name_embedding"] = vector
    for row, vector in zip(edges, Vector.many(vectors), strict=True):
        row["fact_embedding"] = vector
    at = plan.now.isoformat()
    archive = [{"uuid": u, "archive": a, "at": at} for u, a in plan.archive.items()]
    statements: list[Statement] = [(_ARCHIVE_EDGES, {"rows": Literal(c)}) for c in chunks(archive)]
    for label in sorted({n["label"] for n in nodes}):
        clients.ontology.check_label(label)  # labels come from the ontology's constants only
        for new in (True, False):
            rows = [
                n for n in nodes if n["label"] == label and (n["entity_key"] in plan.created) is new
            ]
            cypher = (_CREATE_NODES if new else _WRITE_NODES).format(label=label)
            statements += [(cypher, {"rows": Literal(c)}) for c in chunks(rows)]
    statements += [(_WRITE_EDGES, {"rows": Literal(c)}) for c in chunks(edges)]
    retire = [
        {"uuid": u, "at": (when or plan.now).isoformat(), "now": at, "source": source}
        for u, (_, _, source, when) in plan.retire.items()
    ]
    statements += [(_RETIRE_EDGES, {"rows": Literal(c)}) for c in chunks(retire)]
    return statements


__all__ = [
    "CHUNK",
    "EdgeState",
    "NodeState",
    "Plan",
    "chunks",
    "commit_plan",
    "existing_edges",
    "existing_nodes",
    "normal",
    "normal_json",
    "owned_edges",
    "plan_statements",
    "plan_edge",
    "plan_node",
    "plan_retire",
]
