"""`athena demo`: ingest sample knowledge, show the rules, decide sample submissions."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from agents.commands.common import add_common_options, settings_from
from memory import Namespace, Settings
from schemas.fields import DataDictionary, load_data_dictionary

DEMO_NAMESPACE = "agent:athena-demo"


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `demo` command."""
    parser = commands.add_parser(
        "demo",
        help="ingest sample knowledge and decide sample submissions, offline",
        description=(
            "Ingests the sample knowledge texts that ship with Athena Memory (or a dataset "
            "folder's knowledge.jsonl) through the ingestion graph into a fresh namespace, "
            "shows the rules it extracted, then runs the underwriting agent on sample "
            "submissions and prints each decision with its reasoning chain."
        ),
    )
    parser.add_argument("--dataset", help="dataset folder (knowledge.jsonl, submissions.jsonl)")
    parser.add_argument("--limit", type=int, default=5, help="submissions to decide (default 5)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _inputs(dataset: str | None) -> tuple[Path, list[dict[str, Any]], Path | None]:
    """Return the knowledge file, the submissions and the dataset's fields.json (if any)."""
    if dataset is None:
        base = resources.files("agents").joinpath("data/demo")
        knowledge, subs, fields = (
            Path(str(base / "knowledge.jsonl")),
            base / "submissions.jsonl",
            None,
        )
    else:
        root = Path(dataset)
        if not (root / "knowledge.jsonl").is_file():
            raise FileNotFoundError(f"{root} has no knowledge.jsonl")
        knowledge, subs = root / "knowledge.jsonl", root / "submissions.jsonl"
        fields = root / "fields.json" if (root / "fields.json").is_file() else None
    lines = Path(str(subs)).read_text("utf-8").splitlines() if Path(str(subs)).is_file() else []
    return knowledge, [json.loads(line) for line in lines if line.strip()], fields


def _rules_table(rules: list[Any]) -> Table:
    table = Table(title="Rules in memory", show_lines=False)
    for column in ("rule", "product", "action", "when", "type", "mitigated by"):
        table.add_column(column, overflow="fold")
    for r in rules:
        when = " AND ".join(f"{c.field} {c.operator} {c.value}" for c in r.conditions) or "-"
        kind = r.threshold_type or "-"
        if r.soft_limit is not None:
            kind += f" (up to {r.soft_limit:g})"
        table.add_row(
            r.rule_name, r.product_type, r.action, when, kind, ", ".join(r.mitigant_fields) or "-"
        )
    return table


async def _demo(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    from agents.ingestion import IngestionPipeline, load_texts
    from agents.underwriting.service import decide_submission
    from memory import GraphMemory
    from memory.underwriting import stored_rules

    knowledge, submissions, fields_path = _inputs(args.dataset)
    fields: DataDictionary = load_data_dictionary(fields_path or settings.fields_path)
    ns = Namespace.parse(args.namespace or DEMO_NAMESPACE)
    started = time.perf_counter()
    async with GraphMemory(settings) as memory:
        await memory.clear(ns)
        texts = load_texts(knowledge)
        console.print(
            f"[bold]Ingesting[/] {len(texts)} knowledge texts into [cyan]{ns}[/] "
            f"({'LLM' if settings.llm_enabled else 'offline'} mode) ..."
        )
        report = await IngestionPipeline(memory, ns, fields=fields).run(texts)
        console.print(
            f"  {report.rules_written} rules written, {report.nodes.created} nodes and "
            f"{report.edges.created} edges created in {report.seconds:.1f}s"
        )
        for warning in report.warnings:
            console.print(f"  [yellow]warning:[/] {warning}")
        console.print(_rules_table(await stored_rules(memory, ns)))
        for item in submissions[: args.limit]:
            as_of = item.get("as_of")  # a consolidation set's dated submission
            decision = await decide_submission(memory, ns, item["submission"], fields, as_of=as_of)
            colour = {"decline": "red", "refer": "yellow", "approve": "green"}.get(
                decision.decision, "cyan"
            )
            body = "\n".join(
                [f"[bold]submission[/] {escape(json.dumps(item['submission']))}", ""]
                + [f"- {escape(step)}" for step in decision.reasoning_chain]
                + (
                    [f"\n[dim]missing fields: {', '.join(decision.missing_fields)}[/]"]
                    if decision.missing_fields
                    else []
                )
            )
            when = f" as of {as_of}" if as_of else ""
            title = (
                f"{item.get('id', '?')}{when}: [{colour} bold]{decision.decision}[/] "
                f"({decision.latency_ms:.0f} ms)"
            )
            console.print(Panel(body, title=title, title_align="left"))
    console.print(f"[dim]demo finished in {time.perf_counter() - started:.1f}s[/]")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the demo."""
    return asyncio.run(_demo(args, settings_from(args), Console()))
