"""What the store's write and read functions are given: one bundle of clients.

Like Graphiti's `GraphitiClients`: the functions below the `GraphMemory` facade
receive the backend, the embedder, the ontology and the store's write callback,
and never import the facade.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from memory.backend.protocol import GraphBackend
from memory.embedders import Embedder
from memory.model.namespaces import Namespace
from memory.model.ontology import OntologyDefinition


@dataclass(frozen=True)
class GraphClients:
    """The clients of one `GraphMemory`.

    Attributes:
        backend: The graph database.
        embedder: Embeds entity names and edge facts.
        ontology: What writes are checked against.
        wrote: Called with the namespace after each write (bumps its write generation
            and tells the store's write listeners).
    """

    backend: GraphBackend
    embedder: Embedder
    ontology: OntologyDefinition
    wrote: Callable[[Namespace], Awaitable[None]]


__all__ = ["GraphClients"]
