"""What a reviewer should look at: sentences of the stored texts that no rule covers.

Offline extraction reports, per text, the sentences that read like rules (an action and
a condition) but yielded none; the text's source episode keeps them (`uncovered_json`,
see `memory.model.SourceItem.uncovered`) until the text changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

_UNCOVERED = (
    "MATCH (ep:Episodic) WHERE ep.uncovered_json IS NOT NULL "
    "RETURN ep.name AS text_id, ep.source_description AS description, "
    "ep.uncovered_json AS uncovered ORDER BY ep.name LIMIT $limit"
)


@dataclass(frozen=True)
class UncoveredText:
    """A stored text with rule-like sentences that yielded no rule.

    Attributes:
        text_id: The text's source id (its episode's name).
        description: The episode's source description (document and kind).
        sentences: The sentences as written, in text order.
    """

    text_id: str
    description: str
    sentences: tuple[str, ...]


def _sentences(raw: object) -> tuple[str, ...]:
    """The sentences of an episode's `uncovered_json` (nothing when it is not a list)."""
    try:
        found = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ()
    return tuple(str(s) for s in found if str(s).strip()) if isinstance(found, list) else ()


async def uncovered_sentences(
    memory: GraphMemory, namespace: Namespace, *, limit: int = 200
) -> list[UncoveredText]:
    """The texts of a namespace whose episodes keep uncovered sentences, by text id.

    Args:
        memory: Connected graph memory.
        namespace: The namespace to read.
        limit: At most this many texts.

    Returns:
        One entry per text that has some (none for a namespace without a graph).
    """
    if limit <= 0 or not await memory.db.has_graph(namespace.group_id):
        return []
    rows = await memory.db.query(
        namespace.group_id, _UNCOVERED, {"limit": int(limit)}, read_only=True
    )
    found = [
        UncoveredText(str(r["text_id"]), r["description"] or "", _sentences(r["uncovered"]))
        for r in rows
    ]
    return [t for t in found if t.sentences]
