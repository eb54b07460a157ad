"""Text embedders: WordLlama offline (weights ship in the wheel), OpenAI when configured."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memory.settings import Settings


class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return a `(len(texts), dim)` float32 array of L2-normalised vectors."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


_WORDLLAMA_CONFIG = "l2_supercat"  # the model WordLlama.load() loads by default
_LOADING = threading.Lock()


def _wordllama_model(dim: int) -> tuple[np.ndarray, Any]:
    # One load per process, however many threads ask at once (a warm-up and a query).
    with _LOADING:
        return _load_wordllama(dim)


@lru_cache(maxsize=1)
def _wordllama_files() -> Path:
    """The installed `wordllama` package's folder (found without importing it)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the wordllama package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


@lru_cache(maxsize=1)
def _load_wordllama(dim: int) -> tuple[np.ndarray, Any]:
    """WordLlama's token vectors and its tokenizer (unpadded), as `WordLlama.load` reads them.

    Read straight from the files its wheel ships: importing the `wordllama`
    package costs a fresh process about 0.3 s (it imports `requests` for downloads).
    """
    from tokenizers import Tokenizer

    root = _wordllama_files()
    weights = root / "weights" / f"{_WORDLLAMA_CONFIG}_{dim}.safetensors"
    config = root / "tokenizers" / f"{_WORDLLAMA_CONFIG}_tokenizer_config.json"
    if not weights.is_file() or not config.is_file():
        raise RuntimeError(f"WordLlama {dim}-d weights or tokenizer missing under {root}")
    # float16 as shipped: `_pooled` widens only the rows a text uses (same sums).
    table = _mapped_tensor(weights, "embedding.weight")
    tokenizer = Tokenizer.from_file(str(config))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return table, tokenizer


_SAFETENSORS_DTYPES = {"F16": np.float16, "F32": np.float32}


def _mapped_tensor(path: Path, name: str) -> np.ndarray:
    """One tensor of a safetensors file, memory-mapped read-only (pages load as rows are used).

    The format is an 8-byte little-endian header length, a JSON header giving each
    tensor's dtype, shape and byte range after the header, then the data. A fresh
    process maps WordLlama's 16 MB table in under a millisecond where `safetensors`
    copied it in about 13 (and its import cost 3 more); a dtype this does not map
    is read through `safetensors`.
    """
    with path.open("rb") as f:
        size = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(size))[name]
    dtype = _SAFETENSORS_DTYPES.get(entry["dtype"])
    start, end = entry["data_offsets"]
    shape = tuple(int(n) for n in entry["shape"])
    if dtype is None or end - start != int(np.prod(shape)) * np.dtype(dtype).itemsize:
        from safetensors import safe_open

        with safe_open(str(path), framework="np", device="cpu") as f:
            return np.ascontiguousarray(f.get_tensor(name))
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + size + start, shape=shape)


class WordLlamaEmbedder:
    """Offline static embeddings from the WordLlama weights inside its wheel."""

    name = "wordllama"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._words: _WordSums | None = None

    def warm_up(self) -> None:
        """Load the weights now (a fresh process overlaps this with connecting)."""
        _wordllama_model(self.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; never touches the network.

        WordLlama's vector of a text is the mean of its tokens' vectors, normalised.
        Its own `embed` pads each batch of 64 texts to the longest; here each word's
        token vectors are summed once (`_WordSums`) and a text's vector is the sum
        of its words' (the same vectors, to float rounding); a text the word split
        cannot reproduce is tokenized whole and its token vectors gathered unpadded.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            table, tokenizer = _wordllama_model(self.dim)
            if self._words is None:
                self._words = _WordSums(table, tokenizer)
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            whole = []
            for i in range(0, len(texts), _WORDS_CHUNK):
                chunk = texts[i : i + _WORDS_CHUNK]
                split = [n for n, text in enumerate(chunk, i) if _splits(text)]
                if split:
                    out[split] = self._words.pooled([texts[n] for n in split])
                whole += sorted(set(range(i, i + len(chunk))) - set(split))
            for i in range(0, len(whole), _EMBED_CHUNK):
                rows = whole[i : i + _EMBED_CHUNK]
                encoded = tokenizer.encode_batch([texts[n] for n in rows], add_special_tokens=False)
                out[rows] = _pooled(table, [e.ids for e in encoded])
        return _normalise(out)


_EMBED_CHUNK = 64  # texts per gather: their token vectors stay in cache
_WORDS_CHUNK = 2048  # texts split into words at a time
_WORDS_KEPT = 50_000  # words whose sums a `_WordSums` keeps (about 1 KB each at 256-d)


def _splits(text: str) -> bool:
    """Whether a text's tokens are those of its space-separated words, tokenized one by one.

    The tokenizer only prepends "▁" and turns spaces into "▁" (no pre-tokenizer), and
    no token of its vocabulary holds a "▁" after another character (a unit test checks
    both), so BPE never merges across the start of a word: the tokens of
    ``"▁" + text.replace(" ", "▁")`` are those of each ``"▁" + word`` in turn. Runs of
    spaces, a leading space, an empty text and anything that may spell a special token
    (``<s>``) are tokenized whole instead.
    """
    return bool(text) and text[0] != " " and "  " not in text and "<" not in text


class _WordSums:
    """The sum of each word's token vectors, tokenized once per word (a bounded cache)."""

    def __init__(self, table: np.ndarray, tokenizer: Any) -> None:
        self.table = table
        self.model = tokenizer.model
        self.index: dict[str, int] = {}
        self.sums = np.empty((1024, table.shape[1]), dtype=np.float32)

    def _add(self, words: Iterable[str]) -> None:
        wanted = set(words)
        new = sorted(wanted.difference(self.index))
        if len(self.index) + len(new) > _WORDS_KEPT:  # start over (keeps memory bounded)
            self.index, new = {}, sorted(wanted)
        need = len(self.index) + len(new)
        if need > len(self.sums):
            grown = np.empty((max(need, 2 * len(self.sums)), self.sums.shape[1]), np.float32)
            grown[: len(self.index)] = self.sums[: len(self.index)]
            self.sums = grown
        last = self.table.shape[0] - 1
        for word in new:
            ids = [min(token.id, last) for token in self.model.tokenize("▁" + word)]
            self.index[word] = row = len(self.index)
            self.sums[row] = self.table[ids].sum(axis=0, dtype=np.float32)

    def pooled(self, texts: Sequence[str]) -> np.ndarray:
        """The sum of each text's token vectors (texts for which `_splits` holds)."""
        words: list[str] = []
        counts = np.empty(len(texts), dtype=np.int64)
        for n, text in enumerate(texts):
            split = text.split(" ")
            words += split
            counts[n] = len(split)
        self._add(words)
        rows = np.fromiter(map(self.index.__getitem__, words), dtype=np.int64, count=len(words))
        ends = np.cumsum(counts)
        starts = ends - counts
        out = np.empty((len(texts), self.sums.shape[1]), dtype=np.float32)
        for i in range(0, len(texts), _EMBED_CHUNK):  # a chunk's word sums stay in cache
            first, last = int(starts[i]), int(ends[min(i + _EMBED_CHUNK, len(texts)) - 1])
            gathered = np.take(self.sums, rows[first:last], axis=0)
            out[i : i + _EMBED_CHUNK] = np.add.reduceat(
                gathered, starts[i : i + _EMBED_CHUNK] - first, axis=0
            )
        return out


def _pooled(table: np.ndarray, ids: list[list[int]]) -> np.ndarray:
    """The sum of each text's token vectors (zero for a text without tokens)."""
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    flat = np.fromiter((t for seq in ids for t in seq), dtype=np.int64, count=int(lengths.sum()))
    np.clip(flat, 0, table.shape[0] - 1, out=flat)
    out = np.zeros((len(ids), table.shape[1]), dtype=np.float32)
    filled = lengths > 0
    if flat.size:
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
        out[filled] = np.add.reduceat(table[flat].astype(np.float32, copy=False), starts, axis=0)
    return out


# Dimensions of OpenAI's embedding models; other models are probed with one request.
OPENAI_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
OPENAI_BATCH = 512  # inputs per request


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible `/embeddings` endpoint.

    The dimension is known for OpenAI's models (`OPENAI_DIMS`), given, or probed with
    one request (`probe`). `requests` and `input_tokens` count what was sent.
    """

    name = "openai"

    def __init__(
        self, model: str, api_key: str, base_url: str | None = None, *, dim: int | None = None
    ) -> None:
        from openai import OpenAI

        self._client = OpenAI(api_key=api_key, base_url=base_url)
        self.model = model
        self.dim = dim or OPENAI_DIMS.get(model, 0)
        self.requests = 0
        self.input_tokens = 0
        self._lock = threading.Lock()

    def probe(self) -> int:
        """Learn the dimension with one request (when it is not known yet)."""
        if self.dim <= 0:
            self.embed(["dimension probe"])
        return self.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, up to `OPENAI_BATCH` per request."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = []
        for start in range(0, len(texts), OPENAI_BATCH):
            chunk = list(texts[start : start + OPENAI_BATCH])
            response = self._client.embeddings.create(model=self.model, input=chunk)
            rows += [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
            with self._lock:
                self.requests += 1
                usage = getattr(response, "usage", None)
                self.input_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        vectors = _normalise(np.array(rows))
        self.dim = int(vectors.shape[1])
        return vectors


class EmbeddingPrefetch:
    """Embeds the texts of coming batches in a worker thread while earlier ones are written.

    `start(texts)` schedules them; `take(texts)` waits for what was scheduled, embeds
    whatever is still missing, and hands the vectors over (dropping them from the
    prefetch, so memory stays at about two batches).
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}
        self._pending: dict[str, asyncio.Future[None]] = {}

    def start(self, texts: Sequence[str]) -> None:
        """Begin embedding `texts` (those not embedded or scheduled already) in the background."""
        wanted = [
            t for t in dict.fromkeys(texts) if t not in self._vectors and t not in self._pending
        ]
        if wanted:
            task = asyncio.ensure_future(self._embed(wanted))
            self._pending.update(dict.fromkeys(wanted, task))

    async def _embed(self, texts: list[str]) -> None:
        vectors = await asyncio.to_thread(self.embedder.embed, texts)
        self._vectors.update(zip(texts, vectors, strict=True))

    async def take(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of `texts`: a `(len(texts), dim)` array, in order.

        The ones never scheduled are embedded now.
        """
        unique = list(dict.fromkeys(texts))
        waits = {id(f): f for t in unique if (f := self._pending.pop(t, None)) is not None}
        await asyncio.gather(*waits.values())
        missing = [t for t in unique if t not in self._vectors]
        if missing:
            await self._embed(missing)
        found = {t: self._vectors.pop(t) for t in unique}
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([found[t] for t in texts])

    async def close(self) -> None:
        """Wait for background work (call before dropping the prefetch)."""
        await asyncio.gather(*set(self._pending.values()), return_exceptions=True)
        self._pending, self._vectors = {}, {}


def create_embedder(settings: Settings) -> Embedder:
    """Build the embedder the settings choose (`auto`: OpenAI with a key, else WordLlama)."""
    if settings.resolved_embedder == "openai":
        if not settings.openai_api_key:
            raise ValueError("ATHENA_EMBEDDER=openai needs OPENAI_API_KEY")
        return OpenAIEmbedder(
            settings.embedding_model, settings.openai_api_key, settings.openai_base_url
        )
    return WordLlamaEmbedder()


async def embed_async(embedder: Embedder, texts: Iterable[str]) -> list[list[float]]:
    """Embed off the event loop and return plain lists (as FalkorDB wants them)."""
    items = list(texts)
    if not items:
        return []
    vectors = await asyncio.to_thread(embedder.embed, items)
    return [v.tolist() for v in vectors]
