"""Scoring of rule extraction against gold rules (`agents.jsonl.load_rules` reads them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from schemas.rules import Condition, ConditionValue, ExtractedRule

_REL_TOLERANCE = 0.01


@dataclass
class ExtractionScore:
    """How well extracted rules cover a set of gold rules.

    Attributes:
        precision: Fraction of extracted rules that match some gold rule.
        recall: Fraction of gold rules found by some extracted rule.
        f1: Harmonic mean of precision and recall.
        matched_gold: Number of gold rules found.
        total_gold: Number of gold rules.
        matched_extracted: Number of extracted rules matching a gold rule.
        total_extracted: Number of extracted rules.
        missed: Names of the gold rules that were not found.
    """

    precision: float
    recall: float
    f1: float
    matched_gold: int
    total_gold: int
    matched_extracted: int
    total_extracted: int
    missed: list[str] = field(default_factory=list)


def _numbers_close(a: float, b: float) -> bool:
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    return abs(a - b) <= _REL_TOLERANCE * scale


def _scalar_equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return _numbers_close(float(a), float(b))
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    return False


def values_equal(a: ConditionValue, b: ConditionValue) -> bool:
    """Compare two condition values: numbers within 1%, strings case-insensitively.

    Lists are compared as sets (every item of each has an equal item in the other).

    Args:
        a: The first value.
        b: The second value.

    Returns:
        True when the values are considered equal.
    """
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)):
            return False
        return all(any(_scalar_equal(x, y) for y in b) for x in a) and all(
            any(_scalar_equal(y, x) for x in a) for y in b
        )
    return _scalar_equal(a, b)


def conditions_equal(a: Condition, b: Condition) -> bool:
    """Return True when two conditions share field, operator and value."""
    return a.field == b.field and a.operator == b.operator and values_equal(a.value, b.value)


def rules_match(gold: ExtractedRule, extracted: ExtractedRule) -> bool:
    """Return True when `extracted` finds `gold`.

    Same text (when both carry a text_id), same action, and at least one condition
    of the extracted rule equal to a condition of the gold rule.

    Args:
        gold: A gold rule.
        extracted: An extracted rule.

    Returns:
        Whether the extracted rule matches the gold rule.
    """
    if gold.text_id and extracted.text_id and gold.text_id != extracted.text_id:
        return False
    if gold.action != extracted.action:
        return False
    return any(conditions_equal(g, e) for g in gold.conditions for e in extracted.conditions)


def score_extraction(
    gold: Sequence[ExtractedRule], extracted: Sequence[ExtractedRule]
) -> ExtractionScore:
    """Score extracted rules against gold rules.

    Args:
        gold: The gold rules.
        extracted: The rules an extractor produced.

    Returns:
        Precision, recall, F1 and the names of the missed gold rules.
    """
    found = [any(rules_match(g, e) for e in extracted) for g in gold]
    useful = [any(rules_match(g, e) for g in gold) for e in extracted]
    matched_gold = sum(found)
    matched_extracted = sum(useful)
    recall = matched_gold / len(gold) if gold else 1.0
    precision = matched_extracted / len(extracted) if extracted else (1.0 if not gold else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    missed = [g.rule_name for g, ok in zip(gold, found, strict=True) if not ok]
    return ExtractionScore(
        precision=precision,
        recall=recall,
        f1=f1,
        matched_gold=matched_gold,
        total_gold=len(gold),
        matched_extracted=matched_extracted,
        total_extracted=len(extracted),
        missed=missed,
    )
