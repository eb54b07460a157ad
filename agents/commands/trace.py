"""`athena trace RISK`: decision paths RiskFactor -> Rule -> Outcome, for audit."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json
from agents.commands.query import with_analytics

if TYPE_CHECKING:
    from memory.underwriting import DecisionPath, GraphAnalytics


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

    async def work(analytics: GraphAnalytics) -> list[DecisionPath]:
        return await analytics.trace(args.risk, product_type=args.product_type, limit=args.limit)

    paths = with_analytics(args, work)
    if args.json:
        print_json(
            {
                "risk": args.risk,
                "product_type": args.product_type,
                "paths": [p.model_dump(mode="json") for p in paths],
            }
        )
        return 0
    if not paths:
        print("no decision paths found")
    for path in paths:
        print(f"{path.describe()}  [{path.product_type}, {path.action}]")
        if path.conditions:
            conditions = " AND ".join(
                f"{c['field']} {c['operator']} {c['value']}" for c in path.conditions
            )
            print(f"    fires when: {conditions}")
        if path.threshold:
            t = path.threshold
            print(
                f"    threshold: {t.get('field')} {t.get('operator')} {t.get('value')} "
                f"({path.threshold_type or 'unspecified'}"
                + (f", soft limit {path.soft_limit:g}" if path.soft_limit is not None else "")
                + ")"
            )
        if path.historical_exceptions:
            print(f"    exceptions: {path.historical_exceptions}")
        if path.mitigants:
            print(f"    mitigants: {'; '.join(path.mitigants)}")
        print(f"    source: {path.source} ({path.source_type})")
    return 0
