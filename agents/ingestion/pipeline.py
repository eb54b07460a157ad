"""`IngestionPipeline`: run the ingestion graph over texts or pre-extracted rules in batches."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel

from agents import models
from agents.ingestion.bulk import group_rules, ingest_rules_bulk, rules_text
from agents.ingestion.context import MAX_ITERATIONS, Context
from agents.ingestion.graph import graph
from agents.ingestion.loaders import RawInput, normalise_texts
from agents.ingestion.state import IngestionInput
from memory import GraphMemory, Namespace, Settings
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.ingestion import IngestionReport, KnowledgeText
from schemas.rules import ExtractedRule

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 8
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
        via_agent: bool = False,
    ) -> IngestionReport:
        """Write pre-extracted rules (no extraction).

        Rules are grouped by `text_id` (else `source`, else the rule's source); each
        group is stored as a source episode holding the rules' JSON and mentioning
        what its rules wrote. Pre-extracted rules are not texts: no text size limit
        applies to a group. Every rule of every batch is checked before the first
        batch is written. By default a batch of rules and their episodes is written
        in one commit (`agents.ingestion.bulk`); `via_agent` walks the ingestion
        graph instead (the relationship agent's staged tool calls, then its commit
        node per batch of texts), which writes the same graph.

        Raises:
            ValueError: A rule name repeats, or a condition can never hold with the
                data dictionary (nothing is written).
        """
        if not via_agent:
            return await ingest_rules_bulk(
                self.memory,
                self.namespace,
                rules,
                fields=self.fields,
                source=source,
                batch_size=batch_size,
                similarity_threshold=self.context.similarity_threshold,
                on_progress=self.on_progress,
            )
        from agents.ingestion.checks import check_rules

        check_rules(rules, self.fields)
        groups = group_rules(rules, source)
        batches: list[IngestionInput] = []
        for i in range(0, len(groups), batch_size):
            chunk = groups[i : i + batch_size]
            texts = [rules_text(tid, group) for tid, group in chunk]
            batches.append({"texts": texts, "rules": [r for _, g in chunk for r in g]})
        return await self._run(batches, [len(b["texts"]) for b in batches])

    async def _prefetching(self, batches: list[IngestionInput]) -> PrefetchExtractor | None:
        """In LLM mode, start extracting every text to do now (later batches run ahead)."""
        if self.mode != "llm" or any(b.get("rules") for b in batches):
            return None
        from agents.ingestion.bulk import ingested_ids
        from agents.ingestion.resolve import fields_of, model_settings_of

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
    """Write pre-extracted (e.g. gold) rules in bulk (see `IngestionPipeline.run_rules`).

    Rules are grouped by `text_id` (else `source`, else the rule's source), their
    entity names matched to the graph by key and name, each rule written with the
    rulebook's mapping (provenance: its text id) and each group stored as a source
    episode mentioning what its rules wrote; a batch (whole texts holding at least
    `BULK_RULES` rules) and its episodes commit together.
    """
    pipeline = IngestionPipeline(memory, namespace, **kwargs)
    return await pipeline.run_rules(rules, source=source, batch_size=batch_size)
