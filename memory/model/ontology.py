"""Ontologies: the node labels and relations a namespace's graph may hold.

The definitions are generic; the built-in ontologies live with their domain
(`memory.underwriting.ontology`) and are imported by name on first use, so this
module never imports a domain.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class NodeTypeDefinition(BaseModel):
    """A node label of an ontology."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(description="Node label, e.g. 'RiskFactor'.")
    description: str = Field(description="What nodes of this label stand for.")
    properties: tuple[str, ...] = Field(default=(), description="Expected property names.")
    shared: bool = Field(
        default=False,
        description=(
            "Nodes many items share (accumulate properties: stored values win, new keys are "
            "added, the highest confidence is kept); other nodes are owned and overwritten."
        ),
    )


class EdgeTypeDefinition(BaseModel):
    """A relation of an ontology with its allowed endpoint labels."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relation: str = Field(description="Relation name, e.g. 'TRIGGERS'.")
    description: str = Field(description="What the relation means.")
    source_labels: tuple[str, ...] = Field(description="Labels allowed at the source end.")
    target_labels: tuple[str, ...] = Field(description="Labels allowed at the target end.")
    properties: tuple[str, ...] = Field(default=(), description="Expected property names.")
    property_values: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="Closed value sets of some properties."
    )


class OntologyDefinition(BaseModel):
    """A named set of node types and edge types."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Registry name, e.g. 'underwriting'.")
    description: str = Field(description="What the ontology models.")
    node_types: tuple[NodeTypeDefinition, ...] = Field(description="Allowed node labels.")
    edge_types: tuple[EdgeTypeDefinition, ...] = Field(description="Allowed relations.")
    partition_property: str | None = Field(
        default=None,
        description=(
            "Edge property that partitions the graph (e.g. a product); search can keep one "
            "partition plus the wildcard. An identifier: it is stored flattened as p_<name>."
        ),
    )
    partition_wildcard: str = Field(
        default="ALL", description="Partition value of edges that belong to every partition."
    )
    indexed_edge_properties: tuple[str, ...] = Field(
        default=(), description="Edge properties looked up by value (a range index on p_<name>)."
    )

    @field_validator("partition_property", "indexed_edge_properties")
    @classmethod
    def _identifiers(cls, value: Any) -> Any:
        for name in [value] if isinstance(value, str) else value or ():
            if not _IDENTIFIER.match(name):
                raise ValueError(
                    f"property name {name!r} must be an identifier ([A-Za-z_][A-Za-z0-9_]*)"
                )
        return value

    @functools.cached_property
    def shared_labels(self) -> frozenset[str]:
        """The labels of nodes many items share (see `NodeTypeDefinition.shared`)."""
        return frozenset(n.label for n in self.node_types if n.shared)

    @functools.cached_property
    def labels(self) -> tuple[str, ...]:
        """The allowed node labels."""
        return tuple(n.label for n in self.node_types)

    @property
    def relations(self) -> tuple[str, ...]:
        """The allowed relation names."""
        return tuple(e.relation for e in self.edge_types)

    def check_label(self, label: str) -> str:
        """Return `label` if the ontology has it.

        Raises:
            ValueError: Unknown label; the message lists the allowed ones.
        """
        if label not in self.labels:
            raise ValueError(
                f"unknown node label {label!r} for ontology {self.name!r}; "
                f"allowed: {', '.join(self.labels)}"
            )
        return label

    def edge_type(self, relation: str) -> EdgeTypeDefinition:
        """Return the definition of `relation`.

        Raises:
            ValueError: Unknown relation; the message lists the allowed ones.
        """
        for edge in self.edge_types:
            if edge.relation == relation:
                return edge
        raise ValueError(
            f"unknown relation {relation!r} for ontology {self.name!r}; "
            f"allowed: {', '.join(self.relations)}"
        )

    def validate_edge(
        self, source_label: str, relation: str, target_label: str, properties: dict[str, Any]
    ) -> None:
        """Check an edge against the relation's endpoint labels and closed property values.

        Raises:
            ValueError: The relation, an endpoint label or a property value is not allowed.
        """
        edge = self.edge_type(relation)
        if source_label not in edge.source_labels:
            raise ValueError(
                f"{relation} cannot start at a {source_label}; allowed source labels: "
                f"{', '.join(edge.source_labels)}"
            )
        if target_label not in edge.target_labels:
            raise ValueError(
                f"{relation} cannot end at a {target_label}; allowed target labels: "
                f"{', '.join(edge.target_labels)}"
            )
        for key, allowed in edge.property_values.items():
            value = properties.get(key)
            if value is not None and value not in allowed:
                raise ValueError(
                    f"{relation}.{key}={value!r} is not allowed; allowed: {', '.join(allowed)}"
                )

    def to_prompt_context(self) -> str:
        """Render the ontology as markdown for an LLM prompt."""
        lines = [f"## Ontology: {self.name}", "", self.description, "", "### Node types"]
        lines += [f"- **{n.label}**: {n.description}" for n in self.node_types]
        lines += ["", "### Relations"]
        for e in self.edge_types:
            ends = f"({'|'.join(e.source_labels)}) -> ({'|'.join(e.target_labels)})"
            lines.append(f"- **{e.relation}** {ends}: {e.description}")
            if e.properties:
                lines.append(f"  - properties: {', '.join(e.properties)}")
            for key, values in e.property_values.items():
                lines.append(f"  - `{key}` is one of: {', '.join(values)}")
        return "\n".join(lines) + "\n"


_REGISTRY: dict[str, OntologyDefinition] = {}
# Built-in ontologies by name: the module that registers each, imported on first use.
BUILTIN: dict[str, str] = {"underwriting": "memory.underwriting.ontology"}


def _load_builtin(name: str) -> None:
    if name not in _REGISTRY and name in BUILTIN:
        importlib.import_module(BUILTIN[name])


def register(ontology: OntologyDefinition, *, replace: bool = False) -> OntologyDefinition:
    """Add an ontology to the registry.

    Raises:
        ValueError: The name is taken by a different definition and `replace` is False.
    """
    existing = _REGISTRY.get(ontology.name)
    if existing is not None and existing != ontology and not replace:
        raise ValueError(f"ontology {ontology.name!r} is already registered")
    _REGISTRY[ontology.name] = ontology
    return ontology


def get(name: str) -> OntologyDefinition:
    """Return a registered ontology.

    Raises:
        ValueError: No ontology of that name; the message lists the registered ones.
    """
    _load_builtin(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown ontology {name!r}; registered: {', '.join(list_ontologies()) or 'none'}"
        ) from None


def list_ontologies() -> list[str]:
    """Return the names of the registered ontologies (the built-in ones included)."""
    for name in BUILTIN:
        _load_builtin(name)
    return sorted(_REGISTRY)
