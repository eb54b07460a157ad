"""Text embedders: WordLlama offline (weights ship in the wheel), OpenAI when configured."""

from __future__ import annotations

import asyncio
import importlib.util
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
    from safetensors import safe_open
    from tokenizers import Tokenizer

    root = _wordllama_files()
    weights = root / "weights" / f"{_WORDLLAMA_CONFIG}_{dim}.safetensors"
    config = root / "tokenizers" / f"{_WORDLLAMA_CONFIG}_tokenizer_config.json"
    if not weights.is_file() or not config.is_file():
        raise RuntimeError(f"WordLlama {dim}-d weights or tokenizer missing under {root}")
    with safe_open(str(weights), framework="np", device="cpu") as f:
        table = np.ascontiguousarray(f.get_tensor("embedding.weight").astype(np.float32))
    tokenizer = Tokenizer.from_file(str(config))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return table, tokenizer


class WordLlamaEmbedder:
    """Offline static embeddings from the WordLlama weights inside its wheel."""

    name = "wordllama"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Load the weights now (a fresh process overlaps this with connecting)."""
        _wordllama_model(self.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; never touches the network.

        WordLlama's vector of a text is the mean of its tokens' vectors, normalised.
        Its own `embed` pads each batch of 64 texts to the longest; here the tokens
        of a chunk of texts are gathered unpadded and summed per text
        (`np.add.reduceat`): the same vectors (to float rounding), faster.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            table, tokenizer = _wordllama_model(self.dim)
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            for i in range(0, len(texts), _EMBED_CHUNK):
                chunk = list(texts[i : i + _EMBED_CHUNK])
                encoded = tokenizer.encode_batch(chunk, add_special_tokens=False)
                out[i : i + len(chunk)] = _pooled(table, [e.ids for e in encoded])
        return _normalise(out)


_EMBED_CHUNK = 64  # texts per gather: their token vectors stay in cache


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
