"""What the layers above need of a graph database: the `GraphBackend` protocol.

Writes, search, the queue and sessions depend on this interface, not on the
FalkorDB implementation (`memory.backend.falkordb.Database`), the way Graphiti's
operations depend on its query executor: nothing below the store imports the store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class GraphBackend(Protocol):
    """A server of named graphs (one per namespace) with Cypher, indexes and key access."""

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run parameterised Cypher on one graph and return rows as dicts."""
        ...

    async def list_graphs(self) -> list[str]:
        """Return the names of all graphs on the server."""
        ...

    async def delete_graph(self, group_id: str) -> bool:
        """Delete one graph; False if it did not exist."""
        ...

    async def ensure_indices(self, group_id: str) -> None:
        """Create the graph's indexes (once per connection)."""
        ...

    def has_vector_index(self, group_id: str) -> bool:
        """True once the graph's vector index over edge facts exists."""
        ...

    async def edge_count(self, group_id: str) -> int:
        """Number of edges of a graph."""
        ...

    async def generation(self, group_id: str) -> str:
        """The graph's write generation: a server-side token every write replaces."""
        ...

    async def bump_generation(self, group_id: str) -> None:
        """Mark the graph as written (derived structures are rebuilt on their next read)."""
        ...

    async def derived(self, group_id: str, kind: str, build: Callable[[], Awaitable[T]]) -> T:
        """A structure derived from a graph, kept until the graph's write generation changes."""
        ...

    async def redis(self, call: Callable[[Any], Awaitable[T]]) -> T:
        """Await `call(connection)` on the server's key-value connection (hashes, streams)."""
        ...

    def driver(self, group_id: str) -> Any:
        """The Graphiti driver of one graph (Graphiti's own saves and searches)."""
        ...

    async def call_with_retry(self, fn: Callable[[], Any]) -> Any:
        """Await `fn()` (a Graphiti call through `driver`), reconnecting once if needed."""
        ...


__all__ = ["GraphBackend"]
