"""Rules in valid time: what held on a date, a rule's versions, the open conflicts.

Every Rule node written through claims keeps its versions (`memory.underwriting.claims`):
the current or last one as the node's rule, the earlier ones beside it. A rule
written another way has one version, valid from its node's creation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.backend.readcache import read_cache
from memory.underwriting.claims import document_versions, retired_rows
from memory.underwriting.condition_kind import condition_index
from memory.underwriting.paths import canonical_product
from schemas.rules import ExtractedRule, iso_day

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

_ALL_RULES = (
    "MATCH (n:Entity) WHERE n.label = 'Rule' "
    "RETURN n.name AS name, n.props_json AS props, n.created_at AS created ORDER BY n.name"
)
_SPACE = "rule-versions"  # the read cache's space for every rule's versions
_ONE_RULE = (
    "MATCH (n:Entity) WHERE n.label = 'Rule' AND n.name = $name "
    "RETURN n.name AS name, n.props_json AS props, n.created_at AS created"
)


def _versions(row: dict[str, Any]) -> list[ExtractedRule]:
    """The versions a stored Rule node holds; [] when it holds no whole rule."""
    try:
        versions = document_versions(json.loads(row["props"] or "{}"))
    except ValueError:
        return []
    created = row.get("created")
    if len(versions) == 1 and versions[0].valid_from is None and created:
        versions = [versions[0].model_copy(update={"valid_from": iso_day(str(created))})]
    return versions


def version_at(versions: list[ExtractedRule], when: str) -> ExtractedRule | None:
    """The version valid at `when` (an ISO day or UTC time), None if none was."""
    for version in versions:
        if version.valid_from is not None and version.valid_from > when:
            continue
        if version.valid_to is None or version.valid_to > when:
            return version
    return None


async def rules_as_of(
    memory: GraphMemory, namespace: Namespace, when: str, product_type: str | None = None
) -> list[ExtractedRule]:
    """Every rule as it stood at `when`, retired rules included (one version each).

    Args:
        memory: Connected graph memory.
        namespace: The namespace of rules.
        when: An ISO day or time.
        product_type: Keep this product's rules and ``ALL`` rules; None keeps every rule.

    Raises:
        ValueError: `when` is not an ISO day or time, or the product is unknown.
    """
    day = iso_day(when)
    product = canonical_product(product_type)
    found = []
    for versions in await _every_rule(memory, namespace):
        version = version_at(versions, day)
        if version is not None and (product is None or version.product_type in ("ALL", product)):
            found.append(version)
    return found


async def _every_rule(memory: GraphMemory, namespace: Namespace) -> list[list[ExtractedRule]]:
    """Every Rule node's versions, read once per commit.

    A batch of dated decisions reads and parses them once, not once a decision.
    """
    cache = await read_cache(memory.db, namespace.group_id)
    found: list[list[ExtractedRule]] | None = cache.get(_SPACE, "all")
    if found is None:
        rows = await memory.db.query(namespace.group_id, _ALL_RULES, {}, read_only=True)
        found = [versions for row in rows if (versions := _versions(row))]
        cache.put(_SPACE, "all", found)
    return found


async def retired_rules(
    memory: GraphMemory, namespace: Namespace, days: Iterable[str]
) -> list[ExtractedRule]:
    """Rules no longer in force, as they stood on any of `days` (ISO days or times).

    A text read again after a rule it spoke of was withdrawn must read against that
    rule as its own day knew it (the condition index holds current rules only). One
    version per rule and day it held, in name order; none for a rule that held on
    none of the days.
    """
    wanted = sorted({iso_day(day) for day in days})
    if not wanted:
        return []
    found: list[ExtractedRule] = []
    for row in await retired_rows(memory, namespace):
        found += _held_on(_versions(row), wanted)
    return found


def _held_on(versions: list[ExtractedRule], days: list[str]) -> list[ExtractedRule]:
    """The versions that held on any of `days` (ISO days, in order), each once."""
    held = [v for day in days if (v := version_at(versions, day)) is not None]
    return [v for at, v in enumerate(held) if v not in held[:at]]


def amended_versions(
    documents: Iterable[Mapping[str, Any]], days: Iterable[str]
) -> list[ExtractedRule]:
    """The earlier versions current rules had on any of `days`, before they were amended.

    A text read again after a rule it spoke of was amended (another limit, another
    action) must read against that rule as its own day knew it, not as it is now. From
    the current rules' stored documents (their versions); the current versions are left
    out (the caller holds them), so is a rule whose current version held on every day.
    """
    wanted = sorted({iso_day(day) for day in days})
    found: list[ExtractedRule] = []
    for document in documents if wanted else ():
        try:
            versions = document_versions(document)
        except ValueError:
            continue
        found += [v for v in _held_on(versions, wanted) if v.valid_to is not None]
    return found


async def rule_history(memory: GraphMemory, namespace: Namespace, name: str) -> list[ExtractedRule]:
    """A rule's versions, oldest first ([] for an unknown rule)."""
    rows = await memory.db.query(namespace.group_id, _ONE_RULE, {"name": name}, read_only=True)
    return _versions(rows[0]) if rows else []


@dataclass(frozen=True)
class OpenConflict:
    """Two current rules of one piece of knowledge that disagree, for a person to settle."""

    rules: tuple[str, str]
    text_ids: tuple[str, ...]
    fields: tuple[str, ...]
    product_type: str
    date: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "rules": list(self.rules),
            "text_ids": list(self.text_ids),
            "fields": list(self.fields),
            "product_type": self.product_type,
            "date": self.date,
        }


def _one_per_pair(found: Iterable[OpenConflict]) -> list[OpenConflict]:
    """One conflict per pair of rules (the first seen of each), by date, then rules."""
    kept: dict[tuple[str, ...], OpenConflict] = {}
    for conflict in found:
        kept.setdefault(tuple(sorted(conflict.rules)), conflict)
    return sorted(kept.values(), key=lambda c: (c.date or "", c.rules))


async def open_conflicts(memory: GraphMemory, namespace: Namespace) -> list[OpenConflict]:
    """The open conflicts of a namespace: both rules current, neither settled yet."""
    index = await condition_index(memory, namespace)
    current = {entry.name for entry in index.rules if entry is not None}

    def noted() -> Iterator[OpenConflict]:
        for entry in index.rules:
            if entry is None or not entry.document or '"text_ids"' not in entry.document:
                continue
            rule = json.loads(entry.document)
            for c in rule.get("conflicts") or []:
                other = c.get("rule_name")
                if other in current:
                    yield OpenConflict(
                        rules=(entry.name, other),
                        text_ids=tuple(c.get("text_ids") or ()),
                        fields=tuple(c.get("fields") or ()),
                        product_type=str(rule.get("product_type") or ""),
                        date=c.get("date"),
                    )

    return _one_per_pair(noted())


async def flagged_conflicts(memory: GraphMemory, namespace: Namespace) -> list[OpenConflict]:
    """Every conflict memory ever flagged: the open ones and those settled since.

    A conflict stays on the versions it was flagged on when a later statement settles
    it (the settled side ends, the other is amended), so a rule's history shows when
    two texts disagreed and until when. Read from every rule's versions.
    """
    return _one_per_pair(
        OpenConflict(
            rules=(version.rule_name, c.rule_name),
            text_ids=tuple(c.text_ids),
            fields=tuple(c.fields),
            product_type=version.product_type,
            date=c.date,
        )
        for versions in await _every_rule(memory, namespace)
        for version in versions
        for c in version.conflicts
    )


__all__ = [
    "OpenConflict",
    "amended_versions",
    "flagged_conflicts",
    "open_conflicts",
    "retired_rules",
    "rule_history",
    "rules_as_of",
    "version_at",
]
