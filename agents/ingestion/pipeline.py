"""`IngestionPipeline`: run the ingestion graph over texts or pre-extracted rules in batches."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel

from agents import models
from agents.ingestion.context import MAX_ITERATIONS, Context
from agents.ingestion.graph import graph
from agents.ingestion.loaders import RawInput, normalise_texts
from agents.ingestion.state import IngestionInput
from memory import GraphMemory, Namespace, Settings
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.ingestion import IngestionReport, KnowledgeText, WriteCounts
from schemas.rules import ExtractedRule

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 8
BULK_RULES = 1000  # rules per bulk write of `ingest_rules`
Progress = Callable[[int, int], None]


class IngestionPipeline:
    """Turns raw underwriting knowledge into graph memory of one namespace.

    Args:
        memory: A connected graph memory.
        namespace: Namespace to write to.
        settings: Run settings; None uses the memory's.
        fields: Data dictionary; None loads `settings.fields_path` or the packaged one.
        chat_model: A chat model for extraction and the agent (LLM mode); None uses
            ChatOpenAI with `OPENAI_API_KEY`, else the offline extractor and planner.
        extractor: A rule extractor overriding the mode's.
        max_iterations: Most agent turns per batch.
        similarity_threshold: Vector-match threshold; None uses the settings'.
        on_progress: Called with (texts done, texts total) after each batch.
        skip_ingested: Skip texts already ingested with the same content.
    """

    def __init__(
        self,
        memory: GraphMemory,
        namespace: Namespace | str,
        *,
        settings: Settings | None = None,
        fields: DataDictionary | None = None,
        chat_model: BaseChatModel | None = None,
        extractor: models.RuleExtractor | None = None,
        max_iterations: int = MAX_ITERATIONS,
        similarity_threshold: float | None = None,
        on_progress: Progress | None = None,
        skip_ingested: bool = True,
    ) -> None:
        if max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
        self.memory = memory
        self.namespace = Namespace.parse(str(namespace))
        self.settings = settings or memory.settings
        self.fields = fields or load_data_dictionary(self.settings.fields_path)
        self.on_progress = on_progress
        self.context = Context(
            namespace=str(self.namespace),
            settings=self.settings,
            memory=memory,
            fields=self.fields,
            extractor=extractor,
            chat_model=chat_model,
            max_iterations=max_iterations,
            similarity_threshold=similarity_threshold,
            skip_ingested=skip_ingested,
        )

    @property
    def mode(self) -> str:
        """`llm` or `offline`."""
        if self.context.extractor is not None:
            return self.context.extractor.mode
        if self.context.chat_model is not None:
            return "llm"
        return models.mode(self.settings)

    def _log_mode(self) -> None:
        if self.mode == "offline":
            logger.info("ingestion mode: offline (deterministic extractor and planner)")
        elif self.context.chat_model is not None:
            name = type(self.context.chat_model).__name__
            logger.info("ingestion mode: llm (injected chat model %s)", name)
        else:
            logger.info(
                "ingestion mode: llm (extraction %s, agent %s)",
                self.settings.extraction_model,
                self.settings.llm_model,
            )

    async def run(
        self,
        raw: RawInput,
        *,
        source: str | None = None,
        source_type: str | None = None,
        source_id: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> IngestionReport:
        """Extract and write the rules of raw texts.

        Args:
            raw: A string, a list of strings, a dict of strings (key = source id), or
                `KnowledgeText`s.
            source: Document name for texts without one.
            source_type: manual, training, sme, production or compliance.
            source_id: Conversation or document id of provenance for unkeyed texts.
            batch_size: Texts per graph run.

        Texts the model fails on (server errors, invalid output after the retries) are
        listed in the report's `failed_texts` with nothing of them written; the others
        go on. Texts already ingested with the same content are skipped, so a re-run
        redoes only what failed.

        Raises:
            ValueError: Bad input (all of it is checked before anything is written).
        """
        texts = normalise_texts(raw, source=source, source_type=source_type, source_id=source_id)
        batches: list[IngestionInput] = [
            {"texts": texts[i : i + batch_size]} for i in range(0, len(texts), batch_size)
        ]
        return await self._run(batches, [len(b["texts"]) for b in batches])

    async def run_rules(
        self,
        rules: Sequence[ExtractedRule],
        *,
        source: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> IngestionReport:
        """Write pre-extracted rules (no extraction) through the same graph and tools.

        Rules are grouped by `text_id` (else `source`, else the rule's source); each
        group is stored as a source episode holding the rules' JSON. Pre-extracted
        rules are not texts: no text size limit applies to a group. Every rule of
        every batch is checked before the first batch is written.

        Raises:
            ValueError: A rule name repeats, or a condition can never hold with the
                data dictionary (nothing is written).
        """
        from agents.ingestion.checks import check_rules

        check_rules(rules, self.fields)
        groups: dict[str, list[ExtractedRule]] = {}
        for rule in rules:
            tid = rule.text_id or source or f"rules:{rule.source}"
            groups.setdefault(tid, []).append(rule.model_copy(update={"text_id": tid}))
        items = list(groups.items())
        batches: list[IngestionInput] = []
        for i in range(0, len(items), batch_size):
            chunk = items[i : i + batch_size]
            texts = [_rules_text(tid, group) for tid, group in chunk]
            batches.append({"texts": texts, "rules": [r for _, g in chunk for r in g]})
        return await self._run(batches, [len(b["texts"]) for b in batches])

    async def _prefetching(self, batches: list[IngestionInput]) -> PrefetchExtractor | None:
        """In LLM mode, start extracting every text to do now (later batches run ahead)."""
        if self.mode != "llm" or any(b.get("rules") for b in batches):
            return None
        from agents.ingestion.commit import ingested_ids
        from agents.ingestion.nodes import fields_of, model_settings_of

        ctx = self.context
        extractor = ctx.extractor or models.rule_extractor(
            model_settings_of(ctx), fields_of(ctx), chat_model=ctx.chat_model
        )
        texts = [t for b in batches for t in normalise_texts(b.get("texts") or [])]
        await self.memory.db.ensure_indices(self.namespace.group_id)
        done = (
            await ingested_ids(self.memory, self.namespace, texts) if ctx.skip_ingested else set()
        )
        ahead = PrefetchExtractor(extractor)
        ahead.start([t for t in texts if t.id not in done and t.text.strip()])
        return ahead

    async def _run(self, batches: list[IngestionInput], sizes: list[int]) -> IngestionReport:
        self._log_mode()
        started = time.perf_counter()
        report = IngestionReport(mode=self.mode, namespace=str(self.namespace))  # type: ignore[arg-type]
        if not batches:
            report.warnings.append("no texts to ingest")
        done, total = 0, sum(sizes)
        limit = 2 * self.context.max_iterations + 10
        ahead = await self._prefetching(batches)
        context = self.context if ahead is None else replace(self.context, extractor=ahead)
        try:
            for batch, size in zip(batches, sizes, strict=True):
                out = await graph.ainvoke(batch, {"recursion_limit": limit}, context=context)
                report.merge(out["report"])
                done += size
                if self.on_progress is not None:
                    self.on_progress(done, total)
        finally:
            if ahead is not None:
                await ahead.close()
        report.seconds = round(time.perf_counter() - started, 3)
        logger.info(
            "ingested %d text(s), %d rule(s) in %.2fs (%s); %d failed, %d skipped",
            report.texts_processed,
            report.rules_extracted,
            report.seconds,
            report.mode,
            len(report.failed_texts),
            report.texts_skipped,
        )
        return report

    def run_sync(self, raw: RawInput, **kwargs: Any) -> IngestionReport:
        """Run `run` from synchronous code (not from inside an event loop)."""
        return asyncio.run(self.run(raw, **kwargs))


class PrefetchExtractor:
    """Runs an extractor on texts ahead of the batches that need them.

    `start` schedules texts (the extractor bounds its own concurrency); `extract`
    waits for a scheduled text or extracts one that was not.
    """

    def __init__(self, inner: models.RuleExtractor) -> None:
        self.inner = inner
        self.mode = inner.mode
        self._tasks: dict[str, asyncio.Task[list[ExtractedRule]]] = {}

    @property
    def usage_by_text(self) -> dict[str, Any]:
        """The inner extractor's model use by text id."""
        found: dict[str, Any] = getattr(self.inner, "usage_by_text", {})
        return found

    def start(self, texts: Sequence[KnowledgeText]) -> None:
        """Begin extracting `texts` in the background."""
        for text in texts:
            if text.id not in self._tasks:
                self._tasks[text.id] = asyncio.ensure_future(self.inner.extract(text))

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """The rules of a text (waiting for its scheduled extraction)."""
        task = self._tasks.pop(text.id, None)
        return await (task if task is not None else self.inner.extract(text))

    async def close(self) -> None:
        """Cancel what no batch asked for."""
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks = {}


def _rules_text(tid: str, rules: list[ExtractedRule]) -> KnowledgeText:
    body = "\n".join(json.dumps(r.model_dump(mode="json"), sort_keys=True) for r in rules)
    return KnowledgeText(
        id=tid, text=body, source=rules[0].source, source_type=rules[0].source_type
    )


async def ingest_texts(
    memory: GraphMemory, namespace: Namespace | str, raw: RawInput, **kwargs: Any
) -> IngestionReport:
    """Extract and write raw texts (see `IngestionPipeline.run`)."""
    run_keys = {"source", "source_type", "source_id", "batch_size"}
    run_args = {k: kwargs.pop(k) for k in list(kwargs) if k in run_keys}
    return await IngestionPipeline(memory, namespace, **kwargs).run(raw, **run_args)


async def ingest_rules(
    memory: GraphMemory,
    namespace: Namespace | str,
    rules: Sequence[ExtractedRule],
    *,
    source: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    **kwargs: Any,
) -> IngestionReport:
    """Write pre-extracted (e.g. gold) rules in bulk.

    The same steps as the ingestion graph's pre-extracted path (see
    `IngestionPipeline.run_rules`): rules are grouped by `text_id` (else `source`,
    else the rule's source), their entity names matched to the graph by key and
    name, each rule written with the rulebook's mapping (provenance: its text id)
    and each group stored as a source episode mentioning what its rules wrote, but
    many rules per query (`memory.underwriting.apply_rule_graphs`) instead of one tool
    call per rule. `batch_size` is in texts; batches hold at least `BULK_RULES` rules.
    """
    from agents.ingestion.checks import check_rules
    from agents.ingestion.matching import EntityMatcher
    from agents.ingestion.nodes import _field_warnings
    from memory.embedders import EmbeddingPrefetch
    from memory.model import SourceItem
    from memory.underwriting import apply_rule_graphs, rule_graph

    pipeline = IngestionPipeline(memory, namespace, **kwargs)
    check_rules(rules, pipeline.fields)
    ns, started = pipeline.namespace, time.perf_counter()
    report = IngestionReport(mode=pipeline.mode, namespace=str(ns))  # type: ignore[arg-type]
    groups: dict[str, list[ExtractedRule]] = {}
    for rule in rules:
        tid = rule.text_id or source or f"rules:{rule.source}"
        groups.setdefault(tid, []).append(rule.model_copy(update={"text_id": tid}))
    if not groups:
        report.warnings.append("no texts to ingest")
    report.warnings += _field_warnings([r for g in groups.values() for r in g], pipeline.fields)
    await memory.db.ensure_indices(ns.group_id)
    threshold = pipeline.context.similarity_threshold
    matcher = EntityMatcher(
        memory,
        ns,
        threshold=pipeline.settings.similarity_threshold if threshold is None else threshold,
        vector_labels=(),  # pre-extracted rules carry curated names: key and name only
    )
    batches = _bulk_batches(list(groups.items()), batch_size)
    # The next batch embeds while one writes, with the namespace's embedder.
    prefetch = EmbeddingPrefetch(await memory.embedder_for(ns, write=True))
    done, total = 0, len(groups)
    try:
        for ahead in batches[:1]:
            prefetch.start(_graph_texts(r for _, group in ahead for r in group))
        for n, batch in enumerate(batches):
            for ahead in batches[n + 1 : n + 2]:  # each batch's texts once, one batch ahead
                prefetch.start(_graph_texts(r for _, group in ahead for r in group))
            before = len(matcher.matches)
            resolved = [await matcher.resolve(r) for _, group in batch for r in group]
            nodes, edges = await apply_rule_graphs(
                memory,
                ns,
                [rule_graph(r) for r in resolved],
                source=[r.text_id or "" for r in resolved],
                prefetch=prefetch,
            )
            report.nodes.merge(_counts(nodes))
            report.edges.merge(_counts(edges))
            report.rules_written += len(resolved)
            report.rule_names += [r.rule_name for r in resolved]
            mentions: dict[str | None, list[str]] = {}
            for m in list(matcher.matches.values())[before:]:
                mentions.setdefault(m.text_id, []).append(m.matched_entity_key)
            items = []
            for tid, group in batch:
                text = _rules_text(tid, group)
                where = f"{text.source} ({text.source_type})" if text.source_type else text.source
                items.append(SourceItem(tid, text.text, where or "", tuple(mentions.get(tid, []))))
            for status in await memory.add_sources(ns, items):
                report.sources.add(status)
            done += len(batch)
            if pipeline.on_progress is not None:
                pipeline.on_progress(done, total)
    finally:
        await prefetch.close()
    report.texts_processed, report.rules_extracted = total, len(rules)
    report.entities_matched = sum(1 for m in matcher.matches.values() if not m.is_new)
    report.entities_new = sum(1 for m in matcher.matches.values() if m.is_new)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _bulk_batches(
    groups: list[tuple[str, list[ExtractedRule]]], batch_size: int
) -> list[list[tuple[str, list[ExtractedRule]]]]:
    """Split text groups into batches of at least `batch_size` texts and `BULK_RULES` rules."""
    batches: list[list[tuple[str, list[ExtractedRule]]]] = [[]]
    for item in groups:
        current = batches[-1]
        if len(current) >= batch_size and sum(len(g) for _, g in current) >= BULK_RULES:
            batches.append(current := [])
        current.append(item)
    return [b for b in batches if b]


def _graph_texts(rules: Iterable[ExtractedRule]) -> list[str]:
    """The entity names and facts a batch of rules will embed (as written, before matching)."""
    from memory.underwriting import rule_graph

    texts = []
    for rule_texts in map(rule_graph, rules):
        texts += [spec.name.strip() for spec in rule_texts.entities]
        texts += [rel.fact for rel in rule_texts.relationships]
    return texts


def _counts(tally: Any) -> WriteCounts:
    return WriteCounts(created=tally.created, updated=tally.updated, unchanged=tally.unchanged)
