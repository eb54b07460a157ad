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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.ingestion.matching import EntityMatcher
from memory import GraphMemory, Namespace
from memory.model import SourceItem, SubGraph
from schemas.fields import DataDictionary
from schemas.ingestion import IngestionReport, KnowledgeText, WriteCounts
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from memory.embedders import EmbeddingPrefetch
    from memory.underwriting.claims import RuleWrite

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


def rules_text(
    tid: str, rules: list[ExtractedRule], given: Mapping[str, KnowledgeText] | None = None
) -> KnowledgeText:
    """The source episode of a group of rules: the given text of that id, else the rules' JSON.

    Pre-extracted rules may come with the texts they were read from (`athena ingest
    --texts`): then the episode is the real text, which a reviewer reads the rule in.
    """
    if given and tid in given:
        return given[tid]
    body = "\n".join(json.dumps(r.model_dump(mode="json"), sort_keys=True) for r in rules)
    return KnowledgeText(
        id=tid, text=body, source=rules[0].source, source_type=rules[0].source_type
    )


async def ingested_ids(
    memory: GraphMemory, namespace: Namespace, texts: Iterable[KnowledgeText]
) -> set[str]:
    """Ids of the texts whose source episode already holds the same content."""
    wanted = {t.id: t.text for t in texts}
    if not wanted:
        return set()
    rows = await memory.db.query(
        namespace.group_id,
        "MATCH (ep:Episodic) WHERE ep.name IN $ids RETURN ep.name AS id, ep.content AS content",
        {"ids": sorted(wanted)},
        read_only=True,
    )
    return {r["id"] for r in rows if r["content"] == wanted.get(r["id"])}


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


@dataclass
class _Batch:
    """Consolidated rule writes committed together, with the texts whose episodes close here."""

    writes: list[RuleWrite] = field(default_factory=list)
    texts: list[Group] = field(default_factory=list)
    given: Mapping[str, KnowledgeText] = field(default_factory=dict)


def plan_batches(groups: list[Group], writes: list[RuleWrite]) -> list[_Batch]:
    """Split the writes into batches of `BULK_RULES` rules, each with its texts' episodes.

    A text's episode goes with the batch of the last rule it contributed to, so
    what it mentions exists by then.
    """
    batches = [_Batch(writes[i : i + BULK_RULES]) for i in range(0, len(writes), BULK_RULES)]
    batches = batches or [_Batch()]
    last: dict[str, int] = {}
    for number, batch in enumerate(batches):
        for write in batch.writes:
            last |= dict.fromkeys(write.text_ids, number)
    for tid, group in groups:
        batches[last.get(tid, len(batches) - 1)].texts.append((tid, group))
    return batches


async def _resolve(
    memory: GraphMemory, ns: Namespace, matcher: EntityMatcher, batch: _Batch
) -> tuple[list[ExtractedRule], list[SubGraph], list[SourceItem]]:
    """Match a batch's rules to the graph; return them, their graphs and their texts' episodes."""
    from memory.underwriting import rule_graph

    before = len(matcher.matches)
    resolved, graphs = [], []
    cited: dict[str | None, list[str]] = {}
    for write in batch.writes:
        rule = write.rule if write.retired else await matcher.resolve(write.rule)
        resolved.append(rule)
        graphs.append(rule_graph(rule, history=write.history, retired=write.retired))
        key = memory.entity_key(ns, "Rule", rule.rule_name)
        for tid in write.text_ids:
            cited.setdefault(tid, []).append(key)
    mentions: dict[str | None, list[str]] = {}
    for m in list(matcher.matches.values())[before:]:
        mentions.setdefault(m.text_id, []).append(m.matched_entity_key)
    items = []
    for tid, group in batch.texts:
        text = rules_text(tid, group, batch.given)
        where = f"{text.source} ({text.source_type})" if text.source_type else text.source
        keys = tuple(dict.fromkeys([*mentions.get(tid, []), *cited.get(tid, [])]))
        items.append(SourceItem(tid, text.text, where or "", keys))
    return resolved, graphs, items


def _count(report: IngestionReport, result: Any, rules: list[ExtractedRule]) -> None:
    for kind in ("nodes", "edges", "sources"):
        getattr(report, kind).merge(WriteCounts(**vars(getattr(result, kind))))
    report.rule_names += [r.rule_name for r in rules]


def _sources(rules: Sequence[ExtractedRule]) -> list[str]:
    return [r.text_id or "" for r in rules]


async def _write_batch(
    memory: GraphMemory,
    ns: Namespace,
    matcher: EntityMatcher,
    batch: _Batch,
    report: IngestionReport,
) -> None:
    """One batch's rules and episodes in one commit; a failure fails that batch's texts only."""
    try:
        resolved, graphs, items = await _resolve(memory, ns, matcher, batch)
        result = await memory.write_batch_and_sources(
            ns, graphs, source=_sources(resolved), episodes=items
        )
    except Exception as exc:  # noqa: BLE001 - reported per batch; the others go on
        names = ", ".join(w.rule.rule_name for w in batch.writes[:5])
        report.tool_errors.append(f"write_rule [{names}]: {type(exc).__name__}: {exc}"[:500])
        for tid, _ in batch.texts:
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
    memory: GraphMemory,
    ns: Namespace,
    matcher: EntityMatcher,
    prefetch: EmbeddingPrefetch,
    batch: _Batch,
) -> _Prepared:
    """Match a batch, map its rules to graphs and start embedding what they will write."""
    resolved, graphs, items = await _resolve(memory, ns, matcher, batch)
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
    texts: Mapping[str, KnowledgeText] | None = None,
) -> IngestionReport:
    """Consolidate, match, write and link grouped rules batch by batch, filling `report`.

    The claims of every text are first consolidated with the stored rules they are
    about (`memory.underwriting.claims.plan_rules`); the rules that changed are then
    matched (in order: a name matches those of the batches before it) and start
    embedding one batch ahead, while the batch before it is written.
    """
    from memory.embedders import EmbeddingPrefetch
    from memory.underwriting.claims import plan_rules

    started = time.perf_counter()
    await memory.db.ensure_indices(ns.group_id)
    matcher = EntityMatcher(
        memory,
        ns,
        threshold=similarity_threshold,
        vector_labels=(),  # pre-extracted rules carry curated names: key and name only
    )
    # A text stored with the same content was heard: its rules and episode stand.
    given = dict(texts or {})
    heard = await ingested_ids(memory, ns, [rules_text(tid, g, given) for tid, g in groups])
    for _ in heard:
        report.sources.add("unchanged")
    report.texts_skipped += len(heard)
    todo = [(tid, g) for tid, g in groups if tid not in heard]
    # Every claim, heard ones too (they change nothing), to tell which rule each joined.
    plan = await plan_rules(memory, ns, [r for _, g in groups for r in g])
    writes = plan.writes
    batches = plan_batches(todo, writes)
    for batch in batches:
        batch.given = given
    # The next batch embeds while one writes, with the namespace's embedder.
    prefetch = EmbeddingPrefetch(await memory.embedder_for(ns, write=True))
    done, total = 0, len(groups)
    before = len(report.rule_names)
    kept = {kind: getattr(report, kind).model_copy() for kind in ("nodes", "edges", "sources")}
    try:
        ahead = [await _prepare(memory, ns, matcher, prefetch, b) for b in batches[:1]]
        # A first load of two batches or more: the HNSW index is built once at the end.
        large = len(writes) >= LARGE_LOAD
        async with memory.bulk_writer(ns, prefetch, defer_vector_index=large) as writer:
            for n, batch in enumerate(batches):
                ready = ahead.pop()
                ahead += [
                    await _prepare(memory, ns, matcher, prefetch, b) for b in batches[n + 1 : n + 2]
                ]
                result = await writer.write(
                    ready.graphs, source=_sources(ready.rules), episodes=ready.items
                )
                _count(report, result, ready.rules)
                done += len(batch.texts)
                if on_progress is not None:
                    on_progress(done, total)
    except ValueError:
        raise  # bad input: nothing of the failing batch is written
    except Exception as exc:  # noqa: BLE001 - a commit failed: retry batch by batch
        report.warnings.append(
            f"a bulk commit failed ({type(exc).__name__}: {str(exc)[:200]}); "
            "every batch was written again on its own"
        )
        report.rule_names = report.rule_names[:before]
        for kind, counts in kept.items():
            setattr(report, kind, counts)
        for batch in batches:
            await _write_batch(memory, ns, matcher, batch, report)
    finally:
        await prefetch.close()
    failed = set(report.failed_texts)
    accepted = [r for tid, g in groups if tid not in failed for r in g]
    report.joined.update({r.rule_name: plan.joined.get(r.rule_name, r.rule_name) for r in accepted})
    report.rules_written += len(accepted)
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
    texts: Mapping[str, KnowledgeText] | None = None,
) -> IngestionReport:
    """Write pre-extracted rules in bulk (see `IngestionPipeline.run_rules`).

    `texts` (by id) are the texts the rules were read from: each is stored as the
    source episode of its rules instead of their JSON.

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
        texts=texts,
    )


__all__ = [
    "BULK_RULES",
    "LARGE_LOAD",
    "plan_batches",
    "field_warnings",
    "graph_texts",
    "ingested_ids",
    "group_rules",
    "ingest_rules_bulk",
    "rules_text",
    "write_rules",
]
