"""What the store's write and read functions are given: one bundle of clients.

Like Graphiti's `GraphitiClients`: the functions below the `GraphMemory` facade
receive the backend, the embedder, the ontology and the store's write callback,
and never import the facade.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from memory.backend.changelog import Change
from memory.backend.protocol import GraphBackend, Statement
from memory.embedders import Embedder
from memory.model.ontology import OntologyDefinition


@dataclass(frozen=True)
class GraphClients:
    """The clients of one `GraphMemory`.

    Attributes:
        backend: The graph database.
        embedder: Embeds entity names and edge facts.
        ontology: What writes are checked against.
        commit: The store's one commit path: runs a change's statements on a graph
            with its change-log entry in one transaction and tells the store's write
            listeners (`GraphMemory.commit`).
    """

    backend: GraphBackend
    embedder: Embedder
    ontology: OntologyDefinition
    commit: Callable[[str, Sequence[Statement], Change], Awaitable[None]]


__all__ = ["GraphClients"]
