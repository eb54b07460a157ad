"""Export, import and statistics of one namespace.

An export names entities by (label, name), never by namespace-specific ids,
so export -> import into another (empty) namespace -> export gives the same
document apart from its `namespace` field.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memory.backend.protocol import GraphBackend
from memory.graph.clients import GraphClients
from memory.graph.plan import NodeState, Plan, commit_plan, plan_edge, plan_node
from memory.model.batch import SourceItem
from memory.model.keys import normalise_name, stable_uuid
from memory.model.namespaces import Namespace
from memory.model.ontology import OntologyDefinition
from memory.model.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SourceRecord,
    WriteStatus,
)
from memory.model.time import utc_now

FORMAT = "athena-memory/v1"


class Readable(Protocol):
    """What export reads of a graph store (`GraphReader` is one)."""

    ontology: OntologyDefinition

    @property
    def backend(self) -> GraphBackend:
        """The graph database."""
        ...

    def entity_key(self, namespace: Namespace, label: str, name: str) -> str:
        """The key of an entity."""
        ...

    async def entities(self, namespace: Namespace, label: str | None = None) -> list[EntityRecord]:
        """Every entity of a namespace."""
        ...

    async def relationships(
        self, namespace: Namespace, *, relation: str | None = None, include_invalid: bool = False
    ) -> list[RelationshipRecord]:
        """Every edge of a namespace."""
        ...

    async def sources(
        self, namespace: Namespace, *, source_id: str | None = None
    ) -> list[SourceRecord]:
        """Every source episode of a namespace."""
        ...

    async def stats(self, namespace: Namespace) -> GraphStats:
        """Counts of a namespace."""
        ...


class Store(Readable, Protocol):
    """What import writes through (`GraphMemory` is one)."""

    @property
    def clients(self) -> GraphClients:
        """What writes are given (the store's commit path among them)."""
        ...

    async def add_sources(
        self, namespace: Namespace, items: Sequence[SourceItem]
    ) -> list[WriteStatus]:
        """Store source episodes."""
        ...


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _parse(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


async def export_namespace(memory: Readable, ns: Namespace) -> dict[str, Any]:
    """Return every entity, current and invalidated edge, and source of a namespace."""
    entities = await memory.entities(ns)
    ref = {e.entity_key: {"label": e.label, "name": e.name} for e in entities}
    relationships = await memory.relationships(ns, include_invalid=True)
    sources = await memory.sources(ns)
    return {
        "format": FORMAT,
        "namespace": str(ns),
        "ontology": memory.ontology.name,
        "entities": sorted(
            (
                {
                    "label": e.label,
                    "name": e.name,
                    "summary": e.summary,
                    "properties": e.properties,
                    "confidence": e.confidence,
                    "last_update_source": e.last_update_source,
                    "created_at": _iso(e.created_at),
                    "updated_at": _iso(e.updated_at),
                }
                for e in entities
            ),
            key=lambda d: (d["label"], normalise_name(d["name"])),
        ),
        "relationships": sorted(
            (
                {
                    "source": ref[r.source_key],
                    "relation": r.relation,
                    "target": ref[r.target_key],
                    "fact": r.fact,
                    "properties": r.properties,
                    "confidence": r.confidence,
                    "last_update_source": r.last_update_source,
                    "created_at": _iso(r.created_at),
                    "updated_at": _iso(r.updated_at),
                    "valid_at": _iso(r.valid_at),
                    "invalid_at": _iso(r.invalid_at),
                    "expired_at": _iso(r.expired_at),
                }
                for r in relationships
            ),
            key=lambda d: (
                d["relation"],
                d["source"]["label"],
                normalise_name(d["source"]["name"]),
                d["target"]["label"],
                normalise_name(d["target"]["name"]),
                d["valid_at"] or "",
            ),
        ),
        "sources": [
            {
                "source_id": s.source_id,
                "content": s.content,
                "description": s.description,
                "created_at": _iso(s.created_at),
                "mentions": sorted(
                    (ref[k] for k in s.mentions if k in ref),
                    key=lambda d: (d["label"], normalise_name(d["name"])),
                ),
            }
            for s in sources
        ],
    }


def _check_document(document: Any) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(
            f"not an Athena Memory export: expected a JSON object with format {FORMAT}"
        )
    for part in ("entities", "relationships", "sources"):
        if not isinstance(document.get(part), list):
            raise ValueError(f"export document is missing its {part!r} list")


async def import_namespace(
    memory: Store, ns: Namespace, document: dict[str, Any]
) -> dict[str, int]:
    """Write an export document into an empty namespace, keeping its provenance and times.

    The graph is written in one commit (then the sources in another): every entity,
    every edge (the old versions of an edge beside its current one), their times.
    """
    _check_document(document)
    stats = await memory.stats(ns)
    if sum(stats.nodes_by_label.values()) or stats.sources:
        raise ValueError(f"namespace {ns} is not empty; clear it or import elsewhere")
    for item in document["entities"]:
        memory.ontology.check_label(item["label"])
    for item in document["relationships"]:
        memory.ontology.edge_type(item["relation"])
    clients = memory.clients
    await clients.backend.ensure_indices(ns.group_id)
    plan = Plan(ns.group_id, utc_now())
    nodes: dict[str, NodeState] = {}
    for item in document["entities"]:
        key = memory.entity_key(ns, item["label"], item["name"])
        plan_node(
            plan,
            nodes,
            key,
            item["label"],
            item["name"],
            summary=item.get("summary", ""),
            properties=item.get("properties"),
            confidence=item.get("confidence"),
            source=item.get("last_update_source"),
        )
        _keep_times(plan.nodes[key], item, ("created_at", "updated_at"))
    for item in document["relationships"]:
        _plan_imported_edge(memory, ns, plan, nodes, item)
    await commit_plan(clients, plan)
    items = [
        SourceItem(
            item["source_id"],
            item["content"],
            item.get("description", ""),
            tuple(memory.entity_key(ns, m["label"], m["name"]) for m in item.get("mentions", [])),
            _parse(item.get("created_at")),
        )
        for item in document["sources"]
    ]
    await memory.add_sources(ns, items)
    return {
        "entities": len(document["entities"]),
        "relationships": len(document["relationships"]),
        "sources": len(document["sources"]),
    }


def _keep_times(row: dict[str, Any], item: dict[str, Any], names: Sequence[str]) -> None:
    for name in names:
        if item.get(name):
            row[name] = item[name]


def _plan_imported_edge(
    memory: Store, ns: Namespace, plan: Plan, nodes: dict[str, NodeState], item: dict[str, Any]
) -> None:
    """Plan one exported edge; an old version gets a version uuid beside the current one."""
    ends = tuple(
        memory.entity_key(ns, item[end]["label"], item[end]["name"]) for end in ("source", "target")
    )
    for key in ends:
        if key not in nodes:
            raise ValueError(f"export edge names an entity it does not list: {key!r}")
    memory.ontology.validate_edge(
        nodes[ends[0]].label, item["relation"], nodes[ends[1]].label, item.get("properties") or {}
    )
    uuid = stable_uuid(ns.group_id, "edge", ends[0], item["relation"], ends[1])
    previous = plan.edges.pop(uuid, None)  # another version of the same edge, planned before
    plan_edge(
        plan,
        (nodes, {}),
        (ends[0], ends[1]),
        item["relation"],
        fact=item["fact"],
        properties=item.get("properties"),
        confidence=item.get("confidence"),
        source=item.get("last_update_source"),
        valid_at=_parse(item.get("valid_at")),
    )
    row = plan.edges.pop(uuid)
    if item.get("invalid_at") or item.get("expired_at"):  # an old version
        version = f"{item.get('valid_at')}|{item.get('invalid_at')}"
        row["uuid"] = stable_uuid(ns.group_id, "edge-version", uuid, version)
    _keep_times(row, item, ("created_at", "updated_at", "invalid_at", "expired_at"))
    for planned in (previous, row):
        if planned is not None:
            plan.edges[planned["uuid"]] = planned


async def stats(backend: GraphBackend, ns: Namespace) -> GraphStats:
    """Count a namespace's nodes by label, edges by relation and validity, and sources."""
    group_id = ns.group_id
    if not await backend.has_graph(group_id):
        return GraphStats(
            namespace=str(ns),
            nodes_by_label={},
            edges_by_relation={},
            invalidated_edges=0,
            sources=0,
        )
    nodes = await backend.query(
        group_id, "MATCH (n:Entity) RETURN n.label AS label, count(n) AS c", read_only=True
    )
    edges = await backend.query(
        group_id,
        "MATCH ()-[e:RELATES_TO]->() RETURN e.name AS relation, "
        "(e.invalid_at IS NULL AND e.expired_at IS NULL) AS current, count(e) AS c",
        read_only=True,
    )
    episodes = await backend.query(
        group_id, "MATCH (ep:Episodic) RETURN count(ep) AS c", read_only=True
    )
    return GraphStats(
        namespace=str(ns),
        nodes_by_label={r["label"]: r["c"] for r in nodes},
        edges_by_relation={r["relation"]: r["c"] for r in edges if r["current"]},
        invalidated_edges=sum(r["c"] for r in edges if not r["current"]),
        sources=episodes[0]["c"] if episodes else 0,
    )
