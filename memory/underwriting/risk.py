"""Check a risk and trace its decision paths: the one implementation every adapter calls.

The command line (`athena trace`), the MCP tools (`memory_check_risk`,
`memory_trace_path`), the chat agent's tools and the LangChain tools
(`tools.langchain`) all take a `RiskQuestion`, call `check_risk` / `trace_risk`
(pydantic `RuleHit` / `DecisionPath` results) and, when they answer in text,
render with `hits_text` / `paths_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from memory.underwriting.analytics import GraphAnalytics
from memory.underwriting.paths import DecisionPath, RuleHit

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

CHECK_LIMIT = 5
"""Rules a risk check returns unless asked otherwise."""
TRACE_LIMIT = 10
"""Decision paths a trace returns unless asked otherwise."""


class RiskQuestion(BaseModel):
    """The arguments of a risk check or a trace (every tool's input schema)."""

    model_config = ConfigDict(extra="forbid")

    risk: str = Field(
        min_length=1,
        description="Risk factor or situation, e.g. 'gas station' or 'employee count 22'.",
    )
    product_type: str | None = Field(
        default=None, description="BOP, LRO, Property or GL; None for every product."
    )


async def check_risk(
    memory: GraphMemory,
    namespace: Namespace | str,
    risk: str,
    product_type: str | None = None,
    *,
    limit: int = CHECK_LIMIT,
) -> list[RuleHit]:
    """Return the rules that speak to a risk for a product (and ``ALL``), best first.

    Raises:
        ValueError: An empty risk, a non-positive limit or an unknown product.
    """
    analytics = GraphAnalytics(memory, namespace)
    return await analytics.check_risk_appetite(risk, product_type=product_type, limit=limit)


async def trace_risk(
    memory: GraphMemory,
    namespace: Namespace | str,
    risk: str,
    product_type: str | None = None,
    *,
    limit: int = TRACE_LIMIT,
) -> list[DecisionPath]:
    """Return a risk's decision paths: RiskFactor -> Rule -> Outcome, mitigants, source.

    Raises:
        ValueError: An empty risk, a non-positive limit or an unknown product.
    """
    return await GraphAnalytics(memory, namespace).trace(
        risk, product_type=product_type, limit=limit
    )


def hit_brief(hit: RuleHit) -> dict[str, Any]:
    """A rule hit in the few fields a chat model needs (JSON-ready)."""
    return {
        "rule_name": hit.rule_name,
        "fact": hit.fact,
        "action": hit.properties.get("action"),
        "product_type": hit.properties.get("product_type"),
        "threshold_type": hit.properties.get("threshold_type"),
        "soft_limit": hit.properties.get("soft_limit"),
        "score": round(hit.score, 4),
    }


def hits_text(hits: Sequence[RuleHit], risk: str) -> str:
    """Render a risk check as text: one line per rule (product, action, fact)."""
    if not hits:
        return f"No rules found for {risk!r}."
    lines = []
    for hit in hits:
        product = hit.properties.get("product_type") or "?"
        action = hit.properties.get("action") or "?"
        lines.append(f"- {hit.rule_name} [{product}, {action}]: {hit.fact}")
    return "\n".join(lines)


def paths_text(paths: Sequence[DecisionPath], risk: str) -> str:
    """Render decision paths as text: the path, then its conditions, limits and source."""
    if not paths:
        return f"No decision paths found for {risk!r}."
    lines = []
    for path in paths:
        lines.append(f"- {path.describe()}  [{path.product_type}, {path.action}]")
        if path.conditions:
            conditions = " AND ".join(
                f"{c.get('field')} {c.get('operator')} {c.get('value')}" for c in path.conditions
            )
            lines.append(f"    fires when: {conditions}")
        if path.threshold:
            t = path.threshold
            soft = f", soft limit {path.soft_limit:g}" if path.soft_limit is not None else ""
            lines.append(
                f"    threshold: {t.get('field')} {t.get('operator')} {t.get('value')} "
                f"({path.threshold_type or 'unspecified'}{soft})"
            )
        if path.historical_exceptions:
            lines.append(f"    exceptions: {path.historical_exceptions}")
        lines.append(f"    mitigants: {'; '.join(path.mitigants) or 'none'}")
        sources = "; ".join(path.sources) or f"{path.source or 'unknown'} ({path.source_type})"
        lines.append(f"    sources: {sources}")
    return "\n".join(lines)


__all__ = [
    "CHECK_LIMIT",
    "TRACE_LIMIT",
    "RiskQuestion",
    "check_risk",
    "hit_brief",
    "hits_text",
    "paths_text",
    "trace_risk",
]
