"""Hybrid retrieval over edge facts, behind the store's `search` method.

Today this is Graphiti's own search (BM25 fulltext + cosine similarity, fused
by reciprocal rank); filters the
Graphiti query cannot express (product, endpoint labels, validity) are applied
after over-fetching. Callers only see `GraphMemory.search`, so an index-backed
path can replace this module without touching them.
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
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.tracer import NoOpTracer

from memory._db import Database
from memory.embedders import Embedder, embed_async
from memory.records import SearchHit

OVERFETCH = 4
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


def _keep(
    rel: Any, labels: Sequence[str] | None, product_type: str | None, include_invalid: bool
) -> bool:
    if not include_invalid and not rel.is_current:
        return False
    if labels and rel.source_label not in labels and rel.target_label not in labels:
        return False
    if product_type:
        product = rel.properties.get("product_type")
        if product not in (None, "ALL", product_type):
            return False
    return True


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
) -> list[SearchHit]:
    """Search one namespace graph's edges; see `GraphMemory.search`."""
    from memory.store import EDGE_FIELDS, relationship_from_row

    if not query.strip() or group_id not in await db.list_graphs():
        return []
    driver = db.driver(group_id)
    clients = GraphitiClients.model_construct(
        driver=driver,
        llm_client=None,
        embedder=_GraphitiEmbedder(embedder),
        cross_encoder=None,
        tracer=NoOpTracer(),
    )
    [vector] = await embed_async(embedder, [query])
    filters = SearchFilters(edge_types=list(relations) if relations else None)
    results = await db.call_with_retry(
        lambda: graphiti_search(
            clients, query, [group_id], _config(limit * OVERFETCH), filters, query_vector=vector
        )
    )
    scores = {e.uuid: s for e, s in zip(results.edges, results.edge_reranker_scores, strict=False)}
    if not scores:
        return []
    rows = await db.query(
        group_id,
        f"MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $uuids RETURN {EDGE_FIELDS}",
        {"uuids": list(scores)},
        read_only=True,
    )
    records = {r["uuid"]: relationship_from_row(r) for r in rows}
    hits = [
        SearchHit(relationship=records[uuid], score=float(score))
        for uuid, score in scores.items()
        if uuid in records and _keep(records[uuid], labels, product_type, include_invalid)
    ]
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]
