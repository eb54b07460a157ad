"""`athena trace RISK`: decision paths RiskFactor -> Rule -> Outcome, for audit."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_memory

if TYPE_CHECKING:
    from memory import GraphMemory
    from memory.underwriting import DecisionPath
    from schemas.rules import ExtractedRule


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `trace` command."""
    parser = commands.add_parser(
        "trace",
        help="show the decision paths of a risk (risk -> rule -> outcome, mitigants, source)",
    )
    parser.add_argument("risk", metavar="RISK", help="a risk factor name or free text")
    parser.add_argument("--product-type", help="keep this product's rules and ALL rules")
    parser.add_argument("--limit", type=int, default=10, help="most paths (10)")
    parser.add_argument(
        "--history",
        action="store_true",
        help="also show each rule's versions: when each held, what it said, its sources",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the decision paths of a risk."""
    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")

    from memory.underwriting import paths_text, trace_risk
    from memory.underwriting.history import rule_history

    settings = settings_from(args)
    namespace = namespace_of(args, settings)

    async def work(
        memory: GraphMemory,
    ) -> tuple[list[DecisionPath], dict[str, list[ExtractedRule]]]:
        paths = await trace_risk(memory, namespace, args.risk, args.product_type, limit=args.limit)
        history = {}
        if args.history:
            for path in paths:
                history[path.rule_name] = await rule_history(memory, namespace, path.rule_name)
        return paths, history

    paths, history = with_memory(settings, work)
    if args.json:
        document: dict[str, Any] = {
            "risk": args.risk,
            "product_type": args.product_type,
            "paths": [p.model_dump(mode="json") for p in paths],
        }
        if args.history:
            document["history"] = {
                name: [v.model_dump(mode="json") for v in versions]
                for name, versions in history.items()
            }
        print_json(document)
        return 0
    print(paths_text(paths, args.risk))
    for name, versions in history.items():
        print(f"History of {name}:")
        print("\n".join(versions_text(versions)))
    return 0


def versions_text(versions: list[ExtractedRule]) -> list[str]:
    """One line per version: valid time, action, conditions, soft limit, sources."""
    lines = []
    for v in versions:
        conditions = " AND ".join(f"{c.field} {c.operator} {c.value}" for c in v.conditions)
        soft = f", soft limit {v.soft_limit:g}" if v.soft_limit is not None else ""
        kind = f" ({v.threshold_type}{soft})" if v.threshold_type else ""
        texts = ", ".join(s.text_id or s.source for s in v.sources)
        lines.append(
            f"  {v.valid_from or '?'} -> {v.valid_to or 'now'}: {v.action} when {conditions}"
            f"{kind}  [texts: {texts or '?'}]"
        )
    return lines
