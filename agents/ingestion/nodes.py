"""Nodes of the ingestion graph: plain async functions over the state and run context."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from agents import models
from agents.ingestion.bulk import ingested_ids
from agents.ingestion.checks import rule_warnings
from agents.ingestion.commit import (
    RULE_WRITES,
    all_staged,
    commit,
    rule_refs,
    staging_tools,
)
from agents.ingestion.context import Context
from agents.ingestion.loaders import normalise_texts
from agents.ingestion.matching import EntityMatcher
from agents.ingestion.practice import known_rules, with_practice
from agents.ingestion.resolve import (
    chat_model_of,
    fields_of,
    memory_of,
    mode_of,
    model_settings_of,
    namespace_of,
    settings_of,
)
from agents.ingestion.state import IngestionState
from agents.llm import Usage, describe, first_line, model_errors, total_cost
from memory import GraphMemory
from memory.underwriting import UNDERWRITING
from prompts.relationship import build_relationship_messages
from schemas.fields import DataDictionary
from schemas.ingestion import (
    IngestionReport,
    KnowledgeText,
    ModelUsage,
    TextFailure,
    UncoveredSentence,
    WriteCounts,
)
from schemas.rules import ExtractedRule
from tools import ToolContext, create_memory_tools

logger = logging.getLogger(__name__)


def _stamp(rule: ExtractedRule, text: KnowledgeText) -> ExtractedRule:
    # The text's date, never the model's: a rule a text states is valid from its date.
    update: dict[str, Any] = {"text_id": text.id, "date": text.date}
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


async def _extract(
    ctx: Context, texts: list[KnowledgeText]
) -> tuple[
    list[ExtractedRule], list[TextFailure], list[str], list[ModelUsage], dict[str, list[str]]
]:
    """Extract every text (at most `llm_concurrency` model calls at once).

    Returns:
        The rules, the texts that failed (model errors, invalid output), warnings,
        the model use of the extraction and, for each text whose extractor reports its
        coverage, the rule-like sentences that yielded none (possibly none).
    """
    settings = model_settings_of(ctx)
    extractor = ctx.extractor or models.rule_extractor(
        settings, fields_of(ctx), chat_model=chat_model_of(ctx)
    )
    todo = [t for t in texts if t.text.strip()]
    warnings = [f"text {t.id!r} is empty: nothing to extract" for t in texts if not t.text.strip()]
    results = await asyncio.gather(*(extractor.extract(t) for t in todo), return_exceptions=True)
    rules: list[ExtractedRule] = []
    failed: list[TextFailure] = []
    covered: dict[str, list[str]] = {}
    usage = Usage()
    by_text = getattr(extractor, "usage_by_text", {})
    for text, result in zip(todo, results, strict=True):
        if text.id in by_text:
            usage.add_rows(by_text.pop(text.id).rows())
        if isinstance(result, models.ExtractionError | models.ModelError):
            failed.append(TextFailure(text_id=text.id, error=first_line(str(result))))
        elif isinstance(result, model_errors()):
            failed.append(TextFailure(text_id=text.id, error=describe(result)))
        elif isinstance(result, BaseException):
            raise result
        else:
            found = [_stamp(r, text) for r in result]
            if not found:
                warnings.append(f"text {text.id!r}: no rules found")
            rules += found
            coverage: dict[str, list[str]] = getattr(extractor, "uncovered", None) or {}
            if text.id in coverage:
                covered[text.id] = list(coverage[text.id])
    return rules, failed, warnings, usage.rows(settings.llm_prices), covered


def _uncovered(coverage: dict[str, list[str]]) -> list[UncoveredSentence]:
    """The coverage report's sentences, text by text."""
    return [UncoveredSentence(text_id=t, sentence=s) for t, got in coverage.items() for s in got]


async def extract_and_disambiguate(
    state: IngestionState, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Extract the rules of every text (unless given) and match their entities to the graph.

    Texts already ingested with the same content are skipped (`Context.skip_ingested`);
    a text whose extraction fails is reported in `failed` and the others go on.
    """
    ctx = runtime.context or Context()
    ns = namespace_of(ctx)
    # Input from JSON (Studio, the server API) arrives as plain strings and objects.
    rules = [ExtractedRule.model_validate(r) for r in state.get("rules") or []]
    # The texts of pre-extracted rules only hold their JSON: no text size limit.
    texts = normalise_texts(state.get("texts") or [], check_sizes=not rules)
    async with memory_of(ctx) as memory:
        # Reads on a namespace that has no graph yet fail; create it (and its indexes).
        await memory.db.ensure_indices(ns.group_id)
        done = await ingested_ids(memory, ns, texts) if ctx.skip_ingested else set()
    texts = [t for t in texts if t.id not in done]
    warnings: list[str] = []
    failed: list[TextFailure] = []
    usage: list[ModelUsage] = []
    coverage: dict[str, list[str]] = {}
    # Pre-extracted rules carry curated names: match them by key and name only.
    vector_labels = () if rules else ctx.vector_match_labels
    if rules:
        rules = [r for r in rules if r.text_id not in done]
    else:
        rules, failed, more, usage, coverage = await _extract(ctx, texts)
        warnings += more
        async with memory_of(ctx) as memory:  # practice about stated rules, read as claims
            current = await known_rules(memory, ns, texts)
        rules = with_practice(texts, rules, current, fields_of(ctx))
        heard = {r.text_id for r in rules}  # a text of practice yields claims, not rules
        warnings = [
            w for w in warnings if not any(w == f"text {t!r}: no rules found" for t in heard)
        ]
    warnings += _field_warnings(rules, fields_of(ctx)) + rule_warnings(rules, fields_of(ctx))
    threshold = ctx.similarity_threshold
    async with memory_of(ctx) as memory:
        matcher = EntityMatcher(
            memory,
            ns,
            threshold=settings_of(ctx).similarity_threshold if threshold is None else threshold,
            vector_labels=vector_labels,
        )
        await matcher.prefetch(rules)
        resolved = [await matcher.resolve(rule) for rule in rules]
    return {
        "texts": texts,
        "rules": resolved,
        "matches": list(matcher.matches.values()),
        "mode": mode_of(ctx),
        "warnings": warnings,
        "failed": failed,
        "skipped": sorted(done),
        "usage": usage,
        "uncovered": _uncovered(coverage),
        "coverage": coverage,
        "iterations": 0,
    }


def _live_tools(memory: GraphMemory, ctx: Context) -> list[Any]:
    return create_memory_tools(ToolContext(memory, namespace_of(ctx)))


def _tools(memory: GraphMemory, ctx: Context, state: IngestionState) -> list[Any]:
    """The agent's tools: writes staged until the commit (see `agents.ingestion.commit`)."""
    refs = rule_refs(state.get("rules") or [])
    return staging_tools(_live_tools(memory, ctx), refs, memory.ontology)


async def relationship_agent(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the model (or the offline planner) for the next tool calls.

    A model failure aborts the batch: nothing was written yet, and its texts are
    reported as failed (a re-run redoes them).
    """
    ctx = runtime.context or Context()
    messages: list[Any] = list(state.get("messages") or [])
    new: list[Any] = []
    if not messages:
        new = build_relationship_messages(
            state.get("rules") or [], state.get("matches") or [], UNDERWRITING
        )
        messages = list(new)
    settings = model_settings_of(ctx)
    async with memory_of(ctx) as memory:
        model = models.tool_calling_model(
            settings, _tools(memory, ctx, state), chat_model=chat_model_of(ctx)
        )
    try:
        reply = await model.ainvoke(messages)
    except model_errors() as exc:
        error = describe(exc)
        logger.warning("relationship agent failed: %s", error)
        failed = {f.text_id for f in state.get("failed") or []}
        return {
            "aborted": f"the relationship agent failed: {error}",
            "failed": [
                TextFailure(text_id=t.id, error=f"the relationship agent failed: {error}")
                for t in state.get("texts") or []
                if t.id not in failed
            ],
            "iterations": state.get("iterations", 0) + 1,
        }
    usage = Usage()
    # The offline planner is no model: it makes no request and costs nothing.
    called = chat_model_of(ctx) is not None or settings.llm_enabled
    if called and isinstance(reply, AIMessage):
        usage.add_message(reply, settings.llm_model)
    return {
        "messages": [*new, reply],
        "iterations": state.get("iterations", 0) + 1,
        "usage": usage.rows(settings.llm_prices),
    }


async def call_tools(
    state: IngestionState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Run the last message's tool calls (writes are staged); errors go back to the model."""
    ctx = runtime.context or Context()
    history: list[Any] = state.get("messages") or [None]
    last = history[-1]
    # Calls whose arguments were not valid JSON: tell the model, like a tool error.
    invalid = [
        ToolMessage(
            f"Error: the arguments of {bad.get('name')} are not valid JSON: {bad.get('error')}",
            tool_call_id=str(bad.get("id") or "invalid"),
            name=str(bad.get("name") or "unknown"),
            status="error",
        )
        for bad in (last.invalid_tool_calls if isinstance(last, AIMessage) else [])
    ]
    if not (isinstance(last, AIMessage) and last.tool_calls):
        return {"messages": invalid}
    async with memory_of(ctx) as memory:
        node = ToolNode(_tools(memory, ctx, state), handle_tool_errors=True)
        result: dict[str, Any] = await node.ainvoke({"messages": state["messages"]}, config)
    result["messages"] = [*result.get("messages", []), *invalid]
    return result


async def commit_batch(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the accepted calls and the source episodes of the batch's complete texts."""
    ctx = runtime.context or Context()
    async with memory_of(ctx) as memory:
        result = await commit(
            memory,
            namespace_of(ctx),
            texts=state.get("texts") or [],
            rules=state.get("rules") or [],
            matches=state.get("matches") or [],
            messages=state.get("messages") or [],
            live=_live_tools(memory, ctx),
            skip={f.text_id for f in state.get("failed") or []},
            uncovered=state.get("coverage"),
        )
    written = {
        "nodes": result.nodes.model_dump(),
        "edges": result.edges.model_dump(),
        "rules": result.rules_written,
        "stored": result.stored,
        "joined": result.joined,
        "tool_errors": result.tool_errors,
    }
    return {
        "sources": result.sources,
        "warnings": result.warnings,
        "failed": result.failed,
        "written": written,
    }


def _tool_tally(state: IngestionState, report: IngestionReport) -> None:
    for message in state.get("messages") or []:
        if not isinstance(message, ToolMessage):
            continue
        report.tool_calls += 1
        if message.status == "error":
            report.tool_errors.append(f"{message.name}: {str(message.content)[:500]}")
    written = state.get("written") or {}
    report.nodes = WriteCounts.model_validate(written.get("nodes") or {})
    report.edges = WriteCounts.model_validate(written.get("edges") or {})
    report.rules_written = len(written.get("rules") or [])
    report.tool_errors += list(written.get("tool_errors") or [])


async def finalize(state: IngestionState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Summarise the run as an `IngestionReport`."""
    ctx = runtime.context or Context()
    matches = state.get("matches") or []
    failed = list({f.text_id: f for f in state.get("failed") or []}.values())
    usage = Usage()
    usage.add_rows(state.get("usage") or [])
    rows = usage.rows(settings_of(ctx).llm_prices)
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
        rule_names=list((state.get("written") or {}).get("stored") or []),
        joined=dict((state.get("written") or {}).get("joined") or {}),
        failed_texts=[f.text_id for f in failed],
        errors=[f"{f.text_id}: {f.error}" for f in failed],
        texts_skipped=len(state.get("skipped") or []),
        usage=rows,
        cost_usd=total_cost(rows),
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
    return "relationship_agent" if state.get("rules") else "commit"


def route_after_agent(state: IngestionState) -> str:
    """Run tools while the model calls them; a failed model call ends the batch unwritten."""
    if state.get("aborted"):
        return "finalize"
    messages: list[Any] = state.get("messages") or [None]
    last = messages[-1]
    calls = isinstance(last, AIMessage) and bool(last.tool_calls or last.invalid_tool_calls)
    return "tools" if calls else "commit"


def route_after_tools(state: IngestionState, runtime: Runtime[Context]) -> str:
    """Back to the model, or straight to the commit when its last turn only wrote rules.

    A turn whose rule writes were all accepted and cover every rule of the batch needs
    no summary turn; a turn that explored or wrote other things goes back to the model.
    """
    ctx = runtime.context or Context()
    messages = state.get("messages") or []
    rules = state.get("rules") or []
    results = _last_round(messages)
    only_rule_writes = bool(results) and all(
        isinstance(m, ToolMessage) and m.status != "error" and m.name in RULE_WRITES
        for m in results
    )
    if only_rule_writes and all_staged(messages, rules):
        return "commit"
    return "relationship_agent" if state.get("iterations", 0) < ctx.max_iterations else "commit"


def _last_round(messages: list[Any]) -> list[Any]:
    """The tool messages after the last model answer."""
    out: list[Any] = []
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            break
        out.append(message)
    return out
