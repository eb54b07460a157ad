"""Batched writes of source episodes (raw text with provenance, MENTIONS links).

`add_sources` (behind `GraphMemory.add_sources`) writes what `GraphMemory.add_source`
would for each item (same uuids, unchanged texts left alone, created_at kept) with one
read and two UNWINDs per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphiti_core.utils.datetime_utils import utc_now

from memory.backend.literals import Literal
from memory.graph.bulk import chunks
from memory.graph.clients import GraphClients
from memory.model.batch import SourceItem
from memory.model.keys import stable_uuid
from memory.model.namespaces import Namespace, as_namespace


async def _old_sources(
    memory: GraphClients, group_id: str, ids: list[str]
) -> dict[str, tuple[str, str, set[str], str | None]]:
    rows = await memory.backend.query(
        group_id,
        "MATCH (ep:Episodic) WHERE ep.name IN $ids "
        "OPTIONAL MATCH (ep)-[:MENTIONS]->(n:Entity) WITH ep, collect(n.entity_key) AS keys "
        "RETURN ep.name AS id, ep.content AS content, ep.source_description AS description, "
        "ep.created_at AS created_at, keys",
        {"ids": ids},
        read_only=True,
    )
    return {
        r["id"]: (r["content"] or "", r["description"] or "", set(r["keys"]), r["created_at"])
        for r in rows
    }


async def add_sources(
    memory: GraphClients, namespace: Namespace | str, items: Sequence[SourceItem]
) -> list[str]:
    """Write many source episodes as `add_source` would; return their statuses.

    Raises:
        ValueError: An empty source id, or a mentioned entity that does not exist.
    """
    ns = as_namespace(namespace)
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    keys = sorted({k for item in items for k in item.mentions})
    found = await memory.backend.query(
        group_id,
        "MATCH (n:Entity) WHERE n.entity_key IN $keys RETURN n.entity_key AS key, n.uuid AS uuid",
        {"keys": keys},
        read_only=True,
    )
    uuids = {r["key"]: r["uuid"] for r in found}
    old = await _old_sources(memory, group_id, sorted({i.source_id for i in items}))
    now, statuses = utc_now().isoformat(), []
    episodes: dict[str, dict[str, Any]] = {}
    for item in items:
        if not item.source_id:
            raise ValueError("add_source needs a non-empty source_id")
        missing = [k for k in item.mentions if k not in uuids]
        if missing:
            raise ValueError(f"mentioned entity {missing[0]!r} does not exist in namespace {ns}")
        mentions = set(item.mentions)
        before = old.get(item.source_id)
        if before and before[:3] == (item.text, item.description, mentions):
            statuses.append("unchanged")
            continue
        statuses.append("updated" if before else "created")
        created = (before[3] if before else None) or now
        old[item.source_id] = (item.text, item.description, mentions, created)
        episodes[item.source_id] = {
            "uuid": stable_uuid(group_id, "source", item.source_id),
            "name": item.source_id,
            "group_id": group_id,
            "source_description": item.description,
            "source": "text",
            "content": item.text,
            "entity_edges": [],
            "created_at": created,
            "valid_at": created,
            "mentions": sorted(mentions),
        }
    await _write_sources(memory, group_id, list(episodes.values()), uuids)
    if episodes:
        await memory.wrote(ns)
    return statuses


async def _write_sources(
    memory: GraphClients, group_id: str, episodes: list[dict[str, Any]], uuids: dict[str, str]
) -> None:
    links = [
        {
            "episode": ep["uuid"],
            "node": uuids[key],
            "uuid": stable_uuid(group_id, "mentions", ep["name"], key),
            "created_at": ep["created_at"],
        }
        for ep in episodes
        for key in ep.pop("mentions")
    ]
    for chunk in chunks(episodes):
        await memory.backend.query(
            group_id,
            "UNWIND $rows AS row MERGE (n:Episodic {uuid: row.uuid}) SET n = row",
            {"rows": Literal(chunk)},
        )
    for chunk in chunks(links):
        await memory.backend.query(
            group_id,
            "UNWIND $rows AS row MATCH (ep:Episodic {uuid: row.episode}) "
            "MATCH (n:Entity {uuid: row.node}) MERGE (ep)-[e:MENTIONS {uuid: row.uuid}]->(n) "
            "SET e.group_id = $group_id, e.created_at = row.created_at",
            {"rows": Literal(chunk), "group_id": group_id},
        )
