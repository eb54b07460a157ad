"""`athena bench`: measure retrieval speed and quality at scale; write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents.commands.common import print_json

DEV_SET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "underwriting" / "dev"


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `bench` command."""
    parser = commands.add_parser("bench", help="benchmark ingest and retrieval; write a report")
    parser.add_argument("--sizes", default="1000,10000", help="rule counts, comma separated")
    parser.add_argument(
        "--dataset",
        action="append",
        help="dataset folder for the quality tables (repeatable; default: the dev set if found)",
    )
    parser.add_argument("--fields", help="data dictionary for synthetic rules")
    parser.add_argument("--out", default="docs", help="report folder (default docs)")
    parser.add_argument("--data-dir", help="database dir (default: a fresh temp dir)")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the sizes of an earlier run's benchmarks.json that this run does not measure",
    )
    parser.add_argument("--json", action="store_true", help="also print the raw results")
    parser.add_argument(
        "--shape",
        choices=("wide", "stress"),
        default="wide",
        help="wide: the scale, quality and write-path report (default); stress: issue 26's "
        "stress shape per size, queries and decisions through athena decide --batch",
    )
    parser.add_argument(
        "--decisions", type=int, default=200, help="submissions a size (stress shape; 200)"
    )
    load = parser.add_argument_group("load test (instead of the sizes)")
    load.add_argument(
        "--load",
        action="store_true",
        help="concurrent clients deciding through long-running MCP servers over HTTP",
    )
    load.add_argument("--clients", default="1,4,16", help="client counts (default 1,4,16)")
    load.add_argument("--servers", default="1,2", help="server process counts (default 1,2)")
    load.add_argument("--seconds", type=float, default=15.0, help="window per level (15)")
    load.add_argument(
        "--falkordb-url", help="measure against this server or cluster instead of an embedded one"
    )
    parser.set_defaults(handler=run)


def _counts(text: str, option: str) -> list[int]:
    try:
        counts = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise ValueError(f"{option} takes positive whole numbers like 1,4,16, got {text!r}")
    return counts


def run_load_test(args: argparse.Namespace) -> int:
    """Run the load test and put its section into the report."""
    import os

    from bench.load import load_section, run_load, write_load_section
    from memory import Settings
    from memory.backend.server import stop_server

    clients, servers = _counts(args.clients, "--clients"), _counts(args.servers, "--servers")
    datasets = [Path(d) for d in args.dataset or ([DEV_SET] if DEV_SET.is_dir() else [])]
    if not datasets:
        raise ValueError("the load test needs a dataset: give --dataset DIR")
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="athena-load-")) / "db"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FALKORDB_URL")}
    env["ATHENA_DATA_DIR"] = str(data_dir)
    if args.falkordb_url:
        env["FALKORDB_URL"] = args.falkordb_url
    settings = Settings(ATHENA_DATA_DIR=data_dir, FALKORDB_URL=args.falkordb_url)
    try:
        results = asyncio.run(
            run_load(
                settings,
                datasets[0],
                env,
                levels=clients,
                server_counts=servers,
                seconds=args.seconds,
            )  # fmt: skip
        )
    finally:
        if not args.falkordb_url:
            stop_server(data_dir)
    command = ("athena bench " + " ".join(sys.argv[2:])).strip()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_path = out / "benchmarks_load.json"
    save_path.write_text(json.dumps({**results, "command": command}, indent=2) + "\n")
    write_load_section(out / "benchmarks.md", load_section(results, command))
    if args.json:
        print_json(results)
    print(f"wrote {out / 'benchmarks.md'} and {save_path}")
    return 0


def run_stress(args: argparse.Namespace) -> int:
    """The stress shape per size (`bench.decide_cpu.measure`); its section of the report."""
    import os

    from bench.decide_cpu import STRESS_END, STRESS_START, measure, stress_section
    from bench.report import write_section
    from bench.run import save
    from memory.backend.server import stop_server

    sizes = _counts(args.sizes, "--sizes")
    if args.decisions < 2:
        raise ValueError(f"--decisions takes 2 or more, got {args.decisions}")
    out = Path(args.out)
    scratch = None if args.data_dir else Path(tempfile.mkdtemp(prefix="athena-stress-"))
    data_dir = (scratch or Path(args.data_dir)) / "db"
    command = ("athena bench " + " ".join(sys.argv[2:])).strip()
    rows = []
    try:
        for size in sizes:
            result = asyncio.run(
                measure(data_dir, "stress", size, args.decisions, cli=True, query=True)
            )
            rows.append({"size": size, "command": command, **result})
            print(f"stress {size}: {json.dumps(rows[-1]['cli'])}", file=sys.stderr)
    finally:
        stop_server(data_dir)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    results: dict[str, Any] = {
        "command": command, "cores": os.cpu_count(), "decisions": args.decisions, "sizes": rows
    }  # fmt: skip
    save_path = out / "benchmarks_stress.json"
    if args.merge:
        results = _merged(results, save_path)
    save(results, save_path)
    write_section(out / "benchmarks.md", stress_section(results, command), STRESS_START,
                  STRESS_END)  # fmt: skip
    if args.json:
        print_json(results)
    print(f"wrote {out / 'benchmarks.md'} and {save_path}")
    return 0


def _merged(results: dict[str, Any], previous: Path) -> dict[str, Any]:
    if not previous.is_file():
        return results
    old = json.loads(previous.read_text())
    measured = {s["size"] for s in results["sizes"]}
    kept = [
        {"command": old.get("command"), **s}
        for s in old.get("sizes", [])
        if s["size"] not in measured
    ]
    return {**results, "sizes": sorted([*kept, *results["sizes"]], key=lambda s: s["size"])}


def run(args: argparse.Namespace) -> int:
    """Run the benchmark in a fresh embedded database and write the report."""
    if args.load:
        return run_load_test(args)
    if args.shape == "stress":
        return run_stress(args)
    from bench.report import write_report
    from bench.run import run_bench, save
    from memory.backend.server import stop_server

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise ValueError(
            f"--sizes takes whole numbers like 1000,10000, got {args.sizes!r}"
        ) from None
    out = Path(args.out)
    scratch = None if args.data_dir else Path(tempfile.mkdtemp(prefix="athena-bench-"))
    data_dir = (scratch or Path(args.data_dir)) / "db"
    datasets = [Path(d) for d in args.dataset or ([DEV_SET] if DEV_SET.is_dir() else [])]
    partial = out / "benchmarks.partial.json"
    try:
        results = asyncio.run(
            run_bench(
                sizes,
                data_dir,
                datasets,
                args.fields and Path(args.fields),
                on_result=lambda r: save(r, partial),
            )
        )
    finally:
        stop_server(data_dir)
        if scratch is not None:  # a temp database of our own: gone with the run
            shutil.rmtree(scratch, ignore_errors=True)
    command = ("athena bench " + " ".join(sys.argv[2:])).strip()
    results["command"] = command
    for size in results["sizes"]:
        size["command"] = command
    if args.merge:
        results = _merged(results, out / "benchmarks.json")
    report = write_report(results, out, command)
    save(results, out / "benchmarks.json")
    partial.unlink(missing_ok=True)
    if args.json:
        print_json(results)
    print(f"wrote {report}")
    return 0
