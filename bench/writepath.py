"""The write path at scale (issue 13): ingest as a user runs it, decisions on wide submissions.

* `athena ingest FILE --rules` in a fresh process (the CLI path: start-up, loading
  and validating the file included) and `agents.ingestion.ingest_rules` in process,
  for two source shapes: a source per rule (a decision log) and 50 shared sources;
  wall time, this side's CPU and the server's CPU (INFO cpu) for each;
* Graphiti's stock bulk path (`add_nodes_and_edges_bulk`, its own embedding calls)
  on the same rules, into a graph of its own;
* `decide` on submissions with ten or more fields (product, state, occupancy, six
  numbers, three flags).

Each load goes into a fresh namespace, dropped afterwards (the disk and memory
figures of the size stay those of the main namespace).
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.eval_run import percentile
from agents.ingestion import ingest_rules
from agents.underwriting.service import decide_submission
from bench.synthetic import wide_submission, with_sources, write_rules_file
from memory import GraphMemory, Namespace
from memory.backend.readcache import empty_read_caches
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule

# Source shapes measured: the CLI at every size, the rest up to IN_PROCESS_UPTO rules.
CLI_SHAPES = ("shared", "own")
IN_PROCESS_UPTO = 10_000
GRAPHITI_UPTO = 10_000
WIDE_SAMPLES = 50


async def _server_cpu(memory: GraphMemory) -> float:
    info = await memory.db.client.connection.info("cpu")
    return float(info.get("used_cpu_user", 0.0)) + float(info.get("used_cpu_sys", 0.0))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _load() -> float:
    return os.getloadavg()[0]


async def _measured(memory: GraphMemory, n: int, run: Any, cpu: Any) -> dict[str, Any]:
    """Run `run()` (a coroutine factory); rules/s, wall, client and server CPU, load before."""
    load, server, client = _load(), await _server_cpu(memory), cpu()
    began = time.perf_counter()
    await run()
    wall = time.perf_counter() - began
    return {
        "rules": n,
        "rules_per_s": n / wall,
        "wall_s": wall,
        "client_cpu_s": cpu() - client,
        "server_cpu_s": await _server_cpu(memory) - server,
        "load_before": load,
    }


async def vector_ready(memory: GraphMemory, ns: Namespace, limit_s: float = 900.0) -> float:
    """Wait until the namespace's HNSW index answers; return the seconds waited.

    A first bulk load builds it in the background after the data is committed.
    """
    from redis.exceptions import ResponseError

    from memory.embedders import embed_async
    from memory.search import ranking

    [vector] = await embed_async(memory.embedder, ["vector index probe"])
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        try:
            await ranking.ann_vector_ids(memory.db, ns.group_id, [vector], 5, ranking.Filters())
            break
        except ResponseError:
            await asyncio.sleep(0.25)
    return time.perf_counter() - began


async def _cli_ingest(memory: GraphMemory, data_dir: Path, path: Path, ns: Namespace) -> None:
    argv = [sys.executable, "-m", "agents.cli", "ingest", str(path), "--rules"]
    done = subprocess.run(
        [*argv, "--namespace", str(ns), "--json"],
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"athena ingest failed: {done.stderr.strip()[-500:]}")


async def bench_ingest_paths(
    memory: GraphMemory, rules: Sequence[ExtractedRule], data_dir: Path
) -> dict[str, Any]:
    """Ingest throughput by path (CLI, in process, Graphiti's stock bulk) and source shape."""
    size = len(rules)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in CLI_SHAPES:
            shaped = with_sources(list(rules), shape)
            path = write_rules_file(shaped, Path(tmp) / f"rules-{shape}.jsonl")
            ns = Namespace.agent(f"bench-cli-{shape}-{size}")
            await memory.clear(ns)
            out[f"cli_{shape}"] = await _measured(
                memory,
                size,
                lambda p=path, n=ns: _cli_ingest(memory, data_dir, p, n),
                _children_cpu,
            )
            out[f"cli_{shape}"]["vector_index_ready_after_s"] = await vector_ready(memory, ns)
            await memory.clear(ns)
            if size > IN_PROCESS_UPTO:
                continue
            ns = Namespace.agent(f"bench-inproc-{shape}-{size}")
            await memory.clear(ns)
            out[f"in_process_{shape}"] = await _measured(
                memory, size, lambda n=ns, r=shaped: ingest_rules(memory, n, r), _self_cpu
            )
            out[f"in_process_{shape}"]["vector_index_ready_after_s"] = await vector_ready(
                memory, ns
            )
            await memory.clear(ns)
    if size <= GRAPHITI_UPTO:
        from bench.graphiti_bulk import graphiti_bulk_load

        ns = Namespace.agent(f"bench-graphiti-bulk-{size}")
        await memory.clear(ns)
        shared = with_sources(list(rules), "shared")
        out["graphiti_stock_bulk_shared"] = await _measured(
            memory, size, lambda: graphiti_bulk_load(memory, ns, shared), _self_cpu
        )
        await memory.clear(ns)
    return out


async def bench_decide_wide(
    memory: GraphMemory, ns: Namespace, rules: Sequence[ExtractedRule], fields: DataDictionary
) -> dict[str, Any]:
    """`decide` latency on submissions with ten or more fields, in process, warm and cold."""
    sample = random.Random(len(rules)).sample(list(rules), min(WIDE_SAMPLES, len(rules)))
    cases = [wide_submission(rule, fields, seed=i) for i, rule in enumerate(sample)]
    await decide_submission(memory, ns, cases[0], fields)  # warm: indexes current
    # As a long-running server runs them: what one decision read serves the next until
    # a commit (a field's signal reads the same in every submission).
    warm = []
    for case in cases:
        began = time.perf_counter()
        await decide_submission(memory, ns, case, fields)
        warm.append((time.perf_counter() - began) * 1000)
    # Cold: every decision reads everything again (as after a commit to the namespace).
    cold = []
    for case in cases:
        empty_read_caches()
        began = time.perf_counter()
        await decide_submission(memory, ns, case, fields)
        cold.append((time.perf_counter() - began) * 1000)
    return {
        "submissions": len(cases),
        "fields_per_submission": min(len(c) for c in cases),
        **{f"p{q}_ms": percentile(warm, q) for q in (50, 95, 99)},
        **{f"cold_p{q}_ms": percentile(cold, q) for q in (50, 95, 99)},
    }


__all__ = ["bench_decide_wide", "bench_ingest_paths", "vector_ready"]
