"""Rule versions: a new learning supersedes the current version of a rule.

Facts are edges, and an edge id is fixed by its endpoints and relation, so a
rule whose limit or action changes gets a new *version node*: ``Rule X`` is
superseded by ``Rule X (v2)``, whose edges are new edges. The old version's
edges are invalidated (`GraphMemory.invalidate_relationship`: ``invalid_at`` /
``expired_at``), so default reads see the current version only, while a read
*as of* an earlier time (`edges_as_of`, `GraphMemory.search(as_of=...)`) sees
what was true then.

Which version replaced which is recorded on the old version's edges as the
properties ``superseded_by`` (the new rule's name) and ``superseded_at``, not as
a ``SUPERSEDES`` Rule -> Rule edge: analytics treats a rule as current while any
of its edges is, so a live edge pointing at the old version would revive it.
`supersessions` lists the links.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memory.backend import Change
from memory.model import Namespace, RelationshipRecord, as_namespace

if TYPE_CHECKING:
    from memory.graph import GraphMemory

_VERSION = re.compile(r"^(?P<base>.*?)\s*\(v(?P<n>\d+)\)$")


def lineage(name: str) -> tuple[str, int]:
    """Return ``(base name, version)`` of a rule name: ``"X (v3)"`` -> ``("X", 3)``."""
    match = _VERSION.match(name.strip())
    if match is None:
        return name.strip(), 1
    return match.group("base"), int(match.group("n"))


def next_version(name: str) -> str:
    """Return the name of the version after `name`: ``"X"`` -> ``"X (v2)"``."""
    base, version = lineage(name)
    return f"{base} (v{version + 1})"


@dataclass(frozen=True)
class Supersession:
    """One rule version replaced by another."""

    old_rule: str
    new_rule: str
    at: datetime | None
    source: str | None


async def _rule_edges(
    memory: GraphMemory, ns: Namespace, rule_name: str, *, current: bool
) -> list[RelationshipRecord]:
    key = memory.entity_key(ns, "Rule", rule_name)
    edges = await memory.relationships(ns, include_invalid=not current)
    return [e for e in edges if key in (e.source_key, e.target_key)]


async def supersede_rule(
    memory: GraphMemory,
    namespace: Namespace | str,
    old_rule: str,
    new_rule: str,
    *,
    at: datetime | None = None,
    source: str | None = None,
) -> int:
    """Retire every current edge of `old_rule`, recording that `new_rule` replaced it.

    Idempotent: an already retired version is left alone (returns 0).

    Args:
        memory: Connected graph memory.
        namespace: Namespace of both rules.
        old_rule: Name of the version being replaced.
        new_rule: Name of the version replacing it.
        at: When the old version stopped being true (default: now).
        source: Provenance of the change (e.g. the conversation id).

    Returns:
        How many edges were invalidated.

    Raises:
        ValueError: The two names are the same rule.
    """
    ns = as_namespace(namespace)
    if memory.entity_key(ns, "Rule", old_rule) == memory.entity_key(ns, "Rule", new_rule):
        raise ValueError(f"a rule cannot supersede itself: {old_rule!r}")
    when = at or datetime.now(UTC)
    edges = await _rule_edges(memory, ns, old_rule, current=True)
    if not edges:
        return 0
    rows = [
        {
            "uuid": edge.uuid,
            "props": json.dumps(
                {**edge.properties, "superseded_by": new_rule, "superseded_at": when.isoformat()},
                sort_keys=True,
                default=str,
            ),
        }
        for edge in edges
    ]
    statement = (
        "UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
        "SET e.props_json = row.props, e.p_superseded_by = $new, e.p_superseded_at = $at, "
        "e.invalid_at = $at, e.expired_at = $now, e.last_update_source = $source",
        {
            "rows": rows,
            "new": new_rule,
            "at": when.isoformat(),
            "now": datetime.now(UTC).isoformat(),
            "source": source,
        },
    )
    rule = await memory.get_entity(ns, memory.entity_key(ns, "Rule", old_rule))
    change = Change.of([rule.uuid] if rule else [], [e.uuid for e in edges])
    await memory.commit(ns.group_id, [statement], change)
    return len(edges)


async def supersessions(memory: GraphMemory, namespace: Namespace | str) -> list[Supersession]:
    """Return every recorded supersession of a namespace, oldest first."""
    ns = as_namespace(namespace)
    found: dict[tuple[str, str], Supersession] = {}
    for edge in await memory.relationships(ns, include_invalid=True):
        new = edge.properties.get("superseded_by")
        if not isinstance(new, str):
            continue
        old = edge.target_name if edge.target_label == "Rule" else edge.source_name
        found.setdefault(
            (old, new), Supersession(old, new, edge.invalid_at, edge.last_update_source)
        )
    return sorted(found.values(), key=lambda s: (s.at or datetime.min, s.old_rule))


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
