"""The deterministic underwriting decision policy of the dataset README.

Pure functions over `ExtractedRule` and a submission's canonical values
(`ParsedSubmission.values`). A rule *applies* when its product is ``ALL`` or the
submission's, *fires* when all its conditions hold, is *mitigated* when any of
its mitigant fields is true, and is *in its soft zone* when a soft threshold's
value does not pass the rule's ``soft_limit``. Each fired rule yields an
outcome (see `OUTCOMES`); the decision is the most severe outcome, ``approve``
when nothing fires.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from memory.underwriting import holds as condition_holds
from memory.underwriting import is_number
from schemas.rules import ORDERING_OPERATORS, Condition, ConditionValue, ExtractedRule, Scalar
from schemas.submission import DecisionLabel, RuleOutcome

APPROVE: DecisionLabel = "approve"
ALL_PRODUCTS = "ALL"

#: Decisions from most to least severe.
SEVERITY: tuple[DecisionLabel, ...] = ("decline", "refer", "approve_with_conditions", "approve")
_RANK: dict[str, int] = {label: rank for rank, label in enumerate(SEVERITY)}

#: action -> (outcome when mitigated or in soft zone, outcome otherwise).
OUTCOMES: dict[str, tuple[RuleOutcome, RuleOutcome]] = {
    "decline": ("refer", "decline"),
    "refer": ("approve_with_conditions", "refer"),
    "verify": ("approve_with_conditions", "refer"),
    "flag_for_review": ("approve_with_conditions", "refer"),
    "approve_with_conditions": ("approve_with_conditions", "approve_with_conditions"),
    "exclude": ("approve_with_conditions", "approve_with_conditions"),
}

_SYMBOLS = {
    "eq": "=", "neq": "!=", "lt": "<", "lte": "<=",
    "gt": ">", "gte": ">=", "in": "in", "not_in": "not in",
}  # fmt: skip


class ConditionResult(NamedTuple):
    """One condition checked against a submission.

    Named tuples, like `RuleEvaluation`: a decision at 100k rules makes thousands
    (a frozen dataclass costs three times as much to build).
    """

    field: str
    operator: str
    expected: ConditionValue
    actual: Scalar | None
    holds: bool
    missing: bool


class RuleEvaluation(NamedTuple):
    """One rule checked against a submission.

    A rule without conditions never fires (nothing machine-evaluable).
    `outcome` is set only when the rule fires. `missing_fields` are the absent
    fields that could change this rule's result: condition fields when no known
    condition fails, and mitigant fields when the rule fires unmitigated and a
    mitigant would soften its outcome.
    """

    rule_name: str
    applies: bool
    fires: bool
    mitigated: bool
    mitigating_fields: tuple[str, ...]
    in_soft_zone: bool
    outcome: RuleOutcome | None
    conditions: tuple[ConditionResult, ...]
    missing_fields: tuple[str, ...]
    why: str

    def as_dict(self) -> dict[str, Any]:
        """The evaluation as plain data (its conditions as dicts too)."""
        values = self._asdict()
        values["conditions"] = tuple(c._asdict() for c in self.conditions)
        return values


@dataclass(frozen=True)
class PolicyResult:
    """The policy's decision on one submission.

    `evaluations` holds the fired rules; `undetermined` the applicable rules that
    did not fire only because a field is missing; `every` each rule's evaluation,
    in the order the rules were given.
    """

    decision: DecisionLabel
    evaluations: tuple[RuleEvaluation, ...]
    cited_rule_names: tuple[str, ...]
    missing_fields: tuple[str, ...]
    undetermined: tuple[RuleEvaluation, ...] = ()
    every: tuple[RuleEvaluation, ...] = ()


def rule_applies(rule: ExtractedRule, product_type: str | None) -> bool:
    """Return whether a rule's product matches the submission's (``ALL`` always does)."""
    if rule.product_type == ALL_PRODUCTS:
        return True
    return product_type is not None and rule.product_type.casefold() == product_type.casefold()


def check_condition(condition: Condition, values: Mapping[str, Any]) -> ConditionResult:
    """Check one condition; a missing field or a type mismatch does not hold.

    Args:
        condition: The condition to check.
        values: The submission's canonical values.

    Returns:
        The result, with the submission's actual value.
    """
    actual = values.get(condition.field)
    if actual is None:
        return ConditionResult(
            condition.field, condition.operator, condition.value, None, False, True
        )
    holds = condition_holds(condition.operator, actual, condition.value)
    return ConditionResult(
        condition.field, condition.operator, condition.value, actual, holds, False
    )


def fires(rule: ExtractedRule, values: Mapping[str, Any], product_type: str | None = None) -> bool:
    """``evaluate_rule(rule, values, product_type).fires``, without building the evaluation."""
    if product_type is None:
        raw_product = values.get("product_type")
        product_type = raw_product if isinstance(raw_product, str) else None
    if not rule.conditions or not rule_applies(rule, product_type):
        return False
    for condition in rule.conditions:
        actual = values.get(condition.field)
        if actual is None or not condition_holds(condition.operator, actual, condition.value):
            return False
    return True


def evaluate_rule(
    rule: ExtractedRule, values: Mapping[str, Any], product_type: str | None = None
) -> RuleEvaluation:
    """Evaluate one rule on a submission.

    Args:
        rule: The rule.
        values: The submission's canonical values (`ParsedSubmission.values`).
        product_type: The submission's product; None to read ``values['product_type']``.

    Returns:
        Whether the rule applies and fires, its outcome and a human explanation.
    """
    if product_type is None:
        raw_product = values.get("product_type")
        product_type = raw_product if isinstance(raw_product, str) else None
    if not rule_applies(rule, product_type):
        why = f"Does not apply: the rule is for {rule.product_type}, the submission is " + (
            f"{product_type}." if product_type else "of unknown product."
        )
        return _unfired(rule.rule_name, applies=False, conditions=(), missing=(), why=why)
    results = tuple(check_condition(c, values) for c in rule.conditions)
    fires = bool(results) and all(r.holds for r in results)
    if not fires:
        undecided = not any(not r.holds and not r.missing for r in results)
        missing = tuple(dict.fromkeys(r.field for r in results if r.missing)) if undecided else ()
        why = _why_not_fired(results)
        return _unfired(rule.rule_name, applies=True, conditions=results, missing=missing, why=why)
    mitigating = tuple(f for f in rule.mitigant_fields if values.get(f) is True)
    soft = in_soft_zone(rule, results)
    relieved, otherwise = OUTCOMES[rule.action]
    outcome = relieved if mitigating or soft else otherwise
    missing_mitigants: tuple[str, ...] = ()
    if outcome != relieved:
        missing_mitigants = tuple(f for f in rule.mitigant_fields if values.get(f) is None)
    why = _why_fired(rule, results, mitigating, soft, outcome)
    return RuleEvaluation(
        rule_name=rule.rule_name,
        applies=True,
        fires=True,
        mitigated=bool(mitigating),
        mitigating_fields=mitigating,
        in_soft_zone=soft,
        outcome=outcome,
        conditions=results,
        missing_fields=missing_mitigants,
        why=why,
    )


def _unfired(
    rule_name: str,
    *,
    applies: bool,
    conditions: tuple[ConditionResult, ...],
    missing: tuple[str, ...],
    why: str,
) -> RuleEvaluation:
    """Build the evaluation of a rule that does not fire."""
    return RuleEvaluation(
        rule_name=rule_name,
        applies=applies,
        fires=False,
        mitigated=False,
        mitigating_fields=(),
        in_soft_zone=False,
        outcome=None,
        conditions=conditions,
        missing_fields=missing,
        why=why,
    )


def numeric_condition(rule: ExtractedRule) -> Condition | None:
    """Return the rule's numeric condition (gt/gte/lt/lte), or None.

    The condition on the rule's threshold field is preferred when there is one.
    """
    numeric = [c for c in rule.conditions if c.operator in ORDERING_OPERATORS]
    if rule.threshold is not None:
        for condition in numeric:
            if condition.field == rule.threshold.field:
                return condition
    return numeric[0] if numeric else None


def in_soft_zone(rule: ExtractedRule, results: Iterable[ConditionResult]) -> bool:
    """Return whether a fired rule's value lies within its soft limit.

    Args:
        rule: The rule.
        results: The rule's condition results on the submission.

    Returns:
        True when the threshold is soft, ``soft_limit`` is set, and the numeric
        condition's value does not pass it (gt/gte: value <= soft_limit; lt/lte:
        value >= soft_limit).
    """
    if rule.threshold_type != "soft" or rule.soft_limit is None:
        return False
    condition = numeric_condition(rule)
    if condition is None:
        return False
    for result in results:
        if result.field == condition.field and result.operator == condition.operator:
            actual = result.actual
            if not is_number(actual):
                return False
            if condition.operator in ("gt", "gte"):
                return actual <= rule.soft_limit
            return actual >= rule.soft_limit
    return False


def decide(rules: Iterable[ExtractedRule], values: Mapping[str, Any]) -> PolicyResult:
    """Apply the decision policy to a submission.

    Args:
        rules: The candidate rules (e.g. the gold rules, or those retrieved from memory).
        values: The submission's canonical values (`ParsedSubmission.values`).

    Returns:
        The decision (most severe fired outcome, ``approve`` when none fired),
        the fired evaluations, the names of the fired rules whose outcome equals
        the decision, and the sorted missing fields. ``product_type`` counts as
        missing when it is absent and a product-specific rule was skipped.
    """
    rule_list = list(rules)
    evaluations = [evaluate_rule(rule, values) for rule in rule_list]
    fired = tuple(e for e in evaluations if e.fires)
    decision = most_severe(e.outcome for e in fired if e.outcome is not None)
    cited = tuple(e.rule_name for e in fired if e.outcome == decision)
    missing = {f for e in evaluations if e.applies for f in e.missing_fields}
    if values.get("product_type") is None and any(
        r.product_type != ALL_PRODUCTS for r in rule_list
    ):
        missing.add("product_type")
    undetermined = tuple(e for e in evaluations if e.applies and not e.fires and e.missing_fields)
    return PolicyResult(
        decision, fired, cited, tuple(sorted(missing)), undetermined, tuple(evaluations)
    )


def most_severe(outcomes: Iterable[str]) -> DecisionLabel:
    """Return the most severe of `outcomes` by `SEVERITY`, ``approve`` when empty."""
    best: DecisionLabel = APPROVE
    for outcome in outcomes:
        if _RANK[outcome] < _RANK[best]:
            best = SEVERITY[_RANK[outcome]]
    return best


def _fmt(value: Any) -> str:
    """Format a value for a human sentence."""
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _describe(result: ConditionResult) -> str:
    """Describe one condition result, e.g. ``employee_count 22 > 20``."""
    symbol = _SYMBOLS.get(result.operator, result.operator)
    if result.missing:
        return f"{result.field} is missing (needed: {symbol} {_fmt(result.expected)})"
    negation = "" if result.holds else "not "
    return f"{result.field} {_fmt(result.actual)} {negation}{symbol} {_fmt(result.expected)}"


def _why_not_fired(results: tuple[ConditionResult, ...]) -> str:
    """Explain why a rule did not fire."""
    failed = "; ".join(_describe(r) for r in results if not r.holds)
    return f"Does not fire: {failed}." if failed else "Does not fire: it has no conditions."


def _why_fired(
    rule: ExtractedRule,
    results: tuple[ConditionResult, ...],
    mitigating: tuple[str, ...],
    soft: bool,
    outcome: str,
) -> str:
    """Explain a fired rule's outcome: values vs thresholds, mitigants, soft zone."""
    parts = ["Fires: " + ("; ".join(_describe(r) for r in results) or "no conditions") + "."]
    if mitigating:
        parts.append(f"Mitigated by {', '.join(mitigating)} = true.")
    elif rule.mitigant_fields:
        parts.append(f"No mitigant present ({', '.join(rule.mitigant_fields)}).")
    condition = numeric_condition(rule)
    if soft and condition is not None:
        actual = next((r.actual for r in results if r.field == condition.field), None)
        parts.append(
            f"Soft threshold: {condition.field} {_fmt(actual)} is within the soft limit "
            f"{_fmt(rule.soft_limit)} up to which exceptions were granted"
            + (f" ({rule.historical_exceptions})" if rule.historical_exceptions else "")
            + "."
        )
    elif rule.threshold_type == "soft" and rule.soft_limit is not None:
        parts.append(f"Beyond the soft limit {_fmt(rule.soft_limit)}, so no exception applies.")
    parts.append(f"Action {rule.action} -> outcome {outcome}.")
    return " ".join(parts)
