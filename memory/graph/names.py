"""Entity names of a graph as a derived index: what entity matching looks names up in.

Matching a new text's mentions against the graph needs, per label, every entity's
key, name and folded ("canonical") name, and for rules the text they came from.
Reading them from the server for every text cost a scan of every entity (250 ms a
text at 10k rules); here they are built once, kept current from the change log
(re-reading only the nodes a commit names) and saved as a snapshot, like the other
derived indexes (`memory.backend.derived`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from memory.backend import read_by_ids
from memory.model.keys import normalise_name

if TYPE_CHECKING:
    from memory.backend import Change, Reader
    from memory.graph.reader import GraphReader

_NON_WORD = re.compile(r"[^0-9a-z]+")
_RETURN = (
    "RETURN n.uuid AS uuid, n.label AS label, n.entity_key AS key, n.name AS name, "
    "CASE WHEN n.label = 'Rule' THEN n.props_json ELSE NULL END AS props"
)


def canonical_name(name: str) -> str:
    """Fold a name further than the entity key: punctuation, plurals, word order of spaces."""
    words = _NON_WORD.sub(" ", normalise_name(name)).split()
    return " ".join(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


@dataclass
class LabelNames:
    """The names of one label: by entity key, by canonical name, and a rule's text."""

    by_key: dict[str, str] = field(default_factory=dict)
    by_canonical: dict[str, str] = field(default_factory=dict)
    text_of: dict[str, str | None] = field(default_factory=dict)

    def copy(self) -> LabelNames:
        """A copy a caller may add to (the index itself changes only with the graph)."""
        return LabelNames(dict(self.by_key), dict(self.by_canonical), dict(self.text_of))


@dataclass
class NameIndex:
    """Every entity's (label, key, name, text id) by uuid, and the names per label.

    The per-label names are kept as entities come and go, so a caller reads them in
    the time of a copy, not of folding every name again.
    """

    entries: dict[str, tuple[str, str, str, str | None]] = field(default_factory=dict)
    labels: dict[str, LabelNames] = field(default_factory=dict)

    def put(self, uuid: str, label: str, key: str, name: str, text_id: str | None) -> None:
        """Index one entity (replacing what was indexed under its uuid)."""
        self.drop(uuid)
        self.entries[uuid] = (label, key, name, text_id)
        names = self.labels.setdefault(label, LabelNames())
        names.by_key[key] = name
        names.by_canonical.setdefault(canonical_name(name), name)
        names.text_of[name] = text_id

    def drop(self, uuid: str) -> None:
        """Forget an entity."""
        entry = self.entries.pop(uuid, None)
        if entry is None:
            return
        label, key, name, _ = entry
        names = self.labels.get(label)
        if names is None:
            return
        if names.by_key.get(key) == name:
            del names.by_key[key]
        canonical = canonical_name(name)
        if names.by_canonical.get(canonical) == name:
            del names.by_canonical[canonical]
        names.text_of.pop(name, None)

    def label(self, label: str) -> LabelNames:
        """The names of one label (the index's own: copy before adding to it)."""
        return self.labels.get(label) or LabelNames()


def _text_id(props: str | None) -> str | None:
    if not props:
        return None
    try:
        value = orjson.loads(props).get("text_id")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def _put(index: NameIndex, row: dict[str, Any]) -> None:
    if row.get("label") and row.get("key") and row.get("name"):
        index.put(row["uuid"], row["label"], row["key"], row["name"], _text_id(row.get("props")))


class NamesKind:
    """The name index as a derived index of a graph (see `memory.backend.derived`)."""

    name = "names"
    version = 1

    async def build(self, reader: Reader, group_id: str) -> NameIndex:
        """Index every entity of the graph."""
        index = NameIndex()
        for row in await reader.query(group_id, f"MATCH (n:Entity) {_RETURN}"):
            _put(index, row)
        return index

    async def apply(
        self, reader: Reader, group_id: str, state: NameIndex, change: Change
    ) -> NameIndex:
        """Re-read the entities among the nodes the change names."""
        rows = await read_by_ids(
            reader, group_id, f"MATCH (n:Entity) WHERE n.uuid IN $uuids {_RETURN}", change.nodes
        )
        seen = {r["uuid"] for r in rows}
        for uuid in change.nodes - seen:
            state.drop(uuid)
        for row in rows:
            _put(state, row)
        return state

    def dump(self, state: NameIndex) -> bytes:
        """Serialise the index."""
        return orjson.dumps([[u, *entry] for u, entry in state.entries.items()])

    def load(self, data: bytes) -> NameIndex:
        """Load a serialised index."""
        index = NameIndex()
        for uuid, label, key, name, text_id in orjson.loads(data):
            index.put(uuid, label, key, name, text_id)
        return index


NAMES = NamesKind()


async def label_names(memory: GraphReader, group_id: str, label: str) -> LabelNames:
    """A copy of one label's names in a graph, current as of its newest commit."""
    index: NameIndex = await memory.db.indexes.get(group_id, NAMES)
    return index.label(label).copy()


__all__ = ["NAMES", "LabelNames", "NameIndex", "NamesKind", "canonical_name", "label_names"]
