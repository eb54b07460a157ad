"""Session memory units: formation gates, the rule-based former, learning plans, revisions."""

from __future__ import annotations

import pytest

from agents.chat.offline_model import OfflineChatModel, is_question
from agents.ingestion.matching import RuleRevision, limit_signature, revision_claims
from agents.ingestion.practice import read_revisions
from memory.sessions import (
    MEMORY_FORMATION_MSG_INTERVAL,
    MEMORY_FORMATION_TOKEN_INTERVAL,
    NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES,
    Episode,
    FormationPolicy,
    RuleBasedFormer,
    SessionRef,
    count_tokens,
    relevant,
    should_form_memories,
)
from memory.underwriting.consolidate import consolidate
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def rule(**update: object) -> ExtractedRule:
    base = {
        "rule_name": "Headcount Cap",
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": "decline",
        "threshold": {"field": "employee_count", "operator": "gt", "value": 20},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 20}],
        "text_id": "manual",
    }
    return ExtractedRule.model_validate({**base, **update})


def test_gate_needs_the_minimum_session_length() -> None:
    below = NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES - 1
    assert not should_form_memories(below, below, 10**6)


def test_gate_opens_on_message_interval_or_tokens() -> None:
    n = MEMORY_FORMATION_MSG_INTERVAL
    assert should_form_memories(n, n, 0)
    assert not should_form_memories(n, n - 1, 10)
    assert should_form_memories(n, 1, MEMORY_FORMATION_TOKEN_INTERVAL)
    assert not should_form_memories(n, 0, MEMORY_FORMATION_TOKEN_INTERVAL)


def test_gate_constants_are_settable() -> None:
    policy = FormationPolicy(msg_interval=2, token_interval=10**6, min_messages=2)
    assert should_form_memories(2, 2, 0, policy)
    assert not should_form_memories(2, 1, 0, policy)
    with pytest.raises(ValueError, match="msg_interval"):
        FormationPolicy(msg_interval=0)
    with pytest.raises(ValueError, match="cold_after"):
        FormationPolicy(cold_after_minutes=-1)


def test_count_tokens() -> None:
    assert count_tokens("") == 0
    assert count_tokens("abcd") == 1 and count_tokens("abcde") == 2


def test_session_ref_validates_parts() -> None:
    with pytest.raises(ValueError, match="not allowed"):
        SessionRef("athena", "jane doe", "s1")
    assert str(SessionRef("athena", "jane", "s1").user) == "user:athena:jane"


async def test_rule_based_former_splits_directives_and_facts() -> None:
    messages = [
        Episode("m1", "message", "Always cite the rule source. BOP bakeries need a hood.", "user"),
        Episode("m2", "message", "Noted.", "assistant"),
        Episode("m3", "message", "What about roofs?", "user"),
    ]
    formed = await RuleBasedFormer().form(messages)
    assert formed.directives == ["Always cite the rule source."]
    assert formed.facts == ["BOP bakeries need a hood."]
    assert "3 message(s), 2 from the user" in formed.summary


def test_relevant_ranks_by_shared_words() -> None:
    eps = [Episode(str(i), "fact", t) for i, t in enumerate(["roof age matters", "bakery hood"])]
    assert [e.content for e in relevant(eps, "a bakery with a hood", 5)] == ["bakery hood"]
    assert relevant(eps, "nothing shared", 5) == []


def test_a_revision_is_a_claim_that_bends_the_rule_it_names() -> None:
    manual = rule(date="2024-01-10", source="BOP Manual", source_type="manual")
    revision = RuleRevision(
        "BOP", 20, "soft", 23, "approved up to 23", "the 20 employee limit", "conv-1",
        source="Conversation conv-1", source_type="sme", date="2024-06-01",
    )  # fmt: skip
    [claim] = revision_claims([manual, rule(rule_name="GL Cap", product_type="GL")], [revision])
    assert (claim.rule_name, claim.text_id, claim.date) == ("Headcount Cap", "conv-1", "2024-06-01")
    [lineage] = consolidate([manual, claim])
    before, after = lineage.versions
    assert (before.threshold_type, before.valid_to) == ("hard", "2024-06-01")
    assert (after.rule_name, after.action, after.threshold_type, after.soft_limit) == (
        "Headcount Cap",
        "decline",  # practice never changes the stated action or limit
        "soft",
        23,
    )
    assert [s.text_id for s in after.sources] == ["manual", "conv-1"]


def test_a_revision_of_a_limit_no_rule_has_claims_nothing() -> None:
    revision = RuleRevision("BOP", 35, "soft", 40, "approved up to 40", "35 employees", "c")
    assert revision_claims([rule()], [revision]) == []


def test_limit_signature() -> None:
    assert limit_signature(rule()) == ("BOP", "employee_count", "upper")
    assert limit_signature(rule(threshold=None, conditions=[])) is None


def test_read_revisions_soft_and_hard() -> None:
    text = KnowledgeText(
        id="c1",
        text="The 20 employee limit for BOP is really a guideline; we have approved up to 23.",
    )
    [soft] = read_revisions(text)
    assert (soft.product_type, soft.value, soft.threshold_type, soft.soft_limit) == (
        "BOP",
        20,
        "soft",
        23,
    )
    hard = KnowledgeText(id="c2", text="For BOP the 20 employee cap is a hard limit.")
    assert read_revisions(hard)[0].threshold_type == "hard"
    assert read_revisions(KnowledgeText(id="c3", text="How are you today?")) == []


def test_offline_chat_model_calls_the_tool_then_summarises() -> None:
    from langchain_core.messages import HumanMessage, ToolMessage

    model = OfflineChatModel()
    first = model.answer([HumanMessage("Can we write 22 employees?")])
    [call] = first.tool_calls
    assert call["name"] == "check_risk_appetite"
    assert call["args"] == {"risk": "Can we write 22 employees?"}
    result = ToolMessage(
        '[{"rule_name": "Cap", "action": "decline", "threshold_type": "soft", "soft_limit": 23}]',
        tool_call_id=call["id"],
    )
    reply = model.answer([HumanMessage("Can we write 22 employees?"), first, result])
    assert "Cap: decline (soft limit, approved up to 23)" in str(reply.content)
    assert is_question("can we?") and not is_question("The limit is soft.")
