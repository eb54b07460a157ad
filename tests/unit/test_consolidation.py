"""The consolidation policy, case by case (shared/datasets/consolidation/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

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
        first.model_copy(update={"sources": [], "valid_from": None, "date": None, "valid_to": None})
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


# What the README policy implies beyond the cases above (each found by a mutant the
# tests above let through: docs/testing.md).


def _texts(version: ExtractedRule | None) -> list[str | None]:
    assert version is not None
    return [s.text_id for s in version.sources]


def _restaurant(
    text_id: str, date: str, source_type: str = "manual", **update: Any
) -> ExtractedRule:
    """A claim about restaurants' headcount: a categorical condition before the limit."""
    limit = update.pop("limit", 20)
    op = update.pop("op", "gt")
    return claim(
        text_id, date, source_type,
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "restaurant"},
            {"field": "employee_count", "operator": op, "value": limit},
        ],
        threshold={"field": "employee_count", "operator": op, "value": limit},
        **update,
    )  # fmt: skip


def test_sameness_reads_categories_as_sets_and_keeps_fields_and_negations_apart() -> None:
    def sig(*conditions: tuple[str, str, Any]) -> str:
        return signature("GL", conditions)

    assert sig(("occupancy", "in", ["Bar", "Tavern"])) == sig(
        ("occupancy", "in", ["tavern", "bar"])
    )
    assert sig(("stories", "eq", 3)) == sig(("stories", "eq", 3.0)) != sig(("stories", "eq", 4))
    assert sig(("occupancy", "eq", "bar")) != sig(("occupancy", "neq", "bar"))
    assert sig(("occupancy", "in", ["bar"])) != sig(("occupancy", "not_in", ["bar"]))
    assert sig(("employee_count", "gt", 20)) == sig(("employee_count", "gte", 25))
    assert sig(("employee_count", "gt", 20)) != sig(("tiv_usd", "gt", 20))


def test_a_limit_written_as_a_float_restates_the_same_limit() -> None:
    manual = claim("m", "2023-01-01")
    sme = claim("s", "2023-03-01", "sme", soft_limit=23)
    again = claim("t", "2023-06-01", "training", limit=20.0)
    [rule] = consolidate([manual, sme, again])
    now = rule.current
    assert now is not None and (now.threshold_type, now.soft_limit) == ("soft", 23)
    assert _texts(now) == ["m", "s", "t"]


def test_a_zero_limit_is_restated_like_any_other() -> None:
    [rule] = consolidate([claim("m", "2023-01-01", limit=0), claim("t", "2023-06-01", limit=0)])
    assert _texts(rule.current) == ["m", "t"] and len(rule.versions) == 2


def test_a_training_note_that_speaks_of_flexibility_is_practice() -> None:
    manual = claim("m", "2023-01-01")
    guideline = claim("t1", "2023-03-01", "training", threshold_type="soft")  # names no value
    approved = claim("t2", "2023-06-01", "training", soft_limit=24)  # extracted as hard
    [rule] = consolidate([manual, guideline, approved])
    _, soft, furthest = rule.versions
    assert (soft.threshold_type, soft.soft_limit) == ("soft", None)
    assert (furthest.threshold_type, furthest.soft_limit) == ("soft", 24)
    assert all(v.conditions == manual.conditions for v in rule.versions)


def test_the_furthest_soft_limit_stays_and_a_source_naming_no_value_keeps_it() -> None:
    manual = claim("m", "2023-01-01")
    logs = [
        claim("l1", "2023-02-01", "production", soft_limit=22),
        claim("l2", "2023-03-01", "production", soft_limit=25),
        claim("l3", "2023-04-01", "production", historical_exceptions="approved 24 once"),
    ]
    [rule] = consolidate([manual, *logs])
    assert [v.soft_limit for v in rule.versions] == [None, 22, 25, 25]


def test_the_soft_limit_follows_the_threshold_direction_not_the_first_condition() -> None:
    stated = _restaurant("m", "2023-01-01", op="lt", limit=3)
    logs = [
        _restaurant("l1", "2023-02-01", "production", op="lt", limit=3, soft_limit=2),
        _restaurant("l2", "2023-03-01", "production", op="lt", limit=3, soft_limit=2.5),
    ]
    [rule] = consolidate([stated, *logs])
    assert rule.current is not None and rule.current.soft_limit == 2


def test_practice_on_a_rule_stated_without_a_threshold_reads_its_condition() -> None:
    def stated(
        text_id: str, date: str, source_type: str = "manual", **update: Any
    ) -> ExtractedRule:
        return claim(text_id, date, source_type, op="lt", limit=1, threshold=None, **update)

    guideline = stated("s", "2023-02-01", "sme", threshold_type="soft", soft_limit=0.8)
    logs = [
        stated(f"l{n}", f"2023-0{n + 3}-01", "production", soft_limit=v)
        for n, v in ((0, 0.6), (1, 0.9))
    ]
    [rule] = consolidate([stated("m", "2023-01-01"), guideline, *logs])
    assert [(v.threshold_type, v.soft_limit) for v in rule.versions] == [
        ("hard", None),
        ("soft", 0.8),
        ("soft", 0.6),
        ("soft", 0.6),
    ]


def test_a_log_that_only_followed_the_rule_bends_nothing_and_an_exception_does() -> None:
    manual = claim("m", "2023-01-01")
    followed = claim("l1", "2023-02-01", "production", decision_quality="aligned")
    exception = claim("l2", "2023-03-01", "production", historical_exceptions="21 approved")
    [rule] = consolidate([manual, followed, exception])
    _, after_log, after_exception = rule.versions
    assert (after_log.threshold_type, after_log.historical_exceptions) == ("hard", None)
    assert after_log.decision_quality == "aligned"
    assert (after_exception.threshold_type, after_exception.soft_limit) == ("soft", None)
    assert after_exception.historical_exceptions == "21 approved"
    assert after_exception.decision_quality == "aligned"  # a log naming none keeps it


def test_practice_accumulates_what_every_text_added() -> None:
    manual = claim("m", "2023-01-01", mitigants=["Safety program"],
                   mitigant_fields=["safety_program"], data_fields=["employee_count"])  # fmt: skip
    sme = claim(
        "s", "2023-03-01", "sme", soft_limit=23, historical_exceptions="signed off 23",
        mitigants=["Seasonal staff"], mitigant_fields=["seasonal_staff"],
        data_fields=["seasonal_staff"],
    )  # fmt: skip
    log = claim("l", "2023-06-01", "production", soft_limit=22,
                historical_exceptions="22 approved", decision_quality="divergent")  # fmt: skip
    [rule] = consolidate([manual, sme, log])
    now = rule.current
    assert now is not None
    assert set(now.mitigants) == {"Safety program", "Seasonal staff"}
    assert set(now.mitigant_fields) == {"safety_program", "seasonal_staff"}
    assert set(now.data_fields) == {"employee_count", "seasonal_staff"}
    assert all(e in (now.historical_exceptions or "") for e in ("signed off 23", "22 approved"))
    assert now.decision_quality == "divergent"


def test_two_practice_texts_of_one_day_both_count() -> None:
    manual = claim("m", "2023-01-01")
    sme = claim("s", "2023-06-01", "sme", soft_limit=23, mitigant_fields=["safety_program"])
    log = claim("l", "2023-06-01", "production", soft_limit=22, historical_exceptions="22 approved")
    [rule] = consolidate([manual, sme, log])
    now = rule.current
    assert now is not None and len(rule.versions) == 2
    assert (now.soft_limit, now.mitigant_fields, now.historical_exceptions) == (
        23,
        ["safety_program"],
        "22 approved",
    )
    assert _texts(now) == ["m", "s", "l"]


def test_a_restatement_keeps_the_mitigants_and_adds_those_it_names() -> None:
    manual = claim(
        "m", "2023-01-01", mitigants=["Safety program"], mitigant_fields=["safety_program"]
    )
    again = claim("t", "2023-06-01", "training", mitigants=["Seasonal staff"],
                  mitigant_fields=["seasonal_staff"])  # fmt: skip
    [rule] = consolidate([manual, again])
    now = rule.current
    assert now is not None and now.conditions == manual.conditions
    assert set(now.mitigants) == {"Safety program", "Seasonal staff"}
    assert set(now.mitigant_fields) == {"safety_program", "seasonal_staff"}


def test_an_amendment_cites_every_text_and_keeps_what_the_sources_added() -> None:
    manual = claim("m", "2023-01-01", mitigants=["Safety program"],
                   mitigant_fields=["safety_program"], data_fields=["employee_count"])  # fmt: skip
    bulletin = claim(
        "b", "2024-01-01", "compliance", limit=30, mitigants=["Seasonal staff"],
        mitigant_fields=["seasonal_staff"], data_fields=["seasonal_staff"],
    )  # fmt: skip
    [rule] = consolidate([manual, bulletin])
    now = rule.current
    assert now is not None and now.conditions[0].value == 30
    assert _texts(now) == ["m", "b"]
    assert set(now.mitigants) == {"Safety program", "Seasonal staff"}
    assert set(now.mitigant_fields) == {"safety_program", "seasonal_staff"}
    assert set(now.data_fields) == {"employee_count", "seasonal_staff"}


def test_an_amended_action_keeps_practice_sources_and_mitigants_of_the_unchanged_limit() -> None:
    manual = claim("m", "2023-01-01", action="refer", mitigant_fields=["safety_program"])
    log = claim("l", "2023-06-01", "production", action="refer", soft_limit=24,
                historical_exceptions="24 approved")  # fmt: skip
    bulletin = claim("b", "2024-01-01", "compliance", action="decline")
    [rule] = consolidate([manual, log, bulletin])
    now = rule.current
    assert now is not None and now.action == "decline"
    assert (now.soft_limit, now.historical_exceptions) == (24, "24 approved")
    assert now.mitigant_fields == ["safety_program"] and _texts(now) == ["m", "l", "b"]


def test_every_version_is_valid_from_its_own_date_and_keeps_the_rule_identity() -> None:
    manual = claim("m", "2023-01-01")
    sme = claim("s", "2023-06-01", "sme", soft_limit=23)
    # Another text's wording, and valid times it carries, change neither.
    bulletin = claim(
        "b", "2024-01-01", "compliance", limit=30, rule_name="Bulletin cap",
        risk_factor="Headcount", valid_from="2019-01-01", valid_to="2019-06-01",
    )  # fmt: skip
    [rule] = consolidate([manual, sme, bulletin])
    assert [(v.valid_from, v.valid_to, v.date) for v in rule.versions] == [
        ("2023-01-01", "2023-06-01", "2023-01-01"),
        ("2023-06-01", "2024-01-01", "2023-06-01"),
        ("2024-01-01", None, "2024-01-01"),
    ]
    identity = {(v.rule_name, v.risk_factor, v.text_id) for v in rule.versions}
    assert identity == {(rule.name, "Employee Count", "m")}
    assert not any(v.withdrawn for v in rule.versions)
    assert [(s.text_id, s.date) for s in rule.versions[1].sources] == [
        ("m", "2023-01-01"),
        ("s", "2023-06-01"),
    ]


def test_claims_fold_in_date_order_and_an_undated_claim_is_refused() -> None:
    manual = claim("m", "2023-01-01")
    bulletin = claim("b", "2024-01-01", "compliance", limit=30)
    [rule] = consolidate([bulletin, manual])
    assert [v.conditions[0].value for v in rule.versions] == [20, 30]
    undated = claim("x", "2023-01-01").model_copy(update={"date": None})
    with pytest.raises(ValueError, match="Headcount rule from x"):
        consolidate([manual, undated])


def test_a_rule_records_once_every_claim_that_made_bent_or_ended_it() -> None:
    manual = claim("m", "2023-01-01")
    again = claim("t", "2023-03-01", "training")
    sme = claim("s", "2023-06-01", "sme", soft_limit=23)
    for kind in ("compliance", "sme"):  # whoever reports the lifting
        lifted = claim("w", "2024-01-01", kind, withdrawn=True)
        [rule] = consolidate([manual, again, sme, lifted])
        assert [c.text_id for c in rule.claims] == ["m", "t", "s", "w"]
        assert rule.current is None and rule.versions[-1].valid_to == "2024-01-01"


def test_practice_about_another_limit_and_action_is_a_rule_of_its_own() -> None:
    manual = claim("m", "2023-01-01")  # decline over 20
    log = claim("l", "2023-06-01", "production", action="refer", limit=15, soft_limit=17)
    sme = claim("s", "2023-06-01", "sme", soft_limit=23)  # the same day, about the stated rule
    stated, own = consolidate([manual, log, sme])
    assert stated.current is not None and (
        stated.current.threshold_type,
        stated.current.soft_limit,
    ) == (
        "soft",
        23,
    )
    assert own.current is not None and own.current.action == "refer"
    assert own.versions[0].valid_from == "2023-06-01"
    assert _texts(own.current) == ["l"] and [c.text_id for c in own.claims] == ["l"]


def test_practice_and_a_withdrawal_touch_only_the_tier_they_are_about() -> None:
    refer = claim("m", "2023-01-01", action="refer", limit=3, rule_name="Refer tier")
    decline = claim("m", "2023-01-01", action="decline", limit=5, rule_name="Decline tier")
    log = claim("l", "2023-06-01", "production", action="decline", limit=5, soft_limit=6)
    lifted = claim("w", "2024-01-01", "compliance", action="decline", limit=5, withdrawn=True)
    tiers = {lin.name: lin for lin in consolidate([refer, decline, log, lifted])}
    kept, ended = tiers["Refer tier"], tiers["Decline tier"]
    assert kept.current is not None and kept.current.threshold_type == "hard"
    assert ended.current is None
    bent = version_at(ended.versions, "2023-12-01")
    assert bent is not None and (bent.threshold_type, bent.soft_limit) == ("soft", 6)


def test_two_limits_with_one_action_in_one_text_are_tiers_not_a_conflict() -> None:
    low = claim("m", "2023-01-01", limit=20, rule_name="Headcount over 20")
    high = claim("m", "2023-01-01", limit=50, rule_name="Headcount over 50")
    tiers = consolidate([low, high])
    assert len(tiers) == 2
    assert all(lin.current is not None and lin.current.conflicts == [] for lin in tiers)


def test_an_outranked_statement_does_not_stop_the_rest_of_its_day() -> None:
    manual = claim("m", "2025-01-01", action="refer")
    bulletin = claim("b", "2025-01-01", "compliance")
    training = claim("t", "2025-01-01", "training")  # agrees with the bulletin
    [rule] = consolidate([manual, bulletin, training])
    assert rule.current is not None and rule.current.action == "decline"
    assert {"b", "t"} <= set(_texts(rule.current))


def test_equal_bulletins_that_disagree_all_stay_current_under_distinct_names() -> None:
    bulletins = [
        claim(text_id, "2025-01-01", "compliance", limit=limit, rule_name="Headcount cap")
        for text_id, limit in (("a", 25), ("b", 30), ("c", 35))
    ]
    lineages = consolidate(bulletins)
    current = [lin.current for lin in lineages if lin.current is not None]
    names = {rule.rule_name for rule in current}
    assert len(current) == 3 and len(names) == 3
    for rule in current:
        assert rule.conflicts
        for note in rule.conflicts:
            assert note.rule_name in names - {rule.rule_name} and note.date == "2025-01-01"


def test_a_conflict_names_only_the_fields_the_two_disagree_on() -> None:
    first, second = consolidate(
        [
            _restaurant("guide", "2025-01-01", limit=35),
            _restaurant("course", "2025-01-01", "training", limit=25),
        ]
    )
    assert first.current is not None and second.current is not None
    [note] = first.current.conflicts
    assert note.fields == ["employee_count"]


def test_a_disagreement_on_the_action_alone_conflicts_and_practice_bends_its_own_side() -> None:
    refer = claim("a", "2025-01-01", action="refer")
    decline = claim("b", "2025-01-01", "training", action="decline")  # the same limit
    log = claim("l", "2025-06-01", "production", action="decline", soft_limit=24)
    lineages = consolidate([refer, decline, log])
    current = {lin.current.action: lin.current for lin in lineages if lin.current is not None}
    assert {action: rule.threshold_type for action, rule in current.items()} == {
        "refer": "hard",
        "decline": "soft",
    }
    [note] = current["refer"].conflicts
    assert note.fields == ["employee_count"]


def test_a_later_restatement_of_one_side_settles_a_conflict() -> None:
    guide = claim("guide", "2025-01-01", limit=35)
    course = claim("course", "2025-01-01", "training", limit=25)
    again = claim("again", "2025-06-01", limit=35)
    [now] = [lin.current for lin in consolidate([guide, course, again]) if lin.current]
    assert now.conditions[0].value == 35 and now.conflicts == []
    assert _texts(now) == ["guide", "again"]


def test_a_later_statement_amends_the_nearest_of_two_disagreeing_limits() -> None:
    guide = claim("guide", "2025-01-01", limit=35)
    course = claim("course", "2025-01-01", "training", limit=25)
    bulletin = claim("b", "2025-06-01", "compliance", limit=26)
    [amended] = [lin for lin in consolidate([guide, course, bulletin]) if lin.current]
    assert [v.conditions[0].value for v in amended.versions] == [25, 26]


def test_a_later_text_stating_both_limits_keeps_both_as_tiers() -> None:
    guide = claim("guide", "2025-01-01", limit=35)
    course = claim("course", "2025-01-01", "training", limit=25)
    both = [claim("b", "2025-06-01", "compliance", limit=limit) for limit in (35, 25)]
    current = [lin.current for lin in consolidate([guide, course, *both]) if lin.current]
    assert sorted(rule.conditions[0].value for rule in current) == [25, 35]
    assert all(rule.conflicts == [] and "b" in _texts(rule) for rule in current)


def test_a_later_statement_changing_limit_and_action_amends_the_rule() -> None:
    """README 2: a later statement that changes threshold and action is an amendment."""
    manual = claim("m", "2023-02-06", limit=16)  # decline over 16
    bulletin = claim("b", "2025-04-01", "compliance", action="refer", limit=20)
    (rule,) = consolidate([manual, bulletin])
    current = rule.current
    assert current is not None
    assert (current.action, current.conditions[0].value) == ("refer", 20)
    assert [(v.action, v.valid_from, v.valid_to) for v in rule.versions] == [
        ("decline", "2023-02-06", "2025-04-01"),
        ("refer", "2025-04-01", None),
    ]


def test_limits_of_one_day_that_share_neither_limit_nor_action_are_tiers() -> None:
    """Only a later statement amends across limit and action; texts of one day are tiers.

    Undated texts ingested on one day (a dataset's "verify over 20%" and "refer over
    100%" from two documents) stay two rules, whatever the time of each write.
    """
    days = [("2024-01-08", "2024-01-08")]
    days.append(("2024-01-08T09:00:00+00:00", "2024-01-08T17:30:00+00:00"))
    for first, second in days:
        one = claim("a", first, action="verify", limit=20)
        other = claim("b", second, "training", action="refer", limit=100)
        rules = consolidate([one, other])
        now = [r.current for r in rules if r.current]
        assert sorted((v.action, v.conditions[0].value) for v in now) == [
            ("refer", 100), ("verify", 20),
        ]  # fmt: skip
        assert all(r.current.conflicts == [] for r in rules if r.current)


def test_a_settled_conflict_stays_on_the_versions_it_was_open_on() -> None:
    """A later statement settles a conflict; the history still shows the disagreement."""
    one = claim("a", "2024-01-08", action="refer", limit=15_000)
    other = claim("b", "2024-01-08", action="refer", limit=7_500)
    bulletin = claim("c", "2025-02-03", "compliance", action="refer", limit=10_000)
    rules = consolidate([one, other, bulletin])
    assert [r.current.conditions[0].value for r in rules if r.current] == [10_000]
    flagged = {tuple(sorted(c.text_ids)) for r in rules for v in r.versions for c in v.conflicts}
    assert flagged == {("a", "b")}
    assert all(not r.current.conflicts for r in rules if r.current)


def test_practice_sharing_only_the_limit_or_only_the_action_softens_the_stated_rule() -> None:
    """Practice fits a rule whose limit or action it shares; the rule keeps its own."""
    for practice in (
        claim("l", "2023-06-01", "production", action="refer", soft_limit=24),  # same limit
        claim("l", "2023-06-01", "production", limit=22, soft_limit=24),  # same action
    ):
        (rule,) = consolidate([claim("m", "2023-01-01"), practice])
        current = rule.current
        assert current is not None
        assert (current.action, current.conditions[0].value) == ("decline", 20)
        assert (current.threshold_type, current.soft_limit) == ("soft", 24)


@pytest.mark.parametrize("order", [("tier", "again"), ("again", "tier")])
def test_a_restatement_keeps_its_rule_whatever_order_its_text_gave(order: tuple[str, ...]) -> None:
    """A note restating "decline over 20" beside a new tier "refer over 10" amends nothing.

    Read in either order, the restatement joins the manual's rule and the tier starts its
    own; the tier read first used to amend the manual's rule, the restatement then stood
    alone as a second copy of it.
    """
    manual = claim("manual", "2023-01-10")
    said = {
        "tier": claim("note", "2024-02-01", limit=10, action="refer"),
        "again": claim("note", "2024-02-01"),
    }
    lineages = consolidate([manual, *(said[k] for k in order)])
    current = sorted(
        (lin.current.action, lin.current.conditions[0].value, _texts(lin.current))
        for lin in lineages
        if lin.current
    )
    assert current == [("decline", 20, ["manual", "note"]), ("refer", 10, ["note"])]


def test_a_whole_number_bound_said_with_or_more_is_the_same_limit() -> None:
    # "more than 20 employees" and "21 or more employees" restate one limit
    manual = claim("m", "2023-01-01")
    training = claim("t", "2023-06-01", "training", op="gte", limit=21)
    [rule] = consolidate([manual, training])
    assert _texts(rule.current) == ["m", "t"]
    # and two texts of one day that give it different actions disagree on one rule
    refer = claim("r", "2024-01-01", action="refer")
    decline = claim("d", "2024-01-01", "training", op="gte", limit=21)
    first, second = consolidate([refer, decline])
    assert first.current is not None and first.current.conflicts
    assert [n.text_ids for n in first.current.conflicts] == [["r", "d"]]
