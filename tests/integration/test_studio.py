"""The graphs as LangGraph Studio serves them: `langgraph dev` driven by langgraph-sdk."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memory.backend.server import stop_server

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")
pytestmark = pytest.mark.skipif(
    not LANGGRAPH.exists() and shutil.which("langgraph") is None,
    reason="langgraph-cli[inmem] is not installed",
)

KNOWLEDGE = [
    "Bowling alleys are referred to a senior underwriter for the GL program because of "
    "liquor liability. The referral can be waived when a central station alarm is installed.",
    {
        "text": "Property risks in FEMA flood zones V or VE are declined.",
        "source": "Studio Test Bulletin",
        "source_type": "compliance",
    },
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Serve langgraph.json with `langgraph dev` on loopback; stop it and its database after."""
    data_dir = tmp_path_factory.mktemp("studio-db")
    port = _free_port()
    env = {**os.environ, "ATHENA_DATA_DIR": str(data_dir), "GRAPHITI_TELEMETRY_ENABLED": "false"}
    for name in ("OPENAI_API_KEY", "FALKORDB_URL"):
        env.pop(name, None)
    exe = str(LANGGRAPH) if LANGGRAPH.exists() else "langgraph"
    log = (tmp_path_factory.mktemp("studio-log") / "dev.log").open("w")
    proc = subprocess.Popen(
        [exe, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited: {Path(log.name).read_text()[-2000:]}")
            time.sleep(0.5)
        else:
            raise TimeoutError(f"langgraph dev did not start: {Path(log.name).read_text()[-2000:]}")
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        stop_server(data_dir)


async def test_studio_serves_the_graphs_with_forms(studio: str) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=studio)
    assistants = await client.assistants.search()
    graphs = {a["graph_id"]: a["assistant_id"] for a in assistants}
    assert {"ingestion", "underwriting", "chat"} <= set(graphs)
    schemas = await client.assistants.get_schemas(graphs["underwriting"])
    assert "submission" in schemas["input_schema"]["properties"]
    context = schemas["context_schema"]["properties"]
    assert {"namespace", "mode", "allow_refer_interrupt"} <= set(context)
    assert "memory" not in context  # injected objects are not form fields
    ingest = await client.assistants.get_schemas(graphs["ingestion"])
    assert "texts" in ingest["input_schema"]["properties"]
    form = ingest["context_schema"]["properties"]
    assert {"namespace", "mode", "llm_model", "extraction_model", "max_iterations"} <= set(form)
    assert "memory" not in form and "chat_model" not in form


async def test_ingest_decide_and_resume_a_referral(studio: str) -> None:
    from langgraph_sdk import get_client
    from langgraph_sdk.schema import Command

    client = get_client(url=studio)
    ns = {"namespace": "agent:studio-test"}
    thread = await client.threads.create()
    out = await client.runs.wait(
        thread["thread_id"],
        "ingestion",
        input={"texts": KNOWLEDGE},
        context={**ns, "mode": "offline", "max_iterations": 6},
    )
    assert out["report"]["rules_written"] >= 2 and out["report"]["mode"] == "offline"
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["report"]["namespace"] == "agent:studio-test"

    decline = await client.threads.create()
    out = await client.runs.wait(
        decline["thread_id"],
        "underwriting",
        input={"submission": {"product_type": "Property", "flood_zone": "VE", "state": "FL"}},
        context=ns,
    )
    assert out["decision"]["decision"] == "decline"

    review = await client.threads.create()
    submission = {
        "product_type": "GL",
        "occupancy": "bowling alley",
        "state": "OH",
        "central_station_alarm": False,
    }
    await client.runs.wait(
        review["thread_id"],
        "underwriting",
        input={"submission": submission},
        context={**ns, "allow_refer_interrupt": True},
    )
    paused = await client.threads.get_state(review["thread_id"])
    [task] = [t for t in paused["tasks"] if t.get("interrupts")]
    assert task["interrupts"][0]["value"]["proposed_decision"] == "refer"
    out = await client.runs.wait(
        review["thread_id"],
        "underwriting",
        command=Command(resume={"decision": "approve_with_conditions", "note": "alarm ordered"}),
        context={**ns, "allow_refer_interrupt": True},
    )
    assert out["decision"]["decision"] == "approve_with_conditions"
    assert any("human reviewer" in n for n in out["decision"]["notes"])


async def test_chat_turns_keep_the_session_in_memory(studio: str) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=studio)
    thread = await client.threads.create()
    context = {"agent_id": "studio-test", "user_id": "uw-1", "session_id": "studio-chat-1"}
    first = await client.runs.wait(
        thread["thread_id"],
        "chat",
        input={"messages": [{"role": "user", "content": "Do we write bowling alleys?"}]},
        context=context,
    )
    assert first["reply"] and "<memory_context" in first["memory_context"]
    second = await client.runs.wait(
        thread["thread_id"],
        "chat",
        input={"messages": [{"role": "user", "content": "And flood zone VE property?"}]},
        context=context,
    )
    assert second["reply"]
    # The second prompt carries the first turn from session memory, not from the thread.
    assert "bowling" in second["memory_context"].lower()
