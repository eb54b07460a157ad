"""What the memory store returns: plain models, no Graphiti types."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

WriteStatus = Literal["created", "updated", "unchanged"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WriteResult(_Record):
    """The effect of one upsert."""

    status: WriteStatus = Field(description="created, updated or unchanged.")
    key: str = Field(description="entity_key of a node, or the id of an edge or source.")
    uuid: str = Field(description="Graph uuid of what was written.")


class EntityRecord(_Record):
    """A node of a namespace's graph."""

    uuid: str = Field(description="Graph uuid.")
    entity_key: str = Field(description="Hash of normalised name + label + namespace.")
    label: str = Field(description="Ontology label.")
    name: str = Field(description="Display name.")
    summary: str = Field(default="", description="Free-text summary.")
    properties: dict[str, Any] = Field(default_factory=dict, description="Domain properties.")
    confidence: float | None = Field(default=None, description="Confidence of the last write.")
    last_update_source: str | None = Field(default=None, description="Who wrote it last.")
    created_at: datetime | None = Field(default=None, description="First written.")
    updated_at: datetime | None = Field(default=None, description="Last changed.")


class RelationshipRecord(_Record):
    """An edge of a namespace's graph, with its endpoints."""

    uuid: str = Field(description="Graph uuid (deterministic from its endpoints and relation).")
    relation: str = Field(description="Ontology relation.")
    source_key: str = Field(description="entity_key of the source node.")
    source_name: str = Field(description="Name of the source node.")
    source_label: str = Field(description="Label of the source node.")
    target_key: str = Field(description="entity_key of the target node.")
    target_name: str = Field(description="Name of the target node.")
    target_label: str = Field(description="Label of the target node.")
    fact: str = Field(description="Text that carries the edge's meaning (searched).")
    properties: dict[str, Any] = Field(default_factory=dict, description="Domain properties.")
    confidence: float | None = Field(default=None, description="Confidence of the last write.")
    last_update_source: str | None = Field(default=None, description="Who wrote it last.")
    created_at: datetime | None = Field(default=None, description="First written.")
    updated_at: datetime | None = Field(default=None, description="Last changed.")
    valid_at: datetime | None = Field(default=None, description="When it became true.")
    invalid_at: datetime | None = Field(default=None, description="When it stopped being true.")
    expired_at: datetime | None = Field(default=None, description="When memory retired it.")

    @property
    def is_current(self) -> bool:
        """False once the edge has been invalidated or expired."""
        return self.invalid_at is None and self.expired_at is None


class SearchHit(_Record):
    """One search result: an edge and its fused score (higher is better)."""

    relationship: RelationshipRecord = Field(description="The matching edge.")
    score: float = Field(description="Fused relevance score.")


class SourceRecord(_Record):
    """A source episode: raw text with provenance."""

    uuid: str = Field(description="Graph uuid (deterministic from the source id).")
    source_id: str = Field(description="Caller's id of the text (document, conversation).")
    content: str = Field(description="The raw text.")
    description: str = Field(default="", description="Where the text came from.")
    created_at: datetime | None = Field(default=None, description="When it was stored.")
    mentions: list[str] = Field(default_factory=list, description="entity_keys it mentions.")


class TraverseResult(_Record):
    """Rows of a read-only Cypher query."""

    rows: list[dict[str, Any]] = Field(description="Result rows (nodes/edges as dicts).")
    truncated: bool = Field(description="True when more rows existed than the cap.")


class GraphStats(_Record):
    """Counts of a namespace's graph."""

    namespace: str = Field(description="Namespace text form.")
    nodes_by_label: dict[str, int] = Field(description="Entity nodes per ontology label.")
    edges_by_relation: dict[str, int] = Field(description="Current edges per relation.")
    invalidated_edges: int = Field(description="Edges invalidated or expired.")
    sources: int = Field(description="Source episodes.")
