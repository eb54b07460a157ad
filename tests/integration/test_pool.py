"""The connection pool: queries of one process do not wait for each other, up to its size."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from memory import GraphMemory, Namespace, Settings

pytestmark = pytest.mark.integration


async def blocked_pop(memory: GraphMemory, key: str) -> object:
    """Hold one pooled connection until something is pushed on `key` (at most 10 s)."""
    return await memory.db.redis(lambda r: r.blpop([key], timeout=10))


async def until_blocked(settings: Settings) -> None:
    """Return once the server holds a client blocked in a pop; fail after 10 s."""
    async with GraphMemory(settings) as observer:
        deadline = time.monotonic() + 10
        while (await observer.db.redis(lambda r: r.info("clients")))["blocked_clients"] < 1:
            if time.monotonic() > deadline:
                pytest.fail("the pop never blocked on the server")
            await asyncio.sleep(0.01)


async def test_a_query_does_not_wait_for_a_blocked_connection(
    settings: Settings, namespace: Namespace
) -> None:
    key = f"test:{{pool}}:{uuid.uuid4().hex}"
    async with GraphMemory(settings.model_copy(update={"falkordb_pool_size": 2})) as memory:
        await memory.upsert_entity(namespace, "RiskFactor", "Gas Station")
        waiting = asyncio.create_task(blocked_pop(memory, key))
        await until_blocked(settings)
        # The other slot answers while the first connection is still blocked.
        rows = await asyncio.wait_for(
            memory.db.query(namespace.group_id, "MATCH (n:Entity) RETURN n.name AS name"), 5
        )
        assert rows == [{"name": "Gas Station"}] and not waiting.done()
        await memory.db.redis(lambda r: r.rpush(key, "go"))
        assert list(await asyncio.wait_for(waiting, 5)) == [key, "go"]


async def test_the_pool_bounds_queries_in_flight(settings: Settings, namespace: Namespace) -> None:
    key = f"test:{{pool}}:{uuid.uuid4().hex}"
    async with GraphMemory(settings.model_copy(update={"falkordb_pool_size": 1})) as memory:
        await memory.upsert_entity(namespace, "RiskFactor", "Gas Station")
        waiting = asyncio.create_task(blocked_pop(memory, key))
        await until_blocked(settings)  # the one slot is held by the pop
        query = asyncio.create_task(
            memory.db.query(namespace.group_id, "MATCH (n:Entity) RETURN n.name AS name")
        )
        done, _ = await asyncio.wait({query}, timeout=0.3)
        assert not done  # it cannot answer while the slot is held, however long we wait
        # Another client releases the pop; then the query gets the slot and answers.
        async with GraphMemory(settings) as other:
            await other.db.redis(lambda r: r.rpush(key, "go"))
        assert await asyncio.wait_for(query, 5) == [{"name": "Gas Station"}]
        await waiting
