"""Practice read from a text as claims about the rules already stated."""

from __future__ import annotations

from typing import Any

from agents.ingestion.practice import evidenced, read_approvals, read_revisions, with_practice
from memory.underwriting.consolidate import consolidate
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def rule(**update: Any) -> ExtractedRule:
    base: dict[str, Any] = {
        "rule_name": "BOP Headcount Decline",
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": "decline",
        "threshold": {
            "field": "employee_count",
            "operator": "gt",
            "value": 20,
            "unit": "employees",
        },
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 20}],
        "source": "BOP Manual",
        "source_type": "manual",
        "text_id": "manual",
        "date": "2023-03-01",
        "mitigants": ["Safety program"],
        "mitigant_fields": ["safety_program"],
    }
    return ExtractedRule.model_validate({**base, **update})


def text(text_id: str, body: str, kind: str = "sme", date: str = "2024-06-10") -> KnowledgeText:
    return KnowledgeText(
        id=text_id, text=body, source=f"Doc {text_id}", source_type=kind, date=date
    )  # type: ignore[arg-type]


def test_a_guideline_and_how_far_approvals_went_over_the_next_sentences() -> None:
    interview = text(
        "sme",
        "Q: Is the 20 employee cap firm? A: I read 20 as a guideline. It is there so someone "
        "senior looks. Q: How far have you gone? A: The biggest I've signed off was 24.",
    )
    [revision] = read_revisions(interview)
    assert (revision.value, revision.soft_limit, revision.date) == (20, 24, "2024-06-10")


def test_an_approval_past_a_known_limit_is_a_soft_claim_about_that_rule_only() -> None:
    known = [rule(), rule(rule_name="GL Cap", product_type="GL", action="refer")]
    log = text(
        "log",
        "BOP-24-118: bakery, 22 employees, approved by the senior underwriter.\n"
        "BOP-24-131: florist, 31 employees, declined.",
        kind="production",
    )
    [claim] = read_approvals(log, known)
    assert (claim.rule_name, claim.soft_limit, claim.source_type) == (
        "BOP Headcount Decline",
        22,
        "production",
    )
    # What this text says, not what the rule gathered from others.
    assert claim.mitigants == [] and claim.text_id == "log" and claim.date == "2024-06-10"
    assert read_approvals(text("x", "A loss of 22 dollars was approved."), known) == []


def test_practice_binds_only_to_a_rule_whose_other_conditions_the_text_names() -> None:
    bakery = rule(
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "la"},
            {"field": "employee_count", "operator": "gt", "value": 20},
        ]
    )
    assert not evidenced(bakery, "the limit was lifted for larger firms")  # "la" in "lifted"
    assert evidenced(bakery, "in la, 22 employees were approved")


def test_three_texts_end_as_one_soft_rule_and_the_interview_adds_no_rule() -> None:
    manual = rule()
    sme = text(
        "sme",
        "The 20 employee cap is a guideline. We have signed off up to 23 employees when the "
        "business is well established. Anything above 23 is still declined.",
    )
    log = text("log", "BOP-2024-118: 22 employees, approved.", kind="production", date="2024-09-15")
    # What an extractor might read from the interview on its own: a second hard rule.
    misread = rule(
        rule_name="Employee Count Over 23 Decline", product_type="ALL", text_id="sme",
        source_type="sme", date="2024-06-10", mitigants=[], mitigant_fields=[],
        threshold={"field": "employee_count", "operator": "gt", "value": 23},
        conditions=[{"field": "employee_count", "operator": "gt", "value": 23}],
    )  # fmt: skip
    claims = with_practice([sme, log], [misread], [manual])
    assert {c.product_type for c in claims} == {"BOP"}
    [lineage] = consolidate([manual, *claims])
    now = lineage.current
    assert now is not None and (now.threshold_type, now.soft_limit) == ("soft", 23)
    assert now.conditions[0].value == 20 and now.action == "decline"
    assert [s.text_id for s in now.sources] == ["manual", "sme", "log"]
