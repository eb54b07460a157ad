"""A bulk load on the embedded server: the append-only file is compacted after it, not during.

The embedded server appends every commit to its append-only file (AOF) and fsyncs
it before replying (`appendfsync always`), and rewrites the file as one snapshot
whenever it has doubled. A bulk load doubles it more than once: each rewrite
forks the server and copies the whole graph again, on the cores the load needs.
While a load runs, automatic rewrites are off; at its end they are on again and
the server starts the one rewrite it now needs on its own, in the background.

What a user keeps: every commit of the load is on disk before it is acknowledged,
as always. What waits: compaction, so a server restarted in the middle of a load
replays a longer AOF tail. A server at a URL (someone else's configuration) is
left alone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

logger = logging.getLogger(__name__)

AOF_REWRITE_PERCENTAGE = 100  # the embedded server's (Redis's default), set at its start
_SETTING = "auto-aof-rewrite-percentage"


@contextlib.asynccontextmanager
async def postponed_aof_rewrite(
    redis: Callable[[Callable[[Any], Awaitable[Any]]], Awaitable[Any]], embedded: bool
) -> AsyncIterator[None]:
    """Turn automatic AOF rewrites off for the block (embedded servers only).

    Args:
        redis: `Database.redis`: awaits a call on the server's connection.
        embedded: Whether the server is the embedded one (others are left alone).
    """
    if not embedded:
        yield
        return
    try:
        await redis(lambda c: c.config_set(_SETTING, 0))
    except Exception as exc:  # noqa: BLE001 - a load goes on without it
        logger.info("could not postpone AOF rewrites during a bulk load: %s", exc)
        yield
        return
    try:
        yield
    finally:
        await redis(lambda c: c.config_set(_SETTING, AOF_REWRITE_PERCENTAGE))


__all__ = ["AOF_REWRITE_PERCENTAGE", "postponed_aof_rewrite"]
