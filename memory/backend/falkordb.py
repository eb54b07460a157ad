"""A pool of connections to FalkorDB (one server or a cluster), with Graphiti drivers.

The async FalkorDB client misbehaves with concurrent queries on one connection,
so every query (ours and Graphiti's) takes a connection of its own from a bounded
pool (`memory.backend.connection`): ``FALKORDB_POOL_SIZE`` queries of a process run
at once, the next ones wait for a free slot. A lost connection (e.g. the embedded
server was killed) is re-established once: embedded servers are restarted on their
data dir first. Read-only queries may go to read replicas
(`memory.backend.replicas`, ``FALKORDB_READ_URLS``).

Reads are read-only queries (`query`); the only way to change a graph is
`commit`, which runs a change's queries and the change-log commands beside them
in one MULTI/EXEC transaction (see `memory.backend.changelog`). Graphiti is
imported only where its drivers are used (its stock searches): its index
statements are kept in `memory.backend.indexes`, so neither a process that only
reads nor a first write into a new namespace pays for importing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from redis.exceptions import AskError, ClusterDownError, ResponseError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError

from memory.backend import server
from memory.backend.bulkload import postponed_aof_rewrite
from memory.backend.connection import Connection, credentials_checked, open_socket, open_url
from memory.backend.derived import DerivedIndexes
from memory.backend.indexes import ALREADY, GRAPHITI_INDEXES
from memory.backend.literals import check_params
from memory.backend.pooled import PrimaryReader, pooled_driver_class
from memory.backend.protocol import Statement
from memory.backend.replicas import UNREACHABLE, ReadReplicas
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
# What `ensure_indices` creates, as (label, property, index type): a graph that has them
# all is left alone (one read); a new one gets them without importing Graphiti.
_STORE_INDEXED = (("Entity", "entity_key"), ("Entity", "label"), ("Episodic", "name"))
_GRAPHITI_INDEXED = (
    *((label, "uuid", "RANGE") for label in ("Entity", "Episodic", "Community", "Saga")),
    *((rel, "uuid", "RANGE") for rel in ("RELATES_TO", "MENTIONS", "HAS_MEMBER")),
    *((rel, "uuid", "RANGE") for rel in ("HAS_EPISODE", "NEXT_EPISODE")),
    ("Entity", "name", "FULLTEXT"),
    ("Entity", "summary", "FULLTEXT"),
    ("Episodic", "content", "FULLTEXT"),
    ("Community", "name", "FULLTEXT"),
    ("RELATES_TO", "fact", "FULLTEXT"),
)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# HNSW index over edge fact embeddings (retrieval must not scan every edge). FalkorDB's
# defaults (M=16, efRuntime=10) agreed with exact search on about 20% of a top 20 at
# 20k edges; these settings trade a few ms for near-exact recall (see docs/benchmarks.md).
VECTOR_M = 32
VECTOR_EF_CONSTRUCTION = 100
VECTOR_EF_RUNTIME = 400


T = TypeVar("T")
READ_ONLY = "is to be executed only on read-only queries"
CONNECTION_ERRORS = (RedisConnectionError, ConnectionError, OSError)
# Replies that mean a cluster's slots moved since the slot map was read (MovedError is an
# AskError): re-read the map and run the transaction again (nothing of it was applied).
SLOT_MOVED = (AskError, ClusterDownError, TryAgainError)


async def _unknown_dim(group_id: str) -> int:
    return 0


class Database:
    """The FalkorDB server (or cluster) behind a `GraphMemory`, embedded or at a URL.

    Implements `memory.backend.protocol.GraphBackend`.

    Args:
        settings: Where the server is, its replicas, the pool size.
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
        # At most pool_size queries at once; a query may take a second connection while
        # it runs (FalkorDB's client refreshes a graph's schema), so pools hold twice that.
        self._slots = asyncio.Semaphore(settings.falkordb_pool_size)
        self._reconnecting = asyncio.Lock()
        self._generation = 0
        self.conn: Connection | None = None
        self._wanted = {
            *_GRAPHITI_INDEXED,
            *((label, prop, "RANGE") for label, prop in _STORE_INDEXED),
            *(("RELATES_TO", name, "RANGE") for name in edge_indexes),
        }
        self.client: Any = None
        self.replicas: ReadReplicas | None = None
        self._drivers: dict[str, Any] = {}
        self._indexed: set[str] = set()
        # The embedder's dimension (0 while unknown): sizes the vector index.
        self.vector_dim = vector_dim or _unknown_dim
        self._vector_indexed: dict[str, bool] = {}
        snapshots = settings.data_dir / "indexes" if settings.index_snapshots else None
        self.indexes = DerivedIndexes(PrimaryReader(self), snapshots)

    @property
    def target(self) -> str:
        """Where the server is: its URL, or the embedded server's data dir."""
        return self.settings.falkordb_url or f"embedded:{self.settings.data_dir}"

    @property
    def cluster(self) -> bool:
        """Whether the server is a cluster (known once connected)."""
        return self.conn is not None and self.conn.cluster

    def slot(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Hold one of the pool's query slots (Graphiti's queries take one too)."""
        return self._slots

    async def connect(self) -> None:
        """Connect, starting the embedded server first when no URL is set.

        Raises:
            ValueError: ``FALKORDB_READ_URLS`` without ``FALKORDB_URL``, or with a cluster
                (a cluster's replicas are its own nodes).
        """
        connections = 2 * self.settings.falkordb_pool_size
        if self.settings.falkordb_url:
            with credentials_checked():
                self.conn = await open_url(self.settings.falkordb_url, connections)
            self.client = self.conn.client
            self._drivers.clear()
            with credentials_checked():
                await self.client.connection.ping()
        else:
            self.conn = await self._connect_embedded(connections)
        if self.settings.read_urls and self.replicas is None:
            if not self.settings.falkordb_url or self.conn.cluster:
                raise ValueError(
                    "FALKORDB_READ_URLS needs FALKORDB_URL set to a single primary server "
                    "(not the embedded server, not a cluster)"
                )
            replicas = [(await open_url(u, connections)) for u in self.settings.read_urls]
            if any(r.cluster for r in replicas):
                raise ValueError("FALKORDB_READ_URLS must name replicas, not cluster nodes")
            self.replicas = ReadReplicas(self.client.connection, [r.client for r in replicas])
        elif self.replicas is not None:
            self.replicas.primary = self.client.connection

    async def _connect_embedded(self, connections: int) -> Connection:
        """Start (or find) the embedded server and connect to it.

        A server that dies between the start and the first answer (killed while busy
        with another process's commit) is started again, once.
        """
        for attempt in (1, 2):
            status = await asyncio.to_thread(
                partial(
                    server.ensure_server,
                    self.settings.data_dir,
                    load_timeout=self.settings.load_timeout,
                )
            )
            conn = self.conn = open_socket(str(status.socket_path), connections)
            self.client = conn.client
            self._drivers.clear()
            try:
                await self.client.connection.ping()
                return conn
            except CONNECTION_ERRORS:
                if attempt == 2:
                    raise
                logger.warning("FalkorDB in %s went away as we connected", self.target)
                with contextlib.suppress(Exception):  # the connection is already broken
                    await conn.aclose()
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """Close the connections (an embedded server keeps running for other processes)."""
        if self.conn is not None:
            await self.conn.aclose()
            self.conn = self.client = None
        if self.replicas is not None:
            await self.replicas.aclose()
            self.replicas = None
        self._drivers.clear()

    def driver(self, group_id: str) -> Any:
        """Return the Graphiti driver of one namespace graph."""
        if group_id not in self._drivers:
            self._drivers[group_id] = pooled_driver_class()(self, group_id)
        return self._drivers[group_id]

    async def _reconnect(self, generation: int) -> None:
        async with self._reconnecting:
            if generation != self._generation:
                return  # another query reconnected meanwhile
            logger.warning("lost the FalkorDB connection to %s; reconnecting", self.target)
            old, self.conn = self.conn, None
            if old is not None:
                with contextlib.suppress(Exception):  # the connection is already broken
                    await old.aclose()
            await self.connect()
            self._generation += 1

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (which uses `self.client`) in a pool slot, reconnecting once."""
        for attempt in (1, 2):
            generation = self._generation
            try:
                async with self._slots:
                    return await fn()
            except CONNECTION_ERRORS:
                if attempt == 2:
                    raise
                await self._reconnect(generation)
        raise AssertionError("unreachable")

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = True,
        timeout_ms: int | None = None,
        primary: bool = False,
    ) -> list[dict[str, Any]]:
        """Run parameterised read-only Cypher on one graph and return rows as dicts.

        A read replica serves it when one is configured, unless `primary` is set or
        this process's latest commit to the graph has not reached the replica yet.

        Raises:
            ValueError: The query writes (writes go through `commit`), `read_only` is
                False, or a string parameter holds a NUL (nothing is sent).
        """
        if not read_only:
            raise ValueError("Database.query is read-only: change a graph with commit()")
        check_params(params or {})
        replica = None
        if not primary and self.replicas is not None:
            replica = await self.replicas.client_for(group_id)

        async def run(client: Any) -> Any:
            return await client.select_graph(group_id).ro_query(
                cypher, params or {}, timeout=timeout_ms
            )

        try:
            result = None
            if replica is not None and self.replicas is not None:
                try:
                    async with self._slots:
                        result = await run(replica)
                except UNREACHABLE as exc:
                    self.replicas.down(self.replicas.index(group_id), exc)
            if result is None:
                result = await self.call(lambda: run(self.client))
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

    async def _transaction(self, key: str, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Run `commands` in one MULTI/EXEC on the node owning `key`'s slot; the replies."""

        async def run() -> list[Any]:
            assert self.conn is not None
            pipe = self.conn.transaction_client(key).pipeline(transaction=True)
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))

        for attempt in (1, 2):
            try:
                replies: list[Any] = await self.call(run)
                return replies
            except SLOT_MOVED:
                if attempt == 2 or self.conn is None or self.conn.slots is None:
                    raise
                await self.conn.slots.refresh()
        raise AssertionError("unreachable")

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
        uuids a failed query did not write, which readers re-read harmlessly). In a
        cluster the transaction runs on the node owning the graph's slot: `commands`
        must keep to that slot (keys tagged ``{<group_id>}``).

        Raises:
            ValueError: A string parameter holds a NUL (nothing is sent).
            redis.exceptions.ResponseError: The first command that failed.
        """
        for _, params in statements:
            check_params(params)
        graph = self.client.select_graph(group_id)
        queued: list[Sequence[Any]] = [
            ("GRAPH.QUERY", group_id, graph._build_params_header(params) + cypher, "--compact")
            for cypher, params in statements
        ]
        for reply in await self._transaction(group_id, [*queued, *commands]):
            if isinstance(reply, Exception):
                raise reply
        if self.replicas is not None:
            await self.replicas.committed(group_id)

    async def execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Run raw key and stream commands in one round trip (a pipeline, not a transaction).

        In a cluster the commands may touch several slots (one round trip per node).
        """

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
        if await self._indexes_present(group_id):
            self._indexed.add(group_id)
            return
        for query in (*GRAPHITI_INDEXES, *self._indexes):  # Graphiti's, then the store's
            await self._create_index(group_id, query)
        await self._ensure_vector_index(group_id)
        self._indexed.add(group_id)

    async def _create_index(self, group_id: str, query: str) -> None:
        """Run one index statement; an index that exists already is success."""
        try:
            await self.call(lambda: self.client.select_graph(group_id).query(query))
        except ResponseError as exc:
            if not any(text in str(exc) for text in ALREADY):
                raise

    async def _indexes_present(self, group_id: str) -> bool:
        """Whether the graph has every index `ensure_indices` creates (one read)."""
        rows = await self.query(
            group_id,
            "CALL db.indexes() YIELD label, types RETURN label, types",
        )
        have = {
            (r["label"], prop, kind)
            for r in rows
            if isinstance(r["types"], dict)
            for prop, kinds in r["types"].items()
            for kind in kinds
        }
        vector = ("RELATES_TO", "fact_embedding", "VECTOR") in have
        if vector:
            self._vector_indexed[group_id] = True
        return self._wanted <= have and (vector or int(await self.vector_dim(group_id)) <= 0)

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
            f"CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding) OPTIONS {options}"
        )
        try:
            await self.call(lambda: self.client.select_graph(group_id).query(query))
        except ResponseError as exc:
            if "already indexed" not in str(exc).lower():
                raise
        self._vector_indexed[group_id] = True

    async def ensure_vector_index(self, group_id: str) -> None:
        """Create the HNSW index over edge facts: the server fills it in the background."""
        await self._ensure_vector_index(group_id)

    async def has_vector_index(self, group_id: str) -> bool:
        """Whether the graph has its vector index over edge facts (looked up once)."""
        if group_id not in self._vector_indexed:
            rows = await self.query(
                group_id,
                "CALL db.indexes() YIELD label, properties, types RETURN label, properties, types",
                primary=True,
            )
            self._vector_indexed[group_id] = any(
                r["label"] == "RELATES_TO"
                and isinstance(r["types"], dict)
                and "VECTOR" in (r["types"].get("fact_embedding") or [])
                for r in rows
            )
        return self._vector_indexed[group_id]

    async def redis(self, call: Callable[[Any], Awaitable[T]]) -> T:
        """Await `call(connection)` on the server's Redis connection (keys, hashes, streams).

        In a cluster the connection is a `RedisCluster`: each command goes to the node
        of its key, and a command or script touching several keys needs them in one
        slot (hash tags, e.g. the job queue's ``{athena:jobs}``).
        """
        result: T = await self.call(lambda: call(self.client.connection))
        return result

    def bulk_load(self) -> contextlib.AbstractAsyncContextManager[None]:
        """A bulk load: the embedded server compacts its AOF after it (see `bulkload`)."""
        return postponed_aof_rewrite(self.redis, embedded=not self.settings.falkordb_url)

    async def call_with_retry(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (which takes a pool slot itself), reconnecting once if the link broke."""
        generation = self._generation
        try:
            return await fn()
        except CONNECTION_ERRORS:
            await self._reconnect(generation)
            return await fn()

    async def has_graph(self, group_id: str) -> bool:
        """Whether the namespace graph exists (one key lookup on its node)."""
        return bool(await self.call(lambda: self.client.connection.exists(group_id)))

    async def list_graphs(self) -> list[str]:
        """Return the names of all graphs on the server (every primary of a cluster)."""

        async def run() -> list[str]:
            assert self.conn is not None
            names: list[str] = []
            for node in self.conn.primaries():
                names += [str(n) for n in await node.execute_command("GRAPH.LIST") or []]
            return names

        return list(await self.call(run))

    async def delete_graph(self, group_id: str, commands: Sequence[Sequence[Any]] = ()) -> bool:
        """Delete one graph, running `commands` in the same transaction; False if absent."""
        if not await self.has_graph(group_id):
            return False
        for reply in await self._transaction(group_id, [("GRAPH.DELETE", group_id), *commands]):
            if isinstance(reply, Exception):
                raise reply
        if self.replicas is not None:
            await self.replicas.committed(group_id)
        self._indexed.discard(group_id)
        self._vector_indexed.pop(group_id, None)
        return True
