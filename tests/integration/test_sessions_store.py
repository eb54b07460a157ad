"""Session memory on a real FalkorDB: episodes, formation, the memory context XML, sweep, cache."""

from __future__ import annotations

import uuid
from xml.etree import ElementTree as ET

import pytest

from agents.ingestion import ingest_rules
from memory import GraphMemory, Namespace
from memory.graph import RetrievalCache
from memory.sessions import FormationPolicy, SessionRef, SessionStore
from memory.underwriting import GraphAnalytics
from schemas.rules import ExtractedRule

pytestmark = pytest.mark.integration

GAS = ExtractedRule(
    rule_name="Fuel Pump Referral",
    risk_factor="Gas Station",
    risk_category="operations",
    product_type="BOP",
    action="refer",
    outcome_description="BOP risks with fuel pumps on premises are referred.",
    source="Test Manual",
    text_id="t1",
)


def ref() -> SessionRef:
    tag = uuid.uuid4().hex[:8]
    return SessionRef(f"a-{tag}", "jane", f"s-{tag}", "property")


async def test_gates_formation_and_context_xml(memory: GraphMemory) -> None:
    who = ref()
    await ingest_rules(memory, who.agent, [GAS])
    policy = FormationPolicy(msg_interval=4, token_interval=10**6, min_messages=4)
    store = SessionStore(memory, policy=policy)
    await store.record_message(who, "user", "Always cite the rule source.")
    await store.record_message(who, "assistant", "Will do.")
    await store.record_message(who, "user", "Bakeries with open flames need a hood system.")
    assert await store.maybe_form_memories(who) is None  # 3 messages: below the gate
    await store.record_message(who, "assistant", "Noted.")
    formed = await store.maybe_form_memories(who)
    assert formed is not None and formed.directives == ["Always cite the rule source."]
    assert await store.maybe_form_memories(who) is None  # nothing new since
    assert (await store.state(who.session_id))["formed_messages"] == "4"

    analytics = GraphAnalytics(memory, who.agent)
    xml = await store.assemble_memory_context(
        who,
        "A gas station with fuel pumps, bakery hood?",
        rules=lambda text: analytics.check_risk_appetite(text, limit=5),
    )
    root = ET.fromstring(xml)
    assert root.tag == "memory_context" and root.get("session") == who.session_id
    assert [d.text for d in root.iter("directive")] == ["Always cite the rule source."]
    [rule] = [r for r in root.iter("rule") if r.get("name") == "Fuel Pump Referral"]
    assert rule.get("action") == "refer" and "fuel pumps" in (rule.text or "")
    assert [f.text for f in root.iter("fact")] == ["Bakeries with open flames need a hood system."]
    kinds = [(e.get("kind"), e.get("role")) for e in root.iter("episode")]
    assert ("message", "user") in kinds and ("episode", None) in kinds
    # Other users and sessions see none of it.
    other = SessionRef(who.agent_id, "bob", "other-" + who.session_id, "property")
    root = ET.fromstring(await store.assemble_memory_context(other, "bakery"))
    assert list(root.iter("directive")) == [] and list(root.iter("episode")) == []


async def test_empty_message_is_refused(memory: GraphMemory) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        await SessionStore(memory).record_message(ref(), "user", "   ")


async def test_cold_sweep_forms_idle_sessions_only(memory: GraphMemory) -> None:
    now = [1_000_000.0]
    store = SessionStore(memory, policy=FormationPolicy(min_messages=2), clock=lambda: now[0])
    cold, warm = ref(), ref()
    for who in (cold, warm):
        await store.record_message(who, "user", "Roof age over 25 years needs an inspection.")
        await store.record_message(who, "assistant", "Noted.")
    now[0] += 10 * 60
    await store.record_message(warm, "user", "Also wood frame buildings.")
    formed = await store.sweep_cold_sessions(cold_after_minutes=5)
    assert cold.session_id in formed and warm.session_id not in formed
    assert cold.session_id not in await store.sweep_cold_sessions(cold_after_minutes=5)
    facts = await store.episodes(cold.shard, "fact")
    assert "Roof age over 25 years needs an inspection." in [f.content for f in facts]


async def test_cache_is_invalidated_by_a_write(memory: GraphMemory, namespace: Namespace) -> None:
    await ingest_rules(memory, namespace, [GAS])
    cache = RetrievalCache().attach(memory)
    analytics = GraphAnalytics(memory, namespace)

    async def load() -> list[str]:
        return [h.rule_name for h in await analytics.check_risk_appetite("fuel pumps")]

    first = await cache.get_or_load(namespace, "risk", "fuel pumps", load)
    assert first == ["Fuel Pump Referral"]
    assert await cache.get_or_load(namespace, "risk", "fuel pumps", load) == first
    assert cache.stats()["hits"] == 1
    other = GAS.model_copy(  # another product: another piece of knowledge, not a version
        update={
            "rule_name": "Fuel Dispenser Decline",
            "action": "decline",
            "text_id": "t2",
            "product_type": "GL",
        }
    )
    await ingest_rules(memory, namespace, [other])
    assert len(cache) == 0
    second = await cache.get_or_load(namespace, "risk", "fuel pumps", load)
    assert "Fuel Dispenser Decline" in second
    cache.detach(memory)
