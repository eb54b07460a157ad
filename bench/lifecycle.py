"""Fresh processes and restarts, timed as a user meets them.

* Start-up: `athena query`, `athena decide` and `athena ingest --rules` (one rule) in
  a fresh process, wall time from exec to exit (the answer is their first output),
  and what its imports cost (`python -X importtime`, the costliest top-level ones).
* Restart: the embedded server stopped with `athena db stop` (which compacts the
  append-only file) and after a crash (`kill -9`, a log tail left to replay); the
  wall time of the first `athena query` after each.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory import GraphMemory, Namespace
from memory.backend.server import server_status, stop_server
from schemas.rules import ExtractedRule

RUNS = 3
_IMPORT_LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| ( *)(\S+)")


def _run(data_dir: Path, args: list[str], timeout: float = 900.0) -> tuple[float, str]:
    """Run `python ARGS` in a fresh process; return (wall s, stderr)."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args],
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])} failed: {done.stderr.strip()[-400:]}")
    return time.perf_counter() - began, done.stderr


def _imports(stderr: str) -> dict[str, Any]:
    """Total import time and the costliest top-level imports, from `-X importtime`."""
    top = []
    for match in _IMPORT_LINE.finditer(stderr):
        if not match.group(2):  # top level: no indentation
            top.append((int(match.group(1)) / 1e6, match.group(3)))
    top.sort(reverse=True)
    return {
        "import_s": sum(s for s, _ in top),
        "costliest": [{"module": name, "s": round(s, 3)} for s, name in top[:4]],
    }


def bench_startup(data_dir: Path, ns: Namespace, rule: ExtractedRule, query: str) -> dict[str, Any]:
    """Fresh-process wall time and import cost of query, decide and ingest."""
    with tempfile.TemporaryDirectory() as tmp:
        submission = Path(tmp) / "submission.json"
        values: dict[str, Any] = {"product_type": "BOP", "occupancy": rule.risk_factor.lower()}
        submission.write_text(json.dumps(values))
        one = Path(tmp) / "one-rule.jsonl"
        one.write_text(rule.model_dump_json() + "\n")
        commands = {
            "query": ["query", query, "--namespace", str(ns), "--limit", "3"],
            "decide": ["decide", str(submission), "--namespace", str(ns)],
            "ingest_one_rule": ["ingest", str(one), "--rules", "--namespace", str(ns)],
        }
        out: dict[str, Any] = {}
        for name, args in commands.items():
            walls = [_run(data_dir, ["-m", "agents.cli", *args])[0] for _ in range(RUNS)]
            _, stderr = _run(data_dir, ["-X", "importtime", "-m", "agents.cli", *args])
            out[name] = {"wall_s": min(walls), **_imports(stderr)}
    return out


async def bench_restart(
    memory: GraphMemory, data_dir: Path, ns: Namespace, rule: ExtractedRule, query: str
) -> dict[str, Any]:
    """The first `athena query` after a clean stop and after a crash of the server."""
    args = ["-m", "agents.cli", "query", query, "--namespace", str(ns), "--limit", "3"]
    await memory.close()
    began = time.perf_counter()
    stop_server(data_dir)
    stop_s = time.perf_counter() - began
    clean_s, _ = _run(data_dir, args)
    # A crash: one more write leaves a log tail, then kill -9.
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one-rule.jsonl"
        one.write_text(rule.model_copy(update={"action": "decline"}).model_dump_json() + "\n")
        _run(data_dir, ["-m", "agents.cli", "ingest", str(one), "--rules", "--namespace", str(ns)])
    pid = server_status(data_dir).pid
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
    crash_s, stderr = _run(data_dir, args)
    await memory.connect()
    return {
        "stop_with_compaction_s": stop_s,
        "first_query_after_clean_restart_s": clean_s,
        "first_query_after_crash_s": crash_s,
        "crash_wait_messages": [line for line in stderr.splitlines() if "waiting for" in line][:3],
    }


__all__ = ["bench_restart", "bench_startup"]
