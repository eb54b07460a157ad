"""Athena Memory: namespaced graph memory on Graphiti and FalkorDB.

The public surface is small: open a `GraphMemory`, address data by
`Namespace`, check writes against an `OntologyDefinition`. The layers beneath
(`memory.model`, `memory.backend`, `memory.search`, `memory.graph`,
`memory.sessions`) and the underwriting domain above them
(`memory.underwriting`) each export their own surface from their `__init__`.
"""

import typing

from memory.model.namespaces import Namespace
from memory.model.ontology import (
    EdgeTypeDefinition,
    NodeTypeDefinition,
    OntologyDefinition,
    list_ontologies,
)
from memory.model.ontology import get as get_ontology
from memory.model.ontology import register as register_ontology
from memory.model.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SearchHit,
    SourceRecord,
    TraverseResult,
    WriteResult,
)
from memory.settings import Settings, load_settings

if typing.TYPE_CHECKING:
    from memory.graph.store import GraphMemory


def __getattr__(name: str) -> typing.Any:
    # GraphMemory pulls in graphiti-core (about a second); load it on first use only.
    if name == "GraphMemory":
        from memory.graph.store import GraphMemory

        return GraphMemory
    raise AttributeError(f"module 'memory' has no attribute {name!r}")


__all__ = [
    "EdgeTypeDefinition",
    "EntityRecord",
    "GraphMemory",
    "GraphStats",
    "Namespace",
    "NodeTypeDefinition",
    "OntologyDefinition",
    "RelationshipRecord",
    "SearchHit",
    "Settings",
    "SourceRecord",
    "TraverseResult",
    "WriteResult",
    "get_ontology",
    "list_ontologies",
    "load_settings",
    "register_ontology",
]
