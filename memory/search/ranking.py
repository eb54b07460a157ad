"""The two rankings behind the fused search, for one query or many at once.

Each ranking returns edge uuids only, best first, with the search's filters
applied (`Filters`). BM25 comes from the in-process `memory.search.lexical` index (the
FalkorDB fulltext index for point-in-time and invalidated-edge searches);
cosine similarity from FalkorDB's HNSW index above `EXACT_MAX_EDGES` edges and
by brute force below (as fast there, and exact). Many queries share one
embedding call and one vector query (`UNWIND` over the query vectors), which
is how a submission's risk signals are searched together.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ResponseError

from memory.backend.literals import Vector
from memory.backend.protocol import GraphBackend as Database
from memory.search.lexical import LexicalIndex, lexical_index

RRF_K = 1  # Graphiti's rank constant
MAX_TERMS = 32
MIN_SIMILARITY = 0.2  # static word embeddings score paraphrases low; let RRF decide.
# Below this many edges brute force is about as fast as the HNSW index and exact.
EXACT_MAX_EDGES = 2000
ANN_OVERFETCH = 4  # the vector index does not pre-filter: ask it for this many times more
ANN_MAX_K = 4000
SEND_TURNS = 3  # event-loop turns a started vector query takes to reach the server

EDGE_FILTER = (
    "($relations IS NULL OR e.name IN $relations) AND "
    "($all OR ($as_of IS NULL AND e.invalid_at IS NULL AND e.expired_at IS NULL) OR "
    "($as_of IS NOT NULL AND (e.valid_at IS NULL OR e.valid_at <= $as_of) AND "
    "(e.invalid_at IS NULL OR e.invalid_at > $as_of)))"
)
# The partition property's name comes from the ontology definition (an identifier).
PARTITION_FILTER = " AND ($partition IS NULL OR e.{0} IS NULL OR e.{0} IN [$wildcard, $partition])"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Filters:
    """What a ranking keeps: relations, validity (or a point in time) and partition.

    A partition keeps the edges whose `partition_property` (stored flattened as
    ``p_<name>``) is the partition or the wildcard, and the edges without it.
    """

    relations: tuple[str, ...] | None = None
    include_invalid: bool = False
    partition: str | None = None
    as_of: str | None = None  # ISO time
    partition_property: str | None = None
    wildcard: str = "ALL"

    def __post_init__(self) -> None:
        prop = self.partition_property
        if prop is not None and not _IDENTIFIER.match(prop):
            raise ValueError(f"partition property {prop!r} must be an identifier")

    @property
    def cypher(self) -> str:
        """The WHERE condition on an edge `e` (`EDGE_FILTER` plus the partition's)."""
        if self.partition_property is None:
            return EDGE_FILTER
        return EDGE_FILTER + PARTITION_FILTER.format(f"p_{self.partition_property}")

    @property
    def params(self) -> dict[str, Any]:
        """The `cypher` query parameters."""
        return {
            "relations": list(self.relations) if self.relations else None,
            "all": self.include_invalid,
            "partition": self.partition,
            "wildcard": self.wildcard,
            "as_of": self.as_of,
        }


def fulltext_query(text: str) -> str:
    """Turn free text into a RediSearch OR-query of its non-stopword terms ('' if none)."""
    # Graphiti's own sanitiser and stopwords (imported here: only these searches need them).
    from graphiti_core.driver.falkordb import STOPWORDS
    from graphiti_core.driver.falkordb.fulltext import sanitize_falkor_fulltext_query

    words = [w for w in sanitize_falkor_fulltext_query(text).split() if w.lower() not in STOPWORDS]
    return " | ".join(dict.fromkeys(words[:MAX_TERMS]))


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Fuse ranked id lists: each id scores the sum of 1 / (k + rank) over the lists."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, uuid in enumerate(ranking, start=1):
            scores[uuid] = scores.get(uuid, 0.0) + 1.0 / (k + rank)
    return scores


async def fulltext_ids(
    db: Database, group_id: str, query: str, fetch: int, filters: Filters
) -> list[str] | None:
    """The BM25 ranking from FalkorDB's fulltext index (None when the query has no terms).

    The procedure returns every matching edge before Cypher can limit, so this slows
    down with the graph; it serves the searches the in-process index cannot answer.
    """
    terms = fulltext_query(query)
    if not terms:
        return None
    rows = await db.query(
        group_id,
        "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $terms) "
        f"YIELD relationship AS e, score WHERE {filters.cypher} "
        "RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
        {**filters.params, "terms": terms, "fetch": fetch},
        read_only=True,
    )
    return [r["uuid"] for r in rows]


async def lexical_ids(
    db: Database,
    group_id: str,
    queries: Sequence[str],
    fetch: int,
    filters: Filters,
    *,
    index: LexicalIndex | None = None,
) -> list[list[str] | None]:
    """The BM25 ranking of each query (None: no terms).

    The in-process index (looked up once for all queries, unless given) for current
    facts, else the fulltext index.
    """
    if filters.include_invalid or filters.as_of is not None:
        return [await fulltext_ids(db, group_id, q, fetch, filters) for q in queries]
    if index is None:  # (not `or`: an empty index is falsy)
        index = await lexical_index(db, group_id, filters.partition_property, filters.wildcard)
    return [
        index.search(q, fetch, relations=filters.relations, partition=filters.partition)
        for q in queries
    ]


def _grouped(rows: list[dict[str, Any]], count: int) -> list[list[str]]:
    ranked: list[list[str]] = [[] for _ in range(count)]
    for row in rows:
        ranked[int(row["i"])] = list(row["uuids"])
    return ranked


async def exact_vector_ids(
    db: Database, group_id: str, vectors: list[list[float]], fetch: int, filters: Filters
) -> list[list[str]]:
    """The vector ranking of each query by brute force: cosine to every (filtered) edge.

    One query per vector: ORDER BY with LIMIT keeps only the top `fetch` on the server
    (a grouped collect would sort every edge), and this path serves small graphs only.
    """
    ranked = []
    for vector in vectors:
        rows = await db.query(
            group_id,
            f"MATCH ()-[e:RELATES_TO]->() WHERE {filters.cypher} "
            "WITH e, (2 - vec.cosineDistance(e.fact_embedding, vecf32($vector))) / 2 AS score "
            "WHERE score >= $min_score RETURN e.uuid AS uuid ORDER BY score DESC LIMIT $fetch",
            {
                **filters.params,
                "vector": Vector(vector),
                "fetch": fetch,
                "min_score": MIN_SIMILARITY,
            },  # fmt: skip
            read_only=True,
        )
        ranked.append([r["uuid"] for r in rows])
    return ranked


async def _ann_query(
    db: Database,
    group_id: str,
    vectors: list[list[float]],
    k: int,
    fetch: int,
    filters: Filters,
) -> list[list[str]]:
    rows = await db.query(
        group_id,
        "UNWIND range(0, size($vectors) - 1) AS i "
        "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, "
        "vecf32($vectors[i])) YIELD relationship AS e, score "
        f"WITH i, e, (2 - score) / 2 AS sim WHERE {filters.cypher} AND sim >= $min_score "
        "WITH i, e.uuid AS uuid, sim ORDER BY i, sim DESC "
        "WITH i, collect(uuid) AS uuids RETURN i, uuids[0..$fetch] AS uuids",
        {
            **filters.params,
            "vectors": Vector.many(vectors),  # rendered once, not float by float
            "k": k,
            "fetch": fetch,
            "min_score": MIN_SIMILARITY,
        },
        read_only=True,
    )
    return _grouped(rows, len(vectors))


async def ann_vector_ids(
    db: Database, group_id: str, vectors: list[list[float]], fetch: int, filters: Filters
) -> list[list[str]]:
    """The vector ranking of each query from the HNSW index.

    The index does not pre-filter, so a filtered search asks it for `ANN_OVERFETCH`
    times what it needs, filters, and asks again for more (up to `ANN_MAX_K`) for
    the queries left short.
    """
    filtered = filters.relations is not None or filters.partition is not None
    k = fetch * ANN_OVERFETCH if filtered else fetch  # invalidated edges are few: ask again
    ranked = await _ann_query(db, group_id, vectors, k, fetch, filters)
    while k < ANN_MAX_K:
        short = [i for i, ids in enumerate(ranked) if len(ids) < fetch]
        if not short:
            break
        k = min(k * 4, ANN_MAX_K)
        again = await _ann_query(db, group_id, [vectors[i] for i in short], k, fetch, filters)
        for i, ids in zip(short, again, strict=True):
            ranked[i] = ids
    return ranked


VECTOR_INDEX_BUILDING = "Invalid arguments for procedure 'db.idx.vector.queryRelationships'"


async def vector_ids(
    db: Database,
    group_id: str,
    vectors: list[list[float]],
    fetch: int,
    filters: Filters,
    *,
    index: LexicalIndex | None = None,
) -> list[list[str]]:
    """The vector ranking of each query: exact on small graphs, HNSW on large ones."""
    if not vectors:
        return []
    # The lexical index holds every current edge: its size is the graph's, for free.
    if index is None:  # (not `or`: an empty index is falsy)
        index = await lexical_index(db, group_id, filters.partition_property, filters.wildcard)
    edges = len(index)
    if edges <= EXACT_MAX_EDGES or not await db.has_vector_index(group_id):
        return await exact_vector_ids(db, group_id, vectors, fetch, filters)
    try:
        return await ann_vector_ids(db, group_id, vectors, fetch, filters)
    except ResponseError as exc:
        # After a restart or a bulk load the server builds its HNSW index in the
        # background (memory.backend.server: DELAY_INDEXING; BulkWriter); until then
        # the procedure refuses queries. Exact cosine answers meanwhile (slower, and
        # the same ranking or better).
        if VECTOR_INDEX_BUILDING not in str(exc):
            raise
        return await exact_vector_ids(db, group_id, vectors, fetch, filters)


async def fused_scores(
    db: Database,
    group_id: str,
    queries: Sequence[str],
    vectors: list[list[float]],
    fetch: int,
    filters: Filters,
) -> list[dict[str, float]]:
    """RRF of the BM25 and vector rankings, per query: uuid -> fused score."""
    # One look-up (one change-log poll) serves both rankings.
    index = await lexical_index(db, group_id, filters.partition_property, filters.wildcard)
    # The vector query is sent first; the in-process BM25 ranking runs while the server
    # answers it. The task reaches its send in two turns of the event loop (measured; a
    # connection still to be made takes longer, and BM25 then simply runs first).
    vector_task = asyncio.ensure_future(
        vector_ids(db, group_id, vectors, fetch, filters, index=index)
    )
    try:
        for _ in range(SEND_TURNS):
            await asyncio.sleep(0)
        by_terms = await lexical_ids(db, group_id, queries, fetch, filters, index=index)
    finally:
        by_vector = await vector_task
    fused = []
    for bm25, vector_ranking in zip(by_terms, by_vector, strict=True):
        rankings = [vector_ranking] if bm25 is None else [bm25, vector_ranking]
        fused.append(reciprocal_rank_fusion(rankings))
    return fused
