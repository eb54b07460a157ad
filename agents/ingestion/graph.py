"""The ingestion graph: extract -> agent <-> tools -> commit -> finalize.

The agent's write tools are staged; `commit` writes the accepted calls and then the
source episodes, so a batch's writes and its source links go in together after every
model call (a failed model call ends the batch at `finalize` with nothing written).
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.ingestion import nodes
from agents.ingestion.context import Context
from agents.ingestion.state import IngestionInput, IngestionOutput, IngestionState

builder = StateGraph(
    IngestionState,
    input_schema=IngestionInput,
    output_schema=IngestionOutput,
    context_schema=Context,
)
builder.add_node("extract_and_disambiguate", nodes.extract_and_disambiguate)
builder.add_node("relationship_agent", nodes.relationship_agent)
builder.add_node("tools", nodes.call_tools)  # type: ignore[call-overload,arg-type,unused-ignore]
builder.add_node("commit", nodes.commit_batch)
builder.add_node("finalize", nodes.finalize)
builder.add_edge(START, "extract_and_disambiguate")
builder.add_conditional_edges(
    "extract_and_disambiguate",
    nodes.route_after_extraction,
    ["relationship_agent", "commit"],
)
builder.add_conditional_edges(
    "relationship_agent", nodes.route_after_agent, ["tools", "commit", "finalize"]
)
builder.add_conditional_edges("tools", nodes.route_after_tools, ["relationship_agent", "commit"])
builder.add_edge("commit", "finalize")
builder.add_edge("finalize", END)

graph = builder.compile()

__all__ = ["builder", "graph"]
