"""Decision paths and rule hits: what the read side returns about a rule.

`DecisionPath` is one rule's RiskFactor -> Rule -> Outcome path with everything an
audit needs; `RuleHit` is a rule found by text. Both are built here from stored edges
(`path_of`) or from the condition index's routes (`route_path`), so that
`GraphAnalytics` only queries and this module only assembles.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field

from memory.model import SearchHit
from memory.underwriting.conditions import Route
from schemas.rules import PRODUCT_TYPES

__all__ = [
    "DecisionPath",
    "PathEdge",
    "RuleHit",
    "canonical_product",
    "path_of",
    "props_of",
    "route_path",
    "rule_hits",
]


class RuleHit(BaseModel):
    """One rule matching a query: its best-scoring edge."""

    model_config = ConfigDict(frozen=True)

    rule_name: str = Field(description="The rule the edge belongs to.")
    source: str = Field(description="Name of the edge's source node.")
    relation: str = Field(description="Edge relation, e.g. TRIGGERS.")
    target: str = Field(description="Name of the edge's target node.")
    fact: str = Field(description="The edge's fact text.")
    properties: dict[str, Any] = Field(default_factory=dict, description="Edge properties.")
    score: float = Field(description="Search score (higher is better).")


class DecisionPath(BaseModel):
    """RiskFactor -> Rule -> Outcome of one rule, with everything an audit needs."""

    model_config = ConfigDict(frozen=True)

    rule_name: str = Field(description="The rule.")
    risk_factor: str | None = Field(default=None, description="The risk that triggers it.")
    outcomes: list[str] = Field(default_factory=list, description="Outcome nodes it results in.")
    mitigants: list[str] = Field(default_factory=list, description="Mitigants that override it.")
    source: str | None = Field(default=None, description="Document it is derived from.")
    source_type: str | None = Field(default=None, description="manual, sme, production...")
    sources: list[str] = Field(
        default_factory=list, description="Every document it is derived from: 'name (type)'."
    )
    product_type: str | None = Field(default=None, description="Product it applies to.")
    action: str | None = Field(default=None, description="What it prescribes.")
    threshold: dict[str, Any] | None = Field(default=None, description="Numeric boundary.")
    threshold_type: str | None = Field(default=None, description="hard or soft.")
    soft_limit: float | None = Field(default=None, description="Historical exception limit.")
    historical_exceptions: str | None = Field(default=None, description="Known deviations.")
    conditions: list[dict[str, Any]] = Field(default_factory=list, description="Trigger.")
    mitigant_fields: list[str] = Field(default_factory=list, description="Mitigant flags.")
    score: float | None = Field(default=None, description="Search score when found by text.")

    def describe(self) -> str:
        """Return the path as one line, e.g. ``Gas Station -> Gas Station Auto-Refer -> Refer``."""
        outcome = ", ".join(self.outcomes) or "?"
        return f"{self.risk_factor or '?'} -> {self.rule_name} -> {outcome}"


def canonical_product(product_type: str | None) -> str | None:
    """Return the canonical spelling of a product (``bop`` -> ``BOP``); None stays None.

    Raises:
        ValueError: Not a known product; the message lists the allowed ones.
    """
    if product_type is None or not str(product_type).strip():
        return None
    for product in PRODUCT_TYPES:
        if product.casefold() == str(product_type).strip().casefold():
            return product
    raise ValueError(f"unknown product type {product_type!r}; allowed: {', '.join(PRODUCT_TYPES)}")


def rule_hits(hits: Sequence[SearchHit], limit: int) -> list[RuleHit]:
    """Collapse edge hits into rule hits: a rule scores the sum of its edges' scores."""
    best: dict[str, Any] = {}  # name -> its first (best) edge
    total: dict[str, float] = {}
    for hit in hits:
        rel = hit.relationship
        name = rel.properties.get("rule_name")
        if not isinstance(name, str):
            continue
        total[name] = total.get(name, 0.0) + hit.score
        if name not in best:
            best[name] = rel
    ranked = sorted(best, key=lambda name: -total[name])
    # Only the hits returned are built, each once, with its rule's total score.
    return [
        RuleHit(
            rule_name=name,
            source=(rel := best[name]).source_name,
            relation=rel.relation,
            target=rel.target_name,
            fact=rel.fact,
            properties=rel.properties,
            score=total[name],
        )
        for name in ranked[:limit]
    ]


def props_of(text: str | None) -> dict[str, Any]:
    """An edge's stored properties (orjson: a path reads several per rule)."""
    if not text:
        return {}
    try:
        props: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:  # what only `json` writes (huge integers, NaN)
        props = json.loads(text)
    return props


class PathEdge(NamedTuple):
    """What a decision path needs of one edge."""

    relation: str
    source_name: str
    target_name: str
    properties: dict[str, Any]


def route_path(name: str, route: Route) -> DecisionPath:
    """A rule's decision path from its route: what `path_of` makes of its edges' endpoints.

    Ordered as `path_of` orders edges: outcomes and mitigants by name, the first source
    by name as `source`, the last risk factor by name as `risk_factor`.
    """
    risks, outcomes, mitigants, sources = [], [], [], []
    for relation, other in sorted(route):
        if relation == "TRIGGERS":
            risks.append(other)
        elif relation == "RESULTS_IN":
            outcomes.append(other)
        elif relation == "OVERRIDES":
            mitigants.append(other)
        elif relation == "DERIVED_FROM":
            sources.append(other)
    return DecisionPath(
        rule_name=name,
        risk_factor=risks[-1] if risks else None,
        outcomes=outcomes,
        mitigants=mitigants,
        source=sources[0] if sources else None,
    )


def path_of(name: str, edges: list[PathEdge]) -> DecisionPath:
    """Assemble one rule's decision path from its edges."""
    values: dict[str, Any] = {"rule_name": name, "outcomes": [], "mitigants": []}
    for rel in sorted(edges, key=lambda r: (r.relation, r.source_name, r.target_name)):
        props = rel.properties
        values.setdefault("product_type", props.get("product_type"))
        values.setdefault("action", props.get("action"))
        if rel.relation == "TRIGGERS":
            values["risk_factor"] = rel.source_name
            for key in ("threshold", "threshold_type", "soft_limit", "historical_exceptions"):
                values[key] = props.get(key)
            values["conditions"] = props.get("conditions") or []
        elif rel.relation == "RESULTS_IN":
            values["outcomes"].append(rel.target_name)
        elif rel.relation == "OVERRIDES":
            values["mitigants"].append(rel.source_name)
            values["mitigant_fields"] = props.get("mitigant_fields") or []
        elif rel.relation == "DERIVED_FROM":
            values.setdefault("source", rel.target_name)
            values.setdefault("source_type", props.get("source_type"))
            values.setdefault("sources", []).append(
                f"{rel.target_name} ({props.get('source_type') or '?'})"
            )
    return DecisionPath.model_validate(values)
