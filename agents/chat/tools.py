"""The chat agent's memory tools: search, check risk appetite, trace (cached reads)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memory import GraphMemory, Namespace
from memory.graph import RetrievalCache
from memory.underwriting import RiskQuestion, check_risk, hit_brief, trace_risk

CHECK_RISK_APPETITE = "check_risk_appetite"


class SearchArgs(BaseModel):
    """Arguments of `search_memory`."""

    query: str = Field(min_length=1, description="What to look for.")
    limit: int = Field(default=5, ge=1, le=20, description="Most facts to return.")


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def create_chat_tools(
    memory: GraphMemory, namespace: Namespace, cache: RetrievalCache | None = None
) -> list[BaseTool]:
    """Return the read-only memory tools over an agent namespace.

    Args:
        memory: Connected graph memory.
        namespace: The agent namespace holding the rules.
        cache: Retrieval cache (invalidated by writes to the namespace); None: no cache.
    """

    async def cached(operation: str, query: Any, load: Any) -> Any:
        if cache is None:
            return await load()
        return await cache.get_or_load(namespace, operation, query, load)

    async def check_risk_appetite(risk: str, product_type: str | None = None) -> str:
        async def load() -> list[dict[str, Any]]:
            hits = await check_risk(memory, namespace, risk, product_type, limit=5)
            return [hit_brief(h) for h in hits]

        return _dumps(await cached(CHECK_RISK_APPETITE, (risk, product_type), load))

    async def trace(risk: str, product_type: str | None = None) -> str:
        async def load() -> list[dict[str, Any]]:
            paths = await trace_risk(memory, namespace, risk, product_type, limit=5)
            return [p.model_dump(exclude_none=True) | {"path": p.describe()} for p in paths]

        return _dumps(await cached("trace", (risk, product_type), load))

    async def search_memory(query: str, limit: int = 5) -> str:
        async def load() -> list[dict[str, Any]]:
            hits = await memory.search(namespace, query, limit=limit)
            return [{"fact": h.relationship.fact, "score": round(h.score, 4)} for h in hits]

        return _dumps(await cached("search", (query, limit), load))

    return [
        StructuredTool.from_function(
            coroutine=check_risk_appetite,
            name=CHECK_RISK_APPETITE,
            description="Find the underwriting rules that speak to a risk (one per rule).",
            args_schema=RiskQuestion,
        ),
        StructuredTool.from_function(
            coroutine=trace,
            name="trace",
            description="Show decision paths RiskFactor -> Rule -> Outcome for a risk.",
            args_schema=RiskQuestion,
        ),
        StructuredTool.from_function(
            coroutine=search_memory,
            name="search_memory",
            description="Search the agent's memory for facts related to a query.",
            args_schema=SearchArgs,
        ),
    ]
