"""CPU per decision (issue 26): `athena decide --batch` and the in-process decide path.

    python -m bench.decide_cpu --rules 10000 [--shape wide|stress] [--data-dir DIR]
                               [--decisions 200] [--profile 40] [--cli] [--json FILE]

Loads synthetic rules into a namespace of their own (kept across runs in `--data-dir`:
a second run of the same size and shape skips the load), then measures:

* in process (`decide_submission` as `athena decide --batch` calls it, the decision
  dumped to its JSON line): process CPU time per decision (robust to other jobs on a
  shared machine, unlike wall time) and wall-clock p50 / p95 / p99, warm (a long-running
  reader: what one decision read serves the next until a commit);
* `--cli`: `athena decide --batch` in a fresh process, once with one submission and once
  with all of them; the child CPU of the difference over the extra submissions is the
  CLI's CPU per decision (start-up and index snapshot loading cancel out);
* `--shape stress`: also `check_risk_appetite` latency on queries of the stress shape.

Shapes: ``wide`` (the `athena bench` rules: an occupancy and one threshold each;
submissions of 13+ fields with one firing rule) and ``stress`` (thresholds from 1-500 on
one numeric field of the dev dictionary, half also an occupancy, a fifth also a state;
submissions of 6 numbers, 3 flags, an occupancy and a state: hundreds of rules fire at
100k). `--profile N` prints cProfile's top N entries of the in-process decisions.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.eval_run import percentile

ROOT = Path(__file__).resolve().parents[1]
DEV_FIELDS = ROOT.parent / "shared" / "datasets" / "underwriting" / "dev" / "fields.json"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load_average() -> float:
    return round(os.getloadavg()[0], 2)


def _dictionary(shape: str) -> Any:
    from schemas.fields import cached_data_dictionary

    return cached_data_dictionary(DEV_FIELDS if shape == "stress" else None)


def workload(shape: str, rules: int, decisions: int) -> tuple[list[Any], list[dict[str, Any]]]:
    """The rules and submissions of a shape."""
    from bench.synthetic import generate_rules, stress_rules, stress_submission, wide_submission

    fields = _dictionary(shape)
    if shape == "stress":
        found = stress_rules(fields, rules)
        return found, [stress_submission(fields, seed=i) for i in range(decisions)]
    found = generate_rules(fields, rules)
    step = max(1, len(found) // decisions)
    return found, [wide_submission(found[i * step], fields, seed=i) for i in range(decisions)]


async def load(memory: Any, namespace: str, rules: Sequence[Any], shape: str) -> float:
    """Ingest `rules` unless the namespace holds exactly them; return the seconds it took."""
    from agents.ingestion import ingest_rules
    from bench.writepath import vector_ready
    from memory import Namespace
    from memory.underwriting import GraphAnalytics

    ns = Namespace.parse(namespace)
    # Rules of one signature are one piece of knowledge (`memory.underwriting.consolidate`):
    # the stress shape's claims fold into fewer current rules, so what a load left is noted.
    marker = Path(memory.settings.data_dir) / "bench-cpu.json"
    loaded = json.loads(marker.read_text()) if marker.is_file() else {}
    current = await GraphAnalytics(memory, ns).rule_count()
    if current and loaded.get(namespace) == [len(rules), current]:
        return 0.0
    began = time.perf_counter()
    await memory.clear(ns)
    await ingest_rules(memory, ns, list(rules), fields=_dictionary(shape))
    await vector_ready(memory, ns)
    loaded[namespace] = [len(rules), await GraphAnalytics(memory, ns).rule_count()]
    marker.write_text(json.dumps(loaded))
    return time.perf_counter() - began


async def in_process(
    memory: Any,
    namespace: str,
    submissions: Sequence[dict[str, Any]],
    shape: str,
    profile: int = 0,
) -> dict[str, Any]:
    """Decide every submission twice (warm-up, then measured): CPU and wall per decision."""
    from agents.underwriting.service import decide_submission

    fields = _dictionary(shape)
    fired = []
    for submission in submissions:  # warm: every signal ranked, every index current
        decision = await decide_submission(memory, namespace, submission, fields)
        fired.append(sum("]: Fires:" in step for step in decision.reasoning_chain))
    profiler = cProfile.Profile() if profile else None
    walls, cpus = [], []
    pauses: list[float] = []
    began: list[float] = []

    def timed(phase: str, info: dict[str, Any]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                began.append(time.perf_counter())
            elif began:
                pauses.append((time.perf_counter() - began.pop()) * 1000)

    gc.callbacks.append(timed)
    load_before = _load_average()
    for submission in submissions:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        decision = await decide_submission(memory, namespace, submission, fields)
        decision.model_dump(mode="json")  # what the batch prints
        if profiler is not None:
            profiler.disable()
        walls.append((time.perf_counter() - wall0) * 1000)
        cpus.append((time.process_time() - cpu0) * 1000)
    gc.callbacks.remove(timed)
    out: dict[str, Any] = {
        "decisions": len(submissions),
        "fired_rules_mean": round(sum(fired) / max(1, len(fired)), 1),
        "cpu_ms_mean": round(sum(cpus) / len(cpus), 2),
        "cpu_ms_p50": percentile(cpus, 50),
        "wall_ms_p50": percentile(walls, 50),
        "wall_ms_p95": percentile(walls, 95),
        "wall_ms_p99": percentile(walls, 99),
        "decisions_per_cpu_second": round(1000 * len(cpus) / sum(cpus), 1),
        "full_gc": len(pauses),
        "full_gc_ms_max": round(max(pauses, default=0.0), 1),
        "load_before": load_before,
        "load_after": _load_average(),
    }
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(profile)
        tottime = io.StringIO()
        pstats.Stats(profiler, stream=tottime).sort_stats("tottime").print_stats(profile)
        out["profile"] = text.getvalue() + tottime.getvalue()
    return out


def query_texts(rules: Sequence[Any], count: int) -> list[str]:
    """Queries a user could type for `count` of the rules (`query_for`)."""
    from bench.synthetic import query_for

    step = max(1, len(rules) // count)
    return [query_for(rules[i * step]) for i in range(count)]


async def queries(memory: Any, namespace: str, texts: Sequence[str]) -> dict[str, Any]:
    """`check_risk_appetite` latency on `texts`."""
    from memory.underwriting import GraphAnalytics

    analytics = GraphAnalytics(memory, namespace)
    for text in texts[:5]:
        await analytics.check_risk_appetite(text)
    walls, cpus = [], []
    for text in texts:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await analytics.check_risk_appetite(text)
        walls.append((time.perf_counter() - wall0) * 1000)
        cpus.append((time.process_time() - cpu0) * 1000)
    return {
        "queries": len(texts),
        "cpu_ms_mean": round(sum(cpus) / len(cpus), 2),
        "wall_ms_p50": percentile(walls, 50),
        "wall_ms_p95": percentile(walls, 95),
        "wall_ms_p99": percentile(walls, 99),
    }


def cli_batch(
    data_dir: Path, namespace: str, submissions: Sequence[dict[str, Any]], shape: str
) -> dict[str, Any]:
    """`athena decide --batch` with one submission and with all: CPU per extra decision."""
    folder = Path(tempfile.mkdtemp(prefix="athena-cpu-"))
    runs = {}
    for label, chosen in (("one", submissions[:1]), ("all", submissions)):
        path = folder / f"{label}.jsonl"
        path.write_text("".join(json.dumps({"id": f"s{i}", "submission": s}) + "\n"
                                for i, s in enumerate(chosen)))  # fmt: skip
        argv = [sys.executable, "-m", "agents.cli", "decide", "--batch", str(path), "--json",
                "--namespace", namespace]  # fmt: skip
        if shape == "stress":
            argv += ["--fields", str(DEV_FIELDS)]
        cpu0, wall0 = _children_cpu(), time.perf_counter()
        done = subprocess.run(argv, env={**os.environ, "ATHENA_DATA_DIR": str(data_dir)},
                              capture_output=True, text=True, check=False, cwd=ROOT)  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"athena decide --batch failed: {done.stderr[-2000:]}")
        latencies = [json.loads(line)["latency_ms"] for line in done.stdout.splitlines()]
        runs[label] = {
            "cpu_s": _children_cpu() - cpu0,
            "wall_s": time.perf_counter() - wall0,
            "latencies": latencies,
        }
    extra = len(submissions) - 1
    latencies = runs["all"]["latencies"]
    return {
        "decisions": len(submissions),
        "cpu_ms_per_decision": round(
            1000 * (runs["all"]["cpu_s"] - runs["one"]["cpu_s"]) / extra, 2
        ),
        "wall_ms_per_decision": round(
            1000 * (runs["all"]["wall_s"] - runs["one"]["wall_s"]) / extra, 2
        ),
        "latency_ms_p50": percentile(latencies, 50),
        "latency_ms_p95": percentile(latencies, 95),
        "latency_ms_p99": percentile(latencies, 99),
        "process_cpu_s_one": round(runs["one"]["cpu_s"], 2),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Load, then measure what the arguments ask for."""
    from agents.cli import GC_YOUNG_THRESHOLD
    from memory import GraphMemory, Settings
    from memory.underwriting import GraphAnalytics

    # As an `athena` process runs (`agents.cli.main`): the same young-generation size.
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    data_dir = Path(args.data_dir)
    settings = Settings(ATHENA_DATA_DIR=data_dir)
    namespace = f"agent:bench-cpu-{args.shape}-{args.rules}"
    rules, submissions = workload(args.shape, args.rules, args.decisions)
    texts = query_texts(rules, args.decisions)
    result: dict[str, Any] = {"rules": args.rules, "shape": args.shape, "namespace": namespace}
    async with GraphMemory(settings) as memory:
        result["load_s"] = round(await load(memory, namespace, rules, args.shape), 1)
        result["current_rules"] = await GraphAnalytics(memory, namespace).rule_count()
        del rules  # the generated rules are this bench's, not a server's: not measured
        gc.collect()
        result["in_process"] = await in_process(
            memory, namespace, submissions, args.shape, args.profile
        )
        if args.shape == "stress" or args.queries:
            result["queries"] = await queries(memory, namespace, texts)
    if args.cli:
        result["cli"] = cli_batch(data_dir, namespace, submissions, args.shape)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--shape", choices=("wide", "stress"), default="wide")
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "athena-cpu"))
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N")
    parser.add_argument("--cli", action="store_true", help="also time athena decide --batch")
    parser.add_argument("--queries", action="store_true", help="also time check_risk_appetite")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    profile = result["in_process"].pop("profile", None)
    print(json.dumps(result, indent=1))
    if profile:
        print(profile)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
