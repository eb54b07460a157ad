"""`athena jobs [--json]`: list the ingestion jobs: pending, running, retrying, done, dead."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory
from agents.commands.worker import add_queue_options, queue_of

if TYPE_CHECKING:
    from memory import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `jobs` command."""
    parser = commands.add_parser("jobs", help="list session-ingestion jobs and their status")
    parser.add_argument("--status", help="only jobs of this status")
    add_queue_options(parser)
    add_common_options(parser, namespace=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the jobs."""

    async def load(memory: GraphMemory) -> dict[str, Any]:
        queue = queue_of(memory, args)
        jobs = [j.to_json() for j in await queue.jobs()]
        for job in jobs:
            job["payload"] = {k: v for k, v in job["payload"].items() if k != "transcript"}
        if args.status:
            jobs = [j for j in jobs if j["status"] == args.status]
        return {"counts": await queue.counts(), "jobs": jobs}

    data = with_memory(settings_from(args), load)
    if args.json:
        print_json(data)
        return 0
    print("  ".join(f"{k} {v}" for k, v in data["counts"].items()))
    for job in data["jobs"]:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["enqueued_at"] or 0))
        line = f"{job['status']:<9} {job['id']}  attempts {job['attempts']}  enqueued {when}"
        print(line + (f"  error: {job['error']}" if job["error"] else ""))
    return 0
