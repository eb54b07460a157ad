"""An in-process BM25 index of a namespace's relationship facts (the lexical ranking).

FalkorDB's fulltext procedure returns *every* document matching any query term
before Cypher can sort and limit, so an OR-query slows down linearly with the
graph (about 15 ms at 40k edges, well over 100 ms at 400k). Its scores also
shift when a vector index exists on the same relationship type (documents are
normalised differently). `LexicalIndex` keeps BM25 (weights computed by bm25s,
Snowball-stemmed English, stopwords removed) over the current facts in memory
instead: a query sums only the posting lists of its terms (bm25s's own retrieval
scores every document), and filters (relation, product) are applied as a mask
before the top-k is taken. It is rebuilt from the graph when
the namespace's write generation changes (`Database.derived`).

Point-in-time (``as_of``) and invalidated-edge searches still use the
fulltext index, which sees every version.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np
import Stemmer

if TYPE_CHECKING:
    from memory._db import Database

_STEMMER = Stemmer.Stemmer("english")
_SEP = "|"  # never in a uuid, a relation name or a product (the fact comes last)
logging.getLogger("bm25s").setLevel(logging.WARNING)
ALL_PRODUCTS = "ALL"


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-case, stopword-free, stemmed tokens of each text."""
    tokens = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_STEMMER, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokens]


class LexicalIndex:
    """BM25 over the current facts of one graph, with relation and product masks."""

    def __init__(self, rows: Sequence[str]) -> None:
        """Index rows of ``uuid|relation|product|fact`` (see `lexical_index`)."""
        parts = [row.split(_SEP, 3) for row in rows]
        self.uuids = [p[0] for p in parts]
        self._codes: dict[str, int] = {}
        self.relations = self._encode(p[1] for p in parts)
        self.products = self._encode(p[2] or ALL_PRODUCTS for p in parts)
        self._masks: dict[tuple[tuple[str, ...] | None, str | None], np.ndarray | None] = {}
        self.retriever: bm25s.BM25 | None = None
        if parts:
            self.retriever = bm25s.BM25()
            self.retriever.index(tokenize([p[3] for p in parts]), show_progress=False)

    def _encode(self, values: Iterable[str]) -> np.ndarray:
        codes = [self._codes.setdefault(v, len(self._codes)) for v in values]
        return np.array(codes, dtype=np.int32)

    def _mask(self, relations: Sequence[str] | None, product: str | None) -> np.ndarray | None:
        """Which documents pass the filters (None: all pass)."""
        key = (tuple(sorted(relations)) if relations is not None else None, product)
        if key not in self._masks:
            mask = np.ones(len(self.uuids), dtype=bool)
            if relations is not None:
                mask &= np.isin(self.relations, [self._codes.get(r, -1) for r in relations])
            if product is not None:
                wanted = [self._codes.get(p, -1) for p in (ALL_PRODUCTS, product)]
                mask &= np.isin(self.products, wanted)
            self._masks[key] = None if mask.all() else mask
        return self._masks[key]

    def __len__(self) -> int:
        return len(self.uuids)

    def search(
        self,
        query: str,
        fetch: int,
        *,
        relations: Sequence[str] | None = None,
        product: str | None = None,
    ) -> list[str] | None:
        """Return the uuids of the best-matching facts, best first (None: no query terms).

        Args:
            query: Free text.
            fetch: Most uuids to return.
            relations: Keep only these relation types (None keeps all).
            product: Keep facts of this product and product-independent ones (None keeps all).
        """
        [terms] = tokenize([query])
        if not terms:
            return None
        if self.retriever is None:
            return []
        vocab = self.retriever.vocab_dict
        ids = list(dict.fromkeys(vocab[t] for t in terms if t in vocab))
        if not ids:
            return []
        return [self.uuids[d] for d in self._top(ids, fetch, self._mask(relations, product))]

    def _top(self, token_ids: list[int], fetch: int, mask: np.ndarray | None) -> list[int]:
        """The best `fetch` documents, adding up only the query terms' posting lists."""
        assert self.retriever is not None
        scores = self.retriever.scores  # per-term (column) sparse BM25 weights
        indptr, indices, data = scores["indptr"], scores["indices"], scores["data"]
        totals = np.zeros(len(self.uuids), dtype=np.float32)
        for term in token_ids:  # a term lists each document once: plain fancy-index adds
            span = slice(indptr[term], indptr[term + 1])
            totals[indices[span]] += data[span]
        if mask is not None:
            totals[~mask] = 0.0
        candidates = np.flatnonzero(totals)
        if candidates.size == 0:
            return []
        values = totals[candidates]
        k = min(fetch, candidates.size)
        best = np.argpartition(-values, k - 1)[:k] if k < candidates.size else np.arange(k)
        best = best[np.lexsort((candidates[best], -values[best]))]  # ties: index order
        return [int(candidates[i]) for i in best]


async def lexical_index(db: Database, group_id: str) -> LexicalIndex:
    """The graph's lexical index, rebuilt only after a write to the graph."""

    async def build() -> LexicalIndex:
        # Two cells per edge (the client parses each on its own, ~12 us); not one, because
        # FalkorDB returns '' for some concatenations longer than about 500 characters.
        rows = await db.query(
            group_id,
            "MATCH ()-[e:RELATES_TO]->() WHERE e.invalid_at IS NULL AND e.expired_at IS NULL "
            "RETURN e.uuid + $sep + e.name + $sep + coalesce(e.p_product_type, '') AS head, "
            "e.fact AS fact",
            {"sep": _SEP},
            read_only=True,
        )
        return LexicalIndex([(r["head"] + _SEP + (r["fact"] or "")) for r in rows])

    index: LexicalIndex = await db.derived(group_id, "lexical", build)
    return index


__all__ = ["LexicalIndex", "lexical_index", "tokenize"]
