"""Source episodes: raw text with provenance, linked by MENTIONS to the entities it names.

`add_sources` writes many episodes with one read and one commit; `add_source` is
the one-item case. The episode id is derived from the source id, so storing the
same source again updates it in place (its first `created_at` is kept); an
unchanged text is left alone. An episode may keep the sentences of its text that read
like rules but yielded none (`uncovered_json`, a JSON list; see `SourceItem.uncovered`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from memory.backend.changelog import Change
from memory.backend.literals import Literal
from memory.backend.protocol import GraphBackend, Statement
from memory.backend.rows import parse_time
from memory.graph.clients import GraphClients
from memory.graph.plan import chunks
from memory.model.batch import SourceItem
from memory.model.keys import stable_uuid
from memory.model.namespaces import Namespace, as_namespace
from memory.model.records import SourceRecord, WriteResult, WriteStatus
from memory.model.time import utc_now

_WRITE_EPISODES = "UNWIND $rows AS row MERGE (n:Episodic {uuid: row.uuid}) SET n = row"
_WRITE_MENTIONS = (
    "UNWIND $rows AS row MATCH (ep:Episodic {uuid: row.episode}) "
    "MATCH (n:Entity {uuid: row.node}) MERGE (ep)-[e:MENTIONS {uuid: row.uuid}]->(n) "
    "SET e.group_id = $group_id, e.created_at = row.created_at"
)


async def add_source(
    memory: GraphClients,
    ns: Namespace,
    text: str,
    *,
    source_id: str,
    description: str = "",
    mentions: Iterable[str] = (),
    created_at: datetime | None = None,
) -> WriteResult:
    """Store raw text as a source episode linked to existing entities; see `GraphMemory`."""
    if not isinstance(text, str):
        raise ValueError(f"source text must be a string, got {type(text).__name__}")
    item = SourceItem(source_id, text, description, tuple(dict.fromkeys(mentions)), created_at)
    [status] = await add_sources(memory, ns, [item])
    uuid = stable_uuid(ns.group_id, "source", source_id)
    return WriteResult(status=status, key=source_id, uuid=uuid)


class _Stored(NamedTuple):
    """What an episode holds: text, description, mentions, time, uncovered sentences."""

    text: str
    description: str
    mentions: set[str]
    created_at: str | None
    uncovered: list[str]


def _uncovered(raw: object) -> list[str]:
    """The uncovered sentences stored on an episode (`uncovered_json`)."""
    try:
        found = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    return [str(s) for s in found] if isinstance(found, list) else []


async def _old_sources(memory: GraphClients, group_id: str, ids: list[str]) -> dict[str, _Stored]:
    rows = await memory.backend.query(
        group_id,
        "MATCH (ep:Episodic) WHERE ep.name IN $ids "
        "OPTIONAL MATCH (ep)-[:MENTIONS]->(n:Entity) WITH ep, collect(n.entity_key) AS keys "
        "RETURN ep.name AS id, ep.content AS content, ep.source_description AS description, "
        "ep.created_at AS created_at, ep.uncovered_json AS uncovered, keys",
        {"ids": ids},
        read_only=True,
    )
    return {
        r["id"]: _Stored(
            r["content"] or "",
            r["description"] or "",
            set(r["keys"]),
            r["created_at"],
            _uncovered(r["uncovered"]),
        )
        for r in rows
    }


async def add_sources(
    memory: GraphClients, namespace: Namespace | str, items: Sequence[SourceItem]
) -> list[WriteStatus]:
    """Write many source episodes in one commit; return their statuses.

    Raises:
        ValueError: An empty source id, or a mentioned entity that does not exist
            (nothing is written then).
    """
    ns = as_namespace(namespace)
    await memory.backend.ensure_indices(ns.group_id)
    statuses, statements, change = await plan_sources(memory, ns, items)
    if statements:
        await memory.commit(ns.group_id, statements, change)
    return statuses


async def plan_sources(
    memory: GraphClients,
    ns: Namespace,
    items: Sequence[SourceItem],
    known: dict[str, str] | None = None,
) -> tuple[list[WriteStatus], list[Statement], Change]:
    """Plan many source episodes: their statuses, the statements writing them, their change.

    Args:
        memory: The store's clients.
        ns: Where to write.
        items: The episodes.
        known: Entity key -> node uuid of entities the same commit writes (not read again).

    Raises:
        ValueError: An empty source id, or a mentioned entity that does not exist.
    """
    group_id = ns.group_id
    uuids = dict(known or {})
    keys = sorted({k for item in items for k in item.mentions if k not in uuids})
    if keys:
        found = await memory.backend.query(
            group_id,
            "MATCH (n:Entity) WHERE n.entity_key IN $keys "
            "RETURN n.entity_key AS key, n.uuid AS uuid",
            {"keys": keys},
            read_only=True,
        )
        uuids.update({r["key"]: r["uuid"] for r in found})
    old = await _old_sources(memory, group_id, sorted({i.source_id for i in items}))
    now, statuses = utc_now().isoformat(), list[WriteStatus]()
    episodes: dict[str, dict[str, Any]] = {}
    for item in items:
        if not item.source_id:
            raise ValueError("add_source needs a non-empty source_id")
        missing = [k for k in item.mentions if k not in uuids]
        if missing:
            raise ValueError(f"mentioned entity {missing[0]!r} does not exist in namespace {ns}")
        mentions = set(item.mentions)
        before = old.get(item.source_id)
        uncovered = _kept_uncovered(item, before)
        same = (item.text, item.description, mentions, uncovered)
        if before and (before.text, before.description, before.mentions, before.uncovered) == same:
            statuses.append("unchanged")
            continue
        statuses.append("updated" if before else "created")
        given = item.created_at.isoformat() if item.created_at else None
        created = given or (before.created_at if before else None) or now
        old[item.source_id] = _Stored(item.text, item.description, mentions, created, uncovered)
        episodes[item.source_id] = _episode(group_id, old[item.source_id], item.source_id)
    if not episodes:
        return statuses, [], Change()
    statements, change = _source_statements(group_id, list(episodes.values()), uuids)
    return statuses, statements, change


def _episode(group_id: str, stored: _Stored, source_id: str) -> dict[str, Any]:
    """The Episodic node's properties (and its mentions, written as MENTIONS edges)."""
    row = {
        "uuid": stable_uuid(group_id, "source", source_id),
        "name": source_id,
        "group_id": group_id,
        "source_description": stored.description,
        "source": "text",
        "content": stored.text,
        "entity_edges": [],
        "created_at": stored.created_at,
        "valid_at": stored.created_at,
        "mentions": sorted(stored.mentions),
    }
    if stored.uncovered:  # absent when there are none: readers look for episodes with some
        row["uncovered_json"] = json.dumps(stored.uncovered, ensure_ascii=False)
    return row


def _kept_uncovered(item: SourceItem, before: _Stored | None) -> list[str]:
    """The uncovered sentences an episode keeps: the item's, else the stored ones of its text."""
    if item.uncovered is not None:
        return list(dict.fromkeys(item.uncovered))
    return before.uncovered if before and before.text == item.text else []


def _source_statements(
    group_id: str, episodes: list[dict[str, Any]], uuids: dict[str, str]
) -> tuple[list[Statement], Change]:
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
    statements: list[Statement] = [
        (_WRITE_EPISODES, {"rows": Literal(c)}) for c in chunks(episodes)
    ]
    statements += [
        (_WRITE_MENTIONS, {"rows": Literal(c), "group_id": group_id}) for c in chunks(links)
    ]
    return statements, Change.of([ep["uuid"] for ep in episodes] + [lk["node"] for lk in links])


async def list_sources(
    backend: GraphBackend, ns: Namespace, *, source_id: str | None = None
) -> list[SourceRecord]:
    """Return a namespace's source episodes (or the one with `source_id`) and their mentions."""
    rows = await backend.query(
        ns.group_id,
        "MATCH (ep:Episodic) WHERE $sid IS NULL OR ep.name = $sid "
        "OPTIONAL MATCH (ep)-[:MENTIONS]->(n:Entity) "
        "WITH ep, collect(n.entity_key) AS keys "
        "RETURN ep.uuid AS uuid, ep.name AS source_id, ep.content AS content, "
        "ep.source_description AS description, ep.created_at AS created_at, keys "
        "ORDER BY ep.name",
        {"sid": source_id},
        read_only=True,
    )
    return [
        SourceRecord(
            uuid=r["uuid"],
            source_id=r["source_id"],
            content=r["content"] or "",
            description=r["description"] or "",
            created_at=parse_time(r["created_at"]),
            mentions=sorted(k for k in r["keys"] if k),
        )
        for r in rows
    ]
