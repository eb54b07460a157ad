"""The chat agent's memory tools: search, check risk appetite, trace (cached reads)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memory import GraphMemory, Namespace
from memory.graph import RetrievalCache
from memory.underwriting import GraphAnalytics

CHECK_RISK_APPETITE = "check_risk_appetite"


class RiskArgs(BaseModel):
    """Arguments of `check_risk_appetite` and `trace`."""

    risk: str = Field(min_length=1, description="The risk or question, in plain words.")
    product_type: str | None = Field(default=None, description="BOP, GL, ... or None for all.")


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
    analytics = GraphAnalytics(memory, namespace)

    async def cached(operation: str, query: Any, load: Any) -> Any:
        if cache is None:
            return await load()
        return await cache.get_or_load(namespace, operation, query, load)

    async def check_risk_appetite(risk: str, product_type: str | None = None) -> str:
        async def load() -> list[dict[str, Any]]:
            hits = await analytics.check_risk_appetite(risk, product_type=product_type, limit=5)
            return [
                {
                    "rule_name": h.rule_name,
                    "fact": h.fact,
                    "action": h.properties.get("action"),
                    "product_type": h.properties.get("product_type"),
                    "threshold_type": h.properties.get("threshold_type"),
                    "soft_limit": h.properties.get("soft_limit"),
                    "score": round(h.score, 4),
                }
                for h in hits
            ]

        return _dumps(await cached(CHECK_RISK_APPETITE, (risk, product_type), load))

    async def trace(risk: str, product_type: str | None = None) -> str:
        async def load() -> list[dict[str, Any]]:
            paths = await analytics.trace(risk, product_type=product_type, limit=5)
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
            args_schema=RiskArgs,
        ),
        StructuredTool.from_function(
            coroutine=trace,
            name="trace",
            description="Show decision paths RiskFactor -> Rule -> Outcome for a risk.",
            args_schema=RiskArgs,
        ),
        StructuredTool.from_function(
            coroutine=search_memory,
            name="search_memory",
            description="Search the agent's memory for facts related to a query.",
            args_schema=SearchArgs,
        ),
    ]
