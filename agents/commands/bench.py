"""`athena bench`: measure retrieval speed and quality at scale; write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import asyncio
import json
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
    parser.set_defaults(handler=run)


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
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="athena-bench-")) / "db"
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
