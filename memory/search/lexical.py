"""An in-process BM25 index of a namespace's relationship facts (the lexical ranking).

FalkorDB's fulltext procedure returns *every* document matching any query term
before Cypher can sort and limit, so an OR-query slows down linearly with the
graph (about 15 ms at 40k edges, well over 100 ms at 400k). Its scores also
shift when a vector index exists on the same relationship type (documents are
normalised differently). `LexicalIndex` keeps BM25 (weights computed by bm25s,
Snowball-stemmed English, stopwords removed) over the current facts in memory
instead: a query sums only the posting lists of its terms (bm25s's own retrieval
scores every document), and filters (relation, partition) are applied as a mask
before the top-k is taken. It is rebuilt from the graph when
the namespace's write generation changes (`Database.derived`).

Point-in-time (``as_of``) and invalidated-edge searches still use the
fulltext index, which sees every version.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np
import Stemmer

if TYPE_CHECKING:
    from memory.backend.protocol import GraphBackend as Database

_STEMMER = Stemmer.Stemmer("english")
_SEP = "|"  # never in a uuid, a relation name or a partition (the fact comes last)
logging.getLogger("bm25s").setLevel(logging.WARNING)
WILDCARD = "ALL"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-case, stopword-free, stemmed tokens of each text."""
    tokens = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_STEMMER, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokens]


class LexicalIndex:
    """BM25 over the current facts of one graph, with relation and partition masks.

    Args:
        rows: ``uuid|relation|partition|fact`` rows (see `lexical_index`); an empty
            partition belongs to every partition, like the wildcard.
        wildcard: The partition value of facts that belong to every partition.
    """

    def __init__(self, rows: Sequence[str], wildcard: str = WILDCARD) -> None:
        parts = [row.split(_SEP, 3) for row in rows]
        self.uuids = [p[0] for p in parts]
        self.wildcard = wildcard
        self._codes: dict[str, int] = {}
        self.relations = self._encode(p[1] for p in parts)
        self.partitions = self._encode(p[2] or wildcard for p in parts)
        self._masks: dict[tuple[tuple[str, ...] | None, str | None], np.ndarray | None] = {}
        self.retriever: bm25s.BM25 | None = None
        if parts:
            self.retriever = bm25s.BM25()
            self.retriever.index(tokenize([p[3] for p in parts]), show_progress=False)

    def _encode(self, values: Iterable[str]) -> np.ndarray:
        codes = [self._codes.setdefault(v, len(self._codes)) for v in values]
        return np.array(codes, dtype=np.int32)

    def _mask(self, relations: Sequence[str] | None, partition: str | None) -> np.ndarray | None:
        """Which documents pass the filters (None: all pass)."""
        key = (tuple(sorted(relations)) if relations is not None else None, partition)
        if key not in self._masks:
            mask = np.ones(len(self.uuids), dtype=bool)
            if relations is not None:
                mask &= np.isin(self.relations, [self._codes.get(r, -1) for r in relations])
            if partition is not None:
                wanted = [self._codes.get(p, -1) for p in (self.wildcard, partition)]
                mask &= np.isin(self.partitions, wanted)
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
        partition: str | None = None,
    ) -> list[str] | None:
        """Return the uuids of the best-matching facts, best first (None: no query terms).

        Args:
            query: Free text.
            fetch: Most uuids to return.
            relations: Keep only these relation types (None keeps all).
            partition: Keep facts of this partition and of every partition (None keeps all).
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
        return [self.uuids[d] for d in self._top(ids, fetch, self._mask(relations, partition))]

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


async def lexical_index(
    db: Database,
    group_id: str,
    partition_property: str | None = None,
    wildcard: str = WILDCARD,
) -> LexicalIndex:
    """The graph's lexical index, rebuilt only after a write to the graph.

    Args:
        db: The database.
        group_id: The graph.
        partition_property: The ontology's partition property (an identifier, stored
            as ``p_<name>``); None indexes no partitions.
        wildcard: The partition value of facts that belong to every partition.
    """
    if partition_property is not None and not _IDENTIFIER.match(partition_property):
        raise ValueError(f"partition property {partition_property!r} must be an identifier")
    partition = f"coalesce(e.p_{partition_property}, '')" if partition_property else "''"

    async def build() -> LexicalIndex:
        # Two cells per edge (the client parses each on its own, ~12 us); not one, because
        # FalkorDB returns '' for some concatenations longer than about 500 characters.
        rows = await db.query(
            group_id,
            "MATCH ()-[e:RELATES_TO]->() WHERE e.invalid_at IS NULL AND e.expired_at IS NULL "
            f"RETURN e.uuid + $sep + e.name + $sep + {partition} AS head, "
            "e.fact AS fact",
            {"sep": _SEP},
            read_only=True,
        )
        return LexicalIndex([(r["head"] + _SEP + (r["fact"] or "")) for r in rows], wildcard)

    kind = f"lexical:{partition_property or ''}:{wildcard}"
    index: LexicalIndex = await db.derived(group_id, kind, build)
    return index


__all__ = ["LexicalIndex", "lexical_index", "tokenize"]
