"""The LRU + TTL retrieval cache."""

from __future__ import annotations

import threading

import pytest

from memory.graph import RetrievalCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_hit_miss_and_stats() -> None:
    cache = RetrievalCache(max_size=4, ttl_seconds=10)
    assert cache.get("agent:a", "q", "gas") == (False, None)
    cache.put("agent:a", "q", "gas", [1])
    assert cache.get("agent:a", "q", "gas") == (True, [1])
    stats = cache.stats()
    assert (stats["hits"], stats["misses"], stats["hit_rate_percent"]) == (1, 1, 50.0)


def test_lru_eviction() -> None:
    cache = RetrievalCache(max_size=2, ttl_seconds=10)
    cache.put("agent:a", "q", 1, "one")
    cache.put("agent:a", "q", 2, "two")
    cache.get("agent:a", "q", 1)  # 1 is now the most recently used
    cache.put("agent:a", "q", 3, "three")
    assert cache.get("agent:a", "q", 2)[0] is False
    assert cache.get("agent:a", "q", 1)[0] and cache.stats()["evictions"] == 1


def test_ttl_expiry() -> None:
    clock = Clock()
    cache = RetrievalCache(ttl_seconds=5, clock=clock)
    cache.put("agent:a", "q", "x", 1)
    clock.now = 4.9
    assert cache.get("agent:a", "q", "x")[0]
    clock.now = 5.0
    assert cache.get("agent:a", "q", "x")[0] is False
    assert cache.stats()["expirations"] == 1


def test_invalidation_is_per_namespace_and_filters_are_part_of_the_key() -> None:
    cache = RetrievalCache()
    cache.put("agent:a", "q", "x", 1, filters=("BOP",))
    cache.put("agent:b", "q", "x", 2)
    assert cache.get("agent:a", "q", "x")[0] is False  # other filters
    assert cache.invalidate_namespace("agent:a") == 1
    assert cache.get("agent:a", "q", "x", ("BOP",))[0] is False
    assert cache.get("agent:b", "q", "x") == (True, 2)


def test_attach_listens_to_writes() -> None:
    class FakeMemory:
        on_write: list = []

    memory = FakeMemory()
    cache = RetrievalCache().attach(memory)  # type: ignore[arg-type]
    cache.attach(memory)  # type: ignore[arg-type]
    assert len(memory.on_write) == 1
    cache.put("agent:a", "q", "x", 1)
    for listener in memory.on_write:
        listener("agent:a")
    assert len(cache) == 0
    cache.detach(memory)  # type: ignore[arg-type]
    assert memory.on_write == []


async def test_get_or_load_loads_once() -> None:
    cache = RetrievalCache()
    calls = []

    async def load() -> str:
        calls.append(1)
        return "v"

    assert await cache.get_or_load("agent:a", "q", "x", load) == "v"
    assert await cache.get_or_load("agent:a", "q", "x", load) == "v"
    assert len(calls) == 1


def test_thread_safety() -> None:
    cache = RetrievalCache(max_size=50)

    def hammer(n: int) -> None:
        for i in range(500):
            cache.put("agent:a", "q", (n, i % 80), i)
            cache.get("agent:a", "q", (n, (i * 7) % 80))
            if i % 100 == 0:
                cache.invalidate_namespace("agent:a")

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) <= 50
    stats = cache.stats()
    assert stats["hits"] + stats["misses"] == 2000


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_size"):
        RetrievalCache(max_size=0)
    with pytest.raises(ValueError, match="ttl"):
        RetrievalCache(ttl_seconds=0)
