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
        "texts and the fields they disagree on; --json prints a JSON list. --all also "
        "lists the conflicts a later statement has settled (each marked open or settled).",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list conflicts a later statement settled (their history stays)",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the namespace's open conflicts (with --all, the settled ones too)."""
    from memory.underwriting.history import flagged_conflicts, open_conflicts

    settings = settings_from(args)
    namespace = namespace_of(args, settings)

    async def work(memory: GraphMemory) -> tuple[list[OpenConflict], list[OpenConflict]]:
        still = await open_conflicts(memory, namespace)
        return still, (await flagged_conflicts(memory, namespace) if args.all else still)

    still, found = with_memory(settings, work)
    is_open = {frozenset(c.text_ids) for c in still}
    if args.json:
        rows = [c.to_dict() for c in found]
        if args.all:
            for row, c in zip(rows, found, strict=True):
                row["status"] = "open" if frozenset(c.text_ids) in is_open else "settled"
        print_json(rows)
        return 0
    if not found:
        print(f"No {'' if args.all else 'open '}conflicts in {namespace}.")
        return 0
    for c in found:
        status = "" if frozenset(c.text_ids) in is_open else ", settled since"
        print(f"- [{c.product_type}] {c.rules[0]}  <>  {c.rules[1]}  (since {c.date}{status})")
        print(f"    texts: {', '.join(c.text_ids)}; they disagree on: {', '.join(c.fields)}")
    return 0
