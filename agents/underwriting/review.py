"""Decisions that pause for a human reviewer on `refer`, resumable across processes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from agents.underwriting.context import Context
from schemas.submission import Decision

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Checkpointer

    from memory import GraphMemory
    from schemas.fields import DataDictionary


@dataclass(frozen=True)
class ReviewOutcome:
    """Either a final decision or a pause waiting for a reviewer.

    Attributes:
        thread_id: The run's thread; resume it with `resume_review`.
        decision: The final decision, when the run finished.
        pending: The reviewer's question (proposed decision, cited rules), when paused.
    """

    thread_id: str
    decision: Decision | None = None
    pending: dict[str, Any] | None = None


def _outcome(thread_id: str, result: dict[str, Any]) -> ReviewOutcome:
    interrupts = result.get("__interrupt__") or []
    if interrupts:
        return ReviewOutcome(thread_id, pending=dict(interrupts[0].value))
    return ReviewOutcome(thread_id, decision=result["decision"])


async def start_review(
    memory: GraphMemory,
    namespace: str,
    submission: dict[str, Any],
    fields: DataDictionary | None,
    checkpointer: Checkpointer,
    *,
    thread_id: str | None = None,
    as_of: str | None = None,
) -> ReviewOutcome:
    """Decide a submission; a `refer` pauses for a reviewer instead of finishing.

    `as_of` decides by the rules as they stood on that ISO day (None: now).
    """
    from agents import build_underwriting_agent

    thread_id = thread_id or uuid.uuid4().hex
    agent = build_underwriting_agent(checkpointer)
    context = Context(namespace=namespace, allow_refer_interrupt=True, memory=memory, fields=fields)
    result = await agent.ainvoke(
        {"submission": submission, "as_of": as_of},
        config={"configurable": {"thread_id": thread_id}},
        context=context,
    )
    return _outcome(thread_id, result)


async def review_state(thread_id: str, checkpointer: Checkpointer) -> ReviewOutcome:
    """Where a reviewed run stands: paused (with the reviewer's question) or decided.

    Raises:
        ValueError: No run has this thread id.
    """
    from agents import build_underwriting_agent

    agent = build_underwriting_agent(checkpointer)
    state = await agent.aget_state({"configurable": {"thread_id": thread_id}})
    if not state.values:
        raise ValueError(f"no reviewed run has thread id {thread_id!r}")
    for task in state.tasks:
        for waiting in task.interrupts:
            return ReviewOutcome(thread_id, pending=dict(waiting.value))
    return ReviewOutcome(thread_id, decision=state.values.get("decision"))


async def resume_review(
    memory: GraphMemory,
    namespace: str,
    thread_id: str,
    answer: dict[str, Any],
    fields: DataDictionary | None,
    checkpointer: Checkpointer,
) -> ReviewOutcome:
    """Resume a paused run with the reviewer's `{"decision": ..., "note": ...}`.

    Raises:
        ValueError: No paused run has this thread id.
    """
    from agents import build_underwriting_agent

    agent = build_underwriting_agent(checkpointer)
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    state = await agent.aget_state(config)
    if not state.next:
        raise ValueError(f"no paused review has thread id {thread_id!r}")
    context = Context(namespace=namespace, allow_refer_interrupt=True, memory=memory, fields=fields)
    result = await agent.ainvoke(Command(resume=answer), config=config, context=context)
    return _outcome(thread_id, result)
