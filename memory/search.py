"""Hybrid retrieval over edge facts, behind the store's `search` method.

Two rankings over Graphiti's data model, fused by reciprocal rank: BM25 over the
RELATES_TO facts (the in-process `memory.lexical` index for current facts; the
fulltext index Graphiti creates for point-in-time and invalidated-edge searches),
and cosine similarity of fact embeddings. The vector ranking comes from FalkorDB's HNSW index on
`fact_embedding` (created by `Database.ensure_indices` with the embedder's
dimension), over-fetched and filtered because the index does not pre-filter; on
small graphs (at most `EXACT_MAX_EDGES` edges) exact brute force is as fast and is
used instead. Each ranking query returns ids only, and only the returned records
are loaded, through the edge uuid index. Graphiti's stock search (`engine="graphiti"`,
edge-only, and `engine="graphiti-combined"`, its COMBINED_HYBRID_SEARCH_RRF recipe)
is kept for comparison: it scans every edge and ships every candidate's embedding
back to Python. Filters the queries cannot express (endpoint labels) are applied
after over-fetching.
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
from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.tracer import NoOpTracer

from memory._db import Database
from memory.bulk import EDGES_BY_UUID
from memory.embedders import Embedder, embed_async
from memory.lexical import lexical_index
from memory.records import SearchHit

OVERFETCH = 4
RRF_K = 1  # Graphiti's rank constant
MAX_TERMS = 32
MIN_SIMILARITY = 0.2  # static word embeddings score paraphrases low; let RRF decide.
# Below this many edges brute force is about as fast as the HNSW index and exact.
EXACT_MAX_EDGES = 2000
ANN_OVERFETCH = 4  # the vector index does not pre-filter: ask it for this many times more
ANN_MAX_K = 4000
# fused: ours. graphiti: Graphiti's search with an edge-only hybrid config.
# graphiti-combined: Graphiti's stock COMBINED_HYBRID_SEARCH_RRF recipe (edges ranked).
ENGINES = ("fused", "graphiti", "graphiti-combined")


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


def _combined_config(limit: int) -> SearchConfig:
    """Graphiti's stock COMBINED_HYBRID_SEARCH_RRF (edges, nodes, episodes, communities)."""
    return COMBINED_HYBRID_SEARCH_RRF.model_copy(update={"limit": limit})


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


async def _fulltext_ids(
    db: Database, group_id: str, query: str, fetch: int, params: dict[str, Any]
) -> list[str] | None:
    """The BM25 ranking from the fulltext index (None when the query has no terms)."""
    terms = fulltext_query(query)
    if not terms:
        return None
    rows = await db.query(
        group_id,
        "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $terms) "
        f"YIELD relationship AS e, score WHERE {_EDGE_FILTER} "
        "RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
        {**params, "terms": terms, "fetch": fetch},
        read_only=True,
    )
    return [r["uuid"] for r in rows]


async def lexical_ids(
    db: Database, group_id: str, query: str, fetch: int, params: dict[str, Any]
) -> list[str] | None:
    """The BM25 ranking: the in-process index for current facts, else the fulltext index."""
    if params["all"] or params["as_of"] is not None:
        return await _fulltext_ids(db, group_id, query, fetch, params)
    index = await lexical_index(db, group_id)
    return index.search(query, fetch, relations=params["relations"], product=params["product"])


async def exact_vector_ids(
    db: Database, group_id: str, vector: list[float], fetch: int, params: dict[str, Any]
) -> list[str]:
    """The vector ranking by brute force: cosine similarity to every (filtered) edge."""
    rows = await db.query(
        group_id,
        f"MATCH ()-[e:RELATES_TO]->() WHERE {_EDGE_FILTER} "
        "WITH e, (2 - vec.cosineDistance(e.fact_embedding, vecf32($vector))) / 2 AS score "
        "WHERE score >= $min_score RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
        {**params, "vector": vector, "fetch": fetch, "min_score": MIN_SIMILARITY},
        read_only=True,
    )
    return [r["uuid"] for r in rows]


async def ann_vector_ids(
    db: Database, group_id: str, vector: list[float], fetch: int, params: dict[str, Any]
) -> list[str]:
    """The vector ranking from the HNSW index.

    The index does not pre-filter, so a filtered search asks it for `ANN_OVERFETCH`
    times what it needs, filters, and asks again for more (up to `ANN_MAX_K`) while
    too few are left.
    """
    filtered = params["relations"] is not None or params["product"] is not None
    k = fetch * ANN_OVERFETCH if filtered else fetch  # invalidated edges are few: ask again
    while True:
        rows = await db.query(
            group_id,
            "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, "
            "vecf32($vector)) YIELD relationship AS e, score "
            f"WITH e, (2 - score) / 2 AS sim WHERE {_EDGE_FILTER} AND sim >= $min_score "
            "RETURN e.uuid AS uuid ORDER BY sim DESC LIMIT $fetch",
            {**params, "vector": vector, "k": k, "fetch": fetch, "min_score": MIN_SIMILARITY},
            read_only=True,
        )
        if len(rows) >= fetch or k >= ANN_MAX_K:
            return [r["uuid"] for r in rows]
        k = min(k * 4, ANN_MAX_K)


async def vector_ids(
    db: Database, group_id: str, vector: list[float], fetch: int, params: dict[str, Any]
) -> list[str]:
    """The vector ranking: exact on small graphs, from the HNSW index on large ones."""
    if await db.edge_count(group_id) <= EXACT_MAX_EDGES or not db.has_vector_index(group_id):
        return await exact_vector_ids(db, group_id, vector, fetch, params)
    return await ann_vector_ids(db, group_id, vector, fetch, params)


async def _ranked_ids(
    db: Database,
    group_id: str,
    query: str,
    vector: list[float],
    fetch: int,
    params: dict[str, Any],
) -> list[list[str]]:
    """Return the BM25 ranking and the vector ranking of edge uuids (filters applied)."""
    bm25 = await lexical_ids(db, group_id, query, fetch, params)
    rankings = [] if bm25 is None else [bm25]
    rankings.append(await vector_ids(db, group_id, vector, fetch, params))
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

    `engine="fused"` (default) ranks by BM25 (`memory.lexical`) and by cosine
    similarity of fact embeddings (HNSW index), returning ids only, and fuses the two
    rankings with RRF; `engine="graphiti"` runs Graphiti's stock recipe (kept for
    comparison: it ships every candidate's embedding back to Python).
    """
    from memory.rows import relationship_from_row

    if engine not in ENGINES:
        raise ValueError(f"unknown search engine {engine!r}; allowed: {', '.join(ENGINES)}")
    if not query.strip() or group_id not in await db.list_graphs():
        return []
    await db.ensure_indices(group_id)
    [vector] = await embed_async(embedder, [query])
    fetch = limit * OVERFETCH
    if engine != "fused":
        config = _config(fetch) if engine == "graphiti" else _combined_config(fetch)
        scores = await _graphiti_scores(db, embedder, group_id, query, vector, config, relations)
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
        EDGES_BY_UUID,
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
    config: SearchConfig,
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
        lambda: graphiti_search(clients, query, [group_id], config, filters, query_vector=vector)
    )
    return {e.uuid: s for e, s in zip(results.edges, results.edge_reranker_scores, strict=False)}
