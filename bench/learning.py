"""Memory that keeps learning, measured as a user meets it.

A long-running reader (this process, holding its memory open as `athena mcp`
or `langgraph dev` would) while another process changes one rule through the
CLI: the latency of the reader's first decision and first trace after each
write, and whether any derived index was rebuilt whole. Then fresh `athena
query` processes, wall time from exec to exit, with the index snapshot (warm
start) and without it (what every fresh process paid before snapshots).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agents.underwriting.service import decide_submission
from bench.synthetic import query_for
from memory import GraphMemory, Namespace
from memory.backend.derived import EVENTS
from memory.underwriting import GraphAnalytics
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule

WRITES = 5  # one-rule writes by another process
FRESH_RUNS = 3  # fresh `athena query` processes timed


def _changed(rule: ExtractedRule) -> ExtractedRule:
    """The next version of a rule: a new action and one mitigant fewer."""
    action = "decline" if rule.action != "decline" else "refer"
    return rule.model_copy(update={"action": action, "mitigants": list(rule.mitigants[1:])})


def _athena(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> float:
    """Run `athena ARGS` in a fresh process; return its wall time in seconds."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir), **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"athena {args[0]} failed: {done.stderr.strip()[-300:]}")
    return time.perf_counter() - began


def _builds() -> int:
    return sum(n for k, n in EVENTS.items() if k.endswith(":build"))


async def _ms(work: Awaitable[Any]) -> float:
    """Await `work`; return how long it took in milliseconds."""
    began = time.perf_counter()
    await work
    return (time.perf_counter() - began) * 1000


async def bench_learning(
    memory: GraphMemory,
    ns: Namespace,
    rules: Sequence[ExtractedRule],
    fields: DataDictionary,
    data_dir: Path,
    submission: Callable[[ExtractedRule], dict[str, Any]],
) -> dict[str, Any]:
    """Reader latency after another process's writes, and a fresh process's first answer."""
    analytics = GraphAnalytics(memory, ns)
    warm_decide, first_decide, first_trace, write_s = [], [], [], []
    builds = _builds()
    with tempfile.TemporaryDirectory() as tmp:
        for i, rule in enumerate(rules[:WRITES]):
            case = submission(rule)
            warm_decide.append(await _ms(decide_submission(memory, ns, case, fields)))
            path = Path(tmp) / f"change-{i}.jsonl"
            path.write_text(json.dumps(_changed(rule).model_dump(mode="json")) + "\n")
            ingest = ("ingest", str(path), "--rules", "--namespace", str(ns))
            write_s.append(_athena(data_dir, *ingest))
            first_decide.append(await _ms(decide_submission(memory, ns, case, fields)))
            first_trace.append(await _ms(analytics.trace(rule.risk_factor)))
    rebuilds = _builds() - builds
    query = query_for(rules[0])
    args = ("query", query, "--namespace", str(ns), "--json")
    warm = [_athena(data_dir, *args) for _ in range(FRESH_RUNS)]
    cold = [_athena(data_dir, *args, env={"ATHENA_INDEX_SNAPSHOTS": "false"})]
    return {
        "writes": len(first_decide),
        "write_process_s": max(write_s),
        "decide_before_write_ms": sorted(warm_decide)[len(warm_decide) // 2],
        "first_decide_after_write_ms": {"median": _median(first_decide), "max": max(first_decide)},
        "first_trace_after_write_ms": {"median": _median(first_trace), "max": max(first_trace)},
        "full_rebuilds_after_writes": rebuilds,
        "fresh_query_wall_s": {"snapshot": min(warm), "no_snapshot": min(cold)},
    }


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


__all__ = ["bench_learning"]
