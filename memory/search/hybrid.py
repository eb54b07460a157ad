"""Hybrid retrieval over edge facts, behind the store's `search` and `search_many`.

Two rankings over Graphiti's data model, fused by reciprocal rank
(`memory.search.ranking`): BM25 over the RELATES_TO facts and cosine similarity of their
embeddings (FalkorDB's HNSW index on `fact_embedding`, created by
`Database.ensure_indices` with the embedder's dimension). Each ranking returns
ids only, and only the returned records are loaded, through the edge uuid index.
Many queries are searched together with one embedding call, one vector query
and one load. Graphiti's stock search (`engine="graphiti"`, edge-only, and
`engine="graphiti-combined"`, its COMBINED_HYBRID_SEARCH_RRF recipe) is kept for
comparison: it scans every edge and ships every candidate's embedding back to
Python (`memory.search.graphiti`). Filters the rankings cannot express (endpoint
labels) are applied after over-fetching.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memory.backend.protocol import GraphBackend as Database
from memory.backend.readcache import ReadCache, read_cache, read_through
from memory.backend.rows import EDGES_BY_UUID, relationship_from_row
from memory.embedders import Embedder, embed_async
from memory.model.records import SearchHit
from memory.search.ranking import Filters, fused_scores

OVERFETCH = 4
EDGE_SPACE = "edge-record"
RANKING_SPACE = "ranking"
# fused: ours. graphiti: Graphiti's search with an edge-only hybrid config.
# graphiti-combined: Graphiti's stock COMBINED_HYBRID_SEARCH_RRF recipe (edges ranked).
ENGINES = ("fused", "graphiti", "graphiti-combined")


def valid_then(rel: Any, as_of: datetime | None) -> bool:
    """True when the edge is current (`as_of` None) or was valid at `as_of`."""
    if as_of is None:
        return bool(rel.is_current)
    started = rel.valid_at is None or rel.valid_at <= as_of
    return started and (rel.invalid_at is None or rel.invalid_at > as_of)


def _keep(
    rel: Any,
    labels: Sequence[str] | None,
    filters: Filters,
    include_invalid: bool,
    as_of: datetime | None = None,
) -> bool:
    if not include_invalid and not valid_then(rel, as_of):
        return False
    if labels and rel.source_label not in labels and rel.target_label not in labels:
        return False
    if filters.partition and filters.partition_property:
        value = rel.properties.get(filters.partition_property)
        if value not in (None, filters.wildcard, filters.partition):
            return False
    return True


async def hybrid_search_many(
    db: Database,
    embedder: Embedder,
    group_id: str,
    queries: Sequence[str],
    *,
    limit: int,
    labels: Sequence[str] | None = None,
    relations: Sequence[str] | None = None,
    partition: str | None = None,
    include_invalid: bool = False,
    engine: str = "fused",
    as_of: datetime | None = None,
    partition_property: str | None = None,
    wildcard: str = "ALL",
) -> list[list[SearchHit]]:
    """Search one namespace graph's edges for each query; see `GraphMemory.search`.

    `engine="fused"` (default) ranks by BM25 (`memory.search.lexical`) and by cosine
    similarity of fact embeddings (HNSW index), returning ids only, and fuses the two
    rankings with RRF; the `graphiti` engines run Graphiti's stock recipes (kept for
    comparison: they ship every candidate's embedding back to Python). A partition
    keeps the edges whose `partition_property` is `partition` or `wildcard` (or unset).
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown search engine {engine!r}; allowed: {', '.join(ENGINES)}")
    asked = [i for i, q in enumerate(queries) if q.strip()]
    results: list[list[SearchHit]] = [[] for _ in queries]
    if not asked or not await db.has_graph(group_id):
        return results
    texts = [queries[i] for i in asked]
    fetch = limit * OVERFETCH
    filters = Filters(
        relations=tuple(relations) if relations else None,
        include_invalid=include_invalid,
        partition=partition,
        as_of=as_of.isoformat() if as_of else None,
        partition_property=partition_property,
        wildcard=wildcard,
    )
    cache = await read_cache(db, group_id)

    async def rank(missing: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], dict[str, float]]:
        texts = [key[1] for key in missing]
        found = await _scores(db, embedder, group_id, texts, fetch, filters, engine, relations)
        return dict(zip(missing, found, strict=True))

    # A ranking depends on the query, its filters and the graph: the same query is
    # ranked once per commit (a submission's field signals repeat from one to the next).
    keys = [(engine, text, fetch, filters) for text in texts]
    ranked = await read_through(cache, RANKING_SPACE, keys, rank)
    scored = [ranked[key] for key in keys]
    # Partition and validity filters already ran in the rankings; only an endpoint label
    # filter can still drop hits, so otherwise load just the records we return.
    wanted = [_ranked(scores)[: None if labels else limit] for scores in scored]
    records = await _edge_records(db, group_id, cache, {u for ids in wanted for u in ids})
    for i, ids, scores in zip(asked, wanted, scored, strict=True):
        hits = [
            SearchHit(relationship=records[uuid], score=float(scores[uuid]))
            for uuid in ids
            if uuid in records and _keep(records[uuid], labels, filters, include_invalid, as_of)
        ]
        results[i] = hits[:limit]
    return results


async def _edge_records(
    db: Database, group_id: str, cache: ReadCache, uuids: set[str]
) -> dict[str, Any]:
    """The records of the edges `uuids` (those that exist), read once per commit.

    Records read before are taken from the graph's read cache (the one the rankings
    came from: no second change-log poll), so a long-running reader loads only edges
    it has not shown yet.
    """
    if not uuids:
        return {}

    async def load(missing: list[str]) -> dict[str, Any]:
        rows = await db.query(group_id, EDGES_BY_UUID, {"uuids": sorted(missing)}, read_only=True)
        return {r["uuid"]: relationship_from_row(r) for r in rows}

    return await read_through(cache, EDGE_SPACE, uuids, load)


async def _scores(
    db: Database,
    embedder: Embedder,
    group_id: str,
    texts: list[str],
    fetch: int,
    filters: Filters,
    engine: str,
    relations: Sequence[str] | None,
) -> list[dict[str, float]]:
    """Each text's edges ranked by `engine`: uuid -> score."""
    vectors = await embed_async(embedder, texts)
    if engine == "fused":
        return await fused_scores(db, group_id, texts, vectors, fetch, filters)
    from memory.search.graphiti import combined_config, edge_config, graphiti_scores

    config = edge_config(fetch) if engine == "graphiti" else combined_config(fetch)
    return [
        await graphiti_scores(db, embedder, group_id, text, vector, config, relations)
        for text, vector in zip(texts, vectors, strict=True)
    ]


def _ranked(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda uuid: (-scores[uuid], uuid))
