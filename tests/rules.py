"""Rules as the tests compare them."""

from __future__ import annotations

from schemas.rules import ExtractedRule


def condition_set(rule: ExtractedRule) -> set[tuple[str, str, object]]:
    """A rule's conditions as (field, operator, value) triples, list values as tuples."""
    return {
        (c.field, c.operator, tuple(c.value) if isinstance(c.value, list) else c.value)
        for c in rule.conditions
    }
