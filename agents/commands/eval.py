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
        "and p50/p95 latencies. The namespace (default agent:eval-<hash>-<mode>) is cleared "
        "first; the dataset's fields.json is used unless --fields is given.",
    )
    parser.add_argument("dataset", metavar="DATASET_DIR", help="folder of the dataset")
    parser.add_argument("--mode", choices=("gold", "extract"), default="gold")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _print_report(report: EvalReport) -> None:
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


def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print its report."""
    from agents.eval_run import run_eval
    from schemas.fields import load_data_dictionary

    dataset = Path(args.dataset)
    if not dataset.is_dir():
        raise FileNotFoundError(f"no such dataset folder: {dataset}")
    settings = settings_from(args)
    fields = load_data_dictionary(args.fields) if args.fields else None

    async def work(memory: GraphMemory) -> EvalReport:
        return await run_eval(memory, dataset, args.mode, namespace=args.namespace, fields=fields)

    report = with_memory(settings, work)
    document: dict[str, Any] = report.to_dict()
    if args.json:
        print_json(document)
    else:
        _print_report(report)
    return 0
