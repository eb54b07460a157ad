"""End to end, offline: chat via piped messages -> session end -> worker --drain -> decide."""

from __future__ import annotations

import asyncio
import io
import json
import uuid
from pathlib import Path

import pytest

from agents.cli import main
from agents.underwriting.service import decide_submission
from memory import GraphMemory, Settings
from memory.sessions import SessionRef, SessionStore
from schemas.submission import Decision
from tests.integration.test_supersede import CAP

pytestmark = pytest.mark.integration

SUBMISSION = {"product_type": "BOP", "employee_count": 22, "years_in_business": 12}


def decide(settings: Settings, namespace: str) -> Decision:
    async def run() -> Decision:
        async with GraphMemory(settings) as memory:
            return await decide_submission(memory, namespace, SUBMISSION)

    return asyncio.run(run())


def record(settings: Settings, ref: SessionRef, messages: list[tuple[str, str]]) -> None:
    async def run() -> None:
        async with GraphMemory(settings) as memory:
            store = SessionStore(memory)
            for role, text in messages:
                await store.record_message(ref, role, text)

    asyncio.run(run())


def facts(settings: Settings, ref: SessionRef) -> list[str]:
    async def run() -> list[str]:
        async with GraphMemory(settings) as memory:
            return [f.content for f in await SessionStore(memory).episodes(ref.shard, "fact")]

    return asyncio.run(run())


def athena(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_chat_session_teaches_the_runtime_agent(
    settings: Settings,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    tag = uuid.uuid4().hex[:8]
    ns, queue, session = f"agent:e2e-{tag}", f"test:e2e-{tag}", f"chat-{tag}"
    rules = tmp_path / "rules.jsonl"
    rules.write_text(CAP.model_dump_json() + "\n", "utf-8")
    athena(capsys, "ingest", str(rules), "--namespace", ns)
    before = decide(settings, ns)
    assert before.decision == "decline"

    messages = (
        "Can we write a BOP account with 22 employees?\n"
        "\n"
        "The 20 employee limit for BOP is really a guideline; we have approved up to 23.\n"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(messages))
    out = athena(
        capsys, "chat", "--user", "jane", "--session", session, "--namespace", ns,
        "--queue", queue,
    )  # fmt: skip
    replies = out.strip().split("\n")
    assert replies[0].startswith("Rules in memory on this:")
    assert any("Small Business Headcount Cap: decline (hard limit)" in r for r in replies)
    assert any(r.startswith("Noted:") for r in replies)

    jobs = json.loads(athena(capsys, "jobs", "--json", "--queue", queue))
    assert jobs["counts"]["pending"] == 1 and jobs["jobs"][0]["id"] == f"ingest:{session}"
    athena(capsys, "worker", "--drain", "--queue", queue)
    jobs = json.loads(athena(capsys, "jobs", "--json", "--queue", queue))
    assert jobs["counts"]["done"] == 1
    assert jobs["jobs"][0]["result"]["rules"] == [CAP.rule_name]

    after = decide(settings, ns)
    assert after.decision == "refer"
    [cited] = after.cited_rules
    assert cited.rule_name == CAP.rule_name and "soft limit 23" in cited.why
    assert cited.sources == [CAP.source, f"Conversation {session}"]


def test_chat_without_messages_enqueues_nothing(
    settings: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    tag = uuid.uuid4().hex[:8]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n   \n"))
    assert main(["chat", "--queue", f"test:empty-{tag}", "--namespace", f"agent:x-{tag}"]) == 0
    assert "empty transcript, no job" in capsys.readouterr().err
    jobs = json.loads(athena(capsys, "jobs", "--json", "--queue", f"test:empty-{tag}"))
    assert jobs["jobs"] == []

    # A chat left without ending keeps unformed messages: a sweep forms them, once.
    left = SessionRef(f"x-{tag}", "jane", f"left-{tag}", "property")
    fact = f"Roof age over 25 years needs an inspection ({tag})."
    said = [("user", fact), ("assistant", "Noted."), ("user", "Thanks."), ("assistant", "Sure.")]
    record(settings, left, said)  # enough messages to form memories of
    out = athena(capsys, "sweep", "--cold-after", "0")
    swept = out.split()
    assert out.startswith("sweep: ") and int(swept[1]) >= 1 and left.session_id in swept
    assert fact in facts(settings, left)
    again = json.loads(athena(capsys, "sweep", "--cold-after", "0", "--json"))
    assert left.session_id not in again["formed"]
