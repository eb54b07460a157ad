"""Hybrid retrieval over edge facts, behind the store's `search` method.

Two rankings over Graphiti's data model, fused by reciprocal rank: BM25 from the
fulltext index Graphiti creates on RELATES_TO facts, and cosine similarity of
fact embeddings. Each ranking query returns ids only: Graphiti's stock search
(still available as `engine="graphiti"`) returns every candidate's embedding
and spends most of its time parsing them. Filters the queries cannot express
(endpoint labels) are applied after over-fetching. Callers only see
`GraphMemory.search`, so an index-backed path can replace this module without
touching them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphiti_core.driver.falkordb import STOPWORDS
from graphiti_core.driver.falkordb.fulltext import sanitize_falkor_fulltext_query
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.graphiti_types import GraphitiClients
from graphiti_core.search.search import search as graphiti_search
from graphiti_core.search.search_config import (
    EdgeReranker,
    EdgeSearchConfig,
    EdgeSearchMethod,
    SearchConfig,
)
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.tracer import NoOpTracer

from memory._db import Database
from memory.embedders import Embedder, embed_async
from memory.records import SearchHit

OVERFETCH = 4
RRF_K = 1  # Graphiti's rank constant
MAX_TERMS = 32
MIN_SIMILARITY = 0.2  # static word embeddings score paraphrases low; let RRF decide.


class _GraphitiEmbedder(EmbedderClient):
    """Graphiti's embedder interface over ours."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    async def create(self, input_data: Any) -> list[float]:
        text = input_data if isinstance(input_data, str) else str(list(input_data)[0])
        [vector] = await embed_async(self._embedder, [text])
        return vector

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return await embed_async(self._embedder, input_data_list)


def _config(limit: int) -> SearchConfig:
    return SearchConfig(
        limit=limit,
        edge_config=EdgeSearchConfig(
            # Breadth-first expansion from the hits' endpoints tripled latency (about
            # 100 ms -> 375 ms at 65 rules) without improving dev recall; graph context
            # comes from `trace` instead.
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
            reranker=EdgeReranker.rrf,
            sim_min_score=MIN_SIMILARITY,
        ),
    )


def valid_then(rel: Any, as_of: datetime | None) -> bool:
    """True when the edge is current (`as_of` None) or was valid at `as_of`."""
    if as_of is None:
        return bool(rel.is_current)
    started = rel.valid_at is None or rel.valid_at <= as_of
    return started and (rel.invalid_at is None or rel.invalid_at > as_of)


def _keep(
    rel: Any,
    labels: Sequence[str] | None,
    product_type: str | None,
    include_invalid: bool,
    as_of: datetime | None = None,
) -> bool:
    if not include_invalid and not valid_then(rel, as_of):
        return False
    if labels and rel.source_label not in labels and rel.target_label not in labels:
        return False
    if product_type:
        product = rel.properties.get("product_type")
        if product not in (None, "ALL", product_type):
            return False
    return True


def fulltext_query(text: str) -> str:
    """Turn free text into a RediSearch OR-query of its non-stopword terms ('' if none)."""
    words = [w for w in sanitize_falkor_fulltext_query(text).split() if w.lower() not in STOPWORDS]
    return " | ".join(dict.fromkeys(words[:MAX_TERMS]))


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Fuse ranked id lists: each id scores the sum of 1 / (k + rank) over the lists."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, uuid in enumerate(ranking, start=1):
            scores[uuid] = scores.get(uuid, 0.0) + 1.0 / (k + rank)
    return scores


_EDGE_FILTER = (
    "($relations IS NULL OR e.name IN $relations) AND "
    "($all OR ($as_of IS NULL AND e.invalid_at IS NULL AND e.expired_at IS NULL) OR "
    "($as_of IS NOT NULL AND (e.valid_at IS NULL OR e.valid_at <= $as_of) AND "
    "(e.invalid_at IS NULL OR e.invalid_at > $as_of))) AND "
    "($product IS NULL OR e.p_product_type IS NULL OR e.p_product_type IN ['ALL', $product])"
)


async def _ranked_ids(
    db: Database,
    group_id: str,
    query: str,
    vector: list[float],
    fetch: int,
    params: dict[str, Any],
) -> list[list[str]]:
    """Return the BM25 ranking and the vector ranking of edge uuids (filters applied)."""
    rankings: list[list[str]] = []
    terms = fulltext_query(query)
    if terms:
        rows = await db.query(
            group_id,
            "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $terms) "
            f"YIELD relationship AS e, score WHERE {_EDGE_FILTER} "
            "RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
            {**params, "terms": terms, "fetch": fetch},
            read_only=True,
        )
        rankings.append([r["uuid"] for r in rows])
    rows = await db.query(
        group_id,
        f"MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE {_EDGE_FILTER} "
        "WITH e, (2 - vec.cosineDistance(e.fact_embedding, vecf32($vector))) / 2 AS score "
        "WHERE score >= $min_score RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
        {**params, "vector": vector, "fetch": fetch, "min_score": MIN_SIMILARITY},
        read_only=True,
    )
    rankings.append([r["uuid"] for r in rows])
    return rankings


async def hybrid_search(
    db: Database,
    embedder: Embedder,
    group_id: str,
    query: str,
    *,
    limit: int,
    labels: Sequence[str] | None = None,
    relations: Sequence[str] | None = None,
    product_type: str | None = None,
    include_invalid: bool = False,
    engine: str = "fused",
    as_of: datetime | None = None,
) -> list[SearchHit]:
    """Search one namespace graph's edges; see `GraphMemory.search`.

    `engine="fused"` (default) ranks by FalkorDB's fulltext index (BM25) and by
    cosine similarity of fact embeddings, returning ids only, and fuses the two
    rankings with RRF; `engine="graphiti"` runs Graphiti's stock recipe (kept for
    comparison: it ships every candidate's embedding back to Python).
    """
    from memory.rows import EDGE_FIELDS, relationship_from_row

    if engine not in ("fused", "graphiti"):
        raise ValueError(f"unknown search engine {engine!r}; allowed: fused, graphiti")
    if not query.strip() or group_id not in await db.list_graphs():
        return []
    [vector] = await embed_async(embedder, [query])
    fetch = limit * OVERFETCH
    if engine == "graphiti":
        scores = await _graphiti_scores(db, embedder, group_id, query, vector, fetch, relations)
    else:
        params = {
            "relations": list(relations) if relations else None,
            "all": include_invalid,
            "product": product_type,
            "as_of": as_of.isoformat() if as_of else None,
        }
        scores = reciprocal_rank_fusion(
            await _ranked_ids(db, group_id, query, vector, fetch, params)
        )
    if not scores:
        return []
    ranked = sorted(scores, key=lambda uuid: (-scores[uuid], uuid))
    # Product and validity filters already ran in the ranking queries; only an endpoint
    # label filter can still drop hits, so otherwise load just the records we return.
    wanted = ranked if labels else ranked[:limit]
    rows = await db.query(
        group_id,
        f"MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $uuids RETURN {EDGE_FIELDS}",
        {"uuids": wanted},
        read_only=True,
    )
    records = {r["uuid"]: relationship_from_row(r) for r in rows}
    hits = [
        SearchHit(relationship=records[uuid], score=float(scores[uuid]))
        for uuid in wanted
        if uuid in records and _keep(records[uuid], labels, product_type, include_invalid, as_of)
    ]
    return hits[:limit]


async def _graphiti_scores(
    db: Database,
    embedder: Embedder,
    group_id: str,
    query: str,
    vector: list[float],
    fetch: int,
    relations: Sequence[str] | None,
) -> dict[str, float]:
    clients = GraphitiClients.model_construct(
        driver=db.driver(group_id),
        llm_client=None,
        embedder=_GraphitiEmbedder(embedder),
        cross_encoder=None,
        tracer=NoOpTracer(),
    )
    filters = SearchFilters(edge_types=list(relations) if relations else None)
    results = await db.call_with_retry(
        lambda: graphiti_search(
            clients, query, [group_id], _config(fetch), filters, query_vector=vector
        )
    )
    return {e.uuid: s for e, s in zip(results.edges, results.edge_reranker_scores, strict=False)}
