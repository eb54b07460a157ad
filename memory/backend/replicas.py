"""Read replicas for read-only queries, with read-your-writes for the process that wrote.

``FALKORDB_READ_URLS`` names replicas of the primary at ``FALKORDB_URL``. The rule:

* each namespace graph reads from one replica (chosen by a hash of its name, so
  a graph's reads stay on one copy and its caches stay warm there);
* after this process commits to a namespace, it notes the primary's replication
  offset (``master_repl_offset``, which covers the commit); it reads that namespace
  from the **primary** until that replica's offset (``slave_repl_offset``) has
  reached the noted one. Checking costs one ``INFO replication`` on the replica
  per read while it lags, nothing once it has caught up;
* a replica that cannot be reached is skipped for `DOWN_SECONDS` (reads go to the
  primary meanwhile).

Other processes' writes reach a replica after the usual replication lag (on a
LAN, well under a millisecond to a few ms): replicas are eventually consistent
for them. The change log and the in-process indexes derived from it are always
read from the primary (`memory.backend.derived`), so an index never skips a
commit that a lagging replica had not applied yet.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

DOWN_SECONDS = 5.0
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)


def replication_offset(info: dict[str, Any], *, replica: bool) -> int:
    """The replication offset in an ``INFO replication`` reply (a replica's processed offset)."""
    name = "slave_repl_offset" if replica else "master_repl_offset"
    return int(info.get(name) or info.get("master_repl_offset") or 0)


@dataclass
class ReadReplicas:
    """Routes read-only queries of a namespace to its replica, or to the primary.

    Args:
        primary: The primary's Redis connection (``INFO replication``).
        replicas: Each replica's FalkorDB client (`memory.backend.connection.Client`).
        clock: Monotonic seconds (tests inject one).
    """

    primary: Any
    replicas: list[Any]
    clock: Callable[[], float] = time.monotonic
    _needs: dict[str, int] = field(default_factory=dict)  # group -> offset its reads need
    _reached: dict[int, int] = field(default_factory=dict)  # replica -> offset seen
    _down_until: dict[int, float] = field(default_factory=dict)
    reads: dict[str, int] = field(default_factory=lambda: {"primary": 0, "replica": 0})

    def index(self, group_id: str) -> int:
        """Which replica serves a namespace graph (stable across processes)."""
        return zlib.crc32(group_id.encode()) % len(self.replicas)

    async def committed(self, group_id: str) -> None:
        """Note a commit to `group_id`: its reads need the primary's current offset."""
        info = await self.primary.info("replication")
        self._needs[group_id] = replication_offset(info, replica=False)

    async def client_for(self, group_id: str) -> Any | None:
        """The replica to read `group_id` from, or None to read from the primary."""
        i = self.index(group_id)
        if self._down_until.get(i, 0.0) > self.clock():
            return self._count(None)
        need = self._needs.get(group_id)
        if need is not None and self._reached.get(i, 0) < need:
            try:
                info = await self.replicas[i].connection.info("replication")
            except UNREACHABLE as exc:
                self.down(i, exc)
                return self._count(None)
            reached = replication_offset(info, replica=True)
            self._reached[i] = max(self._reached.get(i, 0), reached)
            if reached < need:
                return self._count(None)
        if need is not None:
            del self._needs[group_id]
        return self._count(self.replicas[i])

    def down(self, i: int, exc: BaseException) -> None:
        """Skip replica `i` for `DOWN_SECONDS` after it failed."""
        logger.warning("read replica %d unreachable (%s): reading from the primary", i, exc)
        self._down_until[i] = self.clock() + DOWN_SECONDS

    def _count(self, client: Any | None) -> Any | None:
        self.reads["primary" if client is None else "replica"] += 1
        return client

    async def aclose(self) -> None:
        """Close the replicas' connections."""
        for client in self.replicas:
            await client.connection.aclose()


__all__ = ["DOWN_SECONDS", "ReadReplicas", "replication_offset"]
