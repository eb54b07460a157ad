"""Nodes of the underwriting graph: intake -> retrieve -> evaluate -> decide -> [refer] -> explain.

Each node is a plain async function of the state and the run's `Context`; it
returns the state keys it changes. In LLM mode `decide` shows the model the
retrieved rules with their policy evaluations and takes a structured
`DecisionProposal`; a proposal that cites a rule that did not fire, or is less
severe than a fired hard rule's outcome, is sent back with the reason and, after
`max_llm_attempts`, replaced by the policy's decision.
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractAsyncContextManager
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agents.memory_use import memory_for
from agents.underwriting import policy
from agents.underwriting.context import Context
from agents.underwriting.retrieval import AS_OF, BY_FIELD, retrieve_rules
from agents.underwriting.state import UnderwritingState
from memory import GraphMemory
from memory.underwriting import OUTCOME_NAMES, GraphAnalytics, canonical_product, condition_index
from memory.underwriting.documents import json_document, model_of_document
from memory.underwriting.history import rules_as_of
from schemas.decision import DecisionProposal
from schemas.fields import DataDictionary, cached_data_dictionary
from schemas.rules import PRODUCT_TYPES, STORED, ExtractedRule, iso_day
from schemas.submission import CitedRule, Decision, SubmissionError, parse_submission

State = UnderwritingState
STORED_DATA = {STORED: True}


def run_context(runtime: Runtime[Context] | None) -> Context:
    """Return the run's context (defaults when the caller gave none)."""
    context = getattr(runtime, "context", None)
    return context if isinstance(context, Context) else Context()


def data_dictionary(context: Context) -> DataDictionary:
    """Return the run's data dictionary: injected, from `fields_path`, or the settings'."""
    if context.fields is not None:
        return context.fields
    path = context.fields_path
    if path is None:
        if context.memory is not None:  # the settings the memory was opened with
            configured = context.memory.settings.fields_path
        else:
            from memory.settings import load_settings

            configured = load_settings().fields_path
        path = str(configured) if configured else None
    return cached_data_dictionary(path)


def open_memory(context: Context) -> AbstractAsyncContextManager[GraphMemory]:
    """The injected memory, or one opened from the settings for this run."""
    from memory.settings import load_settings

    return memory_for(context.memory, load_settings)


async def intake(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Validate the submission against the data dictionary; report unknown fields.

    Raises:
        SubmissionError: Not JSON, not an object, a value of the wrong type, or an
            unknown product.
    """
    started = time.time()
    raw = state["submission"]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SubmissionError(f"the submission is not JSON: {exc}") from exc
    parsed = parse_submission(raw, data_dictionary(run_context(runtime)))
    product = parsed.values.get("product_type")
    if product is not None:
        try:
            canonical_product(str(product))
        except ValueError:
            raise SubmissionError(
                f"field 'product_type' expects one of {', '.join(PRODUCT_TYPES)}, got {product!r}"
            ) from None
    as_of = state.get("as_of")
    if as_of is not None:
        try:
            as_of = iso_day(as_of)
        except ValueError as exc:
            raise SubmissionError(f"as_of: {exc}") from None
    notes = []
    if parsed.unknown_fields:
        names = ", ".join(sorted(parsed.unknown_fields))
        notes.append(f"unknown fields (not in the data dictionary, kept but not used): {names}")
    return {
        "started": started,
        "submission_id": parsed.id,
        "values": dict(parsed.values),
        "as_of": as_of,
        "notes": notes,
    }


async def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Gather candidate rules by field and by meaning, with their decision paths."""
    context = run_context(runtime)
    values = state["values"]
    product = values.get("product_type")
    async with open_memory(context) as memory:
        analytics = GraphAnalytics(memory, context.namespace)
        as_of = state.get("as_of")
        if as_of is not None:  # the rules as they stood then: every one is a candidate
            then = await rules_as_of(
                memory,
                analytics.namespace,
                as_of,
                product_type=product if isinstance(product, str) else None,
            )
            # none in force then, in a namespace that holds rules: nothing fires (approve),
            # unlike an empty namespace, where there is nothing to decide on (refer)
            stored = len(then) or await analytics.rule_count()
            return {
                "rule_count": stored,
                "rules": [r.model_dump(mode="json") for r in then],
                "found_by": {r.rule_name: [AS_OF] for r in then},
                "paths": {},
            }
        # One look-up of the condition index (one change-log poll) serves the decision.
        index = await condition_index(memory, analytics.namespace)
        count = len(index)
        if count == 0:
            return {"rule_count": 0, "rules": [], "found_by": {}, "paths": {}}
        found = await retrieve_rules(
            analytics,
            values,
            data_dictionary(context),
            product_type=product if isinstance(product, str) else None,
            limit=context.search_limit,
            index=index,
        )
    return {
        "rule_count": count,
        # Each rule's JSON form is made once per parsed rule, and `evaluate` gets the
        # rule back from it (`model_of_document`) instead of validating it again.
        "rules": [json_document(r) for r in found.rules],
        "found_by": found.found_by,
        "paths": {name: json_document(p) for name, p in found.paths.items()},
    }


async def evaluate(state: State) -> dict[str, Any]:
    """Apply the deterministic policy to every candidate rule."""
    # The rules were read from the graph, where every write checked their text; those
    # retrieve made in this process are the parsed rules themselves.
    rules = [_rule_of(r) for r in state.get("rules", [])]
    values = state["values"]
    result = policy.decide(rules, values)
    return {
        "evaluations": [e.as_dict() for e in result.every],
        "policy": {
            "decision": result.decision,
            "cited": list(result.cited_rule_names),
            "missing_fields": list(result.missing_fields),
        },
    }


def _rule_of(document: dict[str, Any]) -> ExtractedRule:
    rule = model_of_document(document)
    if isinstance(rule, ExtractedRule):
        return rule
    return ExtractedRule.model_validate(document, context=STORED_DATA)


async def decide(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Decide: the policy offline; a chat model checked against the policy in LLM mode."""
    context = run_context(runtime)
    notes: list[str] = []
    draft: dict[str, Any]
    if not state.get("rule_count"):
        message = (
            f"no rules in namespace {context.namespace}: nothing to decide on, so the "
            "submission is referred to an underwriter instead of approved"
        )
        draft = {"decision": "refer", "cited": [], "rationale": message, "by": "no-rules"}
        notes.append(message)
    elif context.mode == "llm":
        draft, notes = await llm_decide(state, context)
    else:
        chosen = state["policy"]
        draft = {
            "decision": chosen["decision"],
            "cited": chosen["cited"],
            "rationale": "The most severe outcome over the fired rules (deterministic policy).",
            "by": "policy",
        }
    draft["review"] = context.allow_refer_interrupt and draft["decision"] == "refer"
    return {
        "draft": draft,
        "notes": notes,
        "machine_ms": (time.time() - state["started"]) * 1000.0,
    }


async def route_after_decide(state: State) -> str:
    """Go to the human review when the decision asks for one, else explain.

    Async like the nodes: LangGraph runs a plain function in a worker thread, a hop
    per decision that costs more than the choice.
    """
    return "refer" if state["draft"].get("review") else "explain"


def _cited(state: State, names: list[str]) -> list[CitedRule]:
    evaluations = {e["rule_name"]: e for e in state.get("evaluations", [])}
    rules = {r["rule_name"]: r for r in state.get("rules", [])}
    cited = []
    for name in dict.fromkeys(names):
        evaluation = evaluations.get(name)
        if evaluation is None or evaluation["outcome"] is None:
            continue
        cited.append(
            CitedRule(
                rule_name=name,
                outcome=evaluation["outcome"],
                why=evaluation["why"],
                source=rules[name].get("source") or "unknown",
                sources=list(dict.fromkeys(s["source"] for s in rules[name].get("sources") or [])),
            )
        )
    return cited


def _review_answer(answer: Any) -> tuple[str, str]:
    """Read a reviewer's answer: a decision label or ``{"decision": ..., "note": ...}``."""
    note = ""
    if isinstance(answer, dict):
        note = str(answer.get("note") or "")
        answer = answer.get("decision")
    if not isinstance(answer, str) or answer.strip().lower() not in policy.SEVERITY:
        raise ValueError(
            f"a review must resume with a decision, one of {', '.join(policy.SEVERITY)} "
            f"(or {{'decision': ..., 'note': ...}}), got {answer!r}"
        )
    return answer.strip().lower(), note


async def refer(state: State) -> dict[str, Any]:
    """Pause for a human reviewer (LangGraph interrupt) and take their decision.

    An answer that is not a decision pauses again, with the error in the payload.
    """
    draft = state["draft"]
    payload: dict[str, Any] = {
        "kind": "underwriting_review",
        "submission_id": state.get("submission_id"),
        "proposed_decision": draft["decision"],
        "cited_rules": [c.model_dump() for c in _cited(state, draft["cited"])],
        "rationale": draft["rationale"],
        "allowed_decisions": list(policy.SEVERITY),
        "resume_with": "a decision label, or {'decision': ..., 'note': ...}",
    }
    while True:
        try:
            label, note = _review_answer(interrupt(payload))
            break
        except ValueError as exc:
            payload = {**payload, "error": str(exc)}
    fired = [e["rule_name"] for e in state.get("evaluations", []) if e["outcome"] == label]
    message = f"a human reviewer decided {label} (proposed {draft['decision']})"
    reviewed = {
        **draft,
        "decision": label,
        "cited": fired or draft["cited"],
        "rationale": f"{message}. {note}".strip(),
        "by": "reviewer",
        "review": False,
    }
    return {"draft": reviewed, "notes": [message + (f": {note}" if note else "")]}


def _path_of(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule's decision path read off the rule itself (a version read as of a date)."""
    return {
        "risk_factor": rule.get("risk_factor"),
        "outcomes": [OUTCOME_NAMES.get(rule.get("action") or "", rule.get("action"))],
        "mitigants": rule.get("mitigants") or [],
        "source": "; ".join(s["source"] for s in rule.get("sources") or []) or rule.get("source"),
    }


def conflict_notes(state: State, names: list[str]) -> list[str]:
    """One note per rule the decision rests on that has an open conflict."""
    # Only rules with a conflict can add a note (a few, of hundreds that may fire).
    rules = {r["rule_name"]: r for r in state.get("rules", []) if r.get("conflicts")}
    notes, seen = [], set()
    for name in dict.fromkeys(names):
        if name not in rules:
            continue
        for c in rules[name]["conflicts"]:
            if frozenset((name, c["rule_name"])) in seen:
                continue
            seen.add(frozenset((name, c["rule_name"])))
            notes.append(
                f"rule {name!r} has an open conflict with {c['rule_name']!r} (texts "
                f"{', '.join(c['text_ids'])}; fields {', '.join(c['fields'])}): both are "
                "current and the more severe applies until a person settles it"
            )
    return notes


def reasoning_chain(state: State, namespace: str) -> list[str]:
    """Return the ordered reasoning steps: intake, retrieval, each fired rule, decision."""
    values, rules = state["values"], state.get("rules", [])
    steps = [f"Intake: {len(values)} known fields ({', '.join(values) or 'none'})."]
    if not state.get("rule_count"):
        steps.append(f"Retrieve: no rules in namespace {namespace}.")
    elif state.get("as_of"):
        steps.append(
            f"Retrieve: {len(rules)} rules of {namespace} as they stood on {state['as_of']} "
            "(each in the version valid then)."
        )
    else:
        by_field = sum(BY_FIELD in f for f in state.get("found_by", {}).values())
        steps.append(
            f"Retrieve: {len(rules)} candidate rules from {namespace} ({by_field} by the "
            f"fields their conditions use, {len(rules) - by_field} only by meaning)."
        )
    evaluations = state.get("evaluations", [])
    fired = sorted(
        (e for e in evaluations if e["fires"]),
        key=lambda e: policy.SEVERITY.index(e["outcome"]),
    )
    paths = state.get("paths", {})
    by_name = {r["rule_name"]: r for r in rules}
    for e in fired:
        path = paths.get(e["rule_name"]) or _path_of(by_name.get(e["rule_name"]) or {})
        route = f"{path.get('risk_factor') or '?'} -> {e['rule_name']} -> " + (
            ", ".join(path.get("outcomes") or []) or "?"
        )
        mitigants = path.get("mitigants") or []
        extra = f" Mitigants on record: {'; '.join(mitigants)}." if mitigants else ""
        steps.append(f"{route} [source: {path.get('source') or 'unknown'}]: {e['why']}{extra}")
    for e in evaluations:
        if e["applies"] and not e["fires"] and e["missing_fields"]:
            missing = ", ".join(e["missing_fields"])
            steps.append(f"Undetermined: '{e['rule_name']}' could fire; missing {missing}.")
    if state.get("rule_count") and not fired:
        steps.append("No candidate rule fires on this submission.")
    draft = state["draft"]
    steps.append(f"Decision: {draft['decision']} (by {draft['by']}). {draft['rationale']}".strip())
    return steps


async def explain(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Build the final `Decision`: cited rules with why and source, and the reasoning chain."""
    began = time.time()
    context = run_context(runtime)
    draft = state["draft"]
    chain = reasoning_chain(state, context.namespace)
    decision = Decision(
        decision=draft["decision"],
        cited_rules=_cited(state, draft["cited"]),
        missing_fields=state.get("policy", {}).get("missing_fields", []),
        reasoning_chain=chain,
        retrieved_rules=[r["rule_name"] for r in state.get("rules", [])],
        latency_ms=round(state.get("machine_ms", 0.0) + (time.time() - began) * 1000.0, 2),
        notes=[*state.get("notes", []), *conflict_notes(state, fired_names(state))],
    )
    return {"decision": decision}


def fired_names(state: State) -> list[str]:
    """The names of the rules that fire on the submission."""
    return [e["rule_name"] for e in state.get("evaluations", []) if e["fires"]]


# -- LLM mode ---------------------------------------------------------------------------

SYSTEM_PROMPT = (
    "You are an insurance underwriting assistant. Decide one submission using ONLY the "
    "rules retrieved from underwriting memory and their deterministic evaluations. "
    "Decisions, most to least severe: decline, refer, approve_with_conditions, approve. "
    "The decision is the most severe outcome over the fired rules; never go below the "
    "outcome of a fired hard rule. Cite the exact names of the fired rules your decision "
    "rests on (none for approve)."
)


def decision_prompt(state: State) -> str:
    """Return the user message: the submission, each candidate rule and its evaluation."""
    rules = {r["rule_name"]: r for r in state.get("rules", [])}
    lines = [f"Submission: {json.dumps(state['values'], sort_keys=True)}", "", "Rules:"]
    for e in state.get("evaluations", []):
        rule = rules[e["rule_name"]]
        status = f"FIRES -> outcome {e['outcome']}" if e["fires"] else "does not fire"
        kind = rule.get("threshold_type") or "hard"
        lines.append(
            f"- {e['rule_name']} [{rule['product_type']}, action {rule['action']}, {kind}]: "
            f"{status}. {e['why']}"
            + (
                f" Historical exceptions: {rule['historical_exceptions']}."
                if rule.get("historical_exceptions")
                else ""
            )
        )
    lines += ["", f"The deterministic policy's decision: {state['policy']['decision']}."]
    return "\n".join(lines)


def check_proposal(proposal: DecisionProposal, state: State) -> str | None:
    """Return why a model's proposal is unacceptable, or None when it stands."""
    rules = {r["rule_name"]: r for r in state.get("rules", [])}
    fired = {e["rule_name"]: e["outcome"] for e in state.get("evaluations", []) if e["fires"]}
    unknown = [name for name in proposal.cited_rules if name not in fired]
    if unknown:
        return (
            f"it cites rules that did not fire: {', '.join(unknown)}; "
            f"fired rules: {', '.join(fired) or 'none'}"
        )
    rank = policy.SEVERITY.index(proposal.decision)
    for name, outcome in fired.items():
        hard = rules[name].get("threshold_type") != "soft"
        if hard and policy.SEVERITY.index(outcome) < rank:
            return (
                f"decision {proposal.decision} contradicts the fired hard rule '{name}', "
                f"whose outcome is {outcome}"
            )
    if proposal.decision != "approve" and fired and not proposal.cited_rules:
        return "a decision other than approve must cite the fired rules it rests on"
    return None


def _chat_model(context: Context) -> Any:
    if context.chat_model is not None:
        return context.chat_model
    from agents.models import openai_chat_model
    from memory.settings import load_settings

    return openai_chat_model(load_settings(), context.model)


async def llm_decide(state: State, context: Context) -> tuple[dict[str, Any], list[str]]:
    """Ask the chat model for a structured decision; re-ask on a rejection, then fall back.

    Returns:
        The draft decision and notes for the caller.
    """
    messages: list[BaseMessage] = [
        SystemMessage(SYSTEM_PROMPT),
        HumanMessage(decision_prompt(state)),
    ]
    problem = "no answer"
    for _ in range(context.max_llm_attempts):
        try:
            model = _chat_model(context).with_structured_output(DecisionProposal)
            answer = await model.ainvoke(messages)
            proposal = DecisionProposal.model_validate(answer)
        except Exception as exc:  # the model or its output failed: try again, then fall back
            problem = f"the model failed: {type(exc).__name__}: {exc}"
            messages.append(HumanMessage(f"Your answer was unusable ({problem}). Answer again."))
            continue
        problem = check_proposal(proposal, state) or ""
        if not problem:
            draft = {
                "decision": proposal.decision,
                "cited": proposal.cited_rules,
                "rationale": proposal.rationale,
                "by": "llm",
            }
            return draft, []
        messages.append(AIMessage(proposal.model_dump_json()))
        messages.append(HumanMessage(f"Your decision was rejected: {problem}. Answer again."))
    chosen = state["policy"]
    note = f"the model's decision was rejected ({problem}); the policy decided"
    draft = {"decision": chosen["decision"], "cited": chosen["cited"], "rationale": note}
    return {**draft, "by": "policy"}, [note]
