"""The current rules as a catalogue a person browses: rows, filters, facets, pages.

Read from the condition index (`memory.underwriting.condition_kind`), which keeps
every current rule's document in memory and follows the change log: listing and
filtering 10k rules is a pass over parsed rules, no database round trip.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from memory.underwriting.condition_kind import condition_index
from memory.underwriting.conditions import ConditionIndex

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace
    from schemas.rules import Condition, ExtractedRule

_OPERATOR_WORDS = {
    "eq": "is",
    "neq": "is not",
    "lt": "is below",
    "lte": "is at most",
    "gt": "is above",
    "gte": "is at least",
    "in": "is one of",
    "not_in": "is none of",
}


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value)
    return str(value)


def condition_words(condition: Condition, unit: str | None = None) -> str:
    """One condition in words, e.g. ``employee count is above 20 employees``."""
    words = _OPERATOR_WORDS.get(condition.operator, condition.operator)
    text = f"{condition.field.replace('_', ' ')} {words} {_value(condition.value)}"
    return f"{text} {unit}" if unit and isinstance(condition.value, int | float) else text


def conditions_words(rule: ExtractedRule) -> str:
    """A rule's conditions in words (the threshold's unit after its value), or ``always``."""
    unit = rule.threshold.unit if rule.threshold else None
    parts = [
        condition_words(c, unit if rule.threshold and c.field == rule.threshold.field else None)
        for c in rule.conditions
    ]
    return " and ".join(parts) if parts else "always"


def rule_words(rule: ExtractedRule) -> str:
    """A rule's conditions and action in words, e.g. ``refer when employee count is above 20``."""
    return f"{rule.action.replace('_', ' ')} when {conditions_words(rule)}"


def soft_zone(rule: ExtractedRule) -> str | None:
    """Where a soft rule bends, in words (None for a hard rule or one with no soft limit)."""
    if rule.threshold is None or rule.soft_limit is None:
        return None
    t = rule.threshold
    unit = f" {t.unit}" if t.unit else ""
    return (
        f"approved in practice from {_value(t.value)} up to {_value(rule.soft_limit)}{unit} "
        f"({t.field.replace('_', ' ')})"
    )


def changes(older: ExtractedRule | None, newer: ExtractedRule) -> list[str]:
    """What a version changed from the one before, in words (["first stated"] for the first)."""
    if older is None:
        return ["first stated"]
    said = []
    if older.action != newer.action:
        said.append(f"action {older.action} -> {newer.action}")
    if conditions_words(older) != (now := conditions_words(newer)):
        said.append(f"conditions now: {now}")
    if older.threshold_type != newer.threshold_type:
        said.append(f"{older.threshold_type or 'unspecified'} -> {newer.threshold_type}")
    if older.soft_limit != newer.soft_limit and newer.soft_limit is not None:
        said.append(f"soft limit {_value(newer.soft_limit)}")
    added = [m for m in newer.mitigants if m not in older.mitigants]
    if added:
        said.append("mitigants added: " + "; ".join(added))
    known = {(s.text_id, s.source) for s in older.sources}
    new_sources = [s.source for s in newer.sources if (s.text_id, s.source) not in known]
    if new_sources:
        said.append("sources added: " + "; ".join(new_sources))
    return said or ["restated"]


@dataclass(frozen=True)
class RuleRow:
    """One current rule as the catalogue lists it."""

    name: str
    product_type: str
    risk_category: str
    risk_factor: str
    action: str
    hardness: str
    confidence: str
    source_types: tuple[str, ...]
    conflict: bool
    words: str
    valid_from: str | None


@dataclass(frozen=True)
class RuleFilter:
    """What a person filters the catalogue by; None (or False) keeps every rule."""

    product_type: str | None = None
    risk_category: str | None = None
    action: str | None = None
    hardness: str | None = None
    source_type: str | None = None
    confidence: str | None = None
    conflict: bool = False

    def keeps(self, row: RuleRow) -> bool:
        """True when the row passes every filter that is set."""
        checks = (
            (self.product_type, row.product_type),
            (self.risk_category, row.risk_category),
            (self.action, row.action),
            (self.hardness, row.hardness),
            (self.confidence, row.confidence),
        )
        if any(want is not None and want != have for want, have in checks):
            return False
        if self.source_type is not None and self.source_type not in row.source_types:
            return False
        return row.conflict or not self.conflict


FACETS = tuple(
    f.name for f in fields(RuleFilter) if f.name != "conflict"
)  # the filters that take a value


def row_of(rule: ExtractedRule) -> RuleRow:
    """The catalogue row of a rule."""
    types = [s.source_type for s in rule.sources] or [rule.source_type]
    return RuleRow(
        name=rule.rule_name,
        product_type=rule.product_type,
        risk_category=rule.risk_category,
        risk_factor=rule.risk_factor,
        action=rule.action,
        hardness=rule.threshold_type or "unspecified",
        confidence=rule.confidence,
        source_types=tuple(dict.fromkeys(types)),
        conflict=bool(rule.conflicts),
        words=rule_words(rule),
        valid_from=rule.valid_from,
    )


@dataclass(frozen=True)
class _Built:
    index: ConditionIndex
    generation: int
    rows: list[RuleRow]
    facets: dict[str, list[tuple[str, int]]]


_BUILT: dict[str, _Built] = {}


async def catalogue(
    memory: GraphMemory, namespace: Namespace
) -> tuple[list[RuleRow], dict[str, list[tuple[str, int]]]]:
    """Every current rule as a row (by name) and each filter's values with their counts.

    Built once per change of the condition index (which follows the change log, writes
    by other processes included) and shared by every page until the next change.
    """
    index = await condition_index(memory, namespace)
    built = _BUILT.get(namespace.group_id)
    if built is None or built.index is not index or built.generation != index.generation:
        generation = index.generation
        rows = _rows(index)
        built = _Built(index, generation, rows, facet_values(rows))
        _BUILT[namespace.group_id] = built
    return built.rows, built.facets


async def rule_rows(memory: GraphMemory, namespace: Namespace) -> list[RuleRow]:
    """Every current rule of a namespace as a catalogue row, by name.

    A rule whose conflict partner is no longer current is not flagged.
    """
    rows, _ = await catalogue(memory, namespace)
    return rows


def _rows(index: ConditionIndex) -> list[RuleRow]:
    found = index.rules_named(list(index.named))
    current = set(found)
    rows = []
    for name in sorted(found):
        for rule in found[name]:
            row = row_of(rule)
            if row.conflict and not any(c.rule_name in current for c in rule.conflicts):
                row = RuleRow(**{**vars(row), "conflict": False})
            rows.append(row)
    return rows


def facet_values(rows: Iterable[RuleRow]) -> dict[str, list[tuple[str, int]]]:
    """Each filter's values with how many rules have them, most common first."""
    counts: dict[str, Counter[str]] = {name: Counter() for name in FACETS}
    for row in rows:
        for name in FACETS:
            if name == "source_type":
                counts[name].update(row.source_types)
            else:
                counts[name][str(getattr(row, name))] += 1
    return {name: sorted(c.items(), key=lambda kv: (-kv[1], kv[0])) for name, c in counts.items()}


@dataclass(frozen=True)
class Page:
    """One page of rows, with where it sits in the whole."""

    rows: Sequence[RuleRow]
    total: int
    page: int
    pages: int


def paginate(rows: Sequence[RuleRow], page: int, size: int) -> Page:
    """Page `page` (from 1) of `size` rows; a page past the end gives the last one.

    Raises:
        ValueError: A page below 1 or a size outside 1..500.
    """
    if page < 1:
        raise ValueError(f"page must be 1 or more, got {page}")
    if not 1 <= size <= 500:
        raise ValueError(f"page size must be between 1 and 500, got {size}")
    pages = max(1, -(-len(rows) // size))
    page = min(page, pages)
    return Page(rows[(page - 1) * size : page * size], len(rows), page, pages)


__all__ = [
    "FACETS",
    "changes",
    "Page",
    "catalogue",
    "RuleFilter",
    "RuleRow",
    "condition_words",
    "conditions_words",
    "facet_values",
    "paginate",
    "row_of",
    "rule_rows",
    "rule_words",
    "soft_zone",
]
