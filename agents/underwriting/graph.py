"""The underwriting graph: wiring only (nodes in nodes.py, state in state.py).

    intake -> retrieve -> evaluate -> decide -> [refer] -> explain

`refer` (a LangGraph interrupt for a human reviewer) runs only when the run's
`Context.allow_refer_interrupt` is set and the decision is ``refer``; compile
`builder` with a checkpointer to use it. `graph` is compiled without one.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.underwriting import nodes
from agents.underwriting.context import Context
from agents.underwriting.state import UnderwritingInput, UnderwritingOutput, UnderwritingState

builder = StateGraph(
    UnderwritingState,
    context_schema=Context,
    input_schema=UnderwritingInput,
    output_schema=UnderwritingOutput,
)
builder.add_node("intake", nodes.intake)
builder.add_node("retrieve", nodes.retrieve)
builder.add_node("evaluate", nodes.evaluate)
builder.add_node("decide", nodes.decide)
builder.add_node("refer", nodes.refer)
builder.add_node("explain", nodes.explain)
builder.add_edge(START, "intake")
builder.add_edge("intake", "retrieve")
builder.add_edge("retrieve", "evaluate")
builder.add_edge("evaluate", "decide")
builder.add_conditional_edges("decide", nodes.route_after_decide, ["refer", "explain"])
builder.add_edge("refer", "explain")
builder.add_edge("explain", END)

graph = builder.compile()

__all__ = ["builder", "graph"]
