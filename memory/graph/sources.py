"""Source episodes: raw text with provenance, linked by MENTIONS to the entities it names."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import partial

from graphiti_core.edges import EpisodicEdge
from graphiti_core.nodes import EpisodeType, EpisodicNode
from graphiti_core.utils.datetime_utils import utc_now

from memory.backend.protocol import GraphBackend
from memory.backend.rows import parse_time, read_entity
from memory.graph.clients import GraphClients
from memory.model.keys import stable_uuid
from memory.model.namespaces import Namespace
from memory.model.records import SourceRecord, WriteResult


def _first(found: list[SourceRecord]) -> SourceRecord | None:
    return found[0] if found else None


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
    if not source_id:
        raise ValueError("add_source needs a non-empty source_id")
    group_id = ns.group_id
    await memory.backend.ensure_indices(group_id)
    targets = []
    for key in dict.fromkeys(mentions):
        node = await read_entity(memory.backend, group_id, key)
        if node is None:
            raise ValueError(f"mentioned entity {key!r} does not exist in namespace {ns}")
        targets.append(node)
    episode_uuid = stable_uuid(group_id, "source", source_id)
    old = _first(await list_sources(memory.backend, ns, source_id=source_id))
    if (
        old
        and old.content == text
        and old.description == description
        and set(old.mentions) == {t.entity_key for t in targets}
    ):
        return WriteResult(status="unchanged", key=source_id, uuid=episode_uuid)
    now = utc_now()
    episode = EpisodicNode(
        uuid=episode_uuid,
        name=source_id,
        group_id=group_id,
        source=EpisodeType.text,
        source_description=description,
        content=text,
        created_at=created_at or (old.created_at if old and old.created_at else now),
        valid_at=created_at or (old.created_at if old and old.created_at else now),
    )
    driver = memory.backend.driver(group_id)
    await memory.backend.call_with_retry(lambda: episode.save(driver))
    for node in targets:
        link = EpisodicEdge(
            uuid=stable_uuid(group_id, "mentions", source_id, node.entity_key),
            source_node_uuid=episode_uuid,
            target_node_uuid=node.uuid,
            group_id=group_id,
            created_at=episode.created_at,
        )
        await memory.backend.call_with_retry(partial(link.save, driver))
    return WriteResult(status="updated" if old else "created", key=source_id, uuid=episode_uuid)


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
