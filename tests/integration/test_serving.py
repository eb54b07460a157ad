"""Two `athena mcp --http --reuse-port` processes answer behind one address."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.load import NAMESPACE, TOKEN, start_servers

pytestmark = pytest.mark.integration


async def check_risk(url: str) -> str:
    """One client session (a new connection) asking one question."""
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    async with streamable_http_client(url, http_client=http) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("memory_check_risk", {"risk": "sawmill"})
            assert not result.isError, result.content
            return repr((result.structuredContent, [c.model_dump() for c in result.content]))


async def test_two_server_processes_share_one_port(falkordb_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FALKORDB_URL")}
    env.update(ATHENA_DATA_DIR=str(falkordb_dir), ATHENA_MCP_TOKEN=TOKEN)
    servers = start_servers(2, env)
    try:
        assert all(p.poll() is None for p in servers.processes)  # both bound the port
        answers = {await check_risk(servers.url) for _ in range(6)}
        assert len(answers) == 1 and NAMESPACE not in answers
        # Either process answers on its own: stop one, the address still serves.
        servers.processes[0].terminate()
        servers.processes[0].wait(20)
        assert await check_risk(servers.url) in answers
    finally:
        servers.stop()
