"""`athena eval`: ingest a dataset into a fresh namespace and measure the whole agent.

Measures retrieval (recall@1, recall@5, MRR over ``queries.jsonl``; rules are
ranked by their best hit and a query counts when any expected rule is in the
top k), decisions (accuracy, confusion table and cited-rule recall over
``submissions.jsonl``), extraction (precision / recall of the rules memory holds
against ``rules.jsonl``; in gold mode this checks the ingestion round trip) and
latencies. Everything field-specific comes from the dataset's ``fields.json``.

Extracted rules carry their own names, so an expected (gold) rule is found when
the answer names it or any stored rule that matches it (`rules_match`: same
text, same action, a shared condition).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from agents.evaluation import rules_match, score_extraction
from agents.jsonl import load_rules, read_objects
from agents.underwriting.service import decide_submission
from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import ExtractedRule
from schemas.submission import SubmissionError

EvalMode = Literal["gold", "extract"]
MODES: tuple[str, ...] = ("gold", "extract")
QUERY_LIMIT = 10
DATASET_FILES = ("fields.json", "knowledge.jsonl", "rules.jsonl", "queries.jsonl")


@dataclass
class EvalReport:
    """Everything `athena eval` measures."""

    dataset: str
    mode: str
    namespace: str
    ingestion: dict[str, Any] = field(default_factory=dict)
    retrieval: dict[str, Any] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    extraction: dict[str, Any] = field(default_factory=dict)
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    consolidation: dict[str, Any] = field(default_factory=dict)
    """Consolidation sets only (`agents.eval_consolidation`): current rules vs the gold."""

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready data."""
        return asdict(self)


def eval_namespace(dataset_dir: str | Path, mode: str) -> Namespace:
    """Return the dataset's eval namespace: ``agent:eval-<hash of its path>-<mode>``."""
    digest = hashlib.sha1(str(Path(dataset_dir).resolve()).encode("utf-8")).hexdigest()[:10]
    return Namespace.agent(f"eval-{digest}-{mode}")


def percentile(values: Sequence[float], q: float) -> float | None:
    """Return the nearest-rank `q` percentile (0-100) of `values`, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return round(ordered[rank - 1], 2)


async def ingest_dataset(
    memory: GraphMemory, namespace: Namespace, dataset: Path, mode: str, fields: DataDictionary
) -> dict[str, Any]:
    """Write a dataset's knowledge into `namespace` with the ingestion agent (offline).

    ``gold`` writes ``rules.jsonl`` as given (no extraction); ``extract`` runs the
    offline extractor over ``knowledge.jsonl``. An LLM key in the environment is
    ignored so the figures are reproducible.
    """
    from agents.ingestion import IngestionPipeline, load_texts
    from agents.models import OfflineRuleExtractor

    settings = memory.settings.model_copy(update={"openai_api_key": None})
    pipeline = IngestionPipeline(
        memory,
        namespace,
        settings=settings,
        fields=fields,
        extractor=OfflineRuleExtractor(fields),
    )
    if mode == "gold":
        report = await pipeline.run_rules(load_rules(dataset / "rules.jsonl"))
    else:
        report = await pipeline.run(load_texts(dataset / "knowledge.jsonl"))
    return {
        "texts": report.texts_processed,
        "rules_extracted": report.rules_extracted,
        "rules_written": report.rules_written,
        "tool_errors": len(report.tool_errors),
        "warnings": len(report.warnings),
        "uncovered": len(report.uncovered),
        "seconds": report.seconds,
    }


Aliases = dict[str, set[str]]


def rule_aliases(gold: Sequence[ExtractedRule], stored: Sequence[ExtractedRule]) -> Aliases:
    """Return gold rule name -> the names that count as finding it (itself and its matches)."""
    return {
        g.rule_name: {g.rule_name} | {s.rule_name for s in stored if rules_match(g, s)}
        for g in gold
    }


def _accepted(expected: Sequence[str], aliases: Aliases) -> set[str]:
    return {name for rule in expected for name in aliases.get(rule, {rule})}


async def evaluate_retrieval(
    analytics: GraphAnalytics, queries: list[dict[str, Any]], aliases: Aliases
) -> tuple[dict[str, Any], list[float]]:
    """Return recall@1, recall@5, MRR and the misses of the queries, and their latencies."""
    hits1 = hits5 = 0
    reciprocal = 0.0
    latencies: list[float] = []
    misses = []
    for row in queries:
        began = time.perf_counter()
        results = await analytics.query(
            row["query"], product_type=row.get("product_type"), limit=QUERY_LIMIT
        )
        latencies.append((time.perf_counter() - began) * 1000.0)
        names = [r.rule_name for r in results]
        expected = _accepted(row.get("expected") or [], aliases)
        ranks = [i for i, name in enumerate(names, start=1) if name in expected]
        best = ranks[0] if ranks else None
        hits1 += best == 1
        hits5 += best is not None and best <= 5
        reciprocal += 1.0 / best if best else 0.0
        if best is None or best > 5:
            misses.append({"id": row.get("id"), "query": row["query"], "top": names[:5]})
    n = len(queries) or 1
    summary = {
        "queries": len(queries),
        "recall_at_1": round(hits1 / n, 4),
        "recall_at_5": round(hits5 / n, 4),
        "mrr": round(reciprocal / n, 4),
        "misses": misses,
    }
    return summary, latencies


async def evaluate_decisions(
    memory: GraphMemory,
    namespace: Namespace,
    submissions: list[dict[str, Any]],
    fields: DataDictionary,
    aliases: Aliases,
) -> tuple[dict[str, Any], list[float]]:
    """Return decision accuracy, confusion table and cited-rule recall, and the latencies."""
    correct = cited_found = cited_total = 0
    confusion: dict[str, dict[str, int]] = {}
    wrong, errors, latencies = [], [], []
    for number, row in enumerate(submissions, start=1):
        row_id = str(row.get("id") or f"line-{number}")
        expected = row.get("expected_decision")
        try:
            began = time.perf_counter()
            decision = await decide_submission(memory, namespace, row["submission"], fields)
            latencies.append((time.perf_counter() - began) * 1000.0)
        except SubmissionError as exc:
            errors.append({"id": row_id, "error": str(exc)})
            continue
        confusion.setdefault(str(expected), {}).setdefault(decision.decision, 0)
        confusion[str(expected)][decision.decision] += 1
        correct += decision.decision == expected
        cited = {c.rule_name for c in decision.cited_rules}
        gold = row.get("expected_rules") or []
        uncited = [g for g in gold if not _accepted([g], aliases) & cited]
        cited_found += len(gold) - len(uncited)
        cited_total += len(gold)
        if decision.decision != expected or uncited:
            wrong.append(
                {
                    "id": row_id,
                    "expected": expected,
                    "decision": decision.decision,
                    "missing_citations": uncited,
                }
            )
    summary = {
        "submissions": len(submissions),
        "accuracy": round(correct / len(submissions), 4) if submissions else None,
        "cited_rule_recall": round(cited_found / cited_total, 4) if cited_total else None,
        "confusion": confusion,
        "wrong": wrong,
        "errors": errors,
    }
    return summary, latencies


async def _check_clearable(memory: GraphMemory, ns: Namespace) -> None:
    """Refuse to wipe a namespace that holds data unless it is an eval namespace."""
    if ns.kind == "agent" and ns.parts[0].startswith("eval-"):
        return
    stats = await memory.stats(ns)
    if sum(stats.nodes_by_label.values()) or stats.sources:
        raise ValueError(
            f"eval clears its namespace, and {ns} already holds data: use an empty "
            "namespace or one named agent:eval-..."
        )


async def prepare_eval(
    memory: GraphMemory,
    dataset_dir: str | Path,
    mode: str,
    files: Sequence[str],
    *,
    namespace: Namespace | str | None,
    fields: DataDictionary | None,
) -> tuple[Path, DataDictionary, Namespace]:
    """Check a set and its mode, and clear the namespace it is ingested into.

    Returns:
        The set's folder, its data dictionary (the one given, else its fields.json) and
        the cleared namespace (the one given, else `eval_namespace`).

    Raises:
        ValueError: Unknown mode, or a namespace that holds data and is not an eval one.
        FileNotFoundError: A file of the set is missing.
    """
    if mode not in MODES:
        raise ValueError(f"unknown eval mode {mode!r}; allowed: {', '.join(MODES)}")
    dataset = Path(dataset_dir)
    for name in files:
        if not (dataset / name).is_file():
            raise FileNotFoundError(f"{dataset} is not a dataset: {name} is missing")
    fields = fields or load_data_dictionary(dataset / "fields.json")
    ns = Namespace.parse(str(namespace)) if namespace else eval_namespace(dataset, mode)
    await _check_clearable(memory, ns)
    await memory.clear(ns)
    return dataset, fields, ns


async def run_eval(
    memory: GraphMemory,
    dataset_dir: str | Path,
    mode: str = "gold",
    *,
    namespace: Namespace | str | None = None,
    fields: DataDictionary | None = None,
) -> EvalReport:
    """Ingest a dataset into a cleared namespace and measure retrieval, decisions, extraction.

    Args:
        memory: An open graph memory.
        dataset_dir: Folder with fields.json, knowledge.jsonl, rules.jsonl, queries.jsonl
            and submissions.jsonl.
        mode: ``gold`` (ingest rules.jsonl) or ``extract`` (extract knowledge.jsonl).
        namespace: Where to ingest; None uses `eval_namespace`. It is cleared first, so
            it must be empty or an ``agent:eval-...`` namespace.
        fields: Data dictionary; None uses the dataset's fields.json.

    Raises:
        ValueError: Unknown mode, a dataset file that is malformed, or a namespace that
            holds data and is not an eval namespace.
        FileNotFoundError: A dataset file is missing.
    """
    dataset, fields, ns = await prepare_eval(
        memory, dataset_dir, mode, DATASET_FILES, namespace=namespace, fields=fields
    )
    report = EvalReport(dataset=str(dataset), mode=mode, namespace=str(ns))
    report.ingestion = await ingest_dataset(memory, ns, dataset, mode, fields)
    analytics = GraphAnalytics(memory, ns, fields)
    gold = load_rules(dataset / "rules.jsonl")
    stored = await analytics.rules()
    aliases = rule_aliases(gold, stored)
    score = score_extraction(gold, stored)
    report.extraction = {
        "precision": round(score.precision, 4),
        "recall": round(score.recall, 4),
        "f1": round(score.f1, 4),
        "gold_rules": score.total_gold,
        "stored_rules": score.total_extracted,
        "missed": score.missed,
    }
    report.retrieval, query_ms = await evaluate_retrieval(
        analytics, read_objects(dataset / "queries.jsonl"), aliases
    )
    submissions = read_objects(dataset / "submissions.jsonl")
    report.decisions, decide_ms = await evaluate_decisions(memory, ns, submissions, fields, aliases)
    report.latency_ms = {
        "query_p50": percentile(query_ms, 50),
        "query_p95": percentile(query_ms, 95),
        "decide_p50": percentile(decide_ms, 50),
        "decide_p95": percentile(decide_ms, 95),
    }
    return report
