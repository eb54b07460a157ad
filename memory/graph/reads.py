"""Reads of one namespace graph behind `GraphMemory`: entities, names, keys, edges.

Free functions over the backend (`GraphBackend`); the store checks labels and
relations against its ontology and calls them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memory.backend.protocol import GraphBackend
from memory.backend.rows import EDGE_FIELDS, NODE_FIELDS, entity_from_row, relationship_from_row
from memory.model.records import EntityRecord, RelationshipRecord


async def entities(backend: GraphBackend, group_id: str, label: str | None) -> list[EntityRecord]:
    """Return a graph's entities, optionally of one label, sorted by label and name."""
    rows = await backend.query(
        group_id,
        "MATCH (n:Entity) WHERE $label IS NULL OR n.label = $label "
        f"RETURN {NODE_FIELDS} ORDER BY n.label, n.name",
        {"label": label},
        read_only=True,
    )
    return [entity_from_row(r) for r in rows]


async def entity_names(
    backend: GraphBackend, group_id: str, label: str, property: str | None
) -> list[tuple[str, str, Any]]:
    """Return (entity_key, name, value of `property` or None) of every entity of a label."""
    rows = await backend.query(
        group_id,
        "MATCH (n:Entity) WHERE n.label = $label RETURN n.entity_key AS key, n.name AS name, "
        "CASE WHEN $with THEN n.props_json ELSE NULL END AS props",
        {"label": label, "with": property is not None},
        read_only=True,
    )
    return [
        (
            r["key"],
            r["name"],
            json.loads(r["props"] or "{}").get(property) if property is not None else None,
        )
        for r in rows
    ]


async def existing_keys(backend: GraphBackend, group_id: str, keys: Sequence[str]) -> set[str]:
    """Return which of `keys` are entity keys present in the graph (index lookup)."""
    if not keys:
        return set()
    rows = await backend.query(
        group_id,
        "MATCH (n:Entity) WHERE n.entity_key IN $keys RETURN n.entity_key AS key",
        {"keys": list(keys)},
        read_only=True,
    )
    return {r["key"] for r in rows}


async def similar_entities(
    backend: GraphBackend,
    group_id: str,
    vector: list[float],
    *,
    label: str | None,
    threshold: float,
    limit: int,
) -> list[tuple[EntityRecord, float]]:
    """Return entities whose name embedding is close to `vector`, best first."""
    rows = await backend.query(
        group_id,
        "MATCH (n:Entity) WHERE ($label IS NULL OR n.label = $label) "
        "WITH n, (2 - vec.cosineDistance(n.name_embedding, vecf32($vector))) / 2 AS score "
        f"WHERE score >= $threshold RETURN {NODE_FIELDS}, score "
        "ORDER BY score DESC LIMIT $limit",
        {"label": label, "vector": vector, "threshold": threshold, "limit": limit},
        read_only=True,
    )
    return [(entity_from_row(r), float(r["score"])) for r in rows]


async def relationships(
    backend: GraphBackend, group_id: str, relation: str | None, include_invalid: bool
) -> list[RelationshipRecord]:
    """Return a graph's edges (current ones unless `include_invalid`)."""
    rows = await backend.query(
        group_id,
        "MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) "
        "WHERE ($relation IS NULL OR e.name = $relation) AND "
        "($all OR (e.invalid_at IS NULL AND e.expired_at IS NULL)) "
        f"RETURN {EDGE_FIELDS} ORDER BY e.name, s.name, t.name",
        {"relation": relation, "all": include_invalid},
        read_only=True,
    )
    return [relationship_from_row(r) for r in rows]
