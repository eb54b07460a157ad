"""An incremental BM25 index of relationship facts: the lexical ranking of hybrid search.

FalkorDB's fulltext procedure returns *every* document matching any query term
before Cypher can sort and limit, so an OR-query slows down linearly with the
graph; its scores also shift when a vector index exists on the same relationship
type. `LexicalIndex` keeps BM25 over the current facts in process instead, and
takes changes one document at a time, so a write never forces a rebuild:

* postings are a compressed block per term (built in one vectorised pass) plus
  small per-term append buffers for what changed since;
* a changed fact is a new document slot and its old slot is marked dead, so
  nothing is rewritten in place; `compact` folds the buffers and drops dead
  slots once they grow past a fraction of the index;
* document frequencies, the document count and the average length are taken
  from the live documents at query time, so scores equal a fresh build's
  (Lucene's BM25 as bm25s computes it: k1 = 1.5, b = 0.75).

Text is lower-cased, stopword-free, Snowball-stemmed English (bm25s's tokenizer).
Filters (relation, partition) are masks applied before the top-k is taken.
`to_bytes` / `from_bytes` persist an index (numpy arrays and JSON, no pickle).

`LexicalKind` makes it a derived index of a graph (`memory.backend.derived`):
built from the current RELATES_TO facts, brought up to date from the change log
by re-reading only the edges a commit named. Point-in-time (``as_of``) and
invalidated-edge searches use FalkorDB's fulltext index, which sees every version.
"""

from __future__ import annotations

import io
import json
import logging
import math
import re
from array import array
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, NamedTuple

import bm25s
import numpy as np
import Stemmer

from memory.backend.derived import read_by_ids

if TYPE_CHECKING:
    from memory.backend import Change, GraphBackend, Reader

logger = logging.getLogger(__name__)
_STEMMER = Stemmer.Stemmer("english")
logging.getLogger("bm25s").setLevel(logging.WARNING)
K1 = 1.5
B = 0.75
# Postings of searched terms whose weights are kept until the index changes (8 bytes
# each: about 32 MB); the least recently searched terms go first.
MAX_CACHED_POSTINGS = 4_000_000
WILDCARD = "ALL"  # the default partition of facts that apply to every partition
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
COMPACT_FRACTION = 0.25  # compact once dead slots or buffered postings pass this share


class Fact(NamedTuple):
    """One document: an edge's uuid, relation, partition ('' for none) and fact text."""

    uuid: str
    relation: str
    partition: str
    text: str


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-case, stopword-free, stemmed tokens of each text."""
    tokens = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_STEMMER, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokens]


class _Compacted(NamedTuple):
    indptr: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray
    uuids: list[str]
    length: np.ndarray
    relation: np.ndarray
    partition: np.ndarray


class _Column:
    """A growable 1-D numpy array."""

    def __init__(self, dtype: type, values: Sequence[float] | np.ndarray | None = None) -> None:
        self.data: np.ndarray = np.asarray(values if values is not None else [], dtype=dtype)
        self.size = len(self.data)

    def append(self, values: Sequence[float] | np.ndarray) -> None:
        need = self.size + len(values)
        if need > len(self.data):
            grown = np.zeros(max(need, 2 * len(self.data), 64), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size : need] = values
        self.size = need

    @property
    def view(self) -> np.ndarray:
        return self.data[: self.size]


class LexicalIndex:
    """BM25 over the current facts of one graph, updated in place as facts change."""

    def __init__(self, wildcard: str = WILDCARD) -> None:
        """An empty index; `wildcard` is the partition of facts that apply to every one."""
        self.wildcard = wildcard
        self.vocab: dict[str, int] = {}
        self.codes: dict[str, int] = {}  # relation and partition values -> small ints
        self.uuids: list[str] = []  # slot -> uuid (dead slots keep theirs until compaction)
        self.slot: dict[str, int] = {}  # uuid -> its live slot
        self.length = _Column(np.float32)
        self.alive = _Column(np.bool_)
        self.relation = _Column(np.int32)
        self.partition = _Column(np.int32)
        # Postings in blocks: term -> [start, end) of docs / tfs, plus buffered appends.
        self.indptr = np.zeros(1, dtype=np.int64)
        self.docs = np.zeros(0, dtype=np.int32)
        self.tfs = np.zeros(0, dtype=np.float32)
        self.buffer: dict[int, tuple[array, array]] = {}
        self.buffered = 0
        self.live_length = 0.0
        self._masks: dict[tuple[tuple[str, ...] | None, str | None], np.ndarray | None] = {}
        self._norm: np.ndarray | None = None  # BM25 length norm per slot, until a change
        # A searched term's live postings and BM25 weights (without idf), until a change.
        self._weights: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # -- building and changing ----------------------------------------------------------

    @classmethod
    def build(cls, facts: Iterable[Fact], wildcard: str = WILDCARD) -> LexicalIndex:
        """Index many facts in one vectorised pass."""
        facts = list({f.uuid: f for f in facts}.values())
        index = cls(wildcard)
        tokens = bm25s.tokenize(
            [f.text or "" for f in facts],
            stopwords="en",
            stemmer=_STEMMER,
            return_ids=True,
            show_progress=False,
        )
        index.vocab = dict(tokens.vocab)
        index.uuids = [f.uuid for f in facts]
        index.slot = {uuid: i for i, uuid in enumerate(index.uuids)}
        lengths = np.array([len(ids) for ids in tokens.ids], dtype=np.int64)
        total = int(lengths.sum())
        terms = np.fromiter(chain.from_iterable(tokens.ids), dtype=np.int64, count=total)
        docs = np.repeat(np.arange(len(facts), dtype=np.int64), lengths)
        pairs, tfs = np.unique(terms * max(len(facts), 1) + docs, return_counts=True)
        terms, docs = np.divmod(pairs, max(len(facts), 1))
        index.docs, index.tfs = docs.astype(np.int32), tfs.astype(np.float32)
        counts = np.bincount(terms, minlength=len(index.vocab))
        index.indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        index.length = _Column(np.float32, lengths.astype(np.float32))
        index.alive = _Column(np.bool_, np.ones(len(facts), dtype=np.bool_))
        index.relation = _Column(np.int32, [index._code(f.relation) for f in facts])
        index.partition = _Column(np.int32, [index._code(f.partition or wildcard) for f in facts])
        index.live_length = float(lengths.sum())
        return index

    def __len__(self) -> int:
        return len(self.slot)

    def __contains__(self, uuid: object) -> bool:
        return uuid in self.slot

    def _code(self, value: str) -> int:
        return self.codes.setdefault(value, len(self.codes))

    def remove(self, uuids: Iterable[str]) -> None:
        """Drop facts by edge uuid (unknown ones are ignored)."""
        for uuid in uuids:
            slot = self.slot.pop(uuid, None)
            if slot is not None:
                self.alive.data[slot] = False
                self.live_length -= float(self.length.data[slot])
        self._forget_derived()
        self._maybe_compact()

    def upsert(self, facts: Iterable[Fact]) -> None:
        """Add facts, replacing any indexed under the same uuid."""
        facts = list({f.uuid: f for f in facts}.values())
        if not facts:
            return
        self.remove([f.uuid for f in facts if f.uuid in self.slot])
        first = len(self.uuids)
        tokens = tokenize([f.text or "" for f in facts])
        lengths = np.array([len(t) for t in tokens], dtype=np.float32)
        for offset, fact in enumerate(facts):
            self.slot[fact.uuid] = first + offset
            self.uuids.append(fact.uuid)
        self.length.append(lengths)
        self.alive.append(np.ones(len(facts), dtype=np.bool_))
        self.relation.append(np.array([self._code(f.relation) for f in facts], dtype=np.int32))
        parts = [self._code(f.partition or self.wildcard) for f in facts]
        self.partition.append(np.array(parts, dtype=np.int32))
        self.live_length += float(lengths.sum())
        for offset, terms in enumerate(tokens):
            counts: dict[int, int] = {}
            for term in terms:
                tid = self.vocab.setdefault(term, len(self.vocab))
                counts[tid] = counts.get(tid, 0) + 1
            for tid, tf in counts.items():
                docs, tfs = self.buffer.setdefault(tid, (array("i"), array("f")))
                docs.append(first + offset)
                tfs.append(float(tf))
            self.buffered += len(counts)
        self._forget_derived()
        self._maybe_compact()

    def _forget_derived(self) -> None:
        """Drop what searches derived from the content (filter masks, norms, term weights)."""
        self._masks.clear()
        self._norm = None
        self._weights.clear()

    def _maybe_compact(self) -> None:
        dead = len(self.uuids) - len(self.slot)
        if self.buffered > COMPACT_FRACTION * max(
            len(self.docs), 4096
        ) or dead > COMPACT_FRACTION * max(len(self.uuids), 4096):
            self.compact()

    def compact(self) -> None:
        """Fold buffered postings into the blocks and drop dead slots (renumbering)."""
        c = self._compacted()
        self.indptr, self.docs, self.tfs = c.indptr, c.docs, c.tfs
        self.uuids = c.uuids
        self.slot = {uuid: i for i, uuid in enumerate(self.uuids)}
        self.length = _Column(np.float32, c.length)
        self.relation = _Column(np.int32, c.relation)
        self.partition = _Column(np.int32, c.partition)
        self.alive = _Column(np.bool_, np.ones(len(self.uuids), dtype=np.bool_))
        self.buffer.clear()
        self.buffered = 0
        self.live_length = float(c.length.sum())
        self._forget_derived()

    def _compacted(self) -> _Compacted:
        """The index's live content as fresh arrays (the index itself is left as it is)."""
        terms = [np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))]
        docs, tfs = [self.docs], [self.tfs]
        for tid, (bdocs, btfs) in list(self.buffer.items()):
            terms.append(np.full(len(bdocs), tid, dtype=np.int64))
            docs.append(np.frombuffer(bdocs, dtype=np.int32))
            tfs.append(np.frombuffer(btfs, dtype=np.float32))
        all_terms = np.concatenate(terms).astype(np.int64)
        all_docs = np.concatenate(docs).astype(np.int64)
        all_tfs = np.concatenate(tfs).astype(np.float32)
        alive = self.alive.view.copy()
        keep = alive[all_docs] if all_docs.size else np.zeros(0, dtype=bool)
        renumber = np.cumsum(alive, dtype=np.int64) - 1
        all_terms, all_docs, all_tfs = all_terms[keep], renumber[all_docs[keep]], all_tfs[keep]
        order = np.lexsort((all_docs, all_terms))
        counts = np.bincount(all_terms, minlength=len(self.vocab))
        live = np.flatnonzero(alive)
        return _Compacted(
            indptr=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            docs=all_docs[order].astype(np.int32),
            tfs=all_tfs[order],
            uuids=[self.uuids[i] for i in live],
            length=self.length.view[live].copy(),
            relation=self.relation.view[live].copy(),
            partition=self.partition.view[live].copy(),
        )

    # -- searching ------------------------------------------------------------------------

    def _postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        span = slice(self.indptr[tid], self.indptr[tid + 1]) if tid + 1 < len(self.indptr) else None
        docs = self.docs[span] if span is not None else self.docs[:0]
        tfs = self.tfs[span] if span is not None else self.tfs[:0]
        extra = self.buffer.get(tid)
        if extra:
            docs = np.concatenate((docs, np.frombuffer(extra[0], dtype=np.int32)))
            tfs = np.concatenate((tfs, np.frombuffer(extra[1], dtype=np.float32)))
        return docs, tfs

    def _mask(self, relations: Sequence[str] | None, partition: str | None) -> np.ndarray | None:
        """Which slots pass the filters (None: every live slot passes)."""
        key = (tuple(sorted(relations)) if relations is not None else None, partition)
        if key not in self._masks:
            mask = self.alive.view.copy()
            if relations is not None:
                mask &= np.isin(self.relation.view, [self.codes.get(r, -1) for r in relations])
            if partition is not None:
                wanted = [self.codes.get(p, -1) for p in (self.wildcard, partition)]
                mask &= np.isin(self.partition.view, wanted)
            self._masks[key] = mask
        return self._masks[key]

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
            partition: Keep facts of this partition and wildcard ones (None keeps all).
        """
        [terms] = tokenize([query])
        if not terms:
            return None
        ids = list(dict.fromkeys(self.vocab[t] for t in terms if t in self.vocab))
        if not ids or not self.slot:
            return []
        mask = self._mask(relations, partition)
        n = len(self.slot)
        totals = np.zeros(len(self.uuids), dtype=np.float32)
        for tid in ids:  # a term lists each document once: plain fancy-index adds
            docs, weights = self._term_weights(tid)
            if not docs.size:
                continue
            idf = math.log(1 + (n - docs.size + 0.5) / (docs.size + 0.5))
            totals[docs] += np.float32(idf) * weights
        keep = totals > 0
        if mask is not None:
            keep &= mask
        return [self.uuids[i] for i in _top(totals, np.flatnonzero(keep), fetch)]

    def _term_weights(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """A term's live documents and their BM25 weights before idf (kept until a change)."""
        cached = self._weights.pop(tid, None)
        if cached is not None:
            self._weights[tid] = cached  # most recently searched last
            return cached
        docs, tfs = self._postings(tid)
        if len(self.uuids) > len(self.slot):  # dead slots
            live = self.alive.view[docs]
            docs, tfs = docs[live], tfs[live]
        norm = self._norm
        if norm is None:
            n = len(self.slot)
            norm = self._norm = K1 * ((1 - B) + B * self.length.view / (self.live_length / n))
        weights = (tfs / (norm[docs] + tfs)).astype(np.float32)
        cached_size = sum(d.size for d, _ in self._weights.values())
        while self._weights and cached_size + docs.size > MAX_CACHED_POSTINGS:
            cached_size -= self._weights.pop(next(iter(self._weights)))[0].size
        if docs.size <= MAX_CACHED_POSTINGS:
            self._weights[tid] = (docs, weights)
        return docs, weights

    # -- persistence ----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Serialise the index's live content as an .npz archive (the index is not changed)."""
        c = self._compacted()
        header = {
            "vocab": list(self.vocab),
            "codes": list(self.codes),
            "uuids": c.uuids,
            "wildcard": self.wildcard,
        }
        out = io.BytesIO()
        np.savez(
            out,
            header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
            indptr=c.indptr,
            docs=c.docs,
            tfs=c.tfs,
            length=c.length,
            relation=c.relation,
            partition=c.partition,
        )
        return out.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> LexicalIndex:
        """Load an index written by `to_bytes`."""
        arrays = np.load(io.BytesIO(data), allow_pickle=False)
        header = json.loads(arrays["header"].tobytes())
        index = cls(header["wildcard"])
        index.vocab = {t: i for i, t in enumerate(header["vocab"])}
        index.codes = {c: i for i, c in enumerate(header["codes"])}
        index.uuids = list(header["uuids"])
        index.slot = {uuid: i for i, uuid in enumerate(index.uuids)}
        index.indptr, index.docs, index.tfs = arrays["indptr"], arrays["docs"], arrays["tfs"]
        index.length = _Column(np.float32, arrays["length"])
        index.relation = _Column(np.int32, arrays["relation"])
        index.partition = _Column(np.int32, arrays["partition"])
        index.alive = _Column(np.bool_, np.ones(len(index.uuids), dtype=np.bool_))
        index.live_length = float(index.length.view.sum())
        return index


def _top(totals: np.ndarray, candidates: np.ndarray, fetch: int) -> list[int]:
    """The `fetch` candidates of highest total, best first (ties: index order).

    `candidates` are the indexes worth ranking (non-zero and kept by the filters):
    finding them on a boolean array is several times faster than on the totals.
    """
    if candidates.size == 0:
        return []
    values = totals[candidates]
    k = min(fetch, candidates.size)
    best = np.argpartition(-values, k - 1)[:k] if k < candidates.size else np.arange(k)
    best = best[np.lexsort((candidates[best], -values[best]))]
    return [int(candidates[i]) for i in best]


class LexicalKind:
    """The lexical index as a derived index of a graph (see `memory.backend.derived`).

    Args:
        partition_property: The ontology's partition property (an identifier, stored
            as ``p_<name>``); None indexes no partitions.
        wildcard: The partition value of facts that belong to every partition.
    """

    version = 1

    def __init__(self, partition_property: str | None, wildcard: str = WILDCARD) -> None:
        if partition_property is not None and not _IDENTIFIER.match(partition_property):
            raise ValueError(f"partition property {partition_property!r} must be an identifier")
        self.partition = f"coalesce(e.p_{partition_property}, '')" if partition_property else "''"
        self.wildcard = wildcard
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", f"{partition_property or ''}-{wildcard}")
        self.name = f"lexical-{safe}"

    def _fields(self) -> str:
        return f"e.uuid AS uuid, e.name AS relation, {self.partition} AS partition, e.fact AS fact"

    async def build(self, reader: Reader, group_id: str) -> LexicalIndex:
        """Index every current fact of the graph."""
        logger.info("building lexical index of %s", group_id)
        rows = await reader.query(
            group_id,
            "MATCH ()-[e:RELATES_TO]->() WHERE e.invalid_at IS NULL AND e.expired_at IS NULL "
            f"RETURN {self._fields()}",
        )
        return LexicalIndex.build(_facts(rows), self.wildcard)

    async def apply(
        self, reader: Reader, group_id: str, state: LexicalIndex, change: Change
    ) -> LexicalIndex:
        """Re-read the edges the change names: index the current ones, drop the rest."""
        rows = await read_by_ids(
            reader,
            group_id,
            "MATCH ()-[e:RELATES_TO]->() WHERE e.uuid IN $uuids "
            "AND e.invalid_at IS NULL AND e.expired_at IS NULL "
            f"RETURN {self._fields()}",
            change.edges,
        )
        current = _facts(rows)
        state.remove(change.edges - {f.uuid for f in current})
        state.upsert(current)
        return state

    def dump(self, state: LexicalIndex) -> bytes:
        """Serialise the index."""
        return state.to_bytes()

    def load(self, data: bytes) -> LexicalIndex:
        """Load a serialised index."""
        logger.info("loaded lexical index snapshot")
        return LexicalIndex.from_bytes(data)


def _facts(rows: Iterable[dict[str, object]]) -> list[Fact]:
    return [
        Fact(str(r["uuid"]), str(r["relation"]), str(r["partition"] or ""), str(r["fact"] or ""))
        for r in rows
    ]


async def lexical_index(
    db: GraphBackend,
    group_id: str,
    partition_property: str | None = None,
    wildcard: str = WILDCARD,
) -> LexicalIndex:
    """The graph's lexical index, current as of its newest commit."""
    index: LexicalIndex = await db.indexes.get(group_id, LexicalKind(partition_property, wildcard))
    return index


__all__ = ["Fact", "LexicalIndex", "LexicalKind", "lexical_index", "tokenize"]
