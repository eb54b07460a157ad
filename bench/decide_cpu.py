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

`athena bench --shape stress --sizes 10000,100000` runs the same measurement (`measure`,
with `--cli` and the queries) per size and writes its section of docs/benchmarks.md
(`stress_section`, between `STRESS_START` and `STRESS_END`).
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
STRESS_START = "<!-- stress: written by athena bench --shape stress -->"
STRESS_END = "<!-- /stress -->"
QUERY_TARGET_MS = 20.0  # issue 26, stress shape at 100k: a query's p95
DECISION_TARGET_MS = 50.0  # and a decision's through `athena decide --batch`


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load_average() -> float:
    return round(os.getloadavg()[0], 2)


def _dictionary(shape: str) -> Any:
    from schemas.fields import cached_data_dictionary

    return cached_data_dictionary(DEV_FIELDS if shape == "stress" else None)


def fired_rules(reasoning_chain: Sequence[str]) -> int:
    """How many rules fired in a decision: its reasoning chain's "Fires:" steps."""
    return sum("]: Fires:" in step for step in reasoning_chain)


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
        fired.append(fired_rules(decision.reasoning_chain))
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
    runs: dict[str, dict[str, Any]] = {}
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
        decisions = [json.loads(line) for line in done.stdout.splitlines()]
        runs[label] = {
            "cpu_s": _children_cpu() - cpu0,
            "wall_s": time.perf_counter() - wall0,
            "latencies": [d["latency_ms"] for d in decisions],
            "fired": [fired_rules(d.get("reasoning_chain") or []) for d in decisions],
        }
    extra = len(submissions) - 1
    latencies, fired = runs["all"]["latencies"], runs["all"]["fired"]
    return {
        "decisions": len(submissions),
        "fired_rules_mean": round(sum(fired) / max(1, len(fired)), 1),
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


async def measure(
    data_dir: Path,
    shape: str,
    rule_count: int,
    decisions: int = 200,
    *,
    cli: bool = False,
    query: bool = False,
    profile: int = 0,
) -> dict[str, Any]:
    """Load `rule_count` rules of `shape` (unless there), then measure them.

    In process always; the queries for the stress shape or with `query`; the batch with `cli`.
    """
    from agents.cli import GC_YOUNG_THRESHOLD
    from memory import GraphMemory, Settings
    from memory.underwriting import GraphAnalytics

    # As an `athena` process runs (`agents.cli.main`): the same young-generation size.
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    settings = Settings(ATHENA_DATA_DIR=data_dir)
    namespace = f"agent:bench-cpu-{shape}-{rule_count}"
    rules, submissions = workload(shape, rule_count, decisions)
    texts = query_texts(rules, decisions)
    result: dict[str, Any] = {"rules": rule_count, "shape": shape, "namespace": namespace}
    async with GraphMemory(settings) as memory:
        result["load_s"] = round(await load(memory, namespace, rules, shape), 1)
        result["current_rules"] = await GraphAnalytics(memory, namespace).rule_count()
        del rules  # the generated rules are this bench's, not a server's: not measured
        gc.collect()
        result["in_process"] = await in_process(memory, namespace, submissions, shape, profile)
        if shape == "stress" or query:
            result["queries"] = await queries(memory, namespace, texts)
    if cli:
        result["cli"] = cli_batch(data_dir, namespace, submissions, shape)
    return result


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Load, then measure what the arguments ask for."""
    return await measure(
        Path(args.data_dir), args.shape, args.rules, args.decisions,
        cli=args.cli, query=args.queries, profile=args.profile,
    )  # fmt: skip


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _met(value: float | None, target: float) -> str:
    return "-" if value is None else ("yes" if value <= target else "**no**")


def stress_section(results: dict[str, Any], command: str) -> str:
    """The report section of `athena bench --shape stress` (markdown, between its markers)."""
    rows = sorted(results["sizes"], key=lambda r: r["size"])
    commands = dict.fromkeys(r.get("command") or command for r in rows) or {command: None}
    runs = " and ".join(f"`{c}`" for c in commands)
    lines = [
        STRESS_START,
        "## The stress shape through `athena decide --batch` (issue 26)",
        "",
        f"{runs} on {results['cores']} cores, embedded FalkorDB, offline embeddings "
        "(`bench/decide_cpu.py`, as `python -m bench.decide_cpu --shape stress --cli`). "
        "Per size, that many `stress_rules` claims over the dev dictionary are ingested; "
        "consolidation folds claims of one signature into one current rule. Queries: "
        "`check_risk_appetite` on `query_for` texts of the rules, in process, warm. "
        "Decisions: `athena decide --batch --json` in a fresh process on "
        f"{results['decisions']} `stress_submission`s (6 numbers, 3 flags, an occupancy "
        "and a state), latency as each decision reports it; CPU a decision is the child "
        "process's CPU over the extra submissions against a batch of one (start-up and "
        "snapshot loading cancel out). In process: the same submissions decided warm by "
        f"`decide_submission`. Targets (at 100k): a query p95 <= {QUERY_TARGET_MS:.0f} ms, a "
        f"decision through the batch p95 <= {DECISION_TARGET_MS:.0f} ms.",
        "",
        "| claims | current rules | rules fired a decision | query p50 / p95 ms "
        f"| query <= {QUERY_TARGET_MS:.0f} ms | batch decision p50 / p95 / p99 ms "
        f"| decision <= {DECISION_TARGET_MS:.0f} ms | batch CPU ms a decision "
        "| in process CPU ms a decision | load s | load average |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        q, c, p = row["queries"], row["cli"], row["in_process"]
        lines.append(
            f"| {row['size']} | {row['current_rules']} | {c['fired_rules_mean']} "
            f"| {_ms(q['wall_ms_p50'])} / {_ms(q['wall_ms_p95'])} "
            f"| {_met(q['wall_ms_p95'], QUERY_TARGET_MS)} "
            f"| {_ms(c['latency_ms_p50'])} / {_ms(c['latency_ms_p95'])} / "
            f"{_ms(c['latency_ms_p99'])} | {_met(c['latency_ms_p95'], DECISION_TARGET_MS)} "
            f"| {c['cpu_ms_per_decision']:.1f} | {p['cpu_ms_mean']:.1f} | {row['load_s']:.1f} "
            f"| {p['load_before']} |"
        )
    lines += [
        "",
        "*load s* is the ingest (0 when `--data-dir` already held the namespace); *load "
        "average* is the machine's 1-minute load before the decisions.",
        STRESS_END,
    ]
    return "\n".join(lines)


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
