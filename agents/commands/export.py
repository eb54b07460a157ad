"""`athena export [-o FILE]`: every current rule, in rules.jsonl shape plus ids and provenance."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json
from agents.commands.query import with_analytics
from schemas.rules import iso_day

if TYPE_CHECKING:
    from memory.underwriting import GraphAnalytics


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `export` command."""
    parser = commands.add_parser(
        "export",
        help="export every current rule (or, --as-of, every rule as it stood then) as one "
        "JSON object {namespace, count, rules}; each rule carries its sources, valid_from "
        "and valid_to",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
    parser.add_argument(
        "--as-of",
        metavar="DATE",
        help="the rules as they stood on this ISO day (or time), each in its version then",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _check_writable(path: Path) -> None:
    """Refuse an output path that cannot be a file, before any work is done.

    Raises:
        ValueError: The path is a directory, or its folder does not exist.
    """
    if path.is_dir():
        raise ValueError(f"-o {path}: is a directory; give a file name, e.g. {path / 'rules.json'}")
    if not path.parent.is_dir():
        raise ValueError(f"-o {path}: folder {path.parent} does not exist")


def run(args: argparse.Namespace) -> int:
    """Export the namespace's rules."""
    if args.output:
        _check_writable(Path(args.output))

    as_of = iso_day(args.as_of) if args.as_of else None

    async def work(analytics: GraphAnalytics) -> dict[str, Any]:
        if as_of is not None:
            from memory.underwriting.history import rules_as_of

            then = await rules_as_of(analytics.memory, analytics.namespace, as_of)
            rules = [r.model_dump(mode="json") for r in then]
            return {
                "namespace": str(analytics.namespace),
                "as_of": as_of,
                "count": len(rules),
                "rules": rules,
            }
        rules = await analytics.export()
        return {"namespace": str(analytics.namespace), "count": len(rules), "rules": rules}

    document = with_analytics(args, work)
    if args.output:
        Path(args.output).write_text(json.dumps(document, indent=2, ensure_ascii=False), "utf-8")
        summary = {
            "path": args.output,
            "namespace": document["namespace"],
            "count": document["count"],
        }
        if args.json:
            print_json(summary)
        else:
            print(f"wrote {document['count']} rules of {document['namespace']} to {args.output}")
    elif args.json:
        print_json(document)
    else:
        print(json.dumps(document, indent=2, ensure_ascii=False))
    return 0
