"""`athena query TEXT` / `athena query --batch QUERIES.jsonl`: rules matching a text.

Also holds the small helpers the other read commands share (namespace, memory).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from agents.commands.common import add_common_options, print_json, settings_from
from memory import Namespace, Settings

if TYPE_CHECKING:
    from memory import GraphMemory
    from memory.underwriting import GraphAnalytics, RuleHit

T = TypeVar("T")


def namespace_of(args: argparse.Namespace, settings: Settings) -> Namespace:
    """Return `--namespace`, else the settings' namespace (ATHENA_NAMESPACE)."""
    return Namespace.parse(getattr(args, "namespace", None) or settings.namespace)


def with_memory(settings: Settings, work: Callable[[GraphMemory], Awaitable[T]]) -> T:
    """Open the graph memory of `settings`, run `work` on it, close it, return the result."""
    from memory import GraphMemory

    async def main() -> T:
        async with GraphMemory(settings) as memory:
            return await work(memory)

    return asyncio.run(main())


def with_analytics(args: argparse.Namespace, work: Callable[[GraphAnalytics], Awaitable[T]]) -> T:
    """Run `work` on analytics over the command's namespace."""
    from memory.underwriting import GraphAnalytics

    settings = settings_from(args)
    namespace = namespace_of(args, settings)
    return with_memory(settings, lambda memory: work(GraphAnalytics(memory, namespace)))


def _as_of(text: str) -> datetime:
    """Parse `--as-of` (ISO 8601; a time without a zone is UTC)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--as-of expects an ISO time like 2026-11-22T10:00:00Z, got {text!r}"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `query` command."""
    parser = commands.add_parser(
        "query",
        help="find the rules that match a text (one per rule, best first)",
        description="Search rule memory by meaning. With --batch, read a JSONL file of "
        '{"id", "query", "product_type"} lines and print one JSON line per query.',
    )
    parser.add_argument("text", nargs="?", metavar="TEXT", help="what to look for")
    parser.add_argument("--batch", metavar="QUERIES.jsonl", help="answer a file of queries")
    parser.add_argument("--product-type", help="keep this product's rules and ALL rules")
    parser.add_argument("--limit", type=int, default=10, help="most rules per query (10)")
    parser.add_argument(
        "--as-of",
        type=_as_of,
        metavar="TIME",
        help="ISO time: the rules as they stood then (default: the current rules)",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def hit_json(hit: RuleHit) -> dict[str, Any]:
    """Return one result of the stable JSON contract (rule_name, score, edge...)."""
    return {
        "rule_name": hit.rule_name,
        "score": round(hit.score, 6),
        **hit.model_dump(exclude={"rule_name", "score"}),
    }


def read_queries(path: str) -> list[dict[str, Any]]:
    """Read a queries JSONL file.

    Raises:
        ValueError: A line is not a JSON object with a non-empty "query" text.
    """
    from agents.jsonl import read_jsonl

    rows = []
    for number, row in read_jsonl(path):
        if not isinstance(row.get("query"), str):
            raise ValueError(
                f'{path}:{number}: expected {{"id": ..., "query": TEXT, '
                f'"product_type": P or null}}, got {json.dumps(row)[:80]}'
            )
        rows.append({**row, "id": row.get("id", f"line-{number}")})
    return rows


def run(args: argparse.Namespace) -> int:
    """Answer one query or a batch."""
    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")
    if (args.text is None) == (args.batch is None):
        raise ValueError("give either a query TEXT or --batch QUERIES.jsonl")
    if args.batch:
        rows = read_queries(args.batch)

        async def batch(analytics: GraphAnalytics) -> list[dict[str, Any]]:
            out = []
            for row in rows:
                product = row.get("product_type") or args.product_type
                hits = await analytics.query(
                    row["query"], product_type=product, limit=args.limit, as_of=args.as_of
                )
                out.append({"id": row["id"], "results": [hit_json(h) for h in hits]})
            return out

        for line in with_analytics(args, batch):
            print_json(line)
        return 0

    async def single(analytics: GraphAnalytics) -> list[RuleHit]:
        return await analytics.query(
            args.text, product_type=args.product_type, limit=args.limit, as_of=args.as_of
        )

    hits = with_analytics(args, single)
    if args.json:
        print_json(
            {
                "query": args.text,
                "product_type": args.product_type,
                "results": [hit_json(h) for h in hits],
            }
        )
        return 0
    if not hits:
        print("no matching rules")
    for rank, hit in enumerate(hits, start=1):
        print(f"{rank:>2}. {hit.rule_name}  (score {hit.score:.3f})")
        print(f"    {hit.source} --{hit.relation}--> {hit.target}")
        print(f"    {hit.fact[:200]}")
    return 0
