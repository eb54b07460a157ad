"""Read-only tools: semantic search over facts and read-only Cypher."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from tools._common import ToolContext, dumps


class ExploreArgs(BaseModel):
    """Arguments of `explore`."""

    query: str = Field(min_length=1, description="What to look for, in plain words.")
    limit: int = Field(default=5, ge=1, le=25, description="Most facts to return.")


class TraverseArgs(BaseModel):
    """Arguments of `traverse`."""

    cypher: str = Field(
        min_length=1,
        description=(
            "Read-only Cypher. Nodes are (:Entity {name, label, entity_key}); edges are "
            "[:RELATES_TO {name, fact}], e.g. MATCH (r:Entity {label:'Rule'}) RETURN r.name."
        ),
    )
    max_rows: int = Field(default=50, ge=1, le=500, description="Most rows to return.")


def create_explore_tool(ctx: ToolContext) -> BaseTool:
    """Return the `explore` tool: hybrid semantic search over the namespace's facts."""

    async def explore(query: str, limit: int = 5) -> str:
        hits = await ctx.memory.search(ctx.namespace, query, limit=limit)
        return dumps(
            [
                {
                    "source": f"{h.relationship.source_label}:{h.relationship.source_name}",
                    "relation": h.relationship.relation,
                    "target": f"{h.relationship.target_label}:{h.relationship.target_name}",
                    "fact": h.relationship.fact,
                    "score": round(h.score, 4),
                }
                for h in hits
            ]
        )

    return StructuredTool.from_function(
        coroutine=explore,
        name="explore",
        description="Search existing memory for facts related to a query (use before writing).",
        args_schema=ExploreArgs,
    )


def create_traverse_tool(ctx: ToolContext) -> BaseTool:
    """Return the `traverse` tool: read-only Cypher on the namespace's graph."""

    async def traverse(cypher: str, max_rows: int = 50) -> str:
        result = await ctx.memory.traverse(ctx.namespace, cypher, max_rows=max_rows)
        rows: list[Any] = result.rows
        return dumps({"rows": rows, "truncated": result.truncated})

    return StructuredTool.from_function(
        coroutine=traverse,
        name="traverse",
        description="Run a read-only Cypher query on the graph (writes are refused).",
        args_schema=TraverseArgs,
    )
