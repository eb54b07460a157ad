"""A person's review of a rule goes through the one commit path as a new version."""

from __future__ import annotations

import pytest

from agents.ingestion.bulk import ingest_rules_bulk
from memory import GraphMemory, Namespace
from memory.underwriting.catalogue import rule_rows
from memory.underwriting.history import open_conflicts, rule_history
from memory.underwriting.reviews import Review, apply_review, current_rule
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule

pytestmark = pytest.mark.integration


def claim(name: str, text_id: str, action: str, limit: int, **extra: object) -> ExtractedRule:
    body = {
        "rule_name": name,
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": action,
        "source": f"Doc {text_id}",
        "source_type": "manual",
        "text_id": text_id,
        "date": "2025-01-01",
        "threshold": {"field": "employee_count", "operator": "gt", "value": limit},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": limit}],
    }
    return ExtractedRule.model_validate({**body, **extra})


async def two_sides(memory: GraphMemory, namespace: Namespace) -> tuple[str, str]:
    """Two manuals of one day disagree about one limit: an open conflict."""
    fields = load_data_dictionary()
    rules = [
        claim("Decline Over 20", "m1", "decline", 20),
        claim("Refer Over 20", "m2", "refer", 20),
    ]
    await ingest_rules_bulk(memory, namespace, rules, fields=fields)
    [conflict] = await open_conflicts(memory, namespace)
    first, second = conflict.rules
    return first, second


async def test_accepting_one_side_settles_the_conflict(
    memory: GraphMemory, namespace: Namespace
) -> None:
    kept, other = await two_sides(memory, namespace)
    result = await apply_review(memory, namespace, Review(kept, "accept", "Dana", "manual rules"))
    assert result.rule_name == kept
    assert await open_conflicts(memory, namespace) == []
    names = {row.name for row in await rule_rows(memory, namespace)}
    assert kept in names and other not in names
    versions = await rule_history(memory, namespace, kept)
    assert len(versions) == 2
    newest = versions[-1]
    assert newest.valid_from == result.when and newest.valid_to is None
    assert newest.conflicts == []
    review = [s for s in newest.sources if s.source_type == "review"]
    assert [s.text_id for s in review] == [result.text_id]
    assert review[0].source == "Review by Dana"
    ended = await rule_history(memory, namespace, other)
    assert ended[-1].valid_to == result.when
    stored = await memory.get_source(namespace, result.text_id)
    assert stored is not None
    assert "Dana accepted the rule" in stored.content and "manual rules" in stored.content


async def test_rejecting_retires_and_editing_amends(
    memory: GraphMemory, namespace: Namespace
) -> None:
    kept, other = await two_sides(memory, namespace)
    await apply_review(memory, namespace, Review(other, "reject", "Dana", "not our practice"))
    assert other not in {row.name for row in await rule_rows(memory, namespace)}
    rule = await current_rule(memory, namespace, kept)
    limit = rule.conditions[0].value
    edited = rule.model_copy(
        update={
            "conditions": [rule.conditions[0].model_copy(update={"value": 25})],
            "threshold": rule.threshold.model_copy(update={"value": 25})
            if rule.threshold
            else None,
        }
    )
    await apply_review(memory, namespace, Review(kept, "edit", "Lee", "limit raised", edited))
    versions = await rule_history(memory, namespace, kept)
    assert [v.conditions[0].value for v in versions] == [limit, 25]
    assert versions[-2].valid_to == versions[-1].valid_from


@pytest.mark.parametrize(
    ("review", "message"),
    [
        (Review("Nope", "accept", "Dana", "why"), "no current rule named 'Nope'"),
        (Review("X", "approve", "Dana", "why"), "unknown review action 'approve'"),
        (Review("X", "accept", " ", "why"), "reviewer's name"),
        (Review("X", "accept", "Dana", ""), "a reason"),
    ],
)
async def test_bad_reviews_are_refused_and_write_nothing(
    memory: GraphMemory, namespace: Namespace, review: Review, message: str
) -> None:
    kept, _ = await two_sides(memory, namespace)
    if review.rule_name == "X":
        review = Review(kept, review.action, review.who, review.why)
    before = await memory.export(namespace)
    with pytest.raises(ValueError, match=message):
        await apply_review(memory, namespace, review)
    assert await memory.export(namespace) == before
