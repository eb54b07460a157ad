"""`athena trace RISK`: decision paths RiskFactor -> Rule -> Outcome, for audit."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_memory

if TYPE_CHECKING:
    from memory import GraphMemory
    from memory.underwriting import DecisionPath


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `trace` command."""
    parser = commands.add_parser(
        "trace",
        help="show the decision paths of a risk (risk -> rule -> outcome, mitigants, source)",
    )
    parser.add_argument("risk", metavar="RISK", help="a risk factor name or free text")
    parser.add_argument("--product-type", help="keep this product's rules and ALL rules")
    parser.add_argument("--limit", type=int, default=10, help="most paths (10)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the decision paths of a risk."""
    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")

    from memory.underwriting import paths_text, trace_risk

    settings = settings_from(args)
    namespace = namespace_of(args, settings)

    async def work(memory: GraphMemory) -> list[DecisionPath]:
        return await trace_risk(memory, namespace, args.risk, args.product_type, limit=args.limit)

    paths = with_memory(settings, work)
    if args.json:
        print_json(
            {
                "risk": args.risk,
                "product_type": args.product_type,
                "paths": [p.model_dump(mode="json") for p in paths],
            }
        )
        return 0
    print(paths_text(paths, args.risk))
    return 0
