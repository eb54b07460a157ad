"""A learning supersedes a rule: old edges invalidated, link recorded, as-of reads before/after."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from agents.ingestion import ingest_rules
from agents.worker import ingest_job
from memory import GraphMemory, Namespace
from memory.sessions import Job
from memory.underwriting import GraphAnalytics, edges_as_of, supersede_rule, supersessions
from schemas.rules import ExtractedRule

pytestmark = pytest.mark.integration

CAP = ExtractedRule(
    rule_name="Small Business Headcount Cap",
    risk_factor="Employee Count",
    risk_category="eligibility",
    product_type="BOP",
    action="decline",
    outcome_description="BOP accounts with more than 20 employees are declined.",
    threshold={"field": "employee_count", "operator": "gt", "value": 20, "unit": "employees"},
    threshold_type="hard",
    conditions=[{"field": "employee_count", "operator": "gt", "value": 20}],
    data_fields=["employee_count"],
    source="BOP Manual",
    source_type="manual",
    text_id="manual-1",
)
LEARNING = "The 20 employee limit for BOP is really a guideline; we have approved up to 23."


def job(ns: Namespace, conversation: str, transcript: str = LEARNING) -> Job:
    payload = {"conversation_id": conversation, "namespace": str(ns), "transcript": transcript}
    return Job(id=f"ingest:{conversation}", kind="ingest", payload=payload, status="running")


def triggers(edges: list) -> list[tuple[str, str | None]]:
    return sorted(
        (e.target_name, e.properties.get("threshold_type"))
        for e in edges
        if e.relation == "TRIGGERS"
    )


async def test_learning_supersedes_with_as_of_before_and_after(
    memory: GraphMemory, namespace: Namespace
) -> None:
    await ingest_rules(memory, namespace, [CAP])
    await asyncio.sleep(0.01)
    before = datetime.now(UTC)
    await asyncio.sleep(0.01)
    result = await ingest_job(memory, job(namespace, "conv-1"))
    v2 = "Small Business Headcount Cap (v2)"
    assert result["superseded"] == [["Small Business Headcount Cap", v2]]

    [current] = await GraphAnalytics(memory, namespace).rules()
    assert (current.rule_name, current.threshold_type, current.soft_limit) == (v2, "soft", 23)
    assert current.action == "decline" and current.text_id == "conv-1"
    assert triggers(await edges_as_of(memory, namespace, before)) == [
        ("Small Business Headcount Cap", "hard")
    ]
    assert triggers(await edges_as_of(memory, namespace, datetime.now(UTC))) == [(v2, "soft")]
    assert triggers(await memory.relationships(namespace)) == [(v2, "soft")]
    [link] = await supersessions(memory, namespace)
    assert (link.old_rule, link.new_rule, link.source) == (CAP.rule_name, v2, "conv-1")
    # The transcript is the observation the new rule rests on (provenance + MENTIONS).
    [episode] = await memory.sources(namespace, source_id="conv-1")
    assert memory.entity_key(namespace, "Rule", v2) in episode.mentions

    old = await memory.search(namespace, "employee limit", as_of=before)
    assert {h.relationship.properties.get("rule_name") for h in old} == {CAP.rule_name}
    now = await memory.search(namespace, "employee limit")
    assert {h.relationship.properties.get("rule_name") for h in now} == {v2}

    # Running the job again changes nothing; superseding twice is a no-op.
    again = await ingest_job(memory, job(namespace, "conv-1"))
    assert again["rules"] == [v2]
    assert await supersede_rule(memory, namespace, CAP.rule_name, v2) == 0
    with pytest.raises(ValueError, match="itself"):
        await supersede_rule(memory, namespace, v2, v2)


async def test_a_learning_that_changes_nothing_writes_nothing(
    memory: GraphMemory, namespace: Namespace
) -> None:
    soft = CAP.model_copy(update={"threshold_type": "soft", "soft_limit": 23})
    await ingest_rules(memory, namespace, [soft])
    before = await memory.export(namespace)
    result = await ingest_job(memory, job(namespace, "conv-2"))
    assert result["rules"] == [] and result["superseded"] == []
    after = await memory.export(namespace)
    assert [e["name"] for e in after["entities"] if e["label"] == "Rule"] == [
        e["name"] for e in before["entities"] if e["label"] == "Rule"
    ]
