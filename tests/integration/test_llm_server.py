"""LLM mode over HTTP: the real OpenAI clients against the scripted server in tests/fakeopenai.py.

Every model call here goes through `ChatOpenAI` / `OpenAI` to a loopback server that
answers like a perfect model, with faults injected (500, 429 + Retry-After, malformed
answers, slow answers).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.cli import main
from agents.ingestion import IngestionPipeline
from memory import GraphMemory, Namespace, Settings
from memory.embedder_identity import EmbedderMismatchError, recorded_identity
from memory.underwriting import stored_rules
from schemas.ingestion import KnowledgeText
from tests.fakeopenai import FakeOpenAI, Fault

pytestmark = pytest.mark.integration


def _rule(i: int, **extra: object) -> dict:
    return {
        "rule_name": f"Widget Class {i} Referral",
        "risk_factor": f"Widget Class {i}",
        "risk_category": "operations",
        "product_type": "GL",
        "action": "refer",
        "mitigants": [f"Widget guard {i}"],
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 10 + i}],
        **extra,
    }


def _texts(n: int) -> list[KnowledgeText]:
    return [
        KnowledgeText(id=f"w{i}", text=f"Widget class {i} risks over {10 + i} staff are referred.")
        for i in range(n)
    ]


def _script(fake: FakeOpenAI, n: int) -> None:
    fake.rules.update({f"w{i}": [_rule(i)] for i in range(n)})


def llm_settings(base: Settings, fake: FakeOpenAI, **extra: object) -> Settings:
    values = {
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": fake.base_url,
        "ATHENA_EMBEDDING_MODEL": "fake-embed",  # unknown: its dimension is probed
        "ATHENA_LLM_MAX_RETRIES": 1,
        **extra,
    }
    # By field name, and only these: the environment (ATHENA_DATA_DIR...) must not leak in.
    names = {field.alias: name for name, field in Settings.model_fields.items()}
    update = {names[key]: value for key, value in values.items()}
    return Settings.model_validate({**base.model_dump(), **update})


@pytest.fixture
async def llm_memory(settings: Settings, fake_openai: FakeOpenAI):
    async with GraphMemory(llm_settings(settings, fake_openai)) as memory:
        yield memory


async def test_perfect_model_ingests_gold_rules_with_usage_and_rerun_skips(
    llm_memory: GraphMemory, namespace: Namespace, fake_openai: FakeOpenAI
) -> None:
    _script(fake_openai, 4)
    pipeline = IngestionPipeline(llm_memory, namespace)
    report = await pipeline.run(_texts(4), batch_size=4)
    assert report.mode == "llm" and report.failed_texts == []
    stored = {r.rule_name: r for r in await stored_rules(llm_memory, namespace)}
    assert set(stored) == {f"Widget Class {i} Referral" for i in range(4)}
    assert stored["Widget Class 2 Referral"].conditions[0].value == 12
    assert {s.source_id for s in await llm_memory.sources(namespace)} == {"w0", "w1", "w2", "w3"}
    # 4 extraction calls + one agent call (no summary turn): 1.25 requests per text.
    assert fake_openai.count("extraction") == 4 and fake_openai.count("agent") == 1
    agent_body = next(r.body for r in fake_openai.requests if r.kind == "agent")
    assert "write_extracted_rules" in agent_body
    models = {u.model: u for u in report.usage}
    assert models["gpt-4o"].requests == 4 and models["gpt-4o"].input_tokens > 0
    assert models["gpt-4o-mini"].requests == 1 and report.cost_usd and report.cost_usd > 0
    # The same texts again: nothing to do, no model call.
    before = len(fake_openai.requests)
    again = await pipeline.run(_texts(4), batch_size=4)
    assert again.texts_skipped == 4 and again.failed_texts == []
    assert [r.kind for r in fake_openai.requests[before:]] == []


async def test_agent_500_writes_nothing_and_a_rerun_completes(
    llm_memory: GraphMemory, namespace: Namespace, fake_openai: FakeOpenAI
) -> None:
    _script(fake_openai, 3)
    fake_openai.faults.append(Fault("agent", status=500, times=2))  # the call and its retry
    pipeline = IngestionPipeline(llm_memory, namespace)
    report = await pipeline.run(_texts(3), batch_size=3)
    assert report.failed_texts == ["w0", "w1", "w2"]
    assert all("HTTP 500" in e and "\n" not in e for e in report.errors)
    assert await llm_memory.entities(namespace) == [] and await llm_memory.sources(namespace) == []
    again = await pipeline.run(_texts(3), batch_size=3)
    assert again.failed_texts == [] and again.rules_written == 3
    assert len(await llm_memory.sources(namespace)) == 3


async def test_malformed_answers_fail_only_their_texts_and_retries_carry_the_error(
    llm_memory: GraphMemory, namespace: Namespace, fake_openai: FakeOpenAI
) -> None:
    _script(fake_openai, 10)
    fake_openai.malformed_rate = 0.3
    fake_openai.faults.append(Fault("extraction", malformed=True, times=3, text_id="w4"))
    report = await IngestionPipeline(llm_memory, namespace).run(_texts(10), batch_size=5)
    ok = fake_openai.answered("extraction")
    assert "w4" not in ok and "w4" in report.failed_texts
    assert sorted(report.failed_texts) == sorted({f"w{i}" for i in range(10)} - ok)
    assert {s.source_id for s in await llm_memory.sources(namespace)} == ok
    retry = [r.body for r in fake_openai.requests if r.text_id == "w4"][1]
    assert "was not valid" in retry and "Trunc" in retry  # the bad answer and the error


async def test_429_retry_after_is_honoured_and_slow_answers_time_out(
    settings: Settings, namespace: Namespace, fake_openai: FakeOpenAI
) -> None:
    _script(fake_openai, 1)
    fake_openai.faults.append(Fault("extraction", status=429, retry_after=1, times=1))
    async with GraphMemory(llm_settings(settings, fake_openai)) as memory:
        report = await IngestionPipeline(memory, namespace).run(_texts(1))
    assert report.failed_texts == []
    first, second = [r for r in fake_openai.requests if r.kind == "extraction"][:2]
    assert first.outcome == "429" and second.at - first.at >= 0.9
    fake_openai.faults.append(Fault("agent", delay=1.5, times=1))
    slow = llm_settings(settings, fake_openai, ATHENA_LLM_TIMEOUT=0.5, ATHENA_LLM_MAX_RETRIES=0)
    other = Namespace.agent(namespace.parts[0] + "-slow")
    async with GraphMemory(slow) as memory:
        report = await IngestionPipeline(memory, other).run(_texts(1))
    assert report.failed_texts == ["w0"] and "did not answer in time" in report.errors[0]


def test_cli_ingest_lists_failed_texts_exits_non_zero_without_traceback(
    falkordb_dir: Path, tmp_path: Path, capsys, monkeypatch, fake_openai: FakeOpenAI
) -> None:
    _script(fake_openai, 2)
    fake_openai.faults.append(Fault("extraction", status=500, times=2, text_id="w1"))
    for name, value in {
        "ATHENA_DATA_DIR": str(falkordb_dir),
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "ATHENA_EMBEDDING_MODEL": "fake-embed",
        "ATHENA_LLM_MAX_RETRIES": "1",
    }.items():
        monkeypatch.setenv(name, value)
    knowledge = tmp_path / "knowledge.jsonl"
    knowledge.write_text("\n".join(t.model_dump_json() for t in _texts(2)) + "\n")
    args = ["ingest", str(knowledge), "--namespace", "agent:llm-cli", "--json"]
    assert main(args) == 1
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["failed_texts"] == ["w1"] and "HTTP 500" in report["errors"][0]
    assert "Traceback" not in out.err and report["usage"]
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["texts_skipped"] == 1 and again["failed_texts"] == []


async def test_offline_namespace_answers_with_a_key_and_reembed_switches_it(
    settings: Settings, namespace: Namespace, fake_openai: FakeOpenAI, monkeypatch
) -> None:
    from agents.ingestion import ingest_rules
    from schemas.rules import ExtractedRule

    rules = [ExtractedRule.model_validate({**_rule(i), "text_id": f"w{i}"}) for i in range(3)]
    async with GraphMemory(settings) as offline:  # no key: WordLlama, 256-d
        await ingest_rules(offline, namespace, rules)
    keyed = llm_settings(settings, fake_openai)
    async with GraphMemory(keyed) as memory:
        hits = await memory.search(namespace, "widget class 1 staff", limit=3)
        assert hits and fake_openai.count("embeddings") == 0  # read with the recorded WordLlama
        identity = await recorded_identity(memory.db, namespace.group_id)
        assert identity is not None and (identity.name, identity.dim) == ("wordllama", 256)
    explicit = llm_settings(settings, fake_openai, ATHENA_EMBEDDER="openai")
    async with GraphMemory(explicit) as memory:
        with pytest.raises(EmbedderMismatchError, match="athena reembed"):
            await memory.upsert_entity(namespace, "RiskFactor", "Another Widget")
    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("ATHENA_EMBEDDING_MODEL", "fake-embed")
    args = ["reembed", "--namespace", str(namespace), "--embedder", "openai", "--json"]
    assert await _run_cli(args) == 0
    async with GraphMemory(explicit) as memory:
        identity = await recorded_identity(memory.db, namespace.group_id)
        assert identity is not None and (identity.name, identity.dim) == ("openai", 64)
        await memory.upsert_entity(namespace, "RiskFactor", "Another Widget")
        await memory.db.ensure_indices(namespace.group_id)
        assert await memory.db.has_vector_index(namespace.group_id)
        hits = await memory.search(namespace, "widget class 1 staff", limit=3)
        assert hits and hits[0].relationship.properties.get("product_type") == "GL"


async def _run_cli(args: list[str]) -> int:
    import asyncio

    return await asyncio.to_thread(main, args)


async def test_chat_session_end_and_worker_through_the_model(
    settings: Settings, fake_openai: FakeOpenAI
) -> None:
    from agents.chat.session import ChatSession
    from agents.llm import ModelError
    from agents.worker import work
    from memory.sessions import FormationPolicy, JobQueue

    agent = f"llm-chat-{id(fake_openai) % 100000}"
    keyed = llm_settings(settings, fake_openai)
    async with GraphMemory(keyed) as memory:
        queue = JobQueue(memory.db, prefix=f"q-{agent}")
        policy = FormationPolicy(msg_interval=100, token_interval=100_000, min_messages=1)
        chat = ChatSession(
            memory, agent_id=agent, session_id=f"s-{agent}", queue=queue, policy=policy
        )
        reply = await chat.send("Widget class 7 risks over 17 staff are referred.")
        assert reply.startswith("From memory:")
        fake_openai.faults.append(Fault("chat", status=500, times=2))
        with pytest.raises(ModelError, match="HTTP 500") as failed:
            await chat.send("And widget class 8?")
        assert "\n" not in str(failed.value)
        end = await chat.end()
        assert end.enqueued and fake_openai.count("formation") >= 1  # the LLM former
        fake_openai.rules[f"s-{agent}"] = [_rule(7)]
        assert await work(memory, queue, drain=True) == 1
        names = {r.rule_name for r in await stored_rules(memory, Namespace.agent(agent))}
        assert "Widget Class 7 Referral" in names
