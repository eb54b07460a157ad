"""`athena visualize [-o FILE.html|.png]`: draw a namespace's graph, coloured by node type."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json
from agents.commands.query import with_analytics

if TYPE_CHECKING:
    from memory.underwriting import GraphAnalytics


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `visualize` command."""
    parser = commands.add_parser(
        "visualize",
        help="write the graph as an interactive HTML page or a PNG picture",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="athena-graph.html",
        metavar="FILE",
        help="FILE.html (interactive, self-contained) or FILE.png (default athena-graph.html)",
    )
    parser.add_argument("--title", help="picture title (default: the namespace)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Draw the graph to a file."""

    async def work(analytics: GraphAnalytics) -> Path:
        return await analytics.visualize(args.output, title=args.title)

    path = with_analytics(args, work)
    if args.json:
        print_json({"path": str(path)})
    else:
        print(f"wrote {path}")
    return 0
