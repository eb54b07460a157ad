"""`athena sweep`: form the pending memories of cold (idle) chat sessions."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory
from memory.sessions import CONSIDER_COLD_AFTER_MINUTES

if TYPE_CHECKING:
    from memory import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `sweep` command."""
    parser = commands.add_parser(
        "sweep", help="form memories of chat sessions idle longer than a window"
    )
    parser.add_argument(
        "--cold-after",
        type=float,
        default=CONSIDER_COLD_AFTER_MINUTES,
        metavar="MINUTES",
        help=f"idle minutes that make a session cold ({CONSIDER_COLD_AFTER_MINUTES:g})",
    )
    add_common_options(parser, namespace=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Sweep once and print the sessions that formed memories."""
    from agents import models
    from memory.sessions import SessionStore

    if args.cold_after < 0:
        raise ValueError(f"--cold-after must be >= 0, got {args.cold_after}")
    settings = settings_from(args)

    async def sweep(memory: GraphMemory) -> list[str]:
        store = SessionStore(memory, former=models.memory_former(settings))
        return await store.sweep_cold_sessions(cold_after_minutes=args.cold_after)

    formed = with_memory(settings, sweep)
    if args.json:
        print_json({"formed": formed})
    else:
        print(f"sweep: {len(formed)} cold session(s) formed memories")
        for sid in formed:
            print(f"  {sid}")
    return 0
