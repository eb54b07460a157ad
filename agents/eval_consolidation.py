"""`athena eval` on a consolidation set: knowledge that accumulates, measured.

A consolidation set (shared/datasets/consolidation/README.md) holds texts in date
order, the claims each text makes, every version of every consolidated rule, dated
submissions and the conflicts memory must flag. Its texts (``extract``) or claims
(``gold``) are ingested one text at a time, in file order, into a fresh namespace;
then the memory is scored:

* current rules exactly right: a gold current rule has a stored current rule of the
  same piece of knowledge (signature) with the same action, condition values, soft
  limit and mitigant fields (on a whole-number field, ``int`` in the data dictionary,
  ``gte 9`` is the limit ``gt 8`` and ``lte 9`` is ``lt 10``: the same rule in other
  words, as ``agents.ingestion.conform`` already treats it when claims meet);
* duplicates: stored current rules beyond one per gold current rule;
* stale: stored current rules that equal a gold version that has ended, and no
  current one; stray: stored current rules of no gold current rule's signature;
* source recall: of the gold current rules' texts, the share the stored rule cites;
* decisions now and as of earlier dates; conflicts flagged (by their two texts);
* ingestion time per text.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.eval_run import EvalReport, percentile, prepare_eval
from agents.jsonl import read_objects
from agents.underwriting.service import decide_submission
from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics
from memory.underwriting.consolidate import signature
from memory.underwriting.history import flagged_conflicts, open_conflicts
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from schemas.submission import SubmissionError

CONSOLIDATION_FILES = (
    "fields.json",
    "knowledge.jsonl",
    "claims.jsonl",
    "rules.jsonl",
    "submissions.jsonl",
    "conflicts.jsonl",
)


def is_consolidation_set(dataset: Path) -> bool:
    """True for a folder in the consolidation format (claims and conflicts files)."""
    return (dataset / "claims.jsonl").is_file() and (dataset / "conflicts.jsonl").is_file()


def _sig(rule: dict[str, Any] | ExtractedRule) -> str:
    if isinstance(rule, ExtractedRule):
        return signature(rule.product_type, rule.conditions)
    return signature(
        str(rule["product_type"]),
        [(c["field"], c["operator"], c["value"]) for c in rule["conditions"]],
    )


def _norm(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return sorted(_norm(v) for v in value)
    if isinstance(value, str):
        return value.casefold()
    return value


#: A whole-number limit in its strict form: ``gte 9`` is ``gt 8``, ``lte 9`` is ``lt 10``.
_STRICT = {"gte": ("gt", -1), "lte": ("lt", 1)}


def _strict(condition: dict[str, Any], integers: frozenset[str]) -> tuple[str, str, str]:
    """A condition as compared: field, operator, value (whole-number limits strict)."""
    operator, value = condition["operator"], _norm(condition["value"])
    if condition["field"] in integers and operator in _STRICT and isinstance(value, int):
        operator, step = _STRICT[operator]
        value += step
    return condition["field"], operator, repr(value)


def _terms(rule: dict[str, Any], integers: frozenset[str] = frozenset()) -> tuple[Any, ...]:
    """What "exactly right" compares: action, condition values, soft limit, mitigants."""
    values = sorted(_strict(c, integers) for c in rule["conditions"])
    return (
        rule["action"],
        tuple(values),
        _norm(rule.get("soft_limit")),
        tuple(sorted(rule.get("mitigant_fields") or [])),
    )


async def _ingest(
    memory: GraphMemory, ns: Namespace, dataset: Path, mode: str, fields: DataDictionary
) -> dict[str, Any]:
    """Ingest the set one text at a time in file order; return counts and time per text."""
    from agents.ingestion import IngestionPipeline, load_texts
    from agents.jsonl import load_rules
    from agents.models import OfflineRuleExtractor

    settings = memory.settings.model_copy(update={"openai_api_key": None})
    pipeline = IngestionPipeline(
        memory, ns, settings=settings, fields=fields, extractor=OfflineRuleExtractor(fields)
    )
    per_text: list[float] = []
    written = uncovered = 0
    if mode == "gold":
        claims = load_rules(dataset / "claims.jsonl")
        groups: dict[str, list[ExtractedRule]] = {}
        for claim in claims:
            groups.setdefault(claim.text_id or claim.rule_name, []).append(claim)
        for group in groups.values():
            began = time.perf_counter()
            report = await pipeline.run_rules(group)
            per_text.append((time.perf_counter() - began) * 1000.0)
            written += report.rules_written
    else:
        texts: list[KnowledgeText] = load_texts(dataset / "knowledge.jsonl")
        for text in texts:
            began = time.perf_counter()
            report = await pipeline.run([text])
            per_text.append((time.perf_counter() - began) * 1000.0)
            written += report.rules_written
            uncovered += len(report.uncovered)
    return {
        "texts": len(per_text),
        "claims_written": written,
        "uncovered": uncovered,
        "ms_per_text_mean": round(sum(per_text) / len(per_text), 2) if per_text else None,
        "ms_per_text_p95": percentile(per_text, 95),
    }


def score_rules(
    gold: Sequence[dict[str, Any]],
    stored: Sequence[ExtractedRule],
    integers: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Score the stored current rules against the gold versions (see the module).

    Args:
        gold: The set's rule versions (``rules.jsonl``).
        stored: The stored current rules.
        integers: The whole-number fields, whose limits compare in their strict form.

    Returns:
        The measures, with the wrong and stray rules named.
    """
    current = [g for g in gold if g.get("valid_to") is None]
    ended = {(_sig(g), _terms(g, integers)) for g in gold if g.get("valid_to") is not None}
    docs = [(s, s.model_dump(mode="json")) for s in stored]
    used: set[int] = set()
    exact = 0
    source_hits = source_total = 0
    wrong = []
    for g in current:
        same = [i for i, (s, _) in enumerate(docs) if _sig(s) == _sig(g) and i not in used]
        right = [i for i in same if _terms(docs[i][1], integers) == _terms(g, integers)]
        pick: int | None = (right or same)[0] if right or same else None
        texts = set(g.get("text_ids") or [])
        source_total += len(texts)
        if pick is None:
            wrong.append({"rule_key": g.get("rule_key"), "stored": None})
            continue
        used.add(pick)
        rule = docs[pick][0]
        source_hits += len(texts & {s.text_id for s in rule.sources})
        if right:
            exact += 1
        else:
            wrong.append({"rule_key": g.get("rule_key"), "stored": rule.rule_name})
    gold_sigs = {_sig(g) for g in current}
    leftover = [i for i in range(len(docs)) if i not in used]
    stale = [i for i in leftover if (_sig(docs[i][0]), _terms(docs[i][1], integers)) in ended]
    duplicates = [i for i in leftover if i not in stale and _sig(docs[i][0]) in gold_sigs]
    stray = [i for i in leftover if i not in stale and _sig(docs[i][0]) not in gold_sigs]
    return {
        "gold_current": len(current),
        "stored_current": len(stored),
        "exact": round(exact / len(current), 4) if current else None,
        "duplicates": len(duplicates),
        "stale": len(stale),
        "stray": len(stray),
        "source_recall": round(source_hits / source_total, 4) if source_total else None,
        "wrong": wrong,
        "stray_rules": [docs[i][0].rule_name for i in stray],
    }


async def _decisions(
    memory: GraphMemory, ns: Namespace, rows: list[dict[str, Any]], fields: DataDictionary
) -> tuple[dict[str, Any], list[float]]:
    tally = {"now": [0, 0], "as_of": [0, 0]}
    wrong, latencies = [], []
    for number, row in enumerate(rows, start=1):
        kind = "as_of" if row.get("as_of") else "now"
        try:
            began = time.perf_counter()
            decision = await decide_submission(
                memory, ns, row["submission"], fields, as_of=row.get("as_of")
            )
            latencies.append((time.perf_counter() - began) * 1000.0)
        except SubmissionError as exc:
            wrong.append({"id": row.get("id", number), "error": str(exc)})
            tally[kind][1] += 1
            continue
        ok = decision.decision == row.get("expected_decision")
        tally[kind][0] += ok
        tally[kind][1] += 1
        if not ok:
            wrong.append(
                {
                    "id": row.get("id", number),
                    "as_of": row.get("as_of"),
                    "expected": row.get("expected_decision"),
                    "decision": decision.decision,
                }
            )
    summary: dict[str, Any] = {
        f"accuracy_{kind}": round(hit / n, 4) if n else None for kind, (hit, n) in tally.items()
    }
    summary |= {f"submissions_{kind}": n for kind, (_, n) in tally.items()}
    summary["wrong"] = wrong
    return summary, latencies


async def _conflicts(
    memory: GraphMemory, ns: Namespace, gold: list[dict[str, Any]]
) -> dict[str, Any]:
    # A gold conflict is found when memory flagged it, open now or settled since by a
    # later statement (the dataset lists a disagreement even when a later text settles it).
    found = await flagged_conflicts(memory, ns)
    still_open = {frozenset(c.text_ids) for c in await open_conflicts(memory, ns)}
    flagged = {frozenset(c.text_ids) for c in found}
    hit = [g["id"] for g in gold if frozenset(g["text_ids"]) in flagged]
    return {
        "gold": len(gold),
        "flagged": len(found),
        "open": len(still_open),
        "found": len(hit),
        "missed": [g["id"] for g in gold if g["id"] not in hit],
    }


async def run_consolidation_eval(
    memory: GraphMemory,
    dataset_dir: str | Path,
    mode: str = "gold",
    *,
    namespace: Namespace | str | None = None,
    fields: DataDictionary | None = None,
) -> EvalReport:
    """Ingest a consolidation set into a cleared namespace and score what memory holds.

    Args:
        memory: An open graph memory.
        dataset_dir: A consolidation set (see the module).
        mode: ``gold`` (its claims, text by text) or ``extract`` (its texts, offline).
        namespace: Where to ingest; None uses the eval namespace (cleared first).
        fields: Data dictionary; None uses the set's fields.json.

    Raises:
        ValueError: Unknown mode, or a namespace that holds data and is not an eval one.
        FileNotFoundError: A file of the set is missing.
    """
    dataset, fields, ns = await prepare_eval(
        memory, dataset_dir, mode, CONSOLIDATION_FILES, namespace=namespace, fields=fields
    )
    report = EvalReport(dataset=str(dataset), mode=mode, namespace=str(ns))
    report.ingestion = await _ingest(memory, ns, dataset, mode, fields)
    stored = await GraphAnalytics(memory, ns, fields).rules()
    integers = frozenset(n for n, spec in fields.fields.items() if spec.type == "int")
    report.consolidation = score_rules(read_objects(dataset / "rules.jsonl"), stored, integers)
    report.consolidation["conflicts"] = await _conflicts(
        memory, ns, read_objects(dataset / "conflicts.jsonl")
    )
    rows = read_objects(dataset / "submissions.jsonl")
    report.decisions, decide_ms = await _decisions(memory, ns, rows, fields)
    report.latency_ms = {
        "decide_p50": percentile(decide_ms, 50),
        "decide_p95": percentile(decide_ms, 95),
    }
    return report


__all__ = ["CONSOLIDATION_FILES", "is_consolidation_set", "run_consolidation_eval", "score_rules"]
