"""Connections to FalkorDB: the embedded server, one server at a URL, or a cluster.

Each is a bounded pool (``FALKORDB_POOL_SIZE`` connections a process may hold per
server, per cluster node): every query takes a connection of its own for its
duration, so concurrent queries never share a socket (the async client cannot be
trusted with that) and never wait for each other below the pool's size.

FalkorDB's own `FalkorDB.from_url` cannot open a cluster: it probes the server
with a *synchronous* client, then rebuilds the connection for the cluster from
the pool's keyword arguments and fails on the ``username`` and ``password`` keys
redis-py no longer puts there (``KeyError: 'username'``). Here the Redis
connection is built first (a `RedisCluster` when the server says
``redis_mode:cluster``, with the URL's credentials if it has any) and FalkorDB's
client is put on top of it (`Client`), without probing.

In a cluster a transaction must stay on one node: `SlotClients` holds a plain
pooled client per primary and hands out the one owning a key's slot. A commit's
keys (the graph ``<group_id>`` and ``athena:{<group_id>}:...``) share one slot.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aredis
from falkordb.asyncio import FalkorDB
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import (
    BlockingConnectionPool,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

logger = logging.getLogger(__name__)

POOL_WAIT_SECONDS = 60.0  # how long a query waits for a free connection of a full pool
PROBE_TIMEOUT_SECONDS = 10.0
# How long one command may take before the connection counts as lost. redis-py's default
# (5 s) broke off bulk commits of thousands of rules and whole-graph index reads at 100k
# rules on a busy server, then ran them again. Queries with a time limit are bounded by
# the server (`timeout_ms`); a `socket_timeout` in the URL wins over this.
COMMAND_TIMEOUT_SECONDS = 600.0
# Connection settings a plain client takes from the URL and a cluster node client reuses.
_REFUSED_LOGIN = ("WRONGPASS", "invalid username-password pair")
_NODE_KEYS = ("username", "password", "socket_timeout", "socket_connect_timeout", "ssl")


@contextlib.contextmanager
def credentials_checked() -> Iterator[None]:
    """Re-raise a refused login as `AuthenticationError` (redis-py's asyncio client wraps it).

    The async client reports a wrong password as a plain ``ConnectionError`` whose text
    is the server's; the caller's error message depends on knowing it was the login.
    """
    try:
        yield
    except AuthenticationError:
        raise
    except RedisConnectionError as exc:
        if any(mark in str(exc) for mark in _REFUSED_LOGIN):
            raise AuthenticationError(str(exc)) from exc
        raise


class Client(FalkorDB):  # type: ignore[misc]
    """FalkorDB's async client over a Redis connection built here.

    `FalkorDB.__init__` is not called: it would probe the server with a synchronous
    client and rebuild cluster connections itself (see the module docstring).
    """

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.flushdb = connection.flushdb
        self.execute_command = connection.execute_command


def redis_url(url: str) -> str:
    """The URL with FalkorDB's schemes (``falkor://``, ``falkors://``) as Redis's."""
    if url.startswith("falkor://"):
        return "redis://" + url[len("falkor://") :]
    if url.startswith("falkors://"):
        return "rediss://" + url[len("falkors://") :]
    return url


def url_kwargs(url: str) -> dict[str, Any]:
    """Host, port, credentials and TLS of a ``redis://`` / ``rediss://`` URL.

    Raises:
        ValueError: A scheme other than redis, rediss, falkor, falkors (a ``unix://`` URL
            is opened as one server, never a cluster, and does not come here).
    """
    url = redis_url(url)
    if not url.startswith(("redis://", "rediss://")):
        raise ValueError(
            f"FalkorDB URL {url!r} must start with redis://, rediss://, falkor://, falkors:// "
            "or unix://"
        )
    parsed: dict[str, Any] = dict(parse_url(url))
    kwargs: dict[str, Any] = {
        "host": parsed.get("host") or "localhost",
        "port": int(parsed.get("port") or 6379),
        "socket_timeout": COMMAND_TIMEOUT_SECONDS,
    }
    for name in ("username", "password", "socket_timeout", "socket_connect_timeout"):
        if parsed.get(name) is not None:
            kwargs[name] = parsed[name]
    if parsed.get("connection_class") is SSLConnection:
        kwargs["ssl"] = True
    return kwargs


async def is_cluster(url: str) -> bool:
    """Whether the server at `url` is a cluster node (``redis_mode:cluster``)."""
    probe = aredis.Redis.from_url(
        redis_url(url),
        decode_responses=True,
        socket_timeout=PROBE_TIMEOUT_SECONDS,
        socket_connect_timeout=PROBE_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        info = await probe.info("server")
    finally:
        await probe.aclose()
    return info.get("redis_mode") == "cluster"


@dataclass
class SlotClients:
    """One pooled plain client per cluster primary, for transactions on a key's slot."""

    cluster: RedisCluster
    node_kwargs: dict[str, Any]
    pool_size: int
    _clients: dict[str, aredis.Redis] = field(default_factory=dict)

    def for_key(self, key: str) -> aredis.Redis:
        """The client of the primary that owns `key`'s slot (from the cached slot map)."""
        node = self.cluster.get_node_from_key(key)
        if node is None:
            raise ValueError(f"no cluster node serves the slot of {key!r}")
        return self.for_node(node)

    def for_node(self, node: Any) -> aredis.Redis:
        """The client of one cluster node."""
        client = self._clients.get(node.name)
        if client is None:
            client = self._clients[node.name] = aredis.Redis(
                connection_pool=BlockingConnectionPool(
                    host=node.host,
                    port=node.port,
                    max_connections=self.pool_size,
                    timeout=POOL_WAIT_SECONDS,
                    decode_responses=True,
                    **self.node_kwargs,
                )
            )
        return client

    async def refresh(self) -> None:
        """Re-read the slot map (after a MOVED reply: slots changed hands)."""
        await self.cluster.nodes_manager.initialize()

    async def aclose(self) -> None:
        """Close every node client."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


@dataclass
class Connection:
    """An open connection: FalkorDB's client and, in a cluster, the per-slot clients."""

    client: Client
    slots: SlotClients | None = None  # set in a cluster

    @property
    def cluster(self) -> bool:
        """Whether the server is a cluster."""
        return self.slots is not None

    def transaction_client(self, key: str) -> Any:
        """The Redis client a MULTI/EXEC touching `key` (and its slot) must run on."""
        return self.slots.for_key(key) if self.slots is not None else self.client.connection

    def primaries(self) -> list[Any]:
        """One client per primary (the server itself when not a cluster)."""
        if self.slots is None:
            return [self.client.connection]
        return [self.slots.for_node(node) for node in self.slots.cluster.get_primaries()]

    async def aclose(self) -> None:
        """Close every connection."""
        if self.slots is not None:
            await self.slots.aclose()
        await self.client.connection.aclose()


async def open_url(url: str, pool_size: int) -> Connection:
    """Connect to the server or cluster at `url` with a pool of `pool_size` per server.

    Raises:
        ValueError: The URL's scheme is not one of FalkorDB's or Redis's.
        redis.exceptions.ConnectionError: Nothing answers at the URL.
    """
    if redis_url(url).startswith("unix://"):  # a server's unix socket: never a cluster
        return Connection(Client(aredis.Redis(connection_pool=_pool_from_url(url, pool_size))))
    kwargs = url_kwargs(url)
    if await is_cluster(url):
        cluster = RedisCluster(
            **kwargs,
            decode_responses=True,
            max_connections=pool_size,
        )
        await cluster.initialize()
        node_kwargs = {k: v for k, v in kwargs.items() if k in _NODE_KEYS}
        if node_kwargs.pop("ssl", False):
            node_kwargs["connection_class"] = SSLConnection
        return Connection(Client(cluster), SlotClients(cluster, node_kwargs, pool_size))
    return Connection(Client(aredis.Redis(connection_pool=_pool_from_url(url, pool_size))))


def _pool_from_url(url: str, pool_size: int) -> BlockingConnectionPool:
    extra = {} if "socket_timeout" in url else {"socket_timeout": COMMAND_TIMEOUT_SECONDS}
    return BlockingConnectionPool.from_url(
        redis_url(url),
        max_connections=pool_size,
        timeout=POOL_WAIT_SECONDS,
        decode_responses=True,
        **extra,
    )


def open_socket(path: str, pool_size: int) -> Connection:
    """A pool of `pool_size` connections to the embedded server's unix socket."""
    pool = BlockingConnectionPool(
        connection_class=UnixDomainSocketConnection,
        path=path,
        max_connections=pool_size,
        timeout=POOL_WAIT_SECONDS,
        socket_timeout=COMMAND_TIMEOUT_SECONDS,
        decode_responses=True,
        # One quick retry: redis-py's default backoff takes seconds to notice a dead server.
        retry=Retry(NoBackoff(), 1),
    )
    return Connection(Client(aredis.Redis(connection_pool=pool)))


__all__ = [
    "Client",
    "credentials_checked",
    "Connection",
    "SlotClients",
    "is_cluster",
    "open_socket",
    "open_url",
    "redis_url",
    "url_kwargs",
]
