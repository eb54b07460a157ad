"""`athena visualize [--rule NAME | --risk NAME [--limit N]] [-o FILE.html|.png]`.

With `--rule` or `--risk`, a focused view: one rule with its risk factors, outcome,
mitigants and sources, or one risk factor with the rules it triggers (and theirs).
Without either, every node of the namespace (readable up to a few dozen rules).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_analytics, with_memory

if TYPE_CHECKING:
    from memory import GraphMemory, Namespace
    from memory.underwriting import GraphAnalytics, Neighbourhood

RISK_LIMIT = 25
SUFFIXES = (".png", ".html", ".htm")
HINT = (
    "hint: `athena visualize --risk NAME` or `--rule NAME` draws a readable focused view "
    "instead of the whole graph"
)


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `visualize` command."""
    parser = commands.add_parser(
        "visualize",
        help="write a rule's or a risk factor's neighbourhood (or the whole graph) "
        "as an interactive HTML page or a PNG picture",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="athena-graph.html",
        metavar="FILE",
        help="FILE.html (interactive, self-contained) or FILE.png (default athena-graph.html)",
    )
    focus = parser.add_mutually_exclusive_group()
    focus.add_argument(
        "--rule", metavar="NAME", help="one rule: its risk factors, outcome, mitigants, sources"
    )
    focus.add_argument(
        "--risk",
        metavar="NAME",
        help="one risk factor (exact name, any case): the rules it triggers and theirs",
    )
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help=f"with --risk: most rules drawn ({RISK_LIMIT}); the rest are counted",
    )
    parser.add_argument("--title", help="picture title (default: what is drawn and where)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Draw a focused view, or the whole namespace, to a file."""
    out = Path(args.output)
    if out.suffix.lower() not in SUFFIXES:
        raise ValueError(f"visualize writes .png or .html files, got {str(out)!r}")
    if args.limit is not None and args.risk is None:
        raise ValueError("--limit applies to --risk only")
    limit = RISK_LIMIT if args.limit is None else args.limit
    if limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    if args.rule is None and args.risk is None:
        return _whole(args, out)
    settings = settings_from(args)
    namespace = namespace_of(args, settings)

    async def work(memory: GraphMemory) -> tuple[Path, Neighbourhood]:
        return await _focused(memory, namespace, args, out, limit)

    path, hood = with_memory(settings, work)
    summary: dict[str, Any] = {
        "path": str(path),
        "nodes": len(hood.nodes),
        "edges": len(hood.edges),
        "left_off": hood.left_off,
    }
    if args.json:
        print_json(summary)
    else:
        more = f" ({hood.left_off} more rules left off; raise --limit)" if hood.left_off else ""
        print(f"wrote {path}{more}")
    return 0


async def _focused(
    memory: GraphMemory, namespace: Namespace, args: argparse.Namespace, out: Path, limit: int
) -> tuple[Path, Neighbourhood]:
    """Read the asked-for neighbourhood and draw it."""
    from memory.underwriting import draw_neighbourhood, risk_neighbourhood, rule_neighbourhood

    if args.rule is not None:
        hood = await rule_neighbourhood(memory, namespace, args.rule)
        title = f"Rule {_name(hood, args.rule)} ({namespace})"
    else:
        hood = await risk_neighbourhood(memory, namespace, args.risk, limit=limit)
        rules = sum(1 for n in hood.nodes if n.kind == "Rule")
        shown = f"{rules} of {rules + hood.left_off} rules" if hood.left_off else f"{rules} rules"
        title = f"Risk factor {_name(hood, args.risk)}: {shown} ({namespace})"
    return draw_neighbourhood(hood, out, args.title or title), hood


def _name(hood: Neighbourhood, asked: str) -> str:
    """The centre's stored name (the spelling in the graph), else what was asked."""
    centre = hood.node(hood.center)
    return centre.name if centre is not None else asked


def _whole(args: argparse.Namespace, out: Path) -> int:
    """Every node of the namespace (the command's behaviour before focused views)."""

    async def work(analytics: GraphAnalytics) -> Path:
        return await analytics.visualize(out, title=args.title)

    path = with_analytics(args, work)
    print(HINT, file=sys.stderr)
    if args.json:
        print_json({"path": str(path)})
    else:
        print(f"wrote {path}")
    return 0
