"""`athena worker [--drain]`: consume session-ingestion jobs from the durable queue.

Also holds the queue options and helpers `chat`, `jobs` and `sweep` share.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory
from memory.sessions import (
    DEFAULT_BACKOFF_SECONDS,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_PREFIX,
    DEFAULT_VISIBILITY_TIMEOUT,
)

if TYPE_CHECKING:
    from memory import GraphMemory
    from memory.sessions import JobQueue


def add_queue_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that address and tune the job queue."""
    parser.add_argument("--queue", default=DEFAULT_PREFIX, help="queue key prefix (athena:{jobs})")
    parser.add_argument(
        "--visibility-timeout",
        type=float,
        default=DEFAULT_VISIBILITY_TIMEOUT,
        help="seconds before a silent worker's job is re-delivered (30)",
    )
    parser.add_argument(
        "--max-attempts", type=int, default=DEFAULT_MAX_ATTEMPTS, help="failures before dead (3)"
    )
    parser.add_argument(
        "--backoff",
        type=float,
        default=DEFAULT_BACKOFF_SECONDS,
        help="seconds before the first retry, doubled for each next (2)",
    )


def queue_of(memory: GraphMemory, args: argparse.Namespace) -> JobQueue:
    """Return the queue the command's options address."""
    from memory.sessions import JobQueue

    return JobQueue(
        memory.db,
        prefix=args.queue,
        visibility_timeout=args.visibility_timeout,
        max_attempts=args.max_attempts,
        backoff_seconds=args.backoff,
    )


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `worker` command."""
    parser = commands.add_parser(
        "worker",
        help="run session-ingestion jobs from the queue",
        description="Consume ingestion jobs (ended chat sessions) and write what they teach "
        "into the agent namespace. Runs until interrupted; --drain exits when the queue is empty.",
    )
    parser.add_argument("--drain", action="store_true", help="process what is queued, then exit")
    parser.add_argument("--name", help="consumer name (default: host-pid-random)")
    parser.add_argument("--pause-after-write", type=float, default=0.0, help=argparse.SUPPRESS)
    add_queue_options(parser)
    add_common_options(parser, namespace=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the worker."""
    from agents.worker import work

    async def main(memory: GraphMemory) -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        return await work(
            memory,
            queue_of(memory, args),
            drain=args.drain,
            consumer=args.name,
            stop=stop,
            pause_after_write=args.pause_after_write,
        )

    handled = with_memory(settings_from(args), main)
    if args.json:
        print_json({"handled": handled})
    else:
        print(f"worker: {handled} job(s) handled")
    return 0
