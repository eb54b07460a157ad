"""One-at-a-time upserts of entities and relationships (the store's reference write path).

Free functions over the store's clients (`GraphClients`): each reads what is
stored, leaves an unchanged write alone, and otherwise saves Graphiti's
`EntityNode` / `EntityEdge` with a deterministic uuid, the properties as JSON
(edges also flatten scalar properties to ``p_*`` for indexes) and provenance.
Bulk writers (`memory.graph.bulk`) write the same properties many rows at a time.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.utils.datetime_utils import utc_now

from memory.backend.rows import (
    check_confidence,
    dumps_properties,
    read_entity,
    read_relationship,
)
from memory.embedders import embed_async
from memory.graph.clients import GraphClients
from memory.model.keys import entity_key, stable_uuid
from memory.model.namespaces import Namespace
from memory.model.records import WriteResult


async def upsert_entity(
    memory: GraphClients,
    ns: Namespace,
    label: str,
    name: str,
    *,
    summary: str,
    properties: dict[str, Any] | None,
    source: str | None,
    confidence: float | None,
) -> WriteResult:
    """Create or update one entity (see `GraphMemory.upsert_entity`)."""
    memory.ontology.check_label(label)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"entity name must be a non-empty string, got {name!r}")
    check_confidence(confidence)
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    key = entity_key(group_id, label, name)
    existing = await read_entity(memory.backend, group_id, key)
    # The first spelling of a name stays its display name.
    display = existing.name if existing else name.strip()
    new = {
        "name": display,
        "summary": summary,
        "properties": properties or {},
        "confidence": confidence,
    }
    if existing is not None:
        old = {
            "name": existing.name,
            "summary": existing.summary,
            "properties": existing.properties,
            "confidence": existing.confidence,
        }
        if json.loads(dumps_properties(new)) == json.loads(dumps_properties(old)):
            return WriteResult(status="unchanged", key=key, uuid=existing.uuid)
    now = utc_now()
    [embedding] = await embed_async(memory.embedder, [display])
    node = EntityNode(
        uuid=existing.uuid if existing else stable_uuid(group_id, "entity", key),
        name=display,
        group_id=group_id,
        labels=[label],
        summary=summary,
        name_embedding=embedding,
        created_at=existing.created_at if existing and existing.created_at else now,
        attributes={
            "entity_key": key,
            "label": label,
            "props_json": dumps_properties(properties),
            "confidence": confidence,
            "last_update_source": source,
            "updated_at": now.isoformat(),
        },
    )
    await memory.backend.call_with_retry(lambda: node.save(memory.backend.driver(group_id)))
    await memory.wrote(ns)
    return WriteResult(status="updated" if existing else "created", key=key, uuid=node.uuid)


async def upsert_relationship(
    memory: GraphClients,
    ns: Namespace,
    source_key: str,
    relation: str,
    target_key: str,
    *,
    fact: str,
    properties: dict[str, Any] | None,
    source: str | None,
    confidence: float | None,
    valid_at: datetime | None,
) -> WriteResult:
    """Create or update one edge (see `GraphMemory.upsert_relationship`)."""
    memory.ontology.edge_type(relation)
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError("a relationship needs a non-empty fact text")
    check_confidence(confidence)
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    ends = {}
    for role, key in (("source", source_key), ("target", target_key)):
        node = await read_entity(memory.backend, group_id, key)
        if node is None:
            raise ValueError(f"{role} entity {key!r} does not exist in namespace {ns}")
        ends[role] = node
    props = json.loads(dumps_properties(properties))
    memory.ontology.validate_edge(ends["source"].label, relation, ends["target"].label, props)
    edge_uuid = stable_uuid(group_id, "edge", source_key, relation, target_key)
    existing = await read_relationship(memory.backend, group_id, edge_uuid)
    if (
        existing is not None
        and (existing.fact, existing.properties, existing.confidence) == (fact, props, confidence)
        and existing.is_current
    ):
        return WriteResult(status="unchanged", key=edge_uuid, uuid=edge_uuid)
    now = utc_now()
    [embedding] = await embed_async(memory.embedder, [fact])
    flat = {f"p_{k}": v for k, v in props.items() if isinstance(v, str | int | float | bool)}
    edge = EntityEdge(
        uuid=edge_uuid,
        source_node_uuid=ends["source"].uuid,
        target_node_uuid=ends["target"].uuid,
        name=relation,
        fact=fact,
        fact_embedding=embedding,
        group_id=group_id,
        episodes=[],
        created_at=existing.created_at if existing and existing.created_at else now,
        valid_at=valid_at or (existing.valid_at if existing else now),
        attributes={
            **flat,
            "props_json": dumps_properties(props),
            "source_key": source_key,
            "target_key": target_key,
            "confidence": confidence,
            "last_update_source": source,
            "updated_at": now.isoformat(),
        },
    )
    await memory.backend.call_with_retry(lambda: edge.save(memory.backend.driver(group_id)))
    await memory.wrote(ns)
    return WriteResult(status="updated" if existing else "created", key=edge_uuid, uuid=edge_uuid)
