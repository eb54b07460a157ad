"""One connection to FalkorDB, serialised, with Graphiti drivers per namespace graph.

The async FalkorDB client misbehaves with concurrent queries on one connection,
so every query (ours and Graphiti's) goes through one `asyncio.Lock`. A lost
connection (e.g. the embedded server was killed) is re-established once:
embedded servers are restarted on their data dir first.

Reads are read-only queries (`query`); the only way to change a graph is
`commit`, which runs a change's queries and the change-log commands beside them
in one MULTI/EXEC transaction (see `memory.backend.changelog`). Graphiti is
imported only where its drivers are used (index creation, its stock searches),
so a process that only reads never pays for it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from falkordb.asyncio import FalkorDB
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.retry import Retry

from memory.backend import server
from memory.backend.derived import DerivedIndexes
from memory.backend.literals import check_params
from memory.backend.protocol import Statement
from memory.settings import Settings

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
# HNSW index over edge fact embeddings (retrieval must not scan every edge). FalkorDB's
# defaults (M=16, efRuntime=10) agreed with exact search on about 20% of a top 20 at
# 20k edges; these settings trade a few ms for near-exact recall (see docs/benchmarks.md).
VECTOR_M = 32
VECTOR_EF_CONSTRUCTION = 100
VECTOR_EF_RUNTIME = 400


T = TypeVar("T")
READ_ONLY = "is to be executed only on read-only queries"


async def _unknown_dim(group_id: str) -> int:
    return 0


@functools.cache
def _serial_driver_class() -> type:
    """Graphiti's FalkorDB driver whose queries share the database's lock (imported lazily)."""
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    logging.getLogger("graphiti_core.driver.falkordb_driver").setLevel(logging.WARNING)
    from graphiti_core.driver.driver import GraphDriverSession
    from graphiti_core.driver.falkordb_driver import FalkorDriver, FalkorDriverSession

    class SerialSession(FalkorDriverSession):  # type: ignore[misc]
        def __init__(self, graph: Any, db: Database) -> None:
            super().__init__(graph)
            self._db = db

        async def run(self, query: str | list, **kwargs: Any) -> Any:
            async with self._db.lock:
                return await super().run(query, **kwargs)

    class SerialFalkorDriver(FalkorDriver):  # type: ignore[misc]
        """A Graphiti FalkorDB driver whose queries share the database's lock."""

        def __init__(self, db: Database, database: str) -> None:
            self._db = db
            # Index creation is done explicitly by Database.ensure_indices.
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
            return SerialSession(self._get_graph(database), self._db)

        def clone(self, database: str) -> FalkorDriver:
            """Return the driver of another graph on the same connection."""
            return self._db.driver(database)

    return SerialFalkorDriver


class Database:
    """The FalkorDB server behind a `GraphMemory`, embedded or at a URL.

    Implements `memory.backend.protocol.GraphBackend`.

    Args:
        settings: Where the server is.
        vector_dim: The dimension of a graph's embeddings (0 while unknown), by graph
            name: sizes its vector index.
        edge_indexes: Edge properties (stored names, e.g. ``p_rule_name``) to index.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        vector_dim: Callable[[str], Awaitable[int]] | None = None,
        edge_indexes: Sequence[str] = (),
    ) -> None:
        for name in edge_indexes:
            if not _IDENTIFIER.match(name):
                raise ValueError(f"edge index property {name!r} must be an identifier")
        self.settings = settings
        self._indexes = (*STORE_INDEXES, *(EDGE_INDEX.format(n) for n in edge_indexes))
        self.lock = asyncio.Lock()
        self.client: Any = None
        self._drivers: dict[str, Any] = {}
        self._indexed: set[str] = set()
        # The embedder's dimension (0 while unknown): sizes the vector index.
        self.vector_dim = vector_dim or _unknown_dim
        self._vector_indexed: dict[str, bool] = {}
        snapshots = settings.data_dir / "indexes" if settings.index_snapshots else None
        self.indexes = DerivedIndexes(self, snapshots)

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

    def driver(self, group_id: str) -> Any:
        """Return the Graphiti driver of one namespace graph."""
        if group_id not in self._drivers:
            self._drivers[group_id] = _serial_driver_class()(self, group_id)
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
        read_only: bool = True,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run parameterised read-only Cypher on one graph and return rows as dicts.

        Raises:
            ValueError: The query writes (writes go through `commit`), `read_only` is
                False, or a string parameter holds a NUL (nothing is sent).
        """
        if not read_only:
            raise ValueError("Database.query is read-only: change a graph with commit()")
        check_params(params or {})

        async def run() -> Any:
            graph = self.client.select_graph(group_id)
            return await graph.ro_query(cypher, params or {}, timeout=timeout_ms)

        try:
            result = await self.call(run)
        except ResponseError as exc:
            # Reading a namespace that was never written: FalkorDB has no graph key yet.
            if "empty key" in str(exc):
                return []
            if READ_ONLY in str(exc):
                raise ValueError(
                    "Database.query is read-only: change a graph with commit()"
                ) from None
            raise
        header = [h[1] for h in result.header]
        return [dict(zip(header, row, strict=False)) for row in result.result_set]

    async def commit(
        self,
        group_id: str,
        statements: Sequence[Statement],
        commands: Sequence[Sequence[Any]] = (),
    ) -> None:
        """Run a change's queries and `commands` in one MULTI/EXEC transaction.

        Other clients see all of it or none of it, and a writer that dies before
        EXEC leaves nothing. Redis does not roll back a transaction whose command
        fails at run time: the other commands still apply (the change log then names
        uuids a failed query did not write, which readers re-read harmlessly).

        Raises:
            ValueError: A string parameter holds a NUL (nothing is sent).
            redis.exceptions.ResponseError: The first command that failed.
        """
        for _, params in statements:
            check_params(params)
        header = self.client.select_graph(group_id)._build_params_header
        queries = [
            ("GRAPH.QUERY", group_id, header(params) + cypher, "--compact")
            for cypher, params in statements
        ]
        await self._transaction([*queries, *commands])

    async def _transaction(self, commands: Sequence[Sequence[Any]]) -> None:
        """Run commands in one MULTI/EXEC; raise the first one's error, if any failed."""

        async def run() -> list[Any]:
            pipe = self.client.connection.pipeline(transaction=True)
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))

        for reply in await self.call(run):
            if isinstance(reply, Exception):
                raise reply

    async def execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Run raw key and stream commands in one round trip (a pipeline, not a transaction)."""

        async def run() -> list[Any]:
            pipe = self.client.connection.pipeline(transaction=False)
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute())

        result: list[Any] = await self.call(run)
        return result

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
        await self.create_vector_index(group_id, int(await self.vector_dim(group_id)))

    async def drop_vector_index(self, group_id: str) -> None:
        """Drop a graph's fact-embedding index (before its vectors change dimension)."""
        query = "DROP VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)"
        try:
            await self.call(lambda: self.client.select_graph(group_id).query(query))
        except ResponseError as exc:
            if "unable to drop" not in str(exc).lower() and "no" not in str(exc).lower():
                raise
        self._vector_indexed.pop(group_id, None)

    async def create_vector_index(self, group_id: str, dim: int) -> None:
        """Create the HNSW index on RELATES_TO fact embeddings with `dim` dimensions."""
        if dim <= 0:
            logger.info("embedding dimension unknown yet: no vector index on %s", group_id)
            return
        options = (
            f"{{dimension: {dim}, similarityFunction: 'cosine', M: {VECTOR_M}, "
            f"efConstruction: {VECTOR_EF_CONSTRUCTION}, efRuntime: {VECTOR_EF_RUNTIME}}}"
        )
        query = (
            "CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding) "
            f"OPTIONS {options}"
        )
        try:
            await self.call(lambda: self.client.select_graph(group_id).query(query))
        except ResponseError as exc:
            if "already indexed" not in str(exc).lower():
                raise
        self._vector_indexed[group_id] = True

    async def has_vector_index(self, group_id: str) -> bool:
        """Whether the graph has its vector index over edge facts (looked up once)."""
        if group_id not in self._vector_indexed:
            rows = await self.query(
                group_id,
                "CALL db.indexes() YIELD label, properties, types "
                "RETURN label, properties, types",
            )
            self._vector_indexed[group_id] = any(
                r["label"] == "RELATES_TO"
                and isinstance(r["types"], dict)
                and "VECTOR" in (r["types"].get("fact_embedding") or [])
                for r in rows
            )
        return self._vector_indexed[group_id]

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

    async def delete_graph(
        self, group_id: str, commands: Sequence[Sequence[Any]] = ()
    ) -> bool:
        """Delete one graph, running `commands` in the same transaction; False if absent."""
        if group_id not in await self.list_graphs():
            return False
        await self._transaction([("GRAPH.DELETE", group_id), *commands])
        self._indexed.discard(group_id)
        self._vector_indexed.pop(group_id, None)
        return True
