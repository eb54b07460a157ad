"""`athena bench`: measure retrieval speed and quality at scale; write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from agents.commands.common import print_json


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `bench` command."""
    parser = commands.add_parser("bench", help="benchmark ingest and retrieval; write a report")
    parser.add_argument("--sizes", default="1000,10000", help="rule counts, comma separated")
    parser.add_argument("--dataset", help="dataset folder for the quality table")
    parser.add_argument("--fields", help="data dictionary for synthetic rules")
    parser.add_argument("--out", default="docs", help="report folder (default docs)")
    parser.add_argument("--data-dir", help="database dir (default: a fresh temp dir)")
    parser.add_argument("--json", action="store_true", help="also print the raw results")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark in a fresh embedded database and write the report."""
    from bench.report import write_report
    from bench.run import run_bench
    from memory.server import stop_server

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise ValueError(
            f"--sizes takes whole numbers like 1000,10000, got {args.sizes!r}"
        ) from None
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="athena-bench-")) / "db"
    dataset = Path(args.dataset) if args.dataset else None
    try:
        results = asyncio.run(
            run_bench(sizes, data_dir, dataset, args.fields and Path(args.fields))
        )
    finally:
        stop_server(data_dir)
    command = "athena bench " + " ".join(sys.argv[2:])
    report = write_report(results, Path(args.out), command.strip())
    (Path(args.out) / "benchmarks.json").write_text(json.dumps(results, indent=2))
    if args.json:
        print_json(results)
    print(f"wrote {report}")
    return 0
