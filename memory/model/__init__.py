"""The data model: namespaces, keys, ontologies, records and batch types.

Pydantic models and dataclasses only.

Imports nothing else of `memory`: every other layer builds on it.
"""

from memory.model.batch import (
    BatchResult,
    EntitySpec,
    RelationshipSpec,
    SourceItem,
    SubGraph,
    WriteTally,
    merge_shared,
)
from memory.model.keys import entity_key, normalise_name, stable_uuid
from memory.model.namespaces import Namespace, as_namespace
from memory.model.ontology import (
    EdgeTypeDefinition,
    NodeTypeDefinition,
    OntologyDefinition,
    get,
    list_ontologies,
    register,
)
from memory.model.records import (
    EntityRecord,
    GraphStats,
    RelationshipRecord,
    SearchHit,
    SourceRecord,
    TraverseResult,
    WriteResult,
    WriteStatus,
)

__all__ = [
    "BatchResult",
    "EdgeTypeDefinition",
    "EntityRecord",
    "EntitySpec",
    "GraphStats",
    "Namespace",
    "NodeTypeDefinition",
    "OntologyDefinition",
    "RelationshipRecord",
    "RelationshipSpec",
    "SearchHit",
    "SourceItem",
    "SourceRecord",
    "SubGraph",
    "TraverseResult",
    "WriteResult",
    "WriteStatus",
    "WriteTally",
    "as_namespace",
    "entity_key",
    "get",
    "list_ontologies",
    "merge_shared",
    "normalise_name",
    "register",
    "stable_uuid",
]
