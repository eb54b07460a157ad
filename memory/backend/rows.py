"""Reading graph rows into records: the fields the store selects and their parsing."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from memory.model.records import EntityRecord, RelationshipRecord

if TYPE_CHECKING:
    from memory.backend.protocol import GraphBackend

NODE_FIELDS = """n.uuid AS uuid, n.entity_key AS entity_key, n.label AS label, n.name AS name,
    n.summary AS summary, n.props_json AS props_json, n.confidence AS confidence,
    n.last_update_source AS last_update_source, n.created_at AS created_at,
    n.updated_at AS updated_at"""

EDGE_FIELDS = """e.uuid AS uuid, e.name AS relation, s.entity_key AS source_key,
    s.name AS source_name, s.label AS source_label, t.entity_key AS target_key,
    t.name AS target_name, t.label AS target_label, e.fact AS fact,
    e.props_json AS props_json, e.confidence AS confidence,
    e.last_update_source AS last_update_source, e.created_at AS created_at,
    e.updated_at AS updated_at, e.valid_at AS valid_at, e.invalid_at AS invalid_at,
    e.expired_at AS expired_at"""
# Edges by uuid through the edge index. `MATCH (s:Entity)-[e]->(t:Entity) WHERE e.uuid IN
# ...` plans as a scan of every Entity node; startNode / endNode avoid it.
EDGES_BY_UUID = (
    "MATCH ()-[e:RELATES_TO]->() WHERE e.uuid IN $uuids "
    f"WITH e, startNode(e) AS s, endNode(e) AS t RETURN {EDGE_FIELDS}"
)


def parse_time(value: Any) -> datetime | None:
    """Parse a stored ISO time (None for none)."""
    if value in (None, ""):
        return None
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


_ORJSON = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME  # as json.dumps(default=str) writes them
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


def dumps_properties(properties: dict[str, Any] | None) -> str:
    """Serialise properties canonically (sorted keys) for storage and comparison.

    orjson (5-10x faster on a bulk load's rows); what it cannot write (integers
    beyond 64 bits) goes through `json`. Readers parse it: the spacing is no contract.
    """
    try:
        return orjson.dumps(properties or {}, default=str, option=_ORJSON).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(properties or {}, sort_keys=True, default=str)


def check_confidence(confidence: float | None) -> None:
    """Raise ValueError unless the confidence is None or within [0, 1]."""
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")


def entity_from_row(row: dict[str, Any]) -> EntityRecord:
    """Build an `EntityRecord` from a row selected with the store's node fields."""
    return EntityRecord(
        uuid=row["uuid"],
        entity_key=row["entity_key"],
        label=row["label"],
        name=row["name"],
        summary=row.get("summary") or "",
        properties=json.loads(row.get("props_json") or "{}"),
        confidence=row.get("confidence"),
        last_update_source=row.get("last_update_source"),
        created_at=parse_time(row.get("created_at")),
        updated_at=parse_time(row.get("updated_at")),
    )


def relationship_from_row(row: dict[str, Any]) -> RelationshipRecord:
    """Build a `RelationshipRecord` from a row selected with `EDGE_FIELDS`."""
    values = dict(row)
    values["properties"] = json.loads(values.pop("props_json") or "{}")
    for key in ("created_at", "updated_at", "valid_at", "invalid_at", "expired_at"):
        values[key] = parse_time(values.get(key))
    return RelationshipRecord(**values)


async def read_entity(backend: GraphBackend, group_id: str, key: str) -> EntityRecord | None:
    """Return the entity with this key in one graph, or None."""
    rows = await backend.query(
        group_id,
        f"MATCH (n:Entity {{entity_key: $key}}) RETURN {NODE_FIELDS}",
        {"key": key},
        read_only=True,
    )
    return entity_from_row(rows[0]) if rows else None


async def read_relationship(
    backend: GraphBackend, group_id: str, uuid: str
) -> RelationshipRecord | None:
    """Return the edge with this uuid in one graph, or None."""
    rows = await backend.query(
        group_id,
        f"MATCH (s:Entity)-[e:RELATES_TO {{uuid: $uuid}}]->(t:Entity) RETURN {EDGE_FIELDS}",
        {"uuid": uuid},
        read_only=True,
    )
    return relationship_from_row(rows[0]) if rows else None
