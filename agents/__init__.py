"""Athena's LangGraph agents: the ingestion graph and the underwriting agent.

    from agents import build_ingestion_graph, build_underwriting_agent
    from agents import IngestionContext, UnderwritingContext

Both builders compile the graph (optionally with a checkpointer); run settings
travel in each graph's `Context`. Importing this package starts nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Checkpointer

    from agents.ingestion.context import Context as IngestionContext
    from agents.underwriting.context import Context as UnderwritingContext


def build_ingestion_graph(
    checkpointer: Checkpointer = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the ingestion graph (extract -> agent <-> tools -> link sources -> finalize)."""
    from agents.ingestion.graph import builder

    return builder.compile(checkpointer=checkpointer)


def build_underwriting_agent(
    checkpointer: Checkpointer = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the underwriting agent; give a checkpointer to use its `refer` interrupt."""
    from agents.underwriting.graph import builder

    return builder.compile(checkpointer=checkpointer)


def __getattr__(name: str) -> Any:
    # The run settings classes, loaded on first use like the graphs.
    if name == "IngestionContext":
        from agents.ingestion.context import Context

        return Context
    if name == "UnderwritingContext":
        from agents.underwriting.context import Context as UnderwritingContext

        return UnderwritingContext
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = [
    "IngestionContext",
    "UnderwritingContext",
    "build_ingestion_graph",
    "build_underwriting_agent",
]
