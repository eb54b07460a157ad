"""Pre-extracted rules in bulk: many rules and their source texts per commit.

The same steps as the ingestion graph's agent path (entity matching by key and
name, the rulebook's mapping of each rule, one source episode per text id that
mentions what its rules wrote), but a whole batch of rules and their episodes is
planned in Python and committed as one transaction
(`GraphMemory.write_batch_and_sources`) instead of one tool call per rule.
The exports equal those of the agent path (tests/integration/test_bulk.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.ingestion.matching import EntityMatcher
from memory import GraphMemory, Namespace
from memory.model import SourceItem, SubGraph
from schemas.fields import DataDictionary
from schemas.ingestion import IngestionReport, KnowledgeText, WriteCounts
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from memory.embedders import EmbeddingPrefetch

BULK_RULES = 500  # rules per commit (whole texts: a text of more rules is one commit)
LARGE_LOAD = 2000  # rules from which a load builds its vector index once, at its end
Group = tuple[str, list[ExtractedRule]]
Progress = Callable[[int, int], None]


def group_rules(rules: Sequence[ExtractedRule], source: str | None) -> list[Group]:
    """Group rules by `text_id` (else `source`, else the rule's source), stamping it."""
    groups: dict[str, list[ExtractedRule]] = {}
    for rule in rules:
        tid = rule.text_id or source or f"rules:{rule.source}"
        stamped = rule if rule.text_id == tid else rule.model_copy(update={"text_id": tid})
        groups.setdefault(tid, []).append(stamped)
    return list(groups.items())


def rules_text(tid: str, rules: list[ExtractedRule]) -> KnowledgeText:
    """The source episode of a group of rules: their JSON, one rule a line."""
    body = "\n".join(json.dumps(r.model_dump(mode="json"), sort_keys=True) for r in rules)
    return KnowledgeText(
        id=tid, text=body, source=rules[0].source, source_type=rules[0].source_type
    )


def field_warnings(rules: Iterable[ExtractedRule], fields: DataDictionary) -> list[str]:
    """One warning per rule that uses fields the data dictionary lacks."""
    known = set(fields.names())
    warnings = []
    for rule in rules:
        used = {c.field for c in rule.conditions} | set(rule.mitigant_fields)
        unknown = sorted(used - known)
        if unknown:
            warnings.append(
                f"rule {rule.rule_name!r} uses fields not in the data dictionary: {unknown}"
            )
    return warnings


def batches_of(groups: list[Group]) -> list[list[Group]]:
    """Split text groups into batches of whole texts holding at least `BULK_RULES` rules.

    By rules, not texts: a commit of 2,000-rule texts is as long as one of 2,000
    one-rule texts, and smaller commits keep the pipeline's first plan and last
    commit (which nothing overlaps) short.
    """
    batches: list[list[Group]] = [[]]
    count = 0
    for item in groups:
        if count >= BULK_RULES:
            batches.append([])
            count = 0
        batches[-1].append(item)
        count += len(item[1])
    return [b for b in batches if b]


async def _resolve(
    matcher: EntityMatcher, batch: list[Group]
) -> tuple[list[ExtractedRule], list[SourceItem]]:
    """Match a batch's rules to the graph; return them and their texts' source episodes."""
    before = len(matcher.matches)
    resolved = [await matcher.resolve(r) for _, group in batch for r in group]
    mentions: dict[str | None, list[str]] = {}
    for m in list(matcher.matches.values())[before:]:
        mentions.setdefault(m.text_id, []).append(m.matched_entity_key)
    items = []
    for tid, group in batch:
        text = rules_text(tid, group)
        where = f"{text.source} ({text.source_type})" if text.source_type else text.source
        items.append(SourceItem(tid, text.text, where or "", tuple(mentions.get(tid, []))))
    return resolved, items


def _count(report: IngestionReport, result: Any, rules: list[ExtractedRule]) -> None:
    for kind in ("nodes", "edges", "sources"):
        getattr(report, kind).merge(WriteCounts(**vars(getattr(result, kind))))
    report.rules_written += len(rules)
    report.rule_names += [r.rule_name for r in rules]


async def _write_text(
    memory: GraphMemory,
    ns: Namespace,
    matcher: EntityMatcher,
    group: Group,
    report: IngestionReport,
) -> None:
    """One text's rules and its episode in one commit; a failure fails that text only."""
    from memory.underwriting import rule_graph

    tid, rules = group
    try:
        resolved, items = await _resolve(matcher, [group])
        result = await memory.write_batch_and_sources(
            ns,
            [rule_graph(r) for r in resolved],
            source=[r.text_id or "" for r in resolved],
            episodes=items,
        )
    except Exception as exc:  # noqa: BLE001 - reported per text; the others go on
        names = ", ".join(r.rule_name for r in rules)
        report.tool_errors.append(f"write_rule [{names}]: {type(exc).__name__}: {exc}"[:500])
        report.failed_texts.append(tid)
        report.errors.append(f"{tid}: {type(exc).__name__}: {str(exc)[:200]}")
        return
    _count(report, result, resolved)


def graph_texts(graphs: Iterable[SubGraph]) -> list[str]:
    """The entity names and facts the rule graphs of a batch will embed."""
    texts = []
    for graph in graphs:
        texts += [spec.name.strip() for spec in graph.entities]
        texts += [rel.fact for rel in graph.relationships]
    return texts


@dataclass
class _Prepared:
    """A batch matched to the graph: its rules, their graphs and their source episodes."""

    rules: list[ExtractedRule]
    graphs: list[SubGraph]
    items: list[SourceItem]


async def _prepare(
    matcher: EntityMatcher, prefetch: EmbeddingPrefetch, batch: list[Group]
) -> _Prepared:
    """Match a batch, map its rules to graphs and start embedding what they will write."""
    from memory.underwriting import rule_graph

    resolved, items = await _resolve(matcher, batch)
    graphs: list[SubGraph] = [rule_graph(r) for r in resolved]
    prefetch.start(graph_texts(graphs))
    return _Prepared(resolved, graphs, items)


async def write_rules(
    memory: GraphMemory,
    ns: Namespace,
    groups: list[Group],
    *,
    similarity_threshold: float,
    report: IngestionReport,
    on_progress: Progress | None = None,
) -> IngestionReport:
    """Match, write and link grouped rules batch by batch, filling `report`.

    Each batch is matched (in order: a name matches those of the batches before it)
    and starts embedding one batch ahead, while the batch before it is written.
    """
    from memory.embedders import EmbeddingPrefetch

    started = time.perf_counter()
    await memory.db.ensure_indices(ns.group_id)
    matcher = EntityMatcher(
        memory,
        ns,
        threshold=similarity_threshold,
        vector_labels=(),  # pre-extracted rules carry curated names: key and name only
    )
    batches = batches_of(groups)
    # The next batch embeds while one writes, with the namespace's embedder.
    prefetch = EmbeddingPrefetch(await memory.embedder_for(ns, write=True))
    done, total = 0, len(groups)
    before = (report.rules_written, len(report.rule_names))
    kept = {kind: getattr(report, kind).model_copy() for kind in ("nodes", "edges", "sources")}
    try:
        ahead = [await _prepare(matcher, prefetch, b) for b in batches[:1]]
        # A first load of two batches or more: the HNSW index is built once at the end.
        large = sum(len(g) for _, g in groups) >= LARGE_LOAD
        async with memory.bulk_writer(ns, prefetch, defer_vector_index=large) as writer:
            for n, batch in enumerate(batches):
                ready = ahead.pop()
                ahead += [await _prepare(matcher, prefetch, b) for b in batches[n + 1 : n + 2]]
                result = await writer.write(
                    ready.graphs,
                    source=[r.text_id or "" for r in ready.rules],
                    episodes=ready.items,
                )
                _count(report, result, ready.rules)
                done += len(batch)
                if on_progress is not None:
                    on_progress(done, total)
    except ValueError:
        raise  # bad input: nothing of the failing batch is written
    except Exception as exc:  # noqa: BLE001 - a commit failed: retry text by text
        report.warnings.append(
            f"a bulk commit failed ({type(exc).__name__}: {str(exc)[:200]}); "
            "every text was written again on its own"
        )
        report.rules_written, report.rule_names = before[0], report.rule_names[: before[1]]
        for kind, counts in kept.items():
            setattr(report, kind, counts)
        for group in groups:
            await _write_text(memory, ns, matcher, group, report)
    finally:
        await prefetch.close()
    report.texts_processed += total
    report.rules_extracted += sum(len(g) for _, g in groups)
    report.entities_matched += sum(1 for m in matcher.matches.values() if not m.is_new)
    report.entities_new += sum(1 for m in matcher.matches.values() if m.is_new)
    report.seconds = round(report.seconds + time.perf_counter() - started, 3)
    return report


async def ingest_rules_bulk(
    memory: GraphMemory,
    namespace: Namespace | str,
    rules: Sequence[ExtractedRule],
    *,
    fields: DataDictionary,
    source: str | None = None,
    batch_size: int = 8,
    similarity_threshold: float | None = None,
    on_progress: Progress | None = None,
) -> IngestionReport:
    """Write pre-extracted rules in bulk (see `IngestionPipeline.run_rules`).

    Imports neither LangGraph nor the model factories: `athena ingest --rules` pays
    for the bulk writer alone. Each commit holds whole texts of at least `BULK_RULES`
    rules; `batch_size` (texts per run of the ingestion graph) does not apply here.

    Raises:
        ValueError: A rule name repeats, or a condition can never hold with the data
            dictionary (every rule is checked before anything is written).
    """
    from agents.ingestion.checks import check_rules

    check_rules(rules, fields)
    ns = Namespace.parse(str(namespace))
    settings = memory.settings
    mode = "llm" if settings.llm_enabled else "offline"  # agents.models.mode
    report = IngestionReport(mode=mode, namespace=str(ns))  # type: ignore[arg-type]
    groups = group_rules(rules, source)
    if not groups:
        report.warnings.append("no texts to ingest")
    report.warnings += field_warnings((r for _, g in groups for r in g), fields)
    threshold = (
        settings.similarity_threshold if similarity_threshold is None else similarity_threshold
    )
    return await write_rules(
        memory,
        ns,
        groups,
        similarity_threshold=threshold,
        report=report,
        on_progress=on_progress,
    )


__all__ = [
    "BULK_RULES",
    "LARGE_LOAD",
    "batches_of",
    "field_warnings",
    "graph_texts",
    "group_rules",
    "ingest_rules_bulk",
    "rules_text",
    "write_rules",
]
