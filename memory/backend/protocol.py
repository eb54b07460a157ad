"""What the layers above need of a graph database: the `GraphBackend` protocol.

Writes, search, the queue and sessions depend on this interface, not on the
FalkorDB implementation (`memory.backend.falkordb.Database`), the way Graphiti's
operations depend on its query executor: nothing below the store imports the store.

Reads are read-only queries. A graph changes only through `commit`, which runs
a change's statements and the change-log commands beside them in one
transaction (`memory.backend.changelog`); `GraphMemory.commit` is the one caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from memory.backend.derived import DerivedIndexes

T = TypeVar("T")
Statement = tuple[str, dict[str, Any]]  # parameterised Cypher and its parameters


class GraphBackend(Protocol):
    """A server of named graphs (one per namespace) with Cypher, indexes and key access."""

    indexes: DerivedIndexes  # the in-process indexes derived from its graphs

    @property
    def target(self) -> str:
        """Where the server is (identifies it among the process's connections)."""
        ...

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = True,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run parameterised read-only Cypher on one graph and return rows as dicts."""
        ...

    async def commit(
        self,
        group_id: str,
        statements: Sequence[Statement],
        commands: Sequence[Sequence[Any]] = (),
    ) -> None:
        """Run statements on a graph and raw commands in one transaction."""
        ...

    async def execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Run raw key and stream commands in one round trip."""
        ...

    async def list_graphs(self) -> list[str]:
        """Return the names of all graphs on the server."""
        ...

    async def has_graph(self, group_id: str) -> bool:
        """Whether one graph exists (one key lookup)."""
        ...

    async def delete_graph(self, group_id: str, commands: Sequence[Sequence[Any]] = ()) -> bool:
        """Delete one graph (running `commands` in the same transaction); False if absent."""
        ...

    async def ensure_indices(self, group_id: str) -> None:
        """Create the graph's indexes (once per connection)."""
        ...

    async def has_vector_index(self, group_id: str) -> bool:
        """Whether the graph has its vector index over edge facts."""
        ...

    async def drop_vector_index(self, group_id: str) -> None:
        """Drop the vector index over edge facts (a bulk load builds it once at its end)."""
        ...

    async def ensure_vector_index(self, group_id: str) -> None:
        """Create the vector index over edge facts (built from existing edges)."""
        ...

    async def redis(self, call: Callable[[Any], Awaitable[T]]) -> T:
        """Await `call(connection)` on the server's key-value connection (hashes, streams)."""
        ...

    def bulk_load(self) -> AbstractAsyncContextManager[None]:
        """A block of many commits (a bulk load): the server may defer its housekeeping."""
        ...

    def driver(self, group_id: str) -> Any:
        """The Graphiti driver of one graph (Graphiti's own searches)."""
        ...

    async def call_with_retry(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (a Graphiti call through `driver`), reconnecting once if needed."""
        ...


__all__ = ["GraphBackend", "Statement"]
