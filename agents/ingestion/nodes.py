"""Nodes of the ingestion graph: plain async functions over the state and run context."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from agents import models
from agents.ingestion.checks import rule_warnings
from agents.ingestion.context import Context
from agents.ingestion.loaders import normalise_texts
from agents.ingestion.matching import EntityMatcher
from agents.ingestion.state import IngestionState
from memory import GraphMemory, Namespace, Settings, load_settings
from memory.underwriting import UNDERWRITING
from prompts.relationship import build_relationship_messages
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.ingestion import IngestionReport, KnowledgeText, UncoveredSentence, WriteCounts
from schemas.rules import ExtractedRule
from tools import ToolContext, create_memory_tools

logger = logging.getLogger(__name__)


def settings_of(ctx: Context) -> Settings:
    """Return the run's settings (loaded from the environment when not given)."""
    return ctx.settings or load_settings()


def namespace_of(ctx: Context) -> Namespace:
    """Return the run's namespace."""
    return Namespace.parse(ctx.namespace or settings_of(ctx).namespace)


def fields_of(ctx: Context) -> DataDictionary:
    """Return the run's data dictionary."""
    return ctx.fields or load_data_dictionary(settings_of(ctx).fields_path)


def model_settings_of(ctx: Context) -> Settings:
    """Return the settings the model factories see: the run's mode and model names applied.

    Raises:
        ValueError: `mode` is ``llm`` but there is neither an `OPENAI_API_KEY` nor a chat model.
    """
    settings = settings_of(ctx)
    update: dict[str, Any] = {}
    if ctx.mode == "offline":
        update["openai_api_key"] = None  # the models only; the memory keeps its embedder
    elif ctx.mode == "llm" and ctx.chat_model is None and not settings.llm_enabled:
        raise ValueError("ingestion mode 'llm' needs OPENAI_API_KEY or an injected chat_model")
    if ctx.llm_model:
        update["llm_model"] = ctx.llm_model
    if ctx.extraction_model:
        update["extraction_model"] = ctx.extraction_model
    return settings.model_copy(update=update) if update else settings


def mode_of(ctx: Context) -> str:
    """Return `llm` or `offline` for the run."""
    if ctx.extractor is not None:
        return ctx.extractor.mode
    if ctx.chat_model is not None and ctx.mode != "offline":
        return "llm"
    return models.mode(model_settings_of(ctx))


def _chat_model_of(ctx: Context) -> Any:
    """Return the injected chat model unless the run is forced offline."""
    return None if ctx.mode == "offline" else ctx.chat_model


@asynccontextmanager
async def memory_of(ctx: Context) -> AsyncIterator[GraphMemory]:
    """Yield the injected memory, or one opened from the settings for this node."""
    if ctx.memory is not None:
        yield ctx.memory
        return
    async with GraphMemory(settings_of(ctx)) as memory:
        yield memory


def _tools(memory: GraphMemory, ctx: Context) -> list[Any]:
    return create_memory_tools(ToolContext(memory, namespace_of(ctx)))


def _stamp(rule: ExtractedRule, text: KnowledgeText) -> ExtractedRule:
    update: dict[str, Any] = {"text_id": text.id}
    if text.source and rule.source in ("", "unknown"):
        update["source"] = text.source
    if text.source_type:
        update["source_type"] = text.source_type
    return rule.model_copy(update=update)


def _field_warnings(rules: list[ExtractedRule], fields: DataDictionary) -> list[str]:
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


async def extract_and_disambiguate(
    state: IngestionState, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Extract the rules of every text (unless given) and match their entities to the graph."""
    ctx = runtime.context or Context()
    # Input from JSON (Studio, the server API) arrives as plain strings and objects.
    rules = [ExtractedRule.model_validate(r) for r in state.get("rules") or []]
    # The texts of pre-extracted rules only hold their JSON: no text size limit.
    texts = normalise_texts(state.get("texts") or [], check_sizes=not rules)
    warnings: list[str] = []
    uncovered: list[UncoveredSentence] = []
    # Pre-extracted rules carry curated names: match them by key and name only.
    vector_labels = () if rules else ctx.vector_match_labels
    if not rules:
        extractor = ctx.extractor or models.rule_extractor(
            model_settings_of(ctx), fields_of(ctx), chat_model=_chat_model_of(ctx)
        )
        for text in texts:
            if not text.text.strip():
                warnings.append(f"text {text.id!r} is empty: nothing to extract")
                continue
            found = [_stamp(r, text) for r in await extractor.extract(text)]
            if not found:
                warnings.append(f"text {text.id!r}: no rules found")
            rules += found
            coverage: dict[str, list[str]] = getattr(extractor, "uncovered", None) or {}
            uncovered += [
                UncoveredSentence(text_id=text.id, sentence=sentence)
                for sentence in coverage.get(text.id, [])
            ]
    warnings += _field_warnings(rules, fields_of(ctx)) + rule_warnings(rules, fields_of(ctx))
    settings = settings_of(ctx)
    threshold = ctx.similarity_threshold
    async with memory_of(ctx) as memory:
        # Reads on a namespace that has no graph yet fail; create it (and its indexes).
        await memory.db.ensure_indices(namespace_of(ctx).group_id)
        matcher = EntityMatcher(
            memory,
            namespace_of(ctx),
            threshold=settings.similarity_threshold if threshold is None else threshold,
            vector_labels=vector_labels,
        )
        resolved = [await matcher.resolve(rule) for rule in rules]
    return {
        "texts": texts,
        "rules": resolved,
        "matches": list(matcher.matches.values()),
        "mode": mode_of(ctx),
        "warnings": warnings,
        "uncovered": uncovered,
        "iterations": 0,
    }


async def relationship_agent(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the model (or the offline planner) for the next tool calls."""
    ctx = runtime.context or Context()
    messages: list[Any] = list(state.get("messages") or [])
    new: list[Any] = []
    if not messages:
        new = build_relationship_messages(
            state.get("rules") or [], state.get("matches") or [], UNDERWRITING
        )
        messages = list(new)
    async with memory_of(ctx) as memory:
        model = models.tool_calling_model(
            model_settings_of(ctx), _tools(memory, ctx), chat_model=_chat_model_of(ctx)
        )
    reply = await model.ainvoke(messages)
    return {"messages": [*new, reply], "iterations": state.get("iterations", 0) + 1}


async def call_tools(
    state: IngestionState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Run the last message's tool calls; errors go back to the model as tool messages."""
    ctx = runtime.context or Context()
    async with memory_of(ctx) as memory:
        node = ToolNode(_tools(memory, ctx), handle_tool_errors=True)
        result: dict[str, Any] = await node.ainvoke({"messages": state["messages"]}, config)
    return result


async def link_sources(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Store each text as a source episode linked (MENTIONS) to the entities it yielded.

    Runs after the writes, so every entity a text mentions exists and each episode
    is written once with its final links (re-ingesting it then changes nothing).
    """
    ctx = runtime.context or Context()
    ns = namespace_of(ctx)
    counts, warnings = WriteCounts(), []
    async with memory_of(ctx) as memory:
        wanted = {m.matched_entity_key for m in state.get("matches") or []}
        existing = await memory.existing_keys(ns, wanted)
        for text in state.get("texts") or []:
            if not text.text.strip():
                continue
            keys = [
                m.matched_entity_key for m in state.get("matches") or [] if m.text_id == text.id
            ]
            missing = sorted({k for k in keys if k not in existing})
            if missing:
                warnings.append(
                    f"text {text.id!r}: {len(missing)} mentioned entit(y/ies) were not written"
                )
            where = " ".join(
                x for x in (text.source, f"({text.source_type})" if text.source_type else None) if x
            )
            result = await memory.add_source(
                ns,
                text.text,
                source_id=text.id,
                description=where,
                mentions=[k for k in keys if k in existing],
            )
            counts.add(result.status)
    return {"sources": counts, "warnings": warnings}


def _tool_tally(state: IngestionState, report: IngestionReport) -> None:
    names = {}
    for message in state.get("messages") or []:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                names[call["id"]] = call["name"]
        if not isinstance(message, ToolMessage):
            continue
        report.tool_calls += 1
        if message.status == "error":
            report.tool_errors.append(f"{message.name}: {str(message.content)[:500]}")
            continue
        artifact = message.artifact if isinstance(message.artifact, dict) else {}
        for kind in ("nodes", "edges"):
            for status, n in (artifact.get(kind) or {}).items():
                getattr(report, kind).add(status, n)
        if message.name == "write_rule":
            report.rules_written += 1


async def finalize(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Summarise the run as an `IngestionReport`."""
    ctx = runtime.context or Context()
    matches = state.get("matches") or []
    report = IngestionReport(
        mode=state.get("mode") or mode_of(ctx),  # type: ignore[arg-type]
        namespace=str(namespace_of(ctx)),
        texts_processed=len(state.get("texts") or []),
        rules_extracted=len(state.get("rules") or []),
        sources=state.get("sources") or WriteCounts(),
        entities_matched=sum(1 for m in matches if not m.is_new),
        entities_new=sum(1 for m in matches if m.is_new),
        iterations=state.get("iterations", 0),
        warnings=list(state.get("warnings") or []),
        rule_names=[r.rule_name for r in state.get("rules") or []],
        uncovered=list(state.get("uncovered") or []),
    )
    _tool_tally(state, report)
    messages: list[Any] = state.get("messages") or [None]
    last = messages[-1]
    if report.iterations >= ctx.max_iterations and isinstance(last, ToolMessage):
        report.warnings.append(
            f"the agent stopped after the limit of {ctx.max_iterations} iterations"
        )
    return {"report": report}


def route_after_extraction(state: IngestionState) -> str:
    """Skip the agent when there is nothing to write."""
    return "relationship_agent" if state.get("rules") else "link_sources"


def route_after_agent(state: IngestionState) -> str:
    """Run tools while the model calls them."""
    messages: list[Any] = state.get("messages") or [None]
    last = messages[-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "link_sources"


def route_after_tools(state: IngestionState, runtime: Runtime[Context]) -> str:
    """Hand the results back to the model until the iteration limit."""
    ctx = runtime.context or Context()
    return (
        "relationship_agent" if state.get("iterations", 0) < ctx.max_iterations else "link_sources"
    )
