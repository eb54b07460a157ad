"""The consolidation policy, case by case (shared/datasets/consolidation/README.md)."""

from __future__ import annotations

from typing import Any

from memory.underwriting.consolidate import consolidate, signature
from memory.underwriting.history import version_at
from schemas.rules import ExtractedRule


def claim(text_id: str, date: str, source_type: str = "manual", **update: Any) -> ExtractedRule:
    """A claim about a BOP headcount limit (> 20 employees declined) from one text."""
    limit = update.pop("limit", 20)
    op = update.pop("op", "gt")
    base: dict[str, Any] = {
        "rule_name": f"Headcount rule from {text_id}",
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": "decline",
        "threshold": {"field": "employee_count", "operator": op, "value": limit},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": op, "value": limit}],
        "source": f"Document {text_id}",
        "source_type": source_type,
        "text_id": text_id,
        "date": date,
    }
    return ExtractedRule.model_validate({**base, **update})


def test_manual_interview_and_log_end_as_one_soft_rule_citing_all_three() -> None:
    manual = claim("manual", "2023-01-10")
    sme = claim(
        "sme", "2024-03-01", "sme", threshold_type="soft", soft_limit=23,
        historical_exceptions="signed off up to 23 when well established",
    )  # fmt: skip
    log = claim(
        "log", "2024-09-01", "production", threshold_type="soft", soft_limit=22,
        historical_exceptions="22 employees approved by the senior underwriter",
    )  # fmt: skip
    [rule] = consolidate([manual, sme, log])
    now = rule.current
    assert now is not None and now.rule_name == manual.rule_name
    assert (now.action, now.threshold_type, now.soft_limit) == ("decline", "soft", 23)
    assert now.conditions == manual.conditions  # practice never moves the stated limit
    assert [s.text_id for s in now.sources] == ["manual", "sme", "log"]
    assert "22 employees approved" in (now.historical_exceptions or "")
    before = version_at(rule.versions, "2024-02-01")
    assert before is not None and (before.threshold_type, before.soft_limit) == ("hard", None)
    assert [v.valid_from for v in rule.versions] == ["2023-01-10", "2024-03-01", "2024-09-01"]


def test_an_amended_threshold_is_a_new_version_and_drops_practice_keeps_mitigants() -> None:
    manual = claim("m", "2023-01-01", mitigants=["Safety program"], mitigant_fields=["safety"])
    sme = claim("s", "2023-06-01", "sme", threshold_type="soft", soft_limit=25)
    bulletin = claim("b", "2024-01-01", "compliance", limit=30)
    [rule] = consolidate([manual, sme, bulletin])
    old, soft, new = rule.versions
    assert (old.valid_to, soft.valid_to, new.valid_from, new.valid_to) == (
        "2023-06-01",
        "2024-01-01",
        "2024-01-01",
        None,
    )
    assert new.conditions[0].value == 30 and new.threshold_type == "hard"
    assert new.soft_limit is None and new.historical_exceptions is None
    assert new.mitigant_fields == ["safety"]
    assert version_at(rule.versions, "2023-12-31") == soft


def test_an_amended_action_keeps_the_soft_limit_of_an_unchanged_threshold() -> None:
    manual = claim("m", "2023-01-01", action="refer")
    log = claim("l", "2023-06-01", "production", action="refer", soft_limit=24)
    bulletin = claim("b", "2024-01-01", "compliance", action="decline")
    [rule] = consolidate([manual, log, bulletin])
    now = rule.current
    assert now is not None and (now.action, now.threshold_type, now.soft_limit) == (
        "decline",
        "soft",
        24,
    )


def test_a_later_log_that_accepted_less_does_not_lower_the_soft_limit() -> None:
    for op, limits, furthest in (("gt", (24, 23), 24), ("lt", (0.5, 0.8), 0.5)):
        first = claim("m", "2023-01-01", op=op, limit=1 if op == "lt" else 20)
        logs = [
            claim(f"l{n}", f"2023-0{n + 2}-01", "production", op=op, soft_limit=value,
                  limit=1 if op == "lt" else 20)
            for n, value in enumerate(limits)
        ]  # fmt: skip
        [rule] = consolidate([first, *logs])
        assert rule.current is not None and rule.current.soft_limit == furthest


def test_a_restatement_adds_its_text_and_changes_nothing_else() -> None:
    manual = claim("m", "2023-01-01")
    training = claim("t", "2023-05-01", "training", outcome_description="other words")
    [rule] = consolidate([manual, training])
    first, second = rule.versions
    assert second.valid_from == "2023-05-01" and [s.text_id for s in second.sources] == ["m", "t"]
    assert second.model_copy(update={"sources": [], "valid_from": None, "date": None}) == (
        first.model_copy(
            update={"sources": [], "valid_from": None, "date": None, "valid_to": None}
        )
    )


def test_a_withdrawal_ends_the_rule_with_no_successor() -> None:
    manual = claim("m", "2023-01-01")
    lifted = claim("w", "2024-01-01", "compliance", withdrawn=True)
    [rule] = consolidate([manual, lifted])
    assert rule.current is None and rule.versions[-1].valid_to == "2024-01-01"
    assert version_at(rule.versions, "2023-06-01") is not None
    assert version_at(rule.versions, "2024-06-01") is None


def test_equal_statements_of_one_day_that_disagree_stay_current_and_conflict() -> None:
    guide = claim("guide", "2025-01-01", limit=35)
    course = claim("course", "2025-01-01", "training", limit=25)
    first, second = consolidate([guide, course])
    assert first.current is not None and second.current is not None
    [note] = first.current.conflicts
    assert (note.rule_name, note.text_ids, note.fields) == (
        second.name,
        ["guide", "course"],
        ["employee_count"],
    )
    # A later statement settles it: one current rule again.
    settled = consolidate([guide, course, claim("b", "2025-06-01", "compliance", limit=30)])
    current = [lin.current for lin in settled if lin.current is not None]
    assert len(current) == 1 and current[0].conditions[0].value == 30
    assert current[0].conflicts == []


def test_a_compliance_bulletin_outranks_a_manual_of_the_same_day() -> None:
    manual = claim("m", "2025-01-01", action="refer")
    bulletin = claim("b", "2025-01-01", "compliance", action="decline")
    [rule] = consolidate([manual, bulletin])
    assert rule.current is not None and rule.current.action == "decline"
    assert rule.current.conflicts == []


def test_two_limits_in_one_text_are_two_tiers_not_an_amendment() -> None:
    refer = claim("m", "2023-01-01", action="refer", limit=3, rule_name="Refer tier")
    decline = claim("m", "2023-01-01", action="decline", limit=5, rule_name="Decline tier")
    tiers = consolidate([refer, decline])
    assert sorted(lin.name for lin in tiers if lin.current) == ["Decline tier", "Refer tier"]
    # A later text that moves the decline tier amends that tier only.
    moved = claim("b", "2024-01-01", "compliance", action="decline", limit=6)
    after = {lin.name: lin.current for lin in consolidate([refer, decline, moved])}
    assert after["Refer tier"] is not None and after["Refer tier"].conditions[0].value == 3
    assert after["Decline tier"] is not None and after["Decline tier"].conditions[0].value == 6


def test_practice_alone_states_the_rule_it_describes() -> None:
    log = claim("l", "2024-01-01", "production", action="decline", threshold_type=None,
                mitigant_fields=["central_station_alarm"])  # fmt: skip
    [rule] = consolidate([log])
    assert rule.current is not None and rule.current.mitigant_fields == ["central_station_alarm"]


def test_sameness_is_product_fields_directions_and_categories_never_the_name() -> None:
    bop = claim("a", "2023-01-01")
    assert signature(bop.product_type, bop.conditions) == signature(
        "BOP", claim("b", "2024-01-01", limit=99, action="refer", rule_name="Other").conditions
    )
    gl = claim("c", "2023-01-01", product_type="GL")
    assert signature(gl.product_type, gl.conditions) != signature(bop.product_type, bop.conditions)
    lower = claim("d", "2023-01-01", op="lt")
    assert signature("BOP", lower.conditions) != signature("BOP", bop.conditions)
    bar = [{"field": "occupancy", "operator": "eq", "value": "Bar"}]
    tavern = [{"field": "occupancy", "operator": "eq", "value": "tavern"}]
    assert signature("GL", [("occupancy", "eq", "bar")]) == signature(
        "GL", [(c["field"], c["operator"], c["value"]) for c in bar]
    )
    assert signature("GL", [("occupancy", "eq", "bar")]) != signature(
        "GL", [(c["field"], c["operator"], c["value"]) for c in tavern]
    )
    assert len(consolidate([bop, gl])) == 1  # consolidate takes one signature's claims


def test_claims_of_one_day_keep_their_ingestion_order() -> None:
    stated = claim("m", "2023-01-01")
    undated_like = [claim("s", "2023-01-01", "sme", soft_limit=22)]
    [rule] = consolidate([stated, *undated_like])
    assert rule.current is not None and rule.current.soft_limit == 22
    assert len(rule.versions) == 1  # same day: one version carrying both
