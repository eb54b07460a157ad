"""Graphiti's stock bulk path, for comparison: `add_nodes_and_edges_bulk` on the same rules.

The rules are mapped to Graphiti's own objects (an `EntityNode` per distinct
(label, name), an `EntityEdge` per relationship, an `EpisodicNode` per source
text and an `EpisodicEdge` per mention) and saved by Graphiti, which embeds each
node name and edge fact with its own call per item (WordLlama behind Graphiti's
`EmbedderClient`). It writes no change log and merges nothing: it is measured in
a namespace of its own, created for it and dropped afterwards, and never goes
through `GraphMemory.commit` (it is the alternative being measured, not a way
this project writes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memory import GraphMemory, Namespace
from memory.embedders import embed_async
from memory.model import entity_key, stable_uuid
from memory.model.time import utc_now
from memory.underwriting import rule_graph
from schemas.rules import ExtractedRule


def _embedder_client(memory: GraphMemory) -> Any:
    from graphiti_core.embedder.client import EmbedderClient

    class WordLlamaClient(EmbedderClient):  # type: ignore[misc]
        async def create(self, input_data: Any) -> list[float]:
            text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
            [vector] = await embed_async(memory.embedder, [text])
            return vector

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return await embed_async(memory.embedder, input_data_list)

    return WordLlamaClient()


def _graphiti_objects(group_id: str, rules: Iterable[ExtractedRule]) -> tuple[list[Any], ...]:
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    now = utc_now()
    nodes: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    episodes: dict[str, Any] = {}
    mentions: dict[str, Any] = {}
    for rule in rules:
        graph = rule_graph(rule)
        uuids = {}
        for spec in graph.entities:
            key = entity_key(group_id, spec.label, spec.name)
            uuids[(spec.label, spec.name)] = stable_uuid(group_id, "entity", key)
            nodes.setdefault(
                key,
                EntityNode(
                    uuid=uuids[(spec.label, spec.name)],
                    name=spec.name,
                    group_id=group_id,
                    labels=[spec.label],
                    created_at=now,
                    summary=spec.summary,
                ),
            )
        for rel in graph.relationships:
            ends = (uuids[rel.source], uuids[rel.target])
            uuid = stable_uuid(group_id, "edge", *ends, rel.relation)
            edges[uuid] = EntityEdge(
                uuid=uuid,
                group_id=group_id,
                source_node_uuid=ends[0],
                target_node_uuid=ends[1],
                created_at=now,
                name=rel.relation,
                fact=rel.fact,
                episodes=[],
                valid_at=now,
            )
        tid = rule.text_id or f"rules:{rule.source}"
        episode = episodes.setdefault(
            tid,
            EpisodicNode(
                uuid=stable_uuid(group_id, "source", tid),
                name=tid,
                group_id=group_id,
                created_at=now,
                source=EpisodeType.text,
                source_description=rule.source,
                content="",
                valid_at=now,
            ),
        )
        episode.content += rule.model_dump_json() + "\n"
        for target in uuids.values():
            link = stable_uuid(group_id, "mentions", tid, target)
            mentions[link] = EpisodicEdge(
                uuid=link,
                group_id=group_id,
                source_node_uuid=episode.uuid,
                target_node_uuid=target,
                created_at=now,
            )
    return (
        list(episodes.values()),
        list(mentions.values()),
        list(nodes.values()),
        list(edges.values()),
    )


async def graphiti_bulk_load(
    memory: GraphMemory, ns: Namespace, rules: Sequence[ExtractedRule]
) -> None:
    """Save the rules with Graphiti's stock bulk path, in batches of 1,000 rules."""
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    await memory.db.ensure_indices(ns.group_id)
    driver = memory.db.driver(ns.group_id)
    embedder = _embedder_client(memory)
    for i in range(0, len(rules), 1000):
        episodes, links, nodes, edges = _graphiti_objects(ns.group_id, rules[i : i + 1000])
        await add_nodes_and_edges_bulk(driver, episodes, links, nodes, edges, embedder)


__all__ = ["graphiti_bulk_load"]
