"""The ingestion graph: extract -> agent <-> tools -> link sources -> finalize.

Sources are linked after the writes: `add_source` can only link entities that
exist, and writing each episode once with its final links keeps re-ingestion a no-op.
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
builder.add_node("link_sources", nodes.link_sources)
builder.add_node("finalize", nodes.finalize)
builder.add_edge(START, "extract_and_disambiguate")
builder.add_conditional_edges(
    "extract_and_disambiguate",
    nodes.route_after_extraction,
    ["relationship_agent", "link_sources"],
)
builder.add_conditional_edges(
    "relationship_agent", nodes.route_after_agent, ["tools", "link_sources"]
)
builder.add_conditional_edges(
    "tools", nodes.route_after_tools, ["relationship_agent", "link_sources"]
)
builder.add_edge("link_sources", "finalize")
builder.add_edge("finalize", END)

graph = builder.compile()

__all__ = ["builder", "graph"]
