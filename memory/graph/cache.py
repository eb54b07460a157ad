"""A hot-path cache for retrieval: LRU eviction, a time to live, per-namespace invalidation.

Entries are keyed by ``(namespace, operation, query, filters)``. Any write to a
namespace drops its entries: `RetrievalCache.attach(memory)` registers the
cache as a write listener of a `GraphMemory` (see `GraphMemory.on_write`). Writes
made by *other processes* (a worker) are not seen; the time to live bounds how
stale a read can be, so keep it short where that matters.

    cache = RetrievalCache(max_size=512, ttl_seconds=60).attach(memory)
    hits = await cache.get_or_load(ns, "check_risk_appetite", (risk, product, 10), load)
    cache.stats()  # {'size': 3, 'hits': 10, 'misses': 3, 'hit_rate_percent': 76.9, ...}

Thread-safe: one `threading.RLock` guards the table and the counters.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

from memory.model.namespaces import Namespace, as_namespace

if TYPE_CHECKING:
    from memory.graph.store import GraphMemory

T = TypeVar("T")

DEFAULT_MAX_SIZE = 1024
"""Most entries kept; the least recently used goes first."""
DEFAULT_TTL_SECONDS = 60.0
"""Seconds an entry lives (bounds staleness from writes made by other processes)."""

CacheKey = tuple[str, str, Hashable, Hashable]


class RetrievalCache:
    """Thread-safe LRU + TTL cache of retrieval results, invalidated per namespace.

    Args:
        max_size: Most entries kept (at least 1).
        ttl_seconds: Lifetime of an entry in seconds (positive).
        clock: Monotonic clock (tests inject a fake one).

    Raises:
        ValueError: A non-positive size or time to live.
    """

    def __init__(
        self,
        max_size: int = DEFAULT_MAX_SIZE,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_size < 1:
            raise ValueError(f"max_size must be at least 1, got {max_size}")
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, got {ttl_seconds}")
        self.max_size = max_size
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.RLock()
        self._entries: OrderedDict[CacheKey, tuple[float, Any]] = OrderedDict()
        self.hits = self.misses = self.evictions = self.expirations = self.invalidations = 0

    @staticmethod
    def key(namespace: Namespace | str, operation: str, query: Hashable, filters: Hashable = None):
        """Return the cache key of one retrieval."""
        return (as_namespace(namespace).group_id, operation, query, filters)

    def get(
        self,
        namespace: Namespace | str,
        operation: str,
        query: Hashable,
        filters: Hashable = None,
    ) -> tuple[bool, Any]:
        """Return ``(True, value)`` on a live hit, else ``(False, None)`` (counted as a miss)."""
        key = self.key(namespace, operation, query, filters)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] > self._clock():
                self._entries.move_to_end(key)
                self.hits += 1
                return True, entry[1]
            if entry is not None:
                del self._entries[key]
                self.expirations += 1
            self.misses += 1
            return False, None

    def put(
        self,
        namespace: Namespace | str,
        operation: str,
        query: Hashable,
        value: Any,
        filters: Hashable = None,
        *,
        ttl_seconds: float | None = None,
    ) -> None:
        """Store a value, evicting the least recently used entries beyond `max_size`."""
        key = self.key(namespace, operation, query, filters)
        expires = self._clock() + (ttl_seconds or self.ttl_seconds)
        with self._lock:
            self._entries[key] = (expires, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)
                self.evictions += 1

    async def get_or_load(
        self,
        namespace: Namespace | str,
        operation: str,
        query: Hashable,
        load: Callable[[], Awaitable[T]],
        filters: Hashable = None,
    ) -> T:
        """Return the cached value, or await `load()`, cache and return it."""
        found, value = self.get(namespace, operation, query, filters)
        if found:
            return value  # type: ignore[no-any-return]
        value = await load()
        self.put(namespace, operation, query, value, filters)
        return value

    def invalidate_namespace(self, namespace: Namespace | str) -> int:
        """Drop every entry of a namespace; return how many were dropped."""
        group_id = as_namespace(namespace).group_id
        with self._lock:
            stale = [k for k in self._entries if k[0] == group_id]
            for k in stale:
                del self._entries[k]
            self.invalidations += len(stale)
            return len(stale)

    def cleanup_expired(self) -> int:
        """Drop expired entries; return how many."""
        now = self._clock()
        with self._lock:
            stale = [k for k, (expires, _) in self._entries.items() if expires <= now]
            for k in stale:
                del self._entries[k]
            self.expirations += len(stale)
            return len(stale)

    def clear(self) -> None:
        """Drop every entry (the statistics stay)."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def stats(self) -> dict[str, Any]:
        """Return size, hits, misses, hit rate (percent) and eviction counts."""
        with self._lock:
            lookups = self.hits + self.misses
            return {
                "size": len(self._entries),
                "max_size": self.max_size,
                "ttl_seconds": self.ttl_seconds,
                "hits": self.hits,
                "misses": self.misses,
                "hit_rate_percent": round(100.0 * self.hits / lookups, 1) if lookups else 0.0,
                "evictions": self.evictions,
                "expirations": self.expirations,
                "invalidations": self.invalidations,
            }

    def attach(self, memory: GraphMemory) -> RetrievalCache:
        """Invalidate a namespace whenever `memory` writes to it; return self."""
        if self.invalidate_namespace not in memory.on_write:
            memory.on_write.append(self.invalidate_namespace)
        return self

    def detach(self, memory: GraphMemory) -> None:
        """Stop listening to `memory`'s writes."""
        if self.invalidate_namespace in memory.on_write:
            memory.on_write.remove(self.invalidate_namespace)
