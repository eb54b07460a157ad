"""The chat graph: wiring only (nodes in nodes.py, state in state.py).

    prepare -> agent <-> tools -> respond

`prepare` records the user's message and builds the prompt (memory context XML +
recent session messages); `respond` records the reply and forms memories when the
gates open.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.chat import nodes
from agents.chat.context import Context
from agents.chat.state import ChatInput, ChatOutput, ChatState

builder = StateGraph(
    ChatState, input_schema=ChatInput, output_schema=ChatOutput, context_schema=Context
)
builder.add_node("prepare", nodes.prepare)
builder.add_node("agent", nodes.agent)
builder.add_node("tools", nodes.call_tools)  # type: ignore[call-overload,arg-type,unused-ignore]
builder.add_node("respond", nodes.respond)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "agent")
builder.add_conditional_edges("agent", nodes.route_after_agent, ["tools", "respond"])
builder.add_edge("tools", "agent")
builder.add_edge("respond", END)

graph = builder.compile()

__all__ = ["builder", "graph"]
