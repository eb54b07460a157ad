"""`athena eval DATASET_DIR [--mode gold|extract]`: measure retrieval, decisions, extraction."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory

if TYPE_CHECKING:
    from agents.eval_run import EvalReport
    from memory import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `eval` command."""
    parser = commands.add_parser(
        "eval",
        help="ingest a dataset into a fresh namespace and measure the agent",
        description="gold ingests rules.jsonl (no extraction); extract runs the offline "
        "extractor over knowledge.jsonl. Then reports retrieval recall@1/@5 and MRR, decision "
        "accuracy with a confusion table and cited-rule recall, extraction precision/recall "
        "and p50/p95 latencies. A consolidation set (claims.jsonl, conflicts.jsonl) is "
        "ingested one text at a time and scored on its current rules (exactly right, "
        "duplicates, stale, stray, source recall), conflicts and decisions now and as of "
        "earlier dates. The namespace (default agent:eval-<hash>-<mode>) is cleared "
        "first; the dataset's fields.json is used unless --fields is given.",
    )
    parser.add_argument(
        "datasets",
        nargs="+",
        metavar="DATASET_DIR",
        help="folder of a dataset; several are measured one after the other and compared",
    )
    parser.add_argument(
        "--mode",
        choices=("gold", "extract", "both"),
        default="gold",
        help="both runs gold and extract and prints them side by side",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _print_consolidation(report: EvalReport) -> None:
    c, d, ing = report.consolidation, report.decisions, report.ingestion
    print(f"Dataset {report.dataset}  mode {report.mode}  namespace {report.namespace}")
    print(
        f"Ingestion: {ing['texts']} texts one at a time, {ing['claims_written']} claims, "
        f"{ing['ms_per_text_mean']} ms a text (p95 {ing['ms_per_text_p95']})"
    )
    print(
        f"Current rules ({c['stored_current']} stored vs {c['gold_current']} gold): exactly "
        f"right {c['exact']}  duplicates {c['duplicates']}  stale {c['stale']}  "
        f"stray {c['stray']}  source recall {c['source_recall']}"
    )
    k = c["conflicts"]
    print(f"Conflicts: {k['found']} of {k['gold']} flagged ({k['flagged']} open)")
    print(
        f"Decisions: now {d['accuracy_now']} ({d['submissions_now']})  "
        f"as of earlier dates {d['accuracy_as_of']} ({d['submissions_as_of']})"
    )


def _print_report(report: EvalReport) -> None:
    if report.consolidation:
        _print_consolidation(report)
        return
    r, d, x, lat = report.retrieval, report.decisions, report.extraction, report.latency_ms
    print(f"Dataset {report.dataset}  mode {report.mode}  namespace {report.namespace}")
    ing = report.ingestion
    print(
        f"Ingestion: {ing['rules_written']} rules written from {ing['texts']} texts in "
        f"{ing['seconds']:.1f}s ({ing['tool_errors']} tool errors)"
    )
    print(
        f"Retrieval ({r['queries']} queries): recall@1 {r['recall_at_1']:.3f}  "
        f"recall@5 {r['recall_at_5']:.3f}  MRR {r['mrr']:.3f}"
    )
    print(
        f"Decisions ({d['submissions']} submissions): accuracy {d['accuracy']}  "
        f"cited-rule recall {d['cited_rule_recall']}  errors {len(d['errors'])}"
    )
    labels = sorted({*d["confusion"], *(p for row in d["confusion"].values() for p in row)})
    print("  expected \\ decided  " + "  ".join(f"{label[:12]:>12}" for label in labels))
    for expected in labels:
        row = d["confusion"].get(expected, {})
        print(f"  {expected[:19]:<19}" + "  ".join(f"{row.get(p, 0):>12}" for p in labels))
    print(
        f"Extraction: precision {x['precision']:.3f}  recall {x['recall']:.3f}  "
        f"({x['stored_rules']} stored vs {x['gold_rules']} gold)"
    )
    print("Latency ms: " + "  ".join(f"{k} {v}" for k, v in lat.items()))


def consolidation_comparison(reports: list[EvalReport]) -> list[str]:
    """A side-by-side table of consolidation runs, as Markdown lines."""
    columns = [f"{Path(r.dataset).name} ({r.mode})" for r in reports]
    keys = ("exact", "duplicates", "stale", "stray", "source_recall")
    rows = [(key.replace("_", " "), [str(r.consolidation[key]) for r in reports]) for key in keys]
    rows.append(
        (
            "conflicts found",
            [
                f"{r.consolidation['conflicts']['found']} / {r.consolidation['conflicts']['gold']}"
                for r in reports
            ],
        )
    )
    rows += [
        ("decisions now", [str(r.decisions["accuracy_now"]) for r in reports]),
        ("decisions as of", [str(r.decisions["accuracy_as_of"]) for r in reports]),
        ("ms a text", [str(r.ingestion["ms_per_text_mean"]) for r in reports]),
    ]
    lines = ["| | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    return lines + [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]


def comparison(reports: list[EvalReport]) -> list[str]:
    """A side-by-side table of several runs (datasets x modes), as Markdown lines."""
    if all(r.consolidation for r in reports):
        return consolidation_comparison(reports)
    reports = [r for r in reports if not r.consolidation]
    columns = [f"{Path(r.dataset).name} ({r.mode})" for r in reports]
    rows: list[tuple[str, list[str]]] = [
        (
            "extraction precision / recall",
            [f"{r.extraction['precision']:.3f} / {r.extraction['recall']:.3f}" for r in reports],
        ),
        (
            "uncovered rule-like sentences",
            [str(r.ingestion.get("uncovered", 0)) for r in reports],
        ),
        ("decision accuracy", [f"{r.decisions['accuracy']}" for r in reports]),
        ("cited-rule recall", [f"{r.decisions['cited_rule_recall']}" for r in reports]),
        (
            "retrieval recall@1 / recall@5 / MRR",
            [
                f"{r.retrieval['recall_at_1']:.3f} / {r.retrieval['recall_at_5']:.3f} / "
                f"{r.retrieval['mrr']:.3f}"
                for r in reports
            ],
        ),
        ("query p95 ms", [f"{r.latency_ms['query_p95']}" for r in reports]),
    ]
    lines = ["| | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run the evaluation of each dataset (and mode) and print the reports."""
    from agents.eval_consolidation import is_consolidation_set, run_consolidation_eval
    from agents.eval_run import run_eval
    from schemas.fields import load_data_dictionary

    datasets = [Path(d) for d in args.datasets]
    for dataset in datasets:
        if not dataset.is_dir():
            raise FileNotFoundError(f"no such dataset folder: {dataset}")
    if args.namespace and len(datasets) > 1:
        raise ValueError("--namespace works with one dataset; give one DATASET_DIR")
    settings = settings_from(args)
    fields = load_data_dictionary(args.fields) if args.fields else None
    modes = ["gold", "extract"] if args.mode == "both" else [args.mode]
    if args.namespace and len(modes) > 1:
        raise ValueError("--namespace works with one mode; use --mode gold or extract")

    async def work(memory: GraphMemory) -> list[EvalReport]:
        reports = []
        for dataset in datasets:
            runner = run_consolidation_eval if is_consolidation_set(dataset) else run_eval
            for mode in modes:
                reports.append(
                    await runner(memory, dataset, mode, namespace=args.namespace, fields=fields)
                )
        return reports

    reports = with_memory(settings, work)
    if args.json:
        documents: list[dict[str, Any]] = [r.to_dict() for r in reports]
        print_json(documents[0] if len(documents) == 1 else {"reports": documents})
        return 0
    for report in reports:
        _print_report(report)
        print()
    if len(reports) > 1:
        print("\n".join(comparison(reports)))
    return 0
