"""Consolidation on the commit path (issue 22): a set's claims, text by text, 10k rules stored.

Target: ingesting all texts of a set, per text, with 10,000 rules already stored,
<= 100 ms.

In a fresh embedded database (a temp ``ATHENA_DATA_DIR``):

1. `N` synthetic rules (`bench.synthetic.generate_rules`, the packaged data
   dictionary) are loaded with ``athena ingest FILE --rules --namespace NS`` (the
   CLI, a subprocess) into two namespaces, one per path measured below;
2. the claims of a consolidation set (``claims.jsonl``, default the dev set) are
   ingested into each namespace one text at a time, in file order, with the set's
   ``fields.json``: (a) through ``athena ingest TEXT.jsonl --rules --fields ...`` as a
   subprocess per text (wall time, start-up included; the CLI's own ``seconds`` is
   reported beside it) and (b) in process through `agents.ingestion.ingest_rules`
   on a warm `GraphMemory`;
3. the same with an empty namespace (0 rules stored) for comparison;
4. every namespace is scored against the set's ``rules.jsonl``
   (`agents.eval_consolidation.score_rules`) on the stored current rules of the
   set's signatures; the synthetic rules must still be there, untouched.

``python -m bench.consolidation [--rules 10000] [--profile 25] [--json FILE]`` prints
a Markdown table. ``--profile`` also runs the in-process path under cProfile in a
namespace of its own (the timed figures stay unprofiled) and prints the top entries.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.eval_consolidation import score_rules
from agents.eval_run import percentile
from agents.ingestion import ingest_rules
from agents.jsonl import load_rules, read_objects
from bench.synthetic import generate_rules, write_rules_file
from bench.writepath import vector_ready
from memory import GraphMemory, Namespace, Settings
from memory.underwriting import GraphAnalytics
from memory.underwriting.condition_kind import condition_index
from memory.underwriting.consolidate import signature
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import ExtractedRule

DEV_SET = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "consolidation" / "dev"
TARGET_MS = 100.0
NAMESPACES = {
    ("cli", True): "agent:bench-cons",
    ("in_process", True): "agent:bench-cons-inproc",
    ("cli", False): "agent:bench-cons-empty",
    ("in_process", False): "agent:bench-cons-empty-inproc",
}
PROFILE_NS = "agent:bench-cons-profile"
Text = tuple[str, list[dict[str, Any]], list[ExtractedRule]]


def claim_texts(dataset: Path) -> list[Text]:
    """The set's claims grouped by text, texts in file order: (text id, rows, rules)."""
    rows = read_objects(dataset / "claims.jsonl")
    rules = load_rules(dataset / "claims.jsonl")
    groups: dict[str, tuple[list[dict[str, Any]], list[ExtractedRule]]] = {}
    for row, rule in zip(rows, rules, strict=True):
        raw, parsed = groups.setdefault(rule.text_id or rule.rule_name, ([], []))
        raw.append(row)
        parsed.append(rule)
    return [(tid, raw, parsed) for tid, (raw, parsed) in groups.items()]


def _athena() -> list[str]:
    """The `athena` console script next to this interpreter, else ``python -m agents.cli``."""
    script = Path(sys.executable).parent / "athena"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "agents.cli"]


def _env(data_dir: Path) -> dict[str, str]:
    """The CLI's environment: this database, offline, the packaged data dictionary."""
    drop = ("OPENAI_API_KEY", "FALKORDB_URL", "ATHENA_FIELDS", "ATHENA_NAMESPACE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["ATHENA_DATA_DIR"] = str(data_dir)
    return env


def cli_ingest(env: dict[str, str], args: Sequence[str]) -> tuple[float, dict[str, Any]]:
    """Run ``athena ingest ARGS --rules --json``; return wall ms and its JSON report."""
    began = time.perf_counter()
    done = subprocess.run(
        [*_athena(), "ingest", *args, "--rules", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = (time.perf_counter() - began) * 1000.0
    if done.returncode != 0:
        raise RuntimeError(f"athena ingest {' '.join(args)} failed: {done.stderr.strip()[-800:]}")
    lines = done.stdout.strip().splitlines()
    report: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    return wall, report


async def settle(memory: GraphMemory, limit_s: float = 300.0) -> float:
    """Wait until the server rewrites no AOF and saves no snapshot; return the seconds."""
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        info = await memory.db.client.connection.info("persistence")
        if not (info.get("aof_rewrite_in_progress") or info.get("rdb_bgsave_in_progress")):
            break
        await asyncio.sleep(0.5)
    return time.perf_counter() - began


def _stats(values: Sequence[float]) -> dict[str, Any]:
    return {
        "texts": len(values),
        "mean_ms": round(sum(values) / len(values), 2) if values else None,
        "p50_ms": percentile(values, 50),
        "p95_ms": percentile(values, 95),
        "max_ms": round(max(values), 2) if values else None,
        "total_s": round(sum(values) / 1000.0, 2),
    }


async def run_cli(env: dict[str, str], ns: str, files: Sequence[Path], fields: Path) -> Any:
    """Each text through the CLI; wall ms per text and the CLI's own seconds per text."""
    wall, inner = [], []
    for path in files:
        ms, report = cli_ingest(env, [str(path), "--fields", str(fields), "--namespace", ns])
        wall.append(ms)
        inner.append(float(report.get("seconds") or 0.0) * 1000.0)
    return wall, inner


async def run_in_process(
    memory: GraphMemory,
    ns: str,
    texts: Sequence[Text],
    fields: DataDictionary,
    profiler: cProfile.Profile | None = None,
) -> tuple[list[float], float]:
    """Each text through `ingest_rules` on this memory; ms per text and the warm-up ms."""
    namespace = Namespace.parse(ns)
    began = time.perf_counter()
    await condition_index(memory, namespace)  # warm: what another process wrote is read
    await GraphAnalytics(memory, namespace, fields).rule_count()
    warm_ms = (time.perf_counter() - began) * 1000.0
    per_text = []
    for _, _, rules in texts:
        if profiler is not None:
            profiler.enable()
        began = time.perf_counter()
        report = await ingest_rules(memory, namespace, rules, fields=fields)
        per_text.append((time.perf_counter() - began) * 1000.0)
        if profiler is not None:
            profiler.disable()
        if report.failed_texts or report.errors:
            raise RuntimeError(f"ingest_rules failed: {report.errors[:3]}")
    return per_text, warm_ms


async def check(
    memory: GraphMemory, ns: str, dataset: Path, fields: DataDictionary, texts: Sequence[Text]
) -> dict[str, Any]:
    """Score the stored current rules of the set's signatures; count the other rules."""
    wanted = {signature(r.product_type, r.conditions) for _, _, rules in texts for r in rules}
    stored = await GraphAnalytics(memory, Namespace.parse(ns), fields).rules()
    mine = [r for r in stored if signature(r.product_type, r.conditions) in wanted]
    score = score_rules(read_objects(dataset / "rules.jsonl"), mine)
    score["other_rules"] = len(stored) - len(mine)
    return score


def _profile_top(profiler: cProfile.Profile, top: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    out.write("\n--- by own time ---\n")
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


async def run_bench(
    dataset: Path, size: int, data_dir: Path, profile_top: int = 0
) -> dict[str, Any]:
    """Every measurement of the module docstring; return the results."""
    packaged = load_data_dictionary()
    set_fields_path = dataset / "fields.json"
    set_fields = load_data_dictionary(set_fields_path)
    texts = claim_texts(dataset)
    env = _env(data_dir)
    results: dict[str, Any] = {
        "dataset": str(dataset),
        "texts": len(texts),
        "claims": sum(len(rules) for _, _, rules in texts),
        "stored_rules": size,
        "runs": {},
        "checks": {},
    }
    settings = Settings(ATHENA_DATA_DIR=data_dir, FALKORDB_URL=None, OPENAI_API_KEY=None)
    with tempfile.TemporaryDirectory(prefix="athena-cons-") as tmp:
        files = []
        for number, (tid, raw, _) in enumerate(texts):
            path = Path(tmp) / f"text-{number:03d}-{tid}.jsonl"
            path.write_text("".join(json.dumps(row) + "\n" for row in raw), "utf-8")
            files.append(path)
        synthetic = write_rules_file(generate_rules(packaged, size), Path(tmp) / "synthetic.jsonl")
        async with GraphMemory(settings) as memory:
            loaded = [ns for (_, full), ns in NAMESPACES.items() if full]
            if profile_top:
                loaded.append(PROFILE_NS)
            for ns in NAMESPACES.values():
                await memory.clear(Namespace.parse(ns))
            if profile_top:
                await memory.clear(Namespace.parse(PROFILE_NS))
            results["load_s"] = {}
            for ns in loaded:
                ms, report = cli_ingest(env, [str(synthetic), "--namespace", ns])
                results["load_s"][ns] = round(ms / 1000.0, 1)
                if report.get("failed_texts"):
                    raise RuntimeError(f"loading {ns} failed: {report['failed_texts'][:3]}")
                await vector_ready(memory, Namespace.parse(ns))
            results["settle_s"] = round(await settle(memory), 1)
            for (kind, full), ns in NAMESPACES.items():
                key = f"{kind}_{size if full else 0}"
                load = os.getloadavg()[0]
                if kind == "cli":
                    wall, inner = await run_cli(env, ns, files, set_fields_path)
                    run = {**_stats(wall), "in_cli": _stats(inner)}
                else:
                    per_text, warm_ms = await run_in_process(memory, ns, texts, set_fields)
                    run = {**_stats(per_text), "warm_up_ms": round(warm_ms, 1)}
                results["runs"][key] = {"namespace": ns, "load_before": load, **run}
                results["checks"][key] = await check(memory, ns, dataset, set_fields, texts)
                await settle(memory)
            if profile_top:
                profiler = cProfile.Profile()
                per_text, _ = await run_in_process(memory, PROFILE_NS, texts, set_fields, profiler)
                results["profiled"] = {**_stats(per_text), "namespace": PROFILE_NS}
                results["profile"] = _profile_top(profiler, profile_top)
    return results


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


def table(results: dict[str, Any]) -> str:
    """The results as Markdown: time per text by path and rules stored, then the checks."""
    size = results["stored_rules"]
    labels = {
        "cli": "`athena ingest TEXT.jsonl --rules` (subprocess per text)",
        "in_process": "`ingest_rules` in process (warm `GraphMemory`)",
    }
    lines = [
        f"{results['texts']} texts, {results['claims']} claims "
        f"(`{results['dataset']}/claims.jsonl`), one text at a time in file order.",
        "",
        "| path | rules stored | mean ms/text | p50 ms | p95 ms | max ms | all texts s "
        f"| <= {TARGET_MS:.0f} ms (mean) | load before |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, run in results["runs"].items():
        path, stored = key.rsplit("_", 1)
        met = "yes" if run["mean_ms"] is not None and run["mean_ms"] <= TARGET_MS else "no"
        lines.append(
            f"| {labels[path]} | {int(stored):,} | {_ms(run['mean_ms'])} | {_ms(run['p50_ms'])} "
            f"| {_ms(run['p95_ms'])} | {_ms(run['max_ms'])} | {run['total_s']:.1f} | {met} "
            f"| {run['load_before']:.2f} |"
        )
        if path == "cli":
            inner = run["in_cli"]
            lines.append(
                f"| ... of which the CLI's own ingest (`seconds` of its report) | {int(stored):,} "
                f"| {_ms(inner['mean_ms'])} | {_ms(inner['p50_ms'])} | {_ms(inner['p95_ms'])} "
                f"| {_ms(inner['max_ms'])} | {inner['total_s']:.1f} | - | - |"
            )
    lines += [
        "",
        "| run | gold current | exact | duplicates | stale | stray | source recall "
        "| other rules kept |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    expected = {f"{p}_{size if full else 0}": size if full else 0 for p, full in NAMESPACES}
    for key, score in results["checks"].items():
        other = score["other_rules"]
        ok = "" if other == expected[key] else f" (expected {expected[key]:,})"
        lines.append(
            f"| {key} | {score['gold_current']} | {score['exact']} | {score['duplicates']} "
            f"| {score['stale']} | {score['stray']} | {score['source_recall']} "
            f"| {other:,}{ok} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark in a fresh embedded database; print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.consolidation", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEV_SET, help="a consolidation set")
    parser.add_argument("--rules", type=int, default=10_000, help="synthetic rules stored")
    parser.add_argument("--data-dir", type=Path, help="database dir (default: a fresh temp dir)")
    parser.add_argument("--profile", type=int, default=0, metavar="TOP",
                        help="also profile the in-process path; print the TOP entries")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)
    from memory.backend.server import stop_server

    base = args.data_dir or Path(tempfile.mkdtemp(prefix="athena-bench-cons-"))
    data_dir = base / "db"
    try:
        results = asyncio.run(run_bench(args.dataset, args.rules, data_dir, args.profile))
    finally:
        stop_server(data_dir)
        if args.data_dir is None:
            shutil.rmtree(base, ignore_errors=True)
    results["command"] = "python -m bench.consolidation " + " ".join(sys.argv[1:])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    print(table(results))
    for key, score in results["checks"].items():
        if score["wrong"] or score["stray_rules"]:
            print(f"\n{key}: wrong {score['wrong']}, stray {score['stray_rules']}")
    if "profile" in results:
        print("\nprofiled in-process run (10k stored):", json.dumps(results["profiled"]))
        print(results["profile"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
