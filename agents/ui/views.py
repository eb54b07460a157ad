"""The review application's pages that only read: rules, a rule, graph, review queue, decide."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from agents.ui.render import render
from memory.underwriting.catalogue import (
    FACETS,
    RuleFilter,
    catalogue,
    changes,
    paginate,
    rule_rows,
    rule_words,
    soft_zone,
)

if TYPE_CHECKING:
    from memory import GraphMemory, Namespace
    from schemas.rules import ExtractedRule

PAGE_SIZE = 50
SEARCH_DEPTH = 200  # rules a search ranks before filters and pages apply


def _memory(request: Request) -> tuple[GraphMemory, Namespace]:
    return request.app.state.memory, request.app.state.namespace


def _number(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, got {raw!r}") from None


def _filter(request: Request) -> RuleFilter:
    values = {name: request.query_params.get(name) or None for name in FACETS}
    return RuleFilter(**values, conflict=request.query_params.get("conflict") == "1")


async def rules_page(request: Request) -> Response:
    """The rules: fused search, filters by facet and open conflict, pages of 50."""
    memory, namespace = _memory(request)
    rows, facets = await catalogue(memory, namespace)
    query = (request.query_params.get("q") or "").strip()
    chosen = _filter(request)
    shown = rows
    scores: dict[str, float] = {}
    if query:
        from memory.underwriting import GraphAnalytics

        analytics = GraphAnalytics(memory, namespace, request.app.state.fields)
        hits = await analytics.query(query, product_type=chosen.product_type, limit=SEARCH_DEPTH)
        scores = {h.rule_name: h.score for h in hits}
        by_name = {row.name: row for row in rows}
        shown = [by_name[n] for n in scores if n in by_name]
    kept = [row for row in shown if chosen.keeps(row)]
    page = paginate(kept, _number(request, "page", 1), PAGE_SIZE)
    params = {k: v for k, v in request.query_params.items() if k != "page" and v}
    return render(
        request,
        "rules.html",
        title="Rules",
        page=page,
        query=query,
        chosen=vars(chosen),
        facets=facets,
        params=params,
        total_rules=len(rows),
        scores=scores,
    )


async def _source_texts(request: Request, versions: list[ExtractedRule]) -> list[dict[str, Any]]:
    """Every source of a rule's versions with its text cut into highlighted pieces.

    A source is shown once, highlighted for the first (oldest) version that cites it.
    """
    from memory.underwriting.evidence import evidence_spans, highlight

    memory, namespace = _memory(request)
    fields = request.app.state.fields.fields
    seen: dict[str, dict[str, Any]] = {}
    for version in versions:
        for source in version.sources or []:
            key = source.text_id or source.source
            if key in seen:
                continue
            record = await memory.get_source(namespace, source.text_id) if source.text_id else None
            pieces: list[tuple[str, bool]] = []
            if record is not None:
                spans = evidence_spans(record.content, version, fields=fields)
                pieces = highlight(record.content, spans)
            seen[key] = {"source": source, "pieces": pieces, "found": record is not None}
    return list(seen.values())


async def rule_page(request: Request) -> Response:
    """One rule: conditions in words, soft zone, mitigants, outcome, sources, versions."""
    from memory.underwriting.history import rule_history

    memory, namespace = _memory(request)
    name = request.path_params["name"]
    versions = await rule_history(memory, namespace, name)
    if not versions:
        raise HTTPException(404, f"no rule named {name!r}: search the rules to find it")
    rule = versions[-1]
    retired = rule.valid_to is not None
    return render(
        request,
        "rule.html",
        title=name,
        rule=rule,
        retired=retired,
        words=rule_words(rule),
        soft=soft_zone(rule),
        versions=[(v, changes(versions[i - 1] if i else None, v)) for i, v in enumerate(versions)][
            ::-1
        ],
        sources=await _source_texts(request, versions),
    )


async def edit_page(request: Request) -> Response:
    """The form a reviewer edits a rule with (sent to POST /review)."""
    from memory.underwriting.reviews import current_rule

    memory, namespace = _memory(request)
    rule = await current_rule(memory, namespace, request.path_params["name"])
    from schemas.rules import Action

    return render(
        request,
        "edit.html",
        title=f"Edit {rule.rule_name}",
        rule=rule,
        actions=get_args(Action),
    )


async def graph_page(request: Request) -> Response:
    """A focused neighbourhood: one rule's (``?rule=``) or one risk factor's (``?risk=``)."""
    from memory.underwriting.neighbourhood import risk_neighbourhood, rule_neighbourhood

    memory, namespace = _memory(request)
    rule = request.query_params.get("rule")
    risk = request.query_params.get("risk")
    if bool(rule) == bool(risk):
        raise ValueError("the graph shows one rule (?rule=NAME) or one risk factor (?risk=NAME)")
    if rule:
        hood = await rule_neighbourhood(memory, namespace, rule)
    else:
        assert risk is not None
        hood = await risk_neighbourhood(
            memory, namespace, risk, limit=_number(request, "limit", 25)
        )
    return render(
        request,
        "graph.html",
        title=f"Graph of {rule or risk}",
        center=rule or risk,
        kind="rule" if rule else "risk factor",
        elements=hood.to_cytoscape(),
        left_off=getattr(hood, "left_off", 0),
    )


async def review_page(request: Request) -> Response:
    """The review queue: open conflicts side by side, low-confidence rules, uncovered text."""
    from memory.underwriting.history import open_conflicts
    from memory.underwriting.review_queue import uncovered_sentences
    from memory.underwriting.reviews import current_rule

    memory, namespace = _memory(request)
    rows = await rule_rows(memory, namespace)
    conflicts = []
    for conflict in await open_conflicts(memory, namespace):
        sides = []
        for name in conflict.rules:  # both current: the condition index holds them
            rule = await current_rule(memory, namespace, name)
            sides.append(
                {
                    "rule": rule,
                    "words": rule_words(rule),
                    "sources": await _source_texts(request, [rule]),
                }
            )
        conflicts.append({"conflict": conflict, "sides": sides})
    low = [row for row in rows if row.confidence == "low"][:PAGE_SIZE]
    return render(
        request,
        "review.html",
        title="Review",
        conflicts=conflicts,
        low=low,
        uncovered=await uncovered_sentences(memory, namespace, limit=PAGE_SIZE),
    )


async def decide_page(request: Request) -> Response:
    """The decide form: a submission as JSON or field by field (from the data dictionary)."""
    return render(
        request, "decide.html", title="Decide", fields=request.app.state.fields.fields, given={}
    )


async def thread_page(request: Request) -> Response:
    """A reviewed decision: paused for a person (with the resume form) or decided."""
    from agents.underwriting.policy import SEVERITY
    from agents.underwriting.review import review_state

    thread = request.path_params["thread"]
    outcome = await review_state(thread, request.app.state.checkpointer)
    return render(
        request,
        "decision.html",
        title=f"Decision {thread}",
        outcome=outcome,
        decision=outcome.decision,
        labels=list(SEVERITY),
    )


async def signin_page(request: Request) -> Response:
    """The sign-in form (the token unlocks writes)."""
    return render(request, "signin.html", title="Sign in")


__all__ = [
    "decide_page",
    "edit_page",
    "graph_page",
    "review_page",
    "rule_page",
    "rules_page",
    "signin_page",
    "thread_page",
]
