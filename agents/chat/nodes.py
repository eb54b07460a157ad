"""Nodes of the chat graph: plain async functions over the state and run context."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from agents import models
from agents.chat.context import Context
from agents.chat.state import ChatState
from agents.chat.tools import create_chat_tools
from agents.llm import as_model_error, model_errors
from agents.memory_use import memory_for
from memory import GraphMemory, Settings, load_settings
from memory.sessions import SessionRef, SessionStore
from schemas.text import clean_text

SYSTEM_PROMPT = """You are Athena, an assistant to commercial insurance underwriters.
Answer from the memory context below and from your memory tools (check_risk_appetite,
trace, search_memory); cite rule names, and say so when memory holds nothing relevant.
Follow the user's directives. When the underwriter tells you how a rule works in
practice, acknowledge it: the session is learned from after it ends.

{memory_context}"""


def settings_of(ctx: Context) -> Settings:
    """Return the run's settings (loaded from the environment when not given)."""
    return ctx.settings or load_settings()


def ref_of(ctx: Context) -> SessionRef:
    """Return who is talking in this run."""
    return SessionRef(ctx.agent_id, ctx.user_id, ctx.session_id, ctx.shard_id)


def memory_of(ctx: Context) -> AbstractAsyncContextManager[GraphMemory]:
    """The injected memory, or one opened from the settings for this node."""
    return memory_for(ctx.memory, lambda: settings_of(ctx))


def _store(memory: GraphMemory, ctx: Context) -> SessionStore:
    former = models.memory_former(settings_of(ctx), chat_model=ctx.chat_model)
    return SessionStore(memory, policy=ctx.policy, former=former)


def _tools(memory: GraphMemory, ctx: Context) -> list[Any]:
    return create_chat_tools(memory, ref_of(ctx).agent, ctx.cache)


async def prepare(state: ChatState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Record the user's message and build the prompt: memory context + recent messages.

    Control characters other than tab and line breaks are removed from the message
    (`schemas.text.clean_text`): what is stored and learned from is what was readable.

    Raises:
        ValueError: An empty message.
    """
    ctx = runtime.context or Context()
    raw = state.get("message") or _last_human_text(state.get("messages") or [])
    message = clean_text(raw).strip()
    if not message:
        raise ValueError("a chat turn needs a non-empty message (or a human chat message)")
    ref = ref_of(ctx)
    async with memory_of(ctx) as memory:
        store = _store(memory, ctx)
        history = (await store.messages(ref))[-ctx.history_messages :]
        await store.record_message(ref, "user", message)

        async def rules(text: str) -> Any:
            from memory.underwriting import GraphAnalytics

            if ctx.cache is None:
                return await GraphAnalytics(memory, ref.agent).check_risk_appetite(text, limit=5)
            return await ctx.cache.get_or_load(
                ref.agent,
                "context_rules",
                text,
                lambda: GraphAnalytics(memory, ref.agent).check_risk_appetite(text, limit=5),
            )

        xml = await store.assemble_memory_context(ref, message, rules=rules)
    prompt: list[Any] = [SystemMessage(SYSTEM_PROMPT.format(memory_context=xml))]
    for episode in history:
        cls = HumanMessage if episode.role == "user" else AIMessage
        prompt.append(cls(episode.content))
    prompt.append(HumanMessage(message))
    # The session's history lives in memory and is rebuilt into every prompt, so a
    # thread's accumulated messages are replaced, not appended to.
    reset = RemoveMessage(id=REMOVE_ALL_MESSAGES)
    return {"message": message, "memory_context": xml, "messages": [reset, *prompt], "rounds": 0}


def _last_human_text(messages: list[Any]) -> str:
    """Return the text of the last human message ('' if there is none)."""
    for item in reversed(messages):
        if isinstance(item, HumanMessage) and isinstance(item.content, str):
            return item.content
    return ""


async def agent(state: ChatState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the chat model for a reply or tool calls."""
    ctx = runtime.context or Context()
    async with memory_of(ctx) as memory:
        model = models.chat_model(settings_of(ctx), _tools(memory, ctx), chat_model=ctx.chat_model)
    try:
        reply = await model.ainvoke(list(state.get("messages") or []))
    except model_errors() as exc:
        # One line for the caller (the user's message is kept in the session).
        raise as_model_error(exc, "the chat model failed") from None
    return {"messages": [reply], "rounds": state.get("rounds", 0) + 1}


async def call_tools(
    state: ChatState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Run the last message's tool calls; errors go back to the model as tool messages."""
    ctx = runtime.context or Context()
    async with memory_of(ctx) as memory:
        node = ToolNode(_tools(memory, ctx), handle_tool_errors=True)
        result: dict[str, Any] = await node.ainvoke({"messages": state["messages"]}, config)
    return result


def route_after_agent(state: ChatState, runtime: Runtime[Context]) -> str:
    """Run tools while the model calls them, up to the round limit."""
    ctx = runtime.context or Context()
    messages: list[Any] = state.get("messages") or [None]
    last = messages[-1]
    calls = isinstance(last, AIMessage) and bool(last.tool_calls)
    return "tools" if calls and state.get("rounds", 0) <= ctx.max_tool_rounds else "respond"


async def respond(state: ChatState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Record the reply as an episode and form memories when the gates open."""
    ctx = runtime.context or Context()
    messages: list[Any] = state.get("messages") or []
    last = messages[-1] if messages else None
    text = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
    reply = text.strip() or "I could not find an answer in memory."
    async with memory_of(ctx) as memory:
        store = _store(memory, ctx)
        await store.record_message(ref_of(ctx), "assistant", reply)
        await store.maybe_form_memories(ref_of(ctx))
    return {"reply": reply}
