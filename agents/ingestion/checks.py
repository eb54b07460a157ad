"""Checks of pre-extracted rules before anything is written.

A rule whose condition can never hold (``employee_count gt "twenty"``, ``state lt 3``)
is refused rather than stored to never fire; so are two rules of one input with the
same name (the later one would silently replace the earlier). Conditions are checked
against the data dictionary's types and, for thresholds, its units.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from schemas.fields import DataDictionary, FieldSpec
from schemas.rules import ConditionValue, ExtractedRule

NUMERIC = ("int", "float")
ORDERING = frozenset({"lt", "lte", "gt", "gte"})
MEMBERSHIP = frozenset({"in", "not_in"})
_SPACE = re.compile(r"\s+")


def _kind_ok(spec: FieldSpec, value: object) -> bool:
    if spec.type in NUMERIC:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if spec.type == "bool":
        return isinstance(value, bool)
    return isinstance(value, str)


_WANTED = {"int": "a number", "float": "a number", "bool": "true or false", "str": "a string"}
_FIELD_KIND = {
    "int": "a whole-number field",
    "float": "a numeric field",
    "bool": "a true/false field",
    "str": "a text field",
}


def condition_problem(
    fields: DataDictionary, field: str, operator: str, value: ConditionValue
) -> str | None:
    """Return why `field operator value` can never hold for a submission, or None.

    Fields missing from the dictionary are not judged here (they are reported as
    warnings by ingestion).
    """
    spec = fields.fields.get(field)
    if spec is None:
        return None
    if operator in ORDERING and spec.type not in NUMERIC:
        return (
            f"{field} is {_FIELD_KIND[spec.type]}: operator {operator!r} needs a numeric field; "
            "allowed here: eq, neq, in, not_in"
        )
    if operator in MEMBERSHIP:
        if not isinstance(value, list):
            return f"operator {operator!r} needs a list of values, got {value!r}"
        values: list[object] = list(value)
    else:
        if isinstance(value, list):
            return f"operator {operator!r} needs one value, got a list (use 'in' or 'not_in')"
        values = [value]
    for item in values:
        if not _kind_ok(spec, item):
            unit = f" ({spec.unit})" if spec.unit else ""
            return (
                f"{field} is {_FIELD_KIND[spec.type]}{unit}: value {item!r} can never match; "
                f"expected {_WANTED[spec.type]}"
            )
    return None


#: A parenthesised qualifier of a unit: "gallons (water capacity)".
_QUALIFIER = re.compile(r"\([^()]*\)")


def _unit(text: str) -> str:
    """A unit's name as compared: "gallons (water capacity)" is a gallon."""
    folded = _SPACE.sub(" ", _QUALIFIER.sub(" ", text).strip().casefold())
    return folded[:-1] if folded.endswith("s") and len(folded) > 3 else folded


def rule_problems(rule: ExtractedRule, fields: DataDictionary) -> list[str]:
    """Return every reason the rule's trigger cannot work with this data dictionary."""
    problems = []
    for number, cond in enumerate(rule.conditions):
        problem = condition_problem(fields, cond.field, cond.operator, cond.value)
        if problem:
            problems.append(f"conditions[{number}]: {problem}")
    threshold = rule.threshold
    if threshold is not None:
        problem = condition_problem(fields, threshold.field, threshold.operator, threshold.value)
        if problem:
            problems.append(f"threshold: {problem}")
        spec = fields.fields.get(threshold.field)
        # A threshold's unit is human-readable: the field's unit or another of its names
        # in the data dictionary ("charging bays" for a field counted in charging points).
        known: set[str] = set()
        if spec is not None and spec.unit:
            known = {_unit(name) for name in [spec.unit, *spec.synonyms]}
            # "placements" for a field counted in "placements per year": the counted thing
            known |= {_unit(spec.unit.split(" per ", 1)[0])} if " per " in spec.unit else set()
        if spec is not None and known and threshold.unit and _unit(threshold.unit) not in known:
            problems.append(
                f"threshold: unit {threshold.unit!r} does not match {threshold.field}'s unit "
                f"{spec.unit!r} (or one of its synonyms) in the data dictionary"
            )
    for name in rule.mitigant_fields:
        spec = fields.fields.get(name)
        if spec is not None and spec.type != "bool":
            problems.append(
                f"mitigant_fields: {name} is {_FIELD_KIND[spec.type]}; mitigant fields must be "
                "boolean (a true value mitigates the rule)"
            )
    return problems


def name_key(name: str) -> str:
    """Fold case, width and spacing: two rule names with the same key are the same rule."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", name).casefold()).strip()


def check_rules(
    rules: Sequence[ExtractedRule], fields: DataDictionary, where: Sequence[str] | None = None
) -> None:
    """Refuse a set of rules with impossible conditions or a repeated rule name.

    Args:
        rules: The rules of one input (a file, a batch, a call).
        fields: The data dictionary.
        where: Where each rule came from (e.g. ``rules.jsonl:3``); default: its position.

    Raises:
        ValueError: One line naming the first problem (and how many more there are).
    """
    labels = list(where) if where is not None else [f"rule {i}" for i in range(1, len(rules) + 1)]
    problems: list[str] = []
    seen: dict[str, str] = {}
    for label, rule in zip(labels, rules, strict=True):
        problems += [f"{label}: rule {rule.rule_name!r}: {p}" for p in rule_problems(rule, fields)]
        key = name_key(rule.rule_name)
        if key in seen:
            problems.append(
                f"{label}: rule name {rule.rule_name!r} is already used at {seen[key]}; "
                "rule names must be unique (rename one, or keep only the newer version)"
            )
        else:
            seen[key] = label
    if problems:
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise ValueError(problems[0] + more)


def rule_warnings(rules: Iterable[ExtractedRule], fields: DataDictionary) -> list[str]:
    """Problems of extracted rules, as warnings (extraction output is not refused whole)."""
    return [
        f"rule {rule.rule_name!r}: {problem}"
        for rule in rules
        for problem in rule_problems(rule, fields)
    ]
