"""Export, import and statistics of one namespace.

An export names entities by (label, name), never by namespace-specific ids,
so export -> import into another (empty) namespace -> export gives the same
document apart from its `namespace` field.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from memory.backend.protocol import GraphBackend
from memory.model.keys import normalise_name
from memory.model.namespaces import Namespace
from memory.model.ontology import OntologyDefinition
from memory.model.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SourceRecord,
    WriteResult,
)

FORMAT = "athena-memory/v1"


class Store(Protocol):
    """What export and import use of a graph store (`GraphMemory` is one)."""

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

    async def upsert_entity(
        self,
        namespace: Namespace,
        label: str,
        name: str,
        *,
        summary: str = "",
        properties: dict[str, Any] | None = None,
        source: str | None = None,
        confidence: float | None = None,
    ) -> WriteResult:
        """Create or update an entity."""
        ...

    async def upsert_relationship(
        self,
        namespace: Namespace,
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
        """Create or update an edge."""
        ...

    async def add_source(
        self,
        namespace: Namespace,
        text: str,
        *,
        source_id: str,
        description: str = "",
        mentions: Iterable[str] = (),
        created_at: datetime | None = None,
    ) -> WriteResult:
        """Store a source episode."""
        ...


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _parse(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


async def export_namespace(memory: Store, ns: Namespace) -> dict[str, Any]:
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
    """Write an export document into an empty namespace, keeping its provenance and times."""
    _check_document(document)
    stats = await memory.stats(ns)
    if sum(stats.nodes_by_label.values()) or stats.sources:
        raise ValueError(f"namespace {ns} is not empty; clear it or import elsewhere")
    for item in document["entities"]:
        memory.ontology.check_label(item["label"])
    for item in document["relationships"]:
        memory.ontology.edge_type(item["relation"])
    group_id = ns.group_id
    for item in document["entities"]:
        written = await memory.upsert_entity(
            ns,
            item["label"],
            item["name"],
            summary=item.get("summary", ""),
            properties=item.get("properties"),
            source=item.get("last_update_source"),
            confidence=item.get("confidence"),
        )
        await memory.backend.query(
            group_id,
            "MATCH (n:Entity {uuid: $uuid}) SET n.created_at = $created, n.updated_at = $updated",
            {
                "uuid": written.uuid,
                "created": item.get("created_at"),
                "updated": item.get("updated_at"),
            },
        )
    for item in document["relationships"]:
        source = memory.entity_key(ns, item["source"]["label"], item["source"]["name"])
        target = memory.entity_key(ns, item["target"]["label"], item["target"]["name"])
        written = await memory.upsert_relationship(
            ns,
            source,
            item["relation"],
            target,
            fact=item["fact"],
            properties=item.get("properties"),
            source=item.get("last_update_source"),
            confidence=item.get("confidence"),
            valid_at=_parse(item.get("valid_at")),
        )
        await memory.backend.query(
            group_id,
            "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() SET e.created_at = $created, "
            "e.updated_at = $updated, e.invalid_at = $invalid, e.expired_at = $expired",
            {
                "uuid": written.uuid,
                "created": item.get("created_at"),
                "updated": item.get("updated_at"),
                "invalid": item.get("invalid_at"),
                "expired": item.get("expired_at"),
            },
        )
    for item in document["sources"]:
        mentions = [memory.entity_key(ns, m["label"], m["name"]) for m in item.get("mentions", [])]
        await memory.add_source(
            ns,
            item["content"],
            source_id=item["source_id"],
            description=item.get("description", ""),
            mentions=mentions,
            created_at=_parse(item.get("created_at")),
        )
    return {
        "entities": len(document["entities"]),
        "relationships": len(document["relationships"]),
        "sources": len(document["sources"]),
    }


async def stats(backend: GraphBackend, ns: Namespace) -> GraphStats:
    """Count a namespace's nodes by label, edges by relation and validity, and sources."""
    group_id = ns.group_id
    if group_id not in await backend.list_graphs():
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
