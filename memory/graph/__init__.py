"""The graph store: `GraphMemory` (the only writer) over the backend and search.

Below the facade, writes (`writes`, `bulk`, `sources`) and export / import
(`transfer`) are free functions given the store's clients (`GraphClients`) or a
protocol; none imports the store. `GraphMemory` pulls in Graphiti and is loaded
on first use.
"""

import typing

from memory.graph.cache import RetrievalCache
from memory.graph.clients import GraphClients

if typing.TYPE_CHECKING:
    from memory.graph.reader import GraphReader
    from memory.graph.store import GraphMemory, NamespaceLike


def __getattr__(name: str) -> typing.Any:
    # These pull in graphiti-core (about a second); load them on first use only.
    if name in ("GraphMemory", "NamespaceLike"):
        from memory.graph import store

        return getattr(store, name)
    if name == "GraphReader":
        from memory.graph.reader import GraphReader

        return GraphReader
    raise AttributeError(f"module 'memory.graph' has no attribute {name!r}")


__all__ = ["GraphClients", "GraphMemory", "GraphReader", "NamespaceLike", "RetrievalCache"]
