"""Hybrid retrieval over edge facts, behind the store's `search` and `search_many`.

Two rankings over Graphiti's data model, fused by reciprocal rank
(`memory.ranking`): BM25 over the RELATES_TO facts and cosine similarity of their
embeddings (FalkorDB's HNSW index on `fact_embedding`, created by
`Database.ensure_indices` with the embedder's dimension). Each ranking returns
ids only, and only the returned records are loaded, through the edge uuid index.
Many queries are searched together with one embedding call, one vector query
and one load. Graphiti's stock search (`engine="graphiti"`, edge-only, and
`engine="graphiti-combined"`, its COMBINED_HYBRID_SEARCH_RRF recipe) is kept for
comparison: it scans every edge and ships every candidate's embedding back to
Python. Filters the rankings cannot express (endpoint labels) are applied after
over-fetching.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

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
from memory.ranking import MIN_SIMILARITY, Filters, fused_scores
from memory.records import SearchHit

OVERFETCH = 4
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


async def hybrid_search_many(
    db: Database,
    embedder: Embedder,
    group_id: str,
    queries: Sequence[str],
    *,
    limit: int,
    labels: Sequence[str] | None = None,
    relations: Sequence[str] | None = None,
    product_type: str | None = None,
    include_invalid: bool = False,
    engine: str = "fused",
    as_of: datetime | None = None,
) -> list[list[SearchHit]]:
    """Search one namespace graph's edges for each query; see `GraphMemory.search`.

    `engine="fused"` (default) ranks by BM25 (`memory.lexical`) and by cosine
    similarity of fact embeddings (HNSW index), returning ids only, and fuses the two
    rankings with RRF; the `graphiti` engines run Graphiti's stock recipes (kept for
    comparison: they ship every candidate's embedding back to Python).
    """
    from memory.rows import relationship_from_row

    if engine not in ENGINES:
        raise ValueError(f"unknown search engine {engine!r}; allowed: {', '.join(ENGINES)}")
    asked = [i for i, q in enumerate(queries) if q.strip()]
    results: list[list[SearchHit]] = [[] for _ in queries]
    if not asked or group_id not in await db.list_graphs():
        return results
    await db.ensure_indices(group_id)
    texts = [queries[i] for i in asked]
    vectors = await embed_async(embedder, texts)
    fetch = limit * OVERFETCH
    if engine == "fused":
        filters = Filters(
            relations=tuple(relations) if relations else None,
            include_invalid=include_invalid,
            product=product_type,
            as_of=as_of.isoformat() if as_of else None,
        )
        scored = await fused_scores(db, group_id, texts, vectors, fetch, filters)
    else:
        config = _config(fetch) if engine == "graphiti" else _combined_config(fetch)
        scored = [
            await _graphiti_scores(db, embedder, group_id, text, vector, config, relations)
            for text, vector in zip(texts, vectors, strict=True)
        ]
    # Product and validity filters already ran in the rankings; only an endpoint label
    # filter can still drop hits, so otherwise load just the records we return.
    wanted = [_ranked(scores)[: None if labels else limit] for scores in scored]
    every = sorted({uuid for ids in wanted for uuid in ids})
    rows = []
    if every:
        rows = await db.query(group_id, EDGES_BY_UUID, {"uuids": every}, read_only=True)
    records = {r["uuid"]: relationship_from_row(r) for r in rows}
    for i, ids, scores in zip(asked, wanted, scored, strict=True):
        hits = [
            SearchHit(relationship=records[uuid], score=float(scores[uuid]))
            for uuid in ids
            if uuid in records
            and _keep(records[uuid], labels, product_type, include_invalid, as_of)
        ]
        results[i] = hits[:limit]
    return results


def _ranked(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda uuid: (-scores[uuid], uuid))


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
