"""The retrieval engines compared side by side, each as `ranker(query, product) -> rule names`."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, Sequence

from memory import GraphMemory, Namespace
from memory.backend.readcache import empty_read_caches
from memory.underwriting import GraphAnalytics

Ranker = Callable[[str, str | None], Awaitable[list[str]]]
OURS = "ours (BM25 index + HNSW, fused)"
STOCK = "graphiti COMBINED_HYBRID_SEARCH_RRF"
_WORD = re.compile(r"[a-z0-9]+")


class SqliteLike:
    """The keyword baseline: a table of memories searched with LIKE, ranked by words matched."""

    def __init__(self, rules: Sequence[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE TABLE memories (rule_name TEXT, fact TEXT)")
        self.db.executemany("INSERT INTO memories VALUES (?, ?)", rules)

    def search(self, query: str, limit: int = 5) -> list[str]:
        """Return rule names whose fact contains the most query words."""
        words = [w for w in _WORD.findall(query.lower()) if len(w) > 2][:8]
        if not words:
            return []
        score = " + ".join("(fact LIKE ?)" for _ in words)
        rows = self.db.execute(
            f"SELECT rule_name, {score} AS s FROM memories WHERE s > 0 "  # noqa: S608 - fixed shape
            "GROUP BY rule_name ORDER BY s DESC LIMIT ?",
            [*(f"%{w}%" for w in words), limit],
        ).fetchall()
        return [r[0] for r in rows]


class Bm25Facts:
    """BM25 alone (bm25s) over the rules' fact texts, in process."""

    def __init__(self, rules: Sequence[tuple[str, str]]) -> None:
        import bm25s

        self.names = [name for name, _ in rules]
        self.retriever = bm25s.BM25()
        self.retriever.index(
            bm25s.tokenize([fact for _, fact in rules], show_progress=False), show_progress=False
        )
        self._tokenize = bm25s.tokenize

    def search(self, query: str, limit: int = 5) -> list[str]:
        """Return the rule names of the best-scoring facts."""
        tokens = self._tokenize([query], show_progress=False)
        if not tokens.vocab:
            return []
        k = min(limit, len(self.names))
        docs, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.names[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


async def rule_facts(memory: GraphMemory, ns: Namespace) -> list[tuple[str, str]]:
    """(rule name, TRIGGERS fact) of every current rule: the alternatives' corpus."""
    edges = await memory.relationships(ns, relation="TRIGGERS")
    return [(str(e.properties.get("rule_name", "")), e.fact) for e in edges]


def rankers(
    memory: GraphMemory, ns: Namespace, facts: Sequence[tuple[str, str]]
) -> dict[str, Ranker]:
    """Every engine over the same namespace (or its facts), ours first."""
    analytics = GraphAnalytics(memory, ns)
    like, bm25 = SqliteLike(facts), Bm25Facts(facts)

    # Every engine answers each query cold: ours without what earlier queries read.
    async def ours(query: str, product: str | None) -> list[str]:
        empty_read_caches()
        return [h.rule_name for h in await analytics.query(query, product_type=product, limit=5)]

    def graphiti(engine: str) -> Ranker:
        async def rank(query: str, product: str | None) -> list[str]:
            empty_read_caches()
            hits = await memory.search(ns, query, limit=20, partition=product, engine=engine)
            names = [h.relationship.properties.get("rule_name") for h in hits]
            return [n for n in dict.fromkeys(names) if isinstance(n, str)][:5]

        return rank

    async def bm25s_rank(query: str, product: str | None) -> list[str]:
        return bm25.search(query)

    async def like_rank(query: str, product: str | None) -> list[str]:
        return like.search(query)

    return {
        OURS: ours,
        "graphiti edge hybrid": graphiti("graphiti"),
        STOCK: graphiti("graphiti-combined"),
        "bm25s over rule facts": bm25s_rank,
        "sqlite LIKE": like_rank,
    }


def score_names(names: list[str], expected: set[str]) -> tuple[bool, bool, float]:
    """(hit@1, hit@5, reciprocal rank) of a ranking against the accepted names."""
    ranks = [i for i, n in enumerate(names, 1) if n in expected]
    best = ranks[0] if ranks else None
    return best == 1, best is not None and best <= 5, 1 / best if best else 0.0


__all__ = ["Bm25Facts", "Ranker", "SqliteLike", "rankers", "rule_facts", "score_names"]
