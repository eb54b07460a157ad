"""Graphiti's stock search recipes over our graphs, kept for comparison.

`engine="graphiti"` runs Graphiti's search with an edge-only hybrid config (BM25 +
cosine, RRF); `engine="graphiti-combined"` its COMBINED_HYBRID_SEARCH_RRF recipe.
Both scan every edge and ship every candidate's embedding back to Python; the
fused engine (`memory.search.hybrid`) is the default.
"""

from __future__ import annotations

from collections.abc import Sequence
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

from memory.backend.protocol import GraphBackend as Database
from memory.embedders import Embedder, embed_async
from memory.search.ranking import MIN_SIMILARITY


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


def edge_config(limit: int) -> SearchConfig:
    """Graphiti's search over edges only: BM25 and cosine similarity fused by RRF."""
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


def combined_config(limit: int) -> SearchConfig:
    """Graphiti's stock COMBINED_HYBRID_SEARCH_RRF (edges, nodes, episodes, communities)."""
    return COMBINED_HYBRID_SEARCH_RRF.model_copy(update={"limit": limit})


async def graphiti_scores(
    db: Database,
    embedder: Embedder,
    group_id: str,
    query: str,
    vector: list[float],
    config: SearchConfig,
    relations: Sequence[str] | None,
) -> dict[str, float]:
    """Score one query's edges with a Graphiti recipe: uuid -> reranker score."""
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
