"""The underwriting domain over the generic memory.

Its ontology, the rulebook (rule <-> subgraph), the condition index, analytics
(query, trace, export, visualize) and rule supersession.

Everything here builds on `memory` (model, graph, search); nothing in the generic
memory imports it. `GraphMemory`'s default ontology, ``"underwriting"``, is loaded
from `memory.underwriting.ontology` by name on first use.
"""

from memory.underwriting.analytics import GraphAnalytics
from memory.underwriting.condition_kind import condition_index
from memory.underwriting.conditions import ConditionIndex, equal, holds, is_number
from memory.underwriting.focused import draw_neighbourhood
from memory.underwriting.neighbourhood import (
    GraphEdge,
    GraphNode,
    Neighbourhood,
    risk_neighbourhood,
    rule_neighbourhood,
)
from memory.underwriting.ontology import (
    ALL_PRODUCTS,
    PARTITION_PROPERTY,
    SHARED_LABELS,
    SOURCE_TYPES,
    UNDERWRITING,
)
from memory.underwriting.paths import DecisionPath, RuleHit, canonical_product
from memory.underwriting.risk import (
    CHECK_LIMIT,
    TRACE_LIMIT,
    RiskQuestion,
    check_risk,
    hit_brief,
    hits_text,
    paths_text,
    trace_risk,
)
from memory.underwriting.rulebook import (
    CONFIDENCE,
    OUTCOME_NAMES,
    RuleGraph,
    apply_rule_graph,
    apply_rule_graph_per_item,
    apply_rule_graphs,
    rule_fact,
    rule_from_properties,
    rule_graph,
    stored_rules,
)
from memory.underwriting.supersede import edges_as_of
from memory.underwriting.visualize import draw_graph

__all__ = [
    "ALL_PRODUCTS",
    "CHECK_LIMIT",
    "CONFIDENCE",
    "OUTCOME_NAMES",
    "PARTITION_PROPERTY",
    "SHARED_LABELS",
    "SOURCE_TYPES",
    "TRACE_LIMIT",
    "UNDERWRITING",
    "ConditionIndex",
    "DecisionPath",
    "GraphAnalytics",
    "GraphEdge",
    "GraphNode",
    "Neighbourhood",
    "RuleGraph",
    "RiskQuestion",
    "RuleHit",
    "apply_rule_graph",
    "apply_rule_graph_per_item",
    "apply_rule_graphs",
    "canonical_product",
    "check_risk",
    "condition_index",
    "draw_graph",
    "draw_neighbourhood",
    "edges_as_of",
    "equal",
    "hit_brief",
    "hits_text",
    "holds",
    "is_number",
    "paths_text",
    "risk_neighbourhood",
    "rule_fact",
    "rule_from_properties",
    "rule_graph",
    "rule_neighbourhood",
    "stored_rules",
    "trace_risk",
]
