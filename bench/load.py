"""`athena bench --load`: decisions through long-running MCP servers under concurrent clients.

The dataset's gold rules are ingested into one namespace; then 1 or more
`athena mcp --http --reuse-port --read-only` processes serve it behind one
address (the kernel spreads connections over them), and 1, 4, 16 MCP clients
(one session each, in this process) call ``memory_decide`` on the dataset's
submissions in a loop for a fixed window. Per level: decisions per second, p50 /
p95 latency, errors, and the CPU seconds the servers and the clients used.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.eval_run import percentile
from agents.jsonl import read_objects

NAMESPACE = "agent:bench-load"
TOKEN = "athena-bench-load-token-0123456789"
LOAD_START = "<!-- load: written by athena bench --load -->"
LOAD_END = "<!-- /load -->"
ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Servers:
    """Server processes sharing one port."""

    port: int
    processes: list[subprocess.Popen[bytes]]

    @property
    def url(self) -> str:
        """The MCP endpoint."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def cpu(self) -> list[float]:
        """CPU seconds each server used so far."""
        return [_cpu_seconds(p.pid) for p in self.processes]

    def stop(self) -> None:
        """Terminate every server (kill after 20 s)."""
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def start_servers(count: int, env: dict[str, str], timeout: float = 120.0) -> Servers:
    """Start `count` read-only MCP servers on one port and wait until it listens."""
    port = free_port()
    command = [sys.executable, "-m", "agents.cli", "mcp", "--http", "--reuse-port",
               "--read-only", "--port", str(port), "--namespace", NAMESPACE]  # fmt: skip
    servers = Servers(port, [])
    for _ in range(count):
        servers.processes.append(
            subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )  # fmt: skip
        )
    deadline = time.monotonic() + timeout
    while True:
        if any(p.poll() is not None for p in servers.processes):
            servers.stop()
            raise RuntimeError("an `athena mcp --http` server exited during start-up")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0 and len(servers.processes) == 1:
                return servers
        if len(servers.processes) > 1 and _all_listening(servers):
            return servers
        if time.monotonic() > deadline:
            servers.stop()
            raise TimeoutError(f"MCP servers did not listen on port {port} in {timeout}s")
        time.sleep(0.2)


def _all_listening(servers: Servers) -> bool:
    """Whether every server process has its listening socket (from /proc/net/tcp inodes)."""
    hexport = f":{servers.port:04X}"
    listening = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[1].endswith(hexport) and parts[3] == "0A":
            listening.add(parts[9])
    found = 0
    for proc in servers.processes:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
        except OSError:
            continue
        links = set()
        for fd in fds:
            try:
                links.add(os.readlink(f"/proc/{proc.pid}/fd/{fd}"))
            except OSError:
                continue
        found += any(f"socket:[{inode}]" in links for inode in listening)
    return found == len(servers.processes)


async def _client(
    url: str,
    submissions: Sequence[dict[str, Any]],
    offset: int,
    ready: asyncio.Barrier,
    window: list[float],
    out: dict[str, Any],
) -> None:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120)
    async with streamable_http_client(url, http_client=http) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            i = offset
            warm = {"submission": submissions[i % len(submissions)]}
            await session.call_tool("memory_decide", warm)
            await ready.wait()
            while time.monotonic() < window[1]:
                submission = submissions[i % len(submissions)]
                i += 1
                started = time.perf_counter()
                result = await session.call_tool("memory_decide", {"submission": submission})
                elapsed = (time.perf_counter() - started) * 1000
                if time.monotonic() > window[1]:
                    break
                if result.isError:
                    out["errors"] += 1
                else:
                    out["latencies"].append(elapsed)


async def measure(
    servers: Servers,
    submissions: Sequence[dict[str, Any]],
    clients: int,
    seconds: float,
    db_pid: int | None = None,
) -> dict[str, Any]:
    """Run `clients` concurrent clients for `seconds` and return throughput and latency."""
    out: dict[str, Any] = {"latencies": [], "errors": 0}
    window = [0.0, float("inf")]
    ready = asyncio.Barrier(clients + 1)
    tasks = [
        asyncio.create_task(_client(servers.url, submissions, 7 * i, ready, window, out))
        for i in range(clients)
    ]
    await asyncio.wait_for(ready.wait(), 300)
    server_cpu, own = servers.cpu(), resource.getrusage(resource.RUSAGE_SELF)
    db_cpu = _cpu_seconds(db_pid) if db_pid else 0.0
    window[0] = time.monotonic()
    window[1] = window[0] + seconds
    await asyncio.wait_for(asyncio.gather(*tasks), seconds + 300)
    elapsed = time.monotonic() - window[0]
    after = resource.getrusage(resource.RUSAGE_SELF)
    latencies = out["latencies"]
    return {
        "clients": clients,
        "decisions": len(latencies),
        "errors": out["errors"],
        "seconds": round(elapsed, 2),
        "per_second": round(len(latencies) / min(elapsed, seconds), 2),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "server_cpu_s": [round(b - a, 2) for a, b in zip(server_cpu, servers.cpu(), strict=True)],
        "db_cpu_s": round(_cpu_seconds(db_pid) - db_cpu, 2) if db_pid else None,
        "client_cpu_s": round(after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime, 2),
    }


async def prepare(settings: Any, dataset: Path) -> list[dict[str, Any]]:
    """Ingest the dataset's gold rules into the load namespace; return its submissions."""
    from agents.eval_run import ingest_dataset
    from memory import GraphMemory, Namespace
    from schemas.fields import load_data_dictionary

    async with GraphMemory(settings) as memory:
        ns = Namespace.parse(NAMESPACE)
        await memory.clear(ns)
        fields = load_data_dictionary(dataset / "fields.json")
        await ingest_dataset(memory, ns, dataset, "gold", fields)
    return [row.get("submission", row) for row in read_objects(dataset / "submissions.jsonl")]


async def run_load(
    settings: Any,
    dataset: Path,
    env: dict[str, str],
    *,
    levels: Sequence[int] = (1, 4, 16),
    server_counts: Sequence[int] = (1, 2),
    seconds: float = 15.0,
) -> dict[str, Any]:
    """Measure every (servers, clients) pair; the servers share the settings' database."""
    submissions = await prepare(settings, dataset)
    db_pid = None
    if not settings.falkordb_url:
        from memory.backend.server import server_status

        db_pid = server_status(settings.data_dir).pid
    env = {
        **env,
        "ATHENA_MCP_TOKEN": TOKEN,
        "ATHENA_FIELDS": str(dataset / "fields.json"),
        "GRAPHITI_TELEMETRY_ENABLED": "false",
    }
    runs = []
    for count in server_counts:
        servers = start_servers(count, env)
        try:
            for clients in levels:
                result = await measure(servers, submissions, clients, seconds, db_pid)
                runs.append({"servers": count, **result})
                print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
        finally:
            servers.stop()
    return {
        "dataset": str(dataset),
        "backend": settings.falkordb_url or "embedded",
        "cores": os.cpu_count(),
        "seconds": seconds,
        "runs": runs,
    }


def load_section(results: dict[str, Any], command: str) -> str:
    """The report section of a load run (markdown, between the load markers)."""
    runs = results["runs"]
    base = {r["servers"]: r["per_second"] for r in runs if r["clients"] == 1}
    lines = [
        LOAD_START,
        "## Concurrent serving: decisions through long-running MCP servers",
        "",
        f"`{command}` on {results['cores']} cores, {results['backend']} FalkorDB: the "
        f"dataset's gold rules (`{results['dataset']}`), `athena mcp --http --reuse-port "
        "--read-only` processes behind one port, N MCP clients in one process calling "
        f"`memory_decide` in a loop for {results['seconds']:.0f} s each. Throughput in "
        "decisions per second; CPU is what each server process, the FalkorDB server "
        "(embedded only) and the client process used in the window.",
        "",
        "| servers | clients | decisions/s | x one client | p50 ms | p95 ms | errors "
        "| server CPU s (each) | FalkorDB CPU s | client CPU s | cores used |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in runs:
        one = base.get(r["servers"]) or base.get(1)
        ratio = f"{r['per_second'] / one:.2f}" if one else "-"
        lines.append(
            f"| {r['servers']} | {r['clients']} | {r['per_second']:.1f} | {ratio} "
            f"| {_num(r['p50_ms'])} | {_num(r['p95_ms'])} | {r['errors']} "
            f"| {' + '.join(str(c) for c in r['server_cpu_s'])} | {_num(r['db_cpu_s'])} "
            f"| {r['client_cpu_s']} | {_cores(r)} |"
        )
    lines += [
        "",
        '"x one client" compares with one client on the same number of servers; '
        '"cores used" is all the CPU above over the window: what the measured '
        "processes got of the machine (other jobs on a shared machine take the rest).",
        LOAD_END,
    ]
    return "\n".join(lines)


def _cores(run: dict[str, Any]) -> str:
    used = sum(run["server_cpu_s"]) + (run["db_cpu_s"] or 0.0) + run["client_cpu_s"]
    return f"{used / run['seconds']:.2f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def write_load_section(path: Path, section: str) -> None:
    """Put the section into the report, replacing an earlier load section."""
    from bench.report import write_section

    write_section(path, section, LOAD_START, LOAD_END)


__all__ = ["load_section", "run_load", "start_servers", "write_load_section"]
