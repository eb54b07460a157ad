"""A learning is a new version of the rule it is about: as-of reads before and after."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from agents.ingestion import ingest_rules
from agents.worker import ingest_job
from memory import GraphMemory, Namespace
from memory.sessions import Job
from memory.underwriting import GraphAnalytics, edges_as_of
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


async def test_a_learning_is_a_new_version_of_the_rule_it_bends(
    memory: GraphMemory, namespace: Namespace
) -> None:
    await ingest_rules(memory, namespace, [CAP])
    await asyncio.sleep(0.01)
    before = datetime.now(UTC)
    await asyncio.sleep(0.01)
    result = await ingest_job(memory, job(namespace, "conv-1"))
    assert result["rules"] == [CAP.rule_name]

    [current] = await GraphAnalytics(memory, namespace).rules()
    assert (current.rule_name, current.threshold_type, current.soft_limit) == (
        CAP.rule_name,
        "soft",
        23,
    )
    # Practice bends the limit; the stated action and limit stand.
    assert current.action == "decline" and current.threshold == CAP.threshold
    assert [s.text_id for s in current.sources] == ["manual-1", "conv-1"]
    assert triggers(await edges_as_of(memory, namespace, before)) == [(CAP.rule_name, "hard")]
    now = datetime.now(UTC)
    assert triggers(await edges_as_of(memory, namespace, now)) == [(CAP.rule_name, "soft")]
    assert triggers(await memory.relationships(namespace)) == [(CAP.rule_name, "soft")]
    # The transcript is the observation the new version rests on (provenance + MENTIONS).
    [episode] = await memory.sources(namespace, source_id="conv-1")
    assert memory.entity_key(namespace, "Rule", CAP.rule_name) in episode.mentions

    old = await memory.search(namespace, "employee limit", as_of=before)
    assert {h.relationship.properties.get("threshold_type") for h in old} >= {"hard"}
    assert "soft" not in {h.relationship.properties.get("threshold_type") for h in old}

    # Running the job again changes nothing.
    exported = await memory.export(namespace)
    again = await ingest_job(memory, job(namespace, "conv-1"))
    assert again["rules"] == []
    assert await memory.export(namespace) == exported


async def test_a_learning_that_repeats_the_rule_only_adds_its_source(
    memory: GraphMemory, namespace: Namespace
) -> None:
    soft = CAP.model_copy(update={"threshold_type": "soft", "soft_limit": 23})
    await ingest_rules(memory, namespace, [soft])
    await ingest_job(memory, job(namespace, "conv-2"))
    [current] = await GraphAnalytics(memory, namespace).rules()
    assert (current.rule_name, current.soft_limit, current.action) == (CAP.rule_name, 23, "decline")
    assert [s.text_id for s in current.sources] == ["manual-1", "conv-2"]
