"""Values read from a graph, kept in process until the graph's next commit.

A long-running reader (`athena mcp`, `langgraph dev`, a batch of decisions) asks
the same things again and again: the records of the edges a search ranks, the
rankings of repeated queries, the decision paths of the rules that fire.
`ReadCache` keeps what was read, per graph, and is a derived index
(`memory.backend.derived`): every read first polls the graph's change log, and
any new commit, by this process or another, drops the whole cache. What it
returns is therefore always what a read would return now; it trades nothing but
memory (bounded, least recently used dropped first) for the round trips it saves.

Dropping everything on any commit is deliberately coarse: a record can depend
on more than its own uuid (an edge's row carries its endpoints' names), and in
serving, commits to a namespace are rare next to its reads.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import Any, TypeVar

from memory.backend.changelog import Change
from memory.backend.derived import Reader, held
from memory.backend.protocol import GraphBackend

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
MAX_ENTRIES = 50_000  # values kept per graph (an edge record is about 1 KB)


class ReadCache:
    """What was read from one graph since its last commit: (space, key) -> value.

    Args:
        max_entries: Values kept; the least recently used go first.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._values: OrderedDict[tuple[str, Hashable], Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def get_many(self, space: str, keys: Iterable[Hashable]) -> dict[Hashable, Any]:
        """The cached values of `keys` in `space` (keys not cached are left out)."""
        found = {}
        for key in keys:
            value = self._values.get((space, key), _MISSING)
            if value is not _MISSING:
                self._values.move_to_end((space, key))
                found[key] = value
        return found

    def get(self, space: str, key: Hashable, default: Any = None) -> Any:
        """The cached value of `key` in `space`, or `default`."""
        return self.get_many(space, (key,)).get(key, default)

    def put_many(self, space: str, values: dict[Hashable, Any]) -> None:
        """Keep `values` (key -> value) in `space`."""
        for key, value in values.items():
            self._values[(space, key)] = value
            self._values.move_to_end((space, key))
        while len(self._values) > self.max_entries:
            self._values.popitem(last=False)

    def put(self, space: str, key: Hashable, value: Any) -> None:
        """Keep one value."""
        self.put_many(space, {key: value})

    def clear(self) -> None:
        """Forget everything."""
        self._values.clear()


_MISSING = object()


class ReadCacheKind:
    """The read cache as a derived index: empty at first, emptied by every commit."""

    name = "read-cache"
    version = 1
    persist = False  # nothing worth a snapshot: a fresh process starts empty

    async def build(self, reader: Reader, group_id: str) -> ReadCache:
        """An empty cache (nothing is read up front)."""
        return ReadCache()

    async def apply(
        self, reader: Reader, group_id: str, state: ReadCache, change: Change
    ) -> ReadCache:
        """A commit happened: forget everything read before it."""
        return ReadCache(state.max_entries)

    def dump(self, state: ReadCache) -> bytes:
        """Nothing is saved."""
        return b""

    def load(self, data: bytes) -> ReadCache:
        """An empty cache."""
        return ReadCache()


KIND = ReadCacheKind()


def empty_read_caches() -> None:
    """Empty every read cache this process holds (a benchmark's cold reads)."""
    for cache in held(KIND.name):
        cache.clear()


async def read_through(
    cache: ReadCache,
    space: str,
    keys: Iterable[K],
    load: Callable[[list[K]], Awaitable[dict[K, V]]],
) -> dict[K, V]:
    """The values of `keys` in `space`: cached ones, and the rest loaded once and kept.

    Args:
        cache: The graph's read cache.
        space: What the keys name (e.g. ``"path"``), so spaces never collide.
        keys: The keys wanted.
        load: Reads the values of the keys not cached; a key it leaves out is
            read again next time.
    """
    wanted = list(dict.fromkeys(keys))
    found: dict[K, V] = cache.get_many(space, wanted)  # type: ignore[assignment]
    missing = [k for k in wanted if k not in found]
    if missing:
        loaded = await load(missing)
        cache.put_many(space, loaded)  # type: ignore[arg-type]
        found.update(loaded)
    return found


async def read_cache(db: GraphBackend, group_id: str) -> ReadCache:
    """The graph's read cache, valid as of its newest commit (one change-log poll)."""
    cache: ReadCache = await db.indexes.get(group_id, KIND)
    return cache


__all__ = [
    "ReadCache",
    "ReadCacheKind",
    "empty_read_caches",
    "read_cache",
    "read_through",
]
