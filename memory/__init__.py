"""Athena Memory: namespaced graph memory on Graphiti and FalkorDB.

The public surface is small: open a `GraphMemory`, address data by
`Namespace`, check writes against an `OntologyDefinition`.
"""

from typing import TYPE_CHECKING, Any

from memory.namespaces import Namespace
from memory.ontology import (
    EdgeTypeDefinition,
    NodeTypeDefinition,
    OntologyDefinition,
    list_ontologies,
)
from memory.ontology import get as get_ontology
from memory.ontology import register as register_ontology
from memory.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SearchHit,
    SourceRecord,
    TraverseResult,
    WriteResult,
)
from memory.settings import Settings, load_settings

if TYPE_CHECKING:
    from memory.store import GraphMemory


def __getattr__(name: str) -> Any:
    # GraphMemory pulls in graphiti-core (about a second); load it on first use only.
    if name == "GraphMemory":
        from memory.store import GraphMemory

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
