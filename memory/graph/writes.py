"""One-at-a-time upserts and invalidations (the store's reference write path).

Free functions over the store's clients (`GraphClients`): each reads what is
stored, leaves an unchanged write alone, and otherwise folds the one write into
a `memory.graph.plan.Plan` and commits it, exactly as the batch writer
(`memory.graph.bulk`) does for many items.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.graph.clients import GraphClients
from memory.graph.plan import (
    Plan,
    commit_plan,
    existing_edges,
    existing_nodes,
    plan_edge,
    plan_node,
    plan_retire,
)
from memory.model.keys import entity_key, stable_uuid
from memory.model.namespaces import Namespace
from memory.model.records import WriteResult
from memory.model.time import utc_now


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
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    key = entity_key(group_id, label, name)
    nodes = await existing_nodes(memory, group_id, [key])
    plan = Plan(group_id, utc_now())
    status = plan_node(
        plan,
        nodes,
        key,
        label,
        name,
        summary=summary,
        properties=properties,
        confidence=confidence,
        source=source,
    )
    await commit_plan(memory, plan)
    return WriteResult(status=status, key=key, uuid=nodes[key].uuid)


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
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    nodes = await existing_nodes(memory, group_id, [source_key, target_key])
    for role, key in (("source", source_key), ("target", target_key)):
        if key not in nodes:
            raise ValueError(f"{role} entity {key!r} does not exist in namespace {ns}")
    memory.ontology.validate_edge(
        nodes[source_key].label, relation, nodes[target_key].label, properties or {}
    )
    uuid = stable_uuid(group_id, "edge", source_key, relation, target_key)
    edges = await existing_edges(memory, group_id, [uuid])
    plan = Plan(group_id, utc_now())
    status = plan_edge(
        plan,
        (nodes, edges),
        (source_key, target_key),
        relation,
        fact=fact,
        properties=properties,
        confidence=confidence,
        source=source,
        valid_at=valid_at,
    )
    await commit_plan(memory, plan)
    return WriteResult(status=status, key=uuid, uuid=uuid)


async def invalidate_relationship(
    memory: GraphClients, ns: Namespace, uuid: str, *, at: datetime | None, source: str | None
) -> bool:
    """Close one current edge at `at` (default now); False if there is no such edge."""
    edges = await existing_edges(memory, ns.group_id, [uuid])
    edge = edges.get(uuid)
    if edge is None:
        return False
    if edge.is_current:
        plan = Plan(ns.group_id, utc_now())
        plan_retire(plan, uuid, (edge.source_uuid, edge.target_uuid), source, at)
        await commit_plan(memory, plan)
    return True


__all__ = ["invalidate_relationship", "upsert_entity", "upsert_relationship"]
