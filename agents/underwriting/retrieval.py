"""Runtime retrieval of candidate rules for one submission: by meaning and by field.

Every field the submission carries is a risk signal. Each signal is searched by
meaning, and the rules that can fire on the submitted values are fetched by
field through the condition index, so a number that no rule text mentions still
reaches its rule. A signal's text is its data-dictionary name and synonyms, plus
the value of a text field (``"occupancy business type gas station"``) or the unit
of a number (``"employee count headcount staff employees"``): a number or a yes /
no is the condition index's to match, and in a text search it only adds noise.
So a field's signal reads the same in every submission, and a long-running
reader ranks it once per commit (`memory.search.hybrid`). Everything
field-specific comes from the data dictionary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.underwriting.policy import fires as rule_fires
from memory.underwriting import ConditionIndex, DecisionPath, GraphAnalytics, condition_index
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule

BY_FIELD = "field"
AS_OF = "as_of"  # found as a rule valid at the decision's `as_of`
#: Fields that select the rule set (a filter), not a risk of their own.
_FILTER_FIELDS = frozenset({"product_type"})
_TYPE_ORDER = {"str": 0, "int": 1, "float": 1, "bool": 2}
_MAX_SYNONYMS = 3


@dataclass(frozen=True)
class Signal:
    """One risk signal of a submission and the text it is searched with."""

    field: str
    query: str


@dataclass
class Retrieval:
    """Candidate rules of a submission with how each was found and its decision path."""

    rules: list[ExtractedRule] = field(default_factory=list)
    found_by: dict[str, list[str]] = field(default_factory=dict)
    paths: dict[str, DecisionPath] = field(default_factory=dict)


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def risk_signals(values: Mapping[str, Any], fields: DataDictionary) -> list[Signal]:
    """Return the submission's risk signals: text fields first, then numbers, then flags.

    Args:
        values: Canonical submission values.
        fields: The data dictionary (names, synonyms, units).

    Returns:
        One signal per present field, with a query built from the field's name and
        synonyms, and a text field's value or a number's unit.
    """
    signals = []
    for name, value in values.items():
        spec = fields.fields.get(name)
        if spec is None or name in _FILTER_FIELDS or value is None:
            continue
        words = [name.replace("_", " ")]
        words += [s for s in spec.synonyms if s.casefold() != words[0]][:_MAX_SYNONYMS]
        if spec.type == "str":
            words.append(_value_text(value))
        elif spec.unit and spec.type in ("int", "float"):
            words.append(spec.unit)
        signals.append(Signal(name, " ".join(words)))
    order = {name: i for i, name in enumerate(values)}
    signals.sort(key=lambda s: (_TYPE_ORDER[fields.fields[s.field].type], order[s.field]))
    return signals


async def retrieve_rules(
    analytics: GraphAnalytics,
    values: Mapping[str, Any],
    fields: DataDictionary,
    *,
    product_type: str | None,
    limit: int = 5,
    index: ConditionIndex | None = None,
) -> Retrieval:
    """Gather the candidate rules of a submission and their decision paths.

    Args:
        analytics: Analytics over the namespace of rules.
        values: Canonical submission values.
        fields: The data dictionary.
        product_type: The submission's product (its rules and ``ALL`` rules are kept);
            None keeps every product.
        limit: Rules kept per semantic query.
        index: The namespace's condition index, when the caller holds it (else looked up).

    Returns:
        The rules found by field or by meaning (by-field first), with the signals
        that found each (``field`` marks the by-field lookup), and the decision
        paths of the rules that fire.
    """
    found: dict[str, list[str]] = {}
    known_values = {name: value for name, value in values.items() if name in fields.fields}
    signals = risk_signals(values, fields)
    # The by-meaning search waits on the server while the by-field lookup runs here.
    # The signals' values are the by-field lookup's to match: rank them by text only.
    by_meaning = asyncio.ensure_future(
        analytics.query_many(
            [s.query for s in signals], product_type=product_type, limit=limit, read_facts=False
        )
    )
    try:
        by_field = await analytics.rules_for_submission(
            known_values, product_type=product_type, index=index
        )
    finally:
        found_by_meaning = await by_meaning
    for rule in by_field:
        found.setdefault(rule.rule_name, []).append(BY_FIELD)
    for signal, hits in zip(signals, found_by_meaning, strict=True):
        for hit in hits:
            found.setdefault(hit.rule_name, []).append(signal.field)
    known = {rule.rule_name: rule for rule in by_field}
    extra = [name for name in found if name not in known]
    # Only a rule that fires is explained by its path: a by-field rule whose conditions
    # all hold (the others are listed with what they lack, no path needed).
    fires = [r.rule_name for r in by_field if rule_fires(r, values)]
    if index is None:
        index = await condition_index(analytics.memory, analytics.namespace)
    more, by_path = await asyncio.gather(
        analytics.rules(extra, product_type=product_type, index=index),
        analytics.decision_paths(fires, index),
    )
    for rule in more:
        known[rule.rule_name] = rule
    rules = [known[name] for name in found if name in known]
    paths = {p.rule_name: p for p in by_path}
    return Retrieval(
        rules=rules,
        found_by={r.rule_name: found[r.rule_name] for r in rules},
        paths=paths,
    )
