"""The read cache: what a reader read, kept until the next commit, bounded."""

from __future__ import annotations

import asyncio

from memory.backend.changelog import Change
from memory.backend.readcache import ReadCache, ReadCacheKind, read_through


def test_read_through_loads_only_what_is_not_cached() -> None:
    cache = ReadCache()
    asked: list[list[str]] = []

    async def load(keys: list[str]) -> dict[str, int]:
        asked.append(keys)
        return {k: len(k) for k in keys if k != "ghost"}  # "ghost" does not exist

    first = asyncio.run(read_through(cache, "words", ["ab", "abc", "ghost"], load))
    again = asyncio.run(read_through(cache, "words", ["abc", "abcd", "ab", "ghost"], load))
    assert first == {"ab": 2, "abc": 3}
    assert again == {"abc": 3, "abcd": 4, "ab": 2}
    assert asked == [["ab", "abc", "ghost"], ["abcd", "ghost"]]  # absent ones asked again
    assert cache.get_many("other space", ["ab"]) == {}


def test_the_least_recently_used_values_go_first() -> None:
    cache = ReadCache(max_entries=2)
    cache.put("s", "a", 1)
    cache.put("s", "b", 2)
    assert cache.get("s", "a") == 1  # a is now the most recently used
    cache.put("s", "c", 3)
    assert (cache.get("s", "a"), cache.get("s", "b"), cache.get("s", "c")) == (1, None, 3)
    assert len(cache) == 2


def test_a_commit_empties_the_cache_and_nothing_is_saved() -> None:
    kind = ReadCacheKind()
    cache = ReadCache(max_entries=5)
    cache.put("s", "a", 1)
    after = asyncio.run(kind.apply(None, "g", cache, Change()))  # type: ignore[arg-type]
    assert len(after) == 0 and after.max_entries == 5
    assert kind.persist is False and kind.dump(cache) == b""
