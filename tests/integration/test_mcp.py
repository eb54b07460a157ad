"""`athena mcp` over stdio, driven by the official MCP client."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
NS = "agent:mcp-test"
RULE = {
    "rule_name": "Sawmill Decline",
    "risk_factor": "Sawmill",
    "risk_category": "occupancy",
    "product_type": "Property",
    "action": "decline",
    "outcome_description": "Sawmills are declined because of dust explosion hazard.",
    "source": "MCP Test Manual",
    "source_type": "manual",
    "confidence": "high",
    "threshold_type": "hard",
    "conditions": [{"field": "occupancy", "operator": "eq", "value": "sawmill"}],
    "data_fields": ["occupancy"],
}


def _params(data_dir: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FALKORDB_URL")}
    env.update(ATHENA_DATA_DIR=str(data_dir), GRAPHITI_TELEMETRY_ENABLED="false")
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "agents.cli", "mcp", "--namespace", NS, *extra],
        env=env,
        cwd=str(ROOT),
    )


def _data(result: Any) -> Any:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return result.structuredContent.get("result", result.structuredContent)
    return json.loads(result.content[0].text)


async def test_every_tool_over_stdio(falkordb_dir: Path) -> None:
    async with stdio_client(_params(falkordb_dir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {
                "memory_search",
                "memory_check_risk",
                "memory_trace_path",
                "memory_decide",
                "memory_export_rules",
                "memory_list_ontologies",
                "memory_get_ontology",
                "memory_ingest_rule",
                "memory_add_mitigant",
                "memory_run_pipeline",
                "memory_clear_graph",
                "memory_conflicts",
                "memory_rule_history",
            }
            assert all(t.description and t.inputSchema for t in tools.values())

            cleared = await session.call_tool("memory_clear_graph", {"namespace": NS})
            assert cleared.isError and "confirm" in cleared.content[0].text
            await session.call_tool("memory_clear_graph", {"namespace": NS, "confirm": True})

            written = _data(await session.call_tool("memory_ingest_rule", {"rule": RULE}))
            assert written["rule_name"] == "Sawmill Decline"
            mitigant = await session.call_tool(
                "memory_add_mitigant",
                {
                    "rule_name": "Sawmill Decline",
                    "mitigant": "Dust collection system",
                    "mitigant_fields": ["sprinklered"],
                },
            )
            assert not mitigant.isError
            report = _data(
                await session.call_tool(
                    "memory_run_pipeline",
                    {
                        "text": "Fireworks retailers are declined for the BOP.",
                        "source": "MCP Test Guide",
                        "source_type": "manual",
                        "source_id": "mcp-doc-1",
                    },
                )
            )
            assert report["rules_written"] >= 1

            hits = _data(await session.call_tool("memory_search", {"query": "sawmill dust"}))
            assert hits[0]["rule_name"] == "Sawmill Decline"
            risk = _data(
                await session.call_tool(
                    "memory_check_risk", {"risk": "sawmill", "product_type": "Property"}
                )
            )
            assert risk[0]["rule_name"] == "Sawmill Decline"
            [path] = _data(await session.call_tool("memory_trace_path", {"risk": "Sawmill"}))[:1]
            assert path["mitigants"] == ["Dust collection system"]
            decision = _data(
                await session.call_tool(
                    "memory_decide",
                    {"submission": {"product_type": "Property", "occupancy": "sawmill"}},
                )
            )
            assert decision["decision"] == "decline"
            rules = _data(await session.call_tool("memory_export_rules", {}))
            assert {"Sawmill Decline"} <= {r["rule_name"] for r in rules}
            [version] = _data(
                await session.call_tool("memory_rule_history", {"rule_name": "Sawmill Decline"})
            )
            assert version["valid_to"] is None and version["sources"][0]["source"] == RULE["source"]
            missing = await session.call_tool("memory_rule_history", {"rule_name": "Nope"})
            assert missing.isError and "no rule named" in missing.content[0].text
            assert _data(await session.call_tool("memory_conflicts", {})) == []
            before = _data(
                await session.call_tool(
                    "memory_decide",
                    {
                        "submission": {"product_type": "Property", "occupancy": "sawmill"},
                        "as_of": "2001-01-01",
                    },
                )
            )
            assert before["decision"] != "decline"  # no rule held yet then
            assert "underwriting" in _data(await session.call_tool("memory_list_ontologies", {}))
            onto = await session.call_tool("memory_get_ontology", {"name": "underwriting"})
            assert "TRIGGERS" in onto.content[0].text

            bad = await session.call_tool("memory_search", {"query": "x", "limit": "many"})
            assert bad.isError and "limit" in bad.content[0].text
            unknown = await session.call_tool("memory_get_ontology", {"name": "nope"})
            assert unknown.isError and "registered" in unknown.content[0].text
            # The server keeps serving after errors.
            assert not (await session.call_tool("memory_list_ontologies", {})).isError


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_read_only_over_streamable_http(falkordb_dir: Path) -> None:
    port = _free_port()
    params = _params(falkordb_dir, "--read-only", "--http", "--port", str(port))
    token = "read-only-test-token-0123456789"
    proc = subprocess.Popen(
        [params.command, *params.args],
        env={**(params.env or {}), "ATHENA_MCP_TOKEN": token},
        cwd=params.cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "athena mcp --http did not listen"
            await asyncio.sleep(0.2)
        client = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url, http_client=client) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert "memory_search" in names and "memory_decide" in names
                assert not names & {
                    "memory_ingest_rule",
                    "memory_add_mitigant",
                    "memory_run_pipeline",
                    "memory_clear_graph",
                }
                hits = await session.call_tool("memory_check_risk", {"risk": "sawmill"})
                assert not hits.isError
    finally:
        proc.terminate()
        proc.wait(timeout=20)
