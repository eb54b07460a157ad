"""The deterministic decision policy, row by row, and on the dev dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.underwriting.policy import (
    OUTCOMES,
    SEVERITY,
    decide,
    evaluate_rule,
    most_severe,
)
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule
from schemas.submission import parse_submission

DEV = Path(__file__).parents[2].parent / "shared/datasets/underwriting/dev"


def rule(name: str, action: str, conditions: list[dict[str, Any]], **extra: Any) -> ExtractedRule:
    data: dict[str, Any] = {
        "rule_name": name,
        "risk_factor": name,
        "risk_category": "operations",
        "product_type": "ALL",
        "action": action,
        "conditions": conditions,
        "source": "Test Manual",
    }
    data.update(extra)
    return ExtractedRule.model_validate(data)


def cond(field: str, operator: str, value: Any) -> dict[str, Any]:
    return {"field": field, "operator": operator, "value": value}


HEADCOUNT_SOFT = rule(
    "Headcount Limit",
    "refer",
    [cond("employee_count", "gt", 20)],
    product_type="BOP",
    threshold={"field": "employee_count", "operator": "gt", "value": 20},
    threshold_type="soft",
    soft_limit=23,
    historical_exceptions="approved up to 23 employees",
)
YOUNG_SOFT = rule(
    "Young Business",
    "refer",
    [cond("years_in_business", "lt", 3)],
    threshold_type="soft",
    soft_limit=2,
)
KITCHEN = rule(
    "Kitchen",
    "decline",
    [cond("occupancy", "eq", "restaurant"), cond("cooking_operations", "eq", True)],
    mitigant_fields=["hood_suppression"],
)


# --- table rows -------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "mitigated", "expected"),
    [
        ("decline", False, "decline"),
        ("decline", True, "refer"),
        ("refer", False, "refer"),
        ("refer", True, "approve_with_conditions"),
        ("verify", False, "refer"),
        ("verify", True, "approve_with_conditions"),
        ("flag_for_review", False, "refer"),
        ("flag_for_review", True, "approve_with_conditions"),
        ("approve_with_conditions", False, "approve_with_conditions"),
        ("approve_with_conditions", True, "approve_with_conditions"),
        ("exclude", False, "approve_with_conditions"),
        ("exclude", True, "approve_with_conditions"),
    ],
)
def test_outcome_table(action: str, mitigated: bool, expected: str) -> None:
    r = rule("R", action, [cond("vacancy_days", "gt", 60)], mitigant_fields=["renovation_permit"])
    result = decide([r], {"vacancy_days": 90, "renovation_permit": mitigated})
    assert result.decision == expected
    assert result.cited_rule_names == ("R",)
    assert result.evaluations[0].mitigated is mitigated


def test_outcome_table_covers_every_action() -> None:
    from schemas.rules import ACTIONS

    assert set(OUTCOMES) == set(ACTIONS)
    assert SEVERITY == ("decline", "refer", "approve_with_conditions", "approve")


def test_decline_mitigated_becomes_refer_and_names_the_mitigant() -> None:
    values = {"occupancy": "restaurant", "cooking_operations": True, "hood_suppression": True}
    ev = evaluate_rule(KITCHEN, values, "BOP")
    assert ev.fires and ev.mitigated
    assert ev.outcome == "refer"
    assert ev.mitigating_fields == ("hood_suppression",)
    assert "hood_suppression" in ev.why


def test_false_mitigant_does_not_mitigate() -> None:
    values = {"occupancy": "restaurant", "cooking_operations": True, "hood_suppression": False}
    ev = evaluate_rule(KITCHEN, values, "BOP")
    assert ev.outcome == "decline"
    assert not ev.mitigated
    assert "No mitigant present" in ev.why


def test_unknown_mitigant_is_reported_missing() -> None:
    result = decide([KITCHEN], {"occupancy": "restaurant", "cooking_operations": True})
    assert result.decision == "decline"
    assert result.missing_fields == ("hood_suppression",)


@pytest.mark.parametrize(("employees", "soft"), [(21, True), (22, True), (23, True), (24, False)])
def test_soft_zone_gt(employees: int, soft: bool) -> None:
    ev = evaluate_rule(HEADCOUNT_SOFT, {"employee_count": employees}, "BOP")
    assert ev.fires
    assert ev.in_soft_zone is soft
    assert ev.outcome == ("approve_with_conditions" if soft else "refer")


def test_soft_zone_why_mentions_values_limit_and_history() -> None:
    ev = evaluate_rule(HEADCOUNT_SOFT, {"employee_count": 22}, "BOP")
    assert "employee_count 22 > 20" in ev.why
    assert "soft limit 23" in ev.why
    assert "approved up to 23 employees" in ev.why


def test_beyond_soft_limit_says_so() -> None:
    ev = evaluate_rule(HEADCOUNT_SOFT, {"employee_count": 30}, "BOP")
    assert ev.outcome == "refer"
    assert "Beyond the soft limit 23" in ev.why


@pytest.mark.parametrize(("years", "outcome"), [(2, "approve_with_conditions"), (1, "refer")])
def test_soft_zone_lt(years: int, outcome: str) -> None:
    assert evaluate_rule(YOUNG_SOFT, {"years_in_business": years}, "GL").outcome == outcome


def test_hard_threshold_has_no_soft_zone_even_with_soft_limit() -> None:
    r = rule(
        "Hard", "refer", [cond("employee_count", "gt", 20)], threshold_type="hard", soft_limit=23
    )
    assert decide([r], {"employee_count": 22}).decision == "refer"


def test_soft_zone_uses_the_threshold_field_among_numeric_conditions() -> None:
    r = rule(
        "Frame Value",
        "refer",
        [cond("stories", "gte", 2), cond("tiv_usd", "gt", 1_000_000)],
        threshold={"field": "tiv_usd", "operator": "gt", "value": 1_000_000},
        threshold_type="soft",
        soft_limit=1_250_000,
    )
    assert decide([r], {"stories": 2, "tiv_usd": 1_200_000.0}).decision == "approve_with_conditions"
    assert decide([r], {"stories": 2, "tiv_usd": 1_300_000.0}).decision == "refer"


def test_missing_field_does_not_hold_and_is_reported() -> None:
    result = decide([HEADCOUNT_SOFT], {"product_type": "BOP"})
    assert result.decision == "approve"
    assert result.evaluations == ()
    assert result.missing_fields == ("employee_count",)
    assert [e.rule_name for e in result.undetermined] == ["Headcount Limit"]


def test_missing_field_not_reported_when_another_condition_already_fails() -> None:
    result = decide([KITCHEN], {"occupancy": "office"})
    assert result.decision == "approve"
    assert result.missing_fields == ()


def test_missing_fields_sorted_and_deduplicated_over_applicable_rules_only() -> None:
    rules = [
        rule("A", "refer", [cond("vacancy_days", "gt", 60), cond("loss_count_3yr", "gte", 3)]),
        rule("B", "refer", [cond("loss_count_3yr", "gte", 5)]),
        rule("C", "refer", [cond("square_feet", "gt", 1)], product_type="GL"),
    ]
    result = decide(rules, {"product_type": "BOP"})
    assert result.missing_fields == ("loss_count_3yr", "vacancy_days")


def test_absent_product_type_is_missing_when_product_rules_exist() -> None:
    result = decide([HEADCOUNT_SOFT], {"employee_count": 40})
    assert result.decision == "approve"
    assert "product_type" in result.missing_fields


@pytest.mark.parametrize(
    ("rule_product", "submission_product", "applies"),
    [("ALL", "GL", True), ("BOP", "BOP", True), ("BOP", "bop", True), ("BOP", "GL", False)],
)
def test_product_all_vs_specific(rule_product: str, submission_product: str, applies: bool) -> None:
    r = rule("P", "decline", [cond("state", "eq", "CA")], product_type=rule_product)
    result = decide([r], {"product_type": submission_product, "state": "CA"})
    assert result.decision == ("decline" if applies else "approve")
    ev = evaluate_rule(r, {"state": "CA"}, submission_product)
    assert ev.applies is applies
    if not applies:
        assert "for BOP" in ev.why


@pytest.mark.parametrize(
    ("operator", "value", "zone", "holds"),
    [
        ("in", ["V", "VE"], "VE", True),
        ("in", ["V", "VE"], "ve", True),
        ("in", ["V", "VE"], "AE", False),
        ("not_in", ["V", "VE"], "AE", True),
        ("not_in", ["V", "VE"], "V", False),
        ("in", "X", "X", True),
    ],
)
def test_in_and_not_in(operator: str, value: Any, zone: str, holds: bool) -> None:
    r = rule("Zone", "refer", [cond("flood_zone", operator, value)])
    assert decide([r], {"flood_zone": zone}).decision == ("refer" if holds else "approve")


@pytest.mark.parametrize(
    ("operator", "threshold", "actual", "holds"),
    [
        ("gt", 20, 21, True),
        ("gt", 20, 20, False),
        ("gte", 20, 20, True),
        ("lt", 0.0025, 0.002, True),
        ("lt", 0.0025, 0.0025, False),
        ("lte", -40, -40.0, True),
        ("eq", 1, 1.0, True),
        ("neq", 1, 2, True),
        ("neq", 1, 1, False),
        ("eq", "Gas Station", "gas station", True),
        ("neq", "frame", "FRAME", False),
        ("eq", True, True, True),
        ("eq", False, True, False),
    ],
)
def test_operators(operator: str, threshold: Any, actual: Any, holds: bool) -> None:
    r = rule("Op", "refer", [cond("x", operator, threshold)])
    assert decide([r], {"x": actual}).decision == ("refer" if holds else "approve")


@pytest.mark.parametrize(
    ("operator", "threshold", "actual"),
    [
        ("gt", 20, "many"),
        ("lt", 5, True),
        ("eq", True, 1),
        ("eq", 1, True),
        ("neq", "frame", 3),
        ("not_in", ["NY", "NJ"], 7),
        ("gt", "20", 25),
    ],
)
def test_type_mismatch_does_not_hold_and_never_raises(
    operator: str, threshold: Any, actual: Any
) -> None:
    r = rule("Mismatch", "decline", [cond("x", operator, threshold)])
    result = decide([r], {"x": actual})
    assert result.decision == "approve"
    assert result.missing_fields == ()


def test_most_severe_wins_and_cites_every_rule_with_that_outcome() -> None:
    rules = [
        rule("Refer A", "refer", [cond("loss_count_3yr", "gte", 3)]),
        rule("Decline B", "decline", [cond("loss_count_3yr", "gte", 5)]),
        rule("Decline C", "decline", [cond("state", "eq", "CA")]),
        rule("Conditions D", "exclude", [cond("state", "eq", "CA")]),
        rule("Quiet E", "decline", [cond("state", "eq", "NY")]),
    ]
    result = decide(rules, {"loss_count_3yr": 6, "state": "CA"})
    assert result.decision == "decline"
    assert result.cited_rule_names == ("Decline B", "Decline C")
    assert [e.rule_name for e in result.evaluations] == [
        "Refer A",
        "Decline B",
        "Decline C",
        "Conditions D",
    ]


def test_mitigated_decline_ties_with_refer_and_both_are_cited() -> None:
    rules = [KITCHEN, rule("Refer", "refer", [cond("state", "eq", "TX")])]
    values = {
        "occupancy": "restaurant",
        "cooking_operations": True,
        "hood_suppression": True,
        "state": "TX",
    }
    result = decide(rules, values)
    assert result.decision == "refer"
    assert result.cited_rule_names == ("Kitchen", "Refer")


def test_approve_when_nothing_fires_cites_nothing() -> None:
    result = decide([KITCHEN, HEADCOUNT_SOFT], {"occupancy": "office", "employee_count": 5})
    assert result.decision == "approve"
    assert result.evaluations == ()
    assert result.cited_rule_names == ()
    assert decide([], {}).decision == "approve"


def test_rule_without_conditions_never_fires() -> None:
    empty = rule("Unevaluable", "decline", [])
    result = decide([empty], {"state": "TX"})
    assert result.decision == "approve"
    assert "no conditions" in evaluate_rule(empty, {}, "BOP").why


def test_most_severe() -> None:
    assert most_severe([]) == "approve"
    assert most_severe(["approve_with_conditions", "refer"]) == "refer"
    assert most_severe(["refer", "decline", "approve"]) == "decline"


def test_why_of_a_fired_rule_shows_values_against_thresholds() -> None:
    r = rule(
        "Two", "refer", [cond("occupancy", "eq", "restaurant"), cond("liquor_sales_pct", "gt", 30)]
    )
    ev = evaluate_rule(r, {"occupancy": "restaurant", "liquor_sales_pct": 35.0}, "BOP")
    assert "occupancy 'restaurant' = 'restaurant'" in ev.why
    assert "liquor_sales_pct 35 > 30" in ev.why
    assert "refer" in ev.why


def test_why_of_an_unfired_rule_names_the_failing_condition() -> None:
    ev = evaluate_rule(HEADCOUNT_SOFT, {"employee_count": 12}, "BOP")
    assert not ev.fires and ev.outcome is None
    assert "employee_count 12 not > 20" in ev.why


# --- the dev dataset ------------------------------------------------------------


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.mark.skipif(not (DEV / "submissions.jsonl").exists(), reason="dev dataset absent")
def test_dev_submissions_decisions_and_citations_match_policy() -> None:
    fields = load_data_dictionary(DEV / "fields.json")
    rules = [ExtractedRule.model_validate(r) for r in _jsonl(DEV / "rules.jsonl")]
    cases = _jsonl(DEV / "submissions.jsonl")
    assert cases
    wrong = []
    for case in cases:
        parsed = parse_submission(case["submission"], fields)
        result = decide(rules, parsed.values)
        got = (result.decision, sorted(result.cited_rule_names))
        want = (case["expected_decision"], sorted(case["expected_rules"]))
        if got != want:
            wrong.append((case["id"], got, want))
    accuracy = 1 - len(wrong) / len(cases)
    assert wrong == []
    assert accuracy == 1.0
