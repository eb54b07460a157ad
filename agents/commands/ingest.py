"""`athena ingest PATH...`: turn knowledge files into graph memory."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from agents.commands.common import add_common_options, print_json, settings_from
from memory import Settings
from schemas.fields import load_data_dictionary
from schemas.ingestion import IngestionReport, KnowledgeText
from schemas.rules import ExtractedRule


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `ingest` command."""
    parser = commands.add_parser(
        "ingest",
        help="extract rules from knowledge files and write them to memory",
        description=(
            "Ingest .txt / .md files and knowledge.jsonl files (extraction), or rules.jsonl "
            "files (pre-extracted rules, no extraction). Every file is validated before "
            "anything is written."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files to ingest")
    parser.add_argument(
        "--rules",
        action="store_true",
        help="treat every .jsonl file as rules.jsonl (default: by file name)",
    )
    parser.add_argument(
        "--texts",
        metavar="KNOWLEDGE.jsonl",
        help="with rules files: the texts the rules were read from (by text_id), stored as "
        "their sources for a reviewer to read; not extracted",
    )
    parser.add_argument("--batch-size", type=int, default=8, help="texts per graph run")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _load(
    paths: list[str], rules_flag: bool, settings: Settings
) -> tuple[list[KnowledgeText], list[ExtractedRule]]:
    """Read and check every file; rule names must be unique across all of them."""
    from agents.ingestion.checks import check_rules
    from agents.ingestion.loaders import is_rules_file, load_texts
    from agents.jsonl import read_rules

    texts: list[KnowledgeText] = []
    labelled: list[tuple[str, ExtractedRule]] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            raise ValueError(f"{path} is a directory; give files (.txt, .md, .jsonl)")
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        if path.suffix == ".jsonl" and (rules_flag or is_rules_file(path)):
            labelled += read_rules(path)
        else:
            texts += load_texts(path)
    rules = [rule for _, rule in labelled]
    check_rules(rules, load_data_dictionary(settings.fields_path), [w for w, _ in labelled])
    return texts, rules


def _given_texts(path: str | None, rules: list[ExtractedRule]) -> dict[str, KnowledgeText]:
    """The texts of `--texts` that the given rules cite, by id.

    Raises:
        ValueError: `--texts` without rules files, or a file that is not knowledge.jsonl.
    """
    if path is None:
        return {}
    if not rules:
        raise ValueError("--texts goes with rules files (the texts the rules were read from)")
    from agents.ingestion.loaders import load_texts

    cited = {r.text_id for r in rules if r.text_id}
    return {t.id: t for t in load_texts(Path(path)) if t.id in cited}


async def _ingest(
    settings: Settings,
    namespace: str,
    texts: list[KnowledgeText],
    rules: list[ExtractedRule],
    batch_size: int,
    show_progress: bool,
    given: dict[str, KnowledgeText] | None = None,
) -> IngestionReport:
    from rich.progress import Progress

    from agents.ingestion.bulk import ingest_rules_bulk
    from memory import GraphMemory

    async with GraphMemory(settings) as memory:
        with Progress(transient=True, disable=not show_progress) as bar:
            tasks = [bar.add_task("rules", total=None)]

            def progress(done: int, total: int) -> None:
                bar.update(tasks[-1], completed=done, total=total)

            parts = []
            if rules:  # pre-extracted: the bulk writer alone (no LangGraph, no models)
                fields = load_data_dictionary(settings.fields_path)
                parts.append(
                    await ingest_rules_bulk(
                        memory,
                        namespace,
                        rules,
                        fields=fields,
                        batch_size=batch_size,
                        on_progress=progress,
                        texts=given,
                    )
                )
            if texts or not rules:
                from agents.ingestion import IngestionPipeline

                tasks.append(bar.add_task("texts", total=len(texts)))
                pipeline = IngestionPipeline(
                    memory, namespace, settings=settings, on_progress=progress
                )
                parts.append(await pipeline.run(texts, batch_size=batch_size))
            report = IngestionReport(mode=parts[0].mode, namespace=namespace)
            for part in parts:
                report.merge(part)
                report.seconds += part.seconds
            report.mode = parts[-1].mode
    return report


def run(args: argparse.Namespace) -> int:
    """Load and validate every file, then ingest and print the report."""
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    settings = settings_from(args)
    namespace = args.namespace or settings.namespace
    texts, rules = _load(args.paths, args.rules, settings)
    given = _given_texts(args.texts, rules)
    show = not args.json and len(texts) + len(rules) > 1
    report = asyncio.run(_ingest(settings, namespace, texts, rules, args.batch_size, show, given))
    failed = _not_written(report, rules)
    status = 1 if failed or report.failed_texts else 0
    if args.json:
        print_json(report.model_dump(mode="json"))
        return status
    print(
        f"{report.mode} ingestion into {report.namespace}: {report.texts_processed} text(s), "
        f"{report.rules_extracted} rule(s) in {report.seconds:.1f}s"
    )
    for kind in ("nodes", "edges", "sources"):
        c = getattr(report, kind)
        print(f"  {kind}: {c.created} created, {c.updated} updated, {c.unchanged} unchanged")
    if report.iterations or report.tool_calls:
        print(f"  agent: {report.iterations} iteration(s), {report.tool_calls} tool call(s)")
    if report.texts_skipped:
        print(f"  skipped: {report.texts_skipped} text(s) already ingested with the same content")
    for row in report.usage:
        cost = f", ~${row.cost_usd:.4f}" if row.cost_usd is not None else ""
        print(
            f"  model {row.model}: {row.requests} request(s), {row.input_tokens} tokens in, "
            f"{row.output_tokens} out{cost}"
        )
    if report.cost_usd is not None:
        print(f"  estimated cost: ${report.cost_usd:.4f}")
    for error in report.tool_errors:
        print(f"  tool error: {error}")
    for warning in report.warnings:
        print(f"  warning: {warning}")
    if report.uncovered:
        print(f"  {len(report.uncovered)} sentence(s) read like rules but yielded none:")
        for item in report.uncovered:
            print(f"    [{item.text_id}] {item.sentence}")
    for error in report.errors:
        print(f"  failed: {error}")
    if report.failed_texts:
        print(
            f"  {len(report.failed_texts)} text(s) failed: {', '.join(report.failed_texts)} "
            "(run the same command again to retry them)"
        )
    if failed:
        print(f"athena ingest: error: {failed}", file=sys.stderr)
    return status


def _not_written(report: IngestionReport, rules: list[ExtractedRule]) -> str | None:
    """Say what was not written (a failed tool call, a given rule missing), else None."""
    # A rule joins the stored rule it restates, amends or bends (`report.joined`); one
    # whose name another text owns is written as "<name> (<text id>)".
    written = set(report.rule_names) | set(report.joined)
    written |= {w.rsplit(" (", 1)[0] for w in written if w.endswith(")") and " (" in w}
    missing = sorted({r.rule_name for r in rules} - written) if rules else []
    short = max(0, len(rules) - report.rules_written) if rules else 0
    if not report.tool_errors and not missing and not short:
        return None
    parts = []
    if report.tool_errors:
        parts.append(f"{len(report.tool_errors)} write(s) failed")
    if short:
        parts.append(f"{short} of {len(rules)} given rule(s) not written")
    return "; ".join(parts or [f"rules not written: {missing}"])
