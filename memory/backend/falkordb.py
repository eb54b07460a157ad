"""One connection to FalkorDB, serialised, with Graphiti drivers per namespace graph.

The async FalkorDB client misbehaves with concurrent queries on one connection,
so every query (ours and Graphiti's) goes through one `asyncio.Lock`. A lost
connection (e.g. the embedded server was killed) is re-established once:
embedded servers are restarted on their data dir first.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence, Sized
from functools import partial
from typing import Any, TypeVar

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from falkordb.asyncio import FalkorDB  # noqa: E402
from graphiti_core.driver.driver import GraphDriverSession  # noqa: E402
from graphiti_core.driver.falkordb_driver import FalkorDriver, FalkorDriverSession  # noqa: E402
from redis.backoff import NoBackoff  # noqa: E402
from redis.exceptions import ConnectionError as RedisConnectionError  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402
from redis.retry import Retry  # noqa: E402

from memory.backend import server  # noqa: E402
from memory.backend.literals import check_params  # noqa: E402
from memory.settings import Settings  # noqa: E402

logger = logging.getLogger(__name__)

# Range indexes for the store's own lookups (upserts read by entity_key, sources by
# name, retrieval filters nodes by label; an ontology adds edge properties it looks up
# by value); without them each lookup scans the graph. Graphiti's driver treats
# "already indexed" as success.
STORE_INDEXES = (
    "CREATE INDEX FOR (n:Entity) ON (n.entity_key)",
    "CREATE INDEX FOR (n:Entity) ON (n.label)",
    "CREATE INDEX FOR (n:Episodic) ON (n.name)",
)
EDGE_INDEX = "CREATE INDEX FOR ()-[e:RELATES_TO]-() ON (e.{})"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
logging.getLogger("graphiti_core.driver.falkordb_driver").setLevel(logging.WARNING)

# HNSW index over edge fact embeddings (retrieval must not scan every edge). FalkorDB's
# defaults (M=16, efRuntime=10) agreed with exact search on about 20% of a top 20 at
# 20k edges; these settings trade a few ms for near-exact recall (see docs/benchmarks.md).
VECTOR_M = 32
VECTOR_EF_CONSTRUCTION = 100
VECTOR_EF_RUNTIME = 400


T = TypeVar("T")
# In-process indexes derived from graphs, least recently used first: (target, graph, kind).
_DERIVED: OrderedDict[tuple[str, str, str], tuple[str, Any]] = OrderedDict()
DERIVED_MAX = 64
FREEZE_FROM = 10_000  # entries from which a derived index is moved out of the GC's way


def _generation_key(group_id: str) -> str:
    return f"athena:generation:{group_id}"


class _SerialSession(FalkorDriverSession):
    def __init__(self, graph: Any, db: Database) -> None:
        super().__init__(graph)
        self._db = db

    async def run(self, query: str | list, **kwargs: Any) -> Any:
        async with self._db.lock:
            return await super().run(query, **kwargs)


class SerialFalkorDriver(FalkorDriver):
    """A Graphiti FalkorDB driver whose queries share the database's lock."""

    def __init__(self, db: Database, database: str) -> None:
        self._db = db
        # Index creation is done explicitly by Database.ensure_indices, not on construction.
        super().__init__(falkor_db=db.client, database=database)
        if self._init_task is not None:
            self._init_task.cancel()
            self._init_task = None

    async def execute_query(self, cypher_query_: str, **kwargs: Any) -> Any:
        """Run one query under the shared lock."""
        async with self._db.lock:
            return await super().execute_query(cypher_query_, **kwargs)

    def session(self, database: str | None = None) -> GraphDriverSession:
        """Return a session whose queries share the lock."""
        return _SerialSession(self._get_graph(database), self._db)

    def clone(self, database: str) -> FalkorDriver:
        """Return the driver of another graph on the same connection."""
        return self._db.driver(database)


class Database:
    """The FalkorDB server behind a `GraphMemory`, embedded or at a URL.

    Implements `memory.backend.protocol.GraphBackend`.

    Args:
        settings: Where the server is.
        vector_dim: The embedder's dimension (0 while unknown): sizes the vector index.
        edge_indexes: Edge properties (stored names, e.g. ``p_rule_name``) to index.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        vector_dim: Callable[[], int] | None = None,
        edge_indexes: Sequence[str] = (),
    ) -> None:
        for name in edge_indexes:
            if not _IDENTIFIER.match(name):
                raise ValueError(f"edge index property {name!r} must be an identifier")
        self.settings = settings
        self._indexes = (*STORE_INDEXES, *(EDGE_INDEX.format(n) for n in edge_indexes))
        self.lock = asyncio.Lock()
        self.client: Any = None
        self._drivers: dict[str, SerialFalkorDriver] = {}
        self._indexed: set[str] = set()
        # The embedder's dimension (0 while unknown): sizes the vector index.
        self.vector_dim = vector_dim or (lambda: 0)
        self._vector_indexed: set[str] = set()
        self._derived_locks: dict[tuple[str, str], asyncio.Lock] = {}

    @property
    def target(self) -> str:
        """Where the server is: its URL, or the embedded server's data dir."""
        return self.settings.falkordb_url or f"embedded:{self.settings.data_dir}"

    async def connect(self) -> None:
        """Connect, starting the embedded server first when no URL is set."""
        # The async client's constructor probes the server with a *sync* connection
        # (cluster detection), so build it off the event loop.
        if self.settings.falkordb_url:
            self.client = await asyncio.to_thread(FalkorDB.from_url, self.settings.falkordb_url)
        else:
            status = await asyncio.to_thread(server.ensure_server, self.settings.data_dir)
            # One quick retry: redis-py's default backoff takes seconds to notice a dead server.
            self.client = await asyncio.to_thread(
                partial(
                    FalkorDB, unix_socket_path=str(status.socket_path), retry=Retry(NoBackoff(), 1)
                )
            )
        self._drivers.clear()
        await self.client.connection.ping()

    async def close(self) -> None:
        """Close the connection (an embedded server keeps running for other processes)."""
        if self.client is not None:
            await self.client.connection.aclose()
            self.client = None
        self._drivers.clear()

    def driver(self, group_id: str) -> SerialFalkorDriver:
        """Return the Graphiti driver of one namespace graph."""
        if group_id not in self._drivers:
            self._drivers[group_id] = SerialFalkorDriver(self, group_id)
        return self._drivers[group_id]

    async def _reconnect(self) -> None:
        logger.warning("lost the FalkorDB connection to %s; reconnecting", self.target)
        old = self.client
        self.client = None
        if old is not None:
            try:
                await old.connection.aclose()
            except Exception:  # noqa: BLE001 - the connection is already broken
                pass
        await self.connect()

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (which uses `self.client`) under the lock, reconnecting once."""
        for attempt in (1, 2):
            try:
                async with self.lock:
                    return await fn()
            except (RedisConnectionError, ConnectionError, OSError):
                if attempt == 2:
                    raise
                await self._reconnect()
        raise AssertionError("unreachable")

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run parameterised Cypher on one graph and return rows as dicts.

        Raises:
            ValueError: A string parameter holds a NUL (nothing is sent).
        """
        check_params(params or {})

        async def run() -> Any:
            graph = self.client.select_graph(group_id)
            method = graph.ro_query if read_only else graph.query
            return await method(cypher, params or {}, timeout=timeout_ms)

        try:
            result = await self.call(run)
        except ResponseError as exc:
            # Reading a namespace that was never written: FalkorDB has no graph key yet.
            if read_only and "empty key" in str(exc):
                return []
            raise
        header = [h[1] for h in result.header]
        return [dict(zip(header, row, strict=False)) for row in result.result_set]

    async def ensure_indices(self, group_id: str) -> None:
        """Create Graphiti's indexes and the store's own lookups on a graph, once per connection."""
        if group_id in self._indexed:
            return
        driver = self.driver(group_id)
        await self.call_with_retry(driver.build_indices_and_constraints)
        for query in self._indexes:
            await self.call_with_retry(partial(driver.execute_query, query))
        await self._ensure_vector_index(group_id)
        self._indexed.add(group_id)

    async def _ensure_vector_index(self, group_id: str) -> None:
        """Create the HNSW index on RELATES_TO fact embeddings, sized by the embedder."""
        dim = int(self.vector_dim())
        if dim <= 0:
            logger.info("embedding dimension unknown yet: no vector index on %s", group_id)
            return
        options = (
            f"{{dimension: {dim}, similarityFunction: 'cosine', M: {VECTOR_M}, "
            f"efConstruction: {VECTOR_EF_CONSTRUCTION}, efRuntime: {VECTOR_EF_RUNTIME}}}"
        )
        try:
            await self.query(
                group_id,
                "CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding) "
                f"OPTIONS {options}",
            )
        except ResponseError as exc:
            if "already indexed" not in str(exc).lower():
                raise
        self._vector_indexed.add(group_id)

    def has_vector_index(self, group_id: str) -> bool:
        """True once `ensure_indices` created (or found) the graph's vector index."""
        return group_id in self._vector_indexed

    async def edge_count(self, group_id: str) -> int:
        """Number of RELATES_TO edges of a graph (counted again after a write)."""

        async def count() -> int:
            rows = await self.query(
                group_id, "MATCH ()-[e:RELATES_TO]->() RETURN count(e) AS n", read_only=True
            )
            return int(rows[0]["n"]) if rows else 0

        return await self.derived(group_id, "edge_count", count)

    async def generation(self, group_id: str) -> str:
        """The graph's write generation: a server-side token every write replaces.

        A random token rather than a counter, so a server started afresh over a
        deleted data dir cannot repeat a generation an old index was built at.
        """
        value = await self.call(lambda: self.client.connection.get(_generation_key(group_id)))
        return value.decode() if isinstance(value, bytes) else str(value or "")

    async def derived(self, group_id: str, kind: str, build: Callable[[], Awaitable[T]]) -> T:
        """A structure derived from a graph (an in-process index), rebuilt after its writes.

        The value is kept while the graph's write generation is unchanged, and shared
        by every `Database` of this process that talks to the same server (a graph run
        that opens its own memory still finds the index built). `build` runs at most
        once at a time per graph and kind on this connection.
        """
        key = (self.target, group_id, kind)
        async with self._derived_locks.setdefault((group_id, kind), asyncio.Lock()):
            generation = await self.generation(group_id)
            cached = _DERIVED.get(key)
            if cached is not None and cached[0] == generation:
                _DERIVED.move_to_end(key)
                value: T = cached[1]
                return value
            value = await build()
            if isinstance(value, Sized) and len(value) >= FREEZE_FROM:
                # Long-lived: keep the cyclic GC from rescanning these objects on every
                # full collection (decisions at 100k rules paused 0.3-1.3 s now and then).
                gc.collect()
                gc.freeze()
            _DERIVED[key] = (generation, value)
            while len(_DERIVED) > DERIVED_MAX:
                _DERIVED.popitem(last=False)
            return value

    async def bump_generation(self, group_id: str) -> None:
        """Mark the graph as written (readers holding derived caches rebuild them)."""
        token = uuid.uuid4().hex
        await self.call(lambda: self.client.connection.set(_generation_key(group_id), token))

    async def redis(self, call: Callable[[Any], Awaitable[T]]) -> T:
        """Await `call(connection)` on the server's Redis connection (keys, hashes, streams)."""
        result: T = await self.call(lambda: call(self.client.connection))
        return result

    async def call_with_retry(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (which takes the lock itself), reconnecting once on a lost connection."""
        try:
            return await fn()
        except (RedisConnectionError, ConnectionError, OSError):
            await self._reconnect()
            return await fn()

    async def list_graphs(self) -> list[str]:
        """Return the names of all graphs on the server."""
        return list(await self.call(lambda: self.client.list_graphs()))

    async def delete_graph(self, group_id: str) -> bool:
        """Delete one graph; False if it did not exist."""
        if group_id not in await self.list_graphs():
            return False
        await self.call(lambda: self.client.select_graph(group_id).delete())
        self._indexed.discard(group_id)
        self._vector_indexed.discard(group_id)
        return True
