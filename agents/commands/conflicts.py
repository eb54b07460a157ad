"""`athena conflicts`: open conflicts, current rules that disagree, for a person to settle."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_memory

if TYPE_CHECKING:
    from memory import GraphMemory
    from memory.underwriting.history import OpenConflict


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `conflicts` command."""
    parser = commands.add_parser(
        "conflicts",
        help="list open conflicts: rules of one piece of knowledge that sources disagree on",
        description="Two statements of equal standing and the same date that disagree on a "
        "rule's threshold or action stay current side by side (both fire; the more severe "
        "applies) until a later statement settles them. Lists each with its rules, both "
        "texts and the fields they disagree on; --json prints a JSON list.",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the namespace's open conflicts."""
    from memory.underwriting.history import open_conflicts

    settings = settings_from(args)
    namespace = namespace_of(args, settings)

    async def work(memory: GraphMemory) -> list[OpenConflict]:
        return await open_conflicts(memory, namespace)

    found = with_memory(settings, work)
    if args.json:
        print_json([c.to_dict() for c in found])
        return 0
    if not found:
        print(f"No open conflicts in {namespace}.")
        return 0
    for c in found:
        print(f"- [{c.product_type}] {c.rules[0]}  <>  {c.rules[1]}  (since {c.date})")
        print(f"    texts: {', '.join(c.text_ids)}; they disagree on: {', '.join(c.fields)}")
    return 0
