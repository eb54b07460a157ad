"""Edges as of a time: what the graph held then (bi-temporal reads of rule versions).

A rule's new version (`memory.underwriting.claims`) replaces its edges: an edge whose
content changes is archived with its old text and closed at the change, an edge the
new version lacks is retired. `edges_as_of` reads the edges that held at a time.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from memory.model import Namespace, RelationshipRecord

if TYPE_CHECKING:
    from memory.graph import GraphMemory


def valid_at(edge: RelationshipRecord, when: datetime) -> bool:
    """True when the edge held at `when`: valid by then and not yet invalidated."""
    started = edge.valid_at or edge.created_at
    if started is not None and started > when:
        return False
    return edge.invalid_at is None or edge.invalid_at > when


async def edges_as_of(
    memory: GraphMemory,
    namespace: Namespace | str,
    when: datetime,
    *,
    relation: str | None = None,
) -> list[RelationshipRecord]:
    """Return the edges that were true at `when` (current or since invalidated)."""
    edges = await memory.relationships(namespace, relation=relation, include_invalid=True)
    return [e for e in edges if valid_at(e, when)]
