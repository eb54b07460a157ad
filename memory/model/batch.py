"""Batch write types: the nodes and edges of one item, source episodes, write tallies.

A `SubGraph` is what one item of a batch (e.g. one rule) writes: node specs named
by (label, name), edge specs between them, and the confidence stamped on them.
`GraphMemory.write_batch` applies many at once; domains map their items to
subgraphs (`memory.underwriting.rulebook.rule_graph`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class EntitySpec:
    """A node to upsert."""

    label: str
    name: str
    summary: str = ""
    properties: dict[str, Any] = field(default_factory=dict)
    invalid_at: datetime | None = None
    """When what the node stands for stopped holding (a retired rule); None: it holds."""


@dataclass(frozen=True)
class RelationshipSpec:
    """An edge to upsert between two `EntitySpec`s, named by (label, name)."""

    source: tuple[str, str]
    relation: str
    target: tuple[str, str]
    fact: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SubGraph:
    """The nodes and edges one item writes, with the provenance to stamp on them."""

    name: str
    entities: tuple[EntitySpec, ...]
    relationships: tuple[RelationshipSpec, ...]
    confidence: float
    valid_at: datetime | None = None
    """When this version of the item took effect (valid time): its changed edges are valid
    from then and the edges it lacks end then. None: the time of the write."""


@dataclass
class WriteTally:
    """Counts of what a batch of writes did."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def add(self, status: str) -> None:
        """Count one write by its status."""
        setattr(self, status, getattr(self, status) + 1)

    def merge(self, other: WriteTally) -> None:
        """Add another tally to this one."""
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged


@dataclass(frozen=True)
class SourceItem:
    """A source episode to write: its id, raw text, description, mentioned entity keys.

    `created_at` None keeps a stored episode's time (now for a new one). `uncovered`
    are the text's sentences that read like rules but yielded none (kept on the episode
    for a reviewer); None keeps those stored while the text is unchanged (a changed
    text drops them: they were sentences of the old text).
    """

    source_id: str
    text: str
    description: str = ""
    mentions: tuple[str, ...] = ()
    created_at: datetime | None = None
    uncovered: tuple[str, ...] | None = None


@dataclass
class BatchResult:
    """What a batch write did to nodes, edges and source episodes."""

    nodes: WriteTally = field(default_factory=WriteTally)
    edges: WriteTally = field(default_factory=WriteTally)
    sources: WriteTally = field(default_factory=WriteTally)


def merge_shared(
    spec: EntitySpec, existing: Any, confidence: float, *, shared: bool
) -> tuple[str, dict[str, Any], float]:
    """Return the (summary, properties, confidence) to write for a node spec.

    Nodes that many items share (`NodeTypeDefinition.shared`) accumulate instead of
    flip-flopping between items: existing values win on conflict, new keys are added
    and the highest confidence is kept. Other nodes are their item's own and are
    overwritten.
    """
    if existing is None or not shared:
        return spec.summary, spec.properties, confidence
    props = {**spec.properties, **existing.properties}
    old = existing.confidence if existing.confidence is not None else 0.0
    return existing.summary or spec.summary, props, max(old, confidence)


__all__ = [
    "BatchResult",
    "EntitySpec",
    "RelationshipSpec",
    "SourceItem",
    "SubGraph",
    "WriteTally",
    "merge_shared",
]
