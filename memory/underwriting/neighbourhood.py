"""Focused views of the underwriting graph: one rule's or one risk factor's neighbourhood.

A whole namespace drawn at once is unreadable past a few dozen rules. A neighbourhood
is the part a person asks about:

* `rule_neighbourhood`: a rule, the risk factor(s) that trigger it, its outcome, the
  mitigants that override it and the sources it is derived from;
* `risk_neighbourhood`: a risk factor, the rules it triggers (at most ``limit``; how
  many were left off is kept) and their outcomes, mitigants and sources.

Only current edges and current rules are read (a retired rule's node is ``invalid_at``
its end), and only through indexed lookups: the node by its ``entity_key``, the edges
by ``p_rule_name IN $names``. A view costs a few round trips of a few rows whatever
the size of the namespace.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.model import Namespace, entity_key
from memory.underwriting.condition_kind import CURRENT_EDGE, RULE_NODES

if TYPE_CHECKING:
    from memory.graph import GraphMemory

RELATIONS = ("TRIGGERS", "RESULTS_IN", "OVERRIDES", "DERIVED_FROM")
KINDS = ("RiskFactor", "Rule", "Outcome", "Mitigant", "Source")
SUGGESTIONS = 5

# The edges of some rules, by the p_rule_name index (a typed pattern would scan nodes).
_EDGES = (
    f"MATCH ()-[e:RELATES_TO]->() WHERE e.p_rule_name IN $names AND {CURRENT_EDGE} "
    "AND e.name IN $relations RETURN e.name AS relation, "
    "startNode(e).entity_key AS s_key, startNode(e).label AS s_label, "
    "startNode(e).name AS s_name, startNode(e).invalid_at IS NULL AS s_live, "
    "endNode(e).entity_key AS t_key, endNode(e).label AS t_label, "
    "endNode(e).name AS t_name, endNode(e).invalid_at IS NULL AS t_live"
)
# A current rule by its key (RULE_NODES: not retired, and not every edge invalidated).
_RULE = (
    f"MATCH (n:Entity {{entity_key: $key}}) WHERE n.label = 'Rule' {RULE_NODES}"
    "RETURN n.entity_key AS key, n.name AS name"
)
# A risk factor by its key and the current rules it triggers.
_RISK = (
    "MATCH (s:Entity {entity_key: $key}) WHERE s.label = 'RiskFactor' "
    "OPTIONAL MATCH (s)-[e:RELATES_TO]->(r:Entity) "
    f"WHERE e.name = 'TRIGGERS' AND {CURRENT_EDGE} AND r.label = 'Rule' AND r.invalid_at IS NULL "
    "RETURN s.entity_key AS key, s.name AS name, collect(DISTINCT r.name) AS rules"
)


@dataclass(frozen=True)
class GraphNode:
    """One node of a neighbourhood.

    Attributes:
        id: The node's entity key (unique in its namespace).
        kind: Its label: RiskFactor, Rule, Outcome, Mitigant or Source.
        name: Its name.
        rule: The rule name of a Rule node (for a link to the rule's page), else None.
    """

    id: str
    kind: str
    name: str
    rule: str | None = None


@dataclass(frozen=True)
class GraphEdge:
    """One current edge of a neighbourhood: `source` -relation-> `target` (node ids)."""

    source: str
    target: str
    relation: str

    @property
    def id(self) -> str:
        """A stable id for the edge: its ends and relation."""
        return f"{self.source}-{self.relation}-{self.target}"


@dataclass(frozen=True)
class Neighbourhood:
    """A focused part of the graph around one node.

    Attributes:
        center: The id of the node the view is about (a rule or a risk factor).
        nodes: Its nodes, each once, ordered by kind then name.
        edges: Its edges, each once, between those nodes.
        left_off: How many more rules matched but were left out (the limit).
    """

    center: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    left_off: int = 0

    @property
    def is_empty(self) -> bool:
        """True when the view holds no node."""
        return not self.nodes

    def node(self, node_id: str) -> GraphNode | None:
        """The node of this id, or None."""
        return next((n for n in self.nodes if n.id == node_id), None)

    def to_cytoscape(self) -> list[dict[str, Any]]:
        """Return the view as cytoscape.js elements: the nodes, then the edges."""
        nodes = [
            {"data": {"id": n.id, "label": n.name, "kind": n.kind, "rule": n.rule}}
            for n in self.nodes
        ]
        edges = [
            {"data": {"id": e.id, "source": e.source, "target": e.target, "label": e.relation}}
            for e in self.edges
        ]
        return [*nodes, *edges]


async def rule_neighbourhood(
    memory: GraphMemory, namespace: Namespace, rule_name: str
) -> Neighbourhood:
    """Return a current rule with its risk factors, outcome, mitigants and sources.

    Args:
        memory: A connected graph memory.
        namespace: The namespace to read.
        rule_name: The rule's name (case and spacing as the entity key folds them).

    Raises:
        ValueError: No current rule has that name.
    """
    group_id = namespace.group_id
    key = entity_key(group_id, "Rule", rule_name) if rule_name.strip() else ""
    rows = await _rows(memory, group_id, _RULE, {"key": key}) if key else []
    if not rows:
        raise ValueError(f"no rule named {rule_name!r} in {namespace}")
    rule = _node(rows[0]["key"], "Rule", rows[0]["name"])
    return await _around(memory, group_id, rule, [rule.name])


async def risk_neighbourhood(
    memory: GraphMemory, namespace: Namespace, risk: str, *, limit: int = 25
) -> Neighbourhood:
    """Return a risk factor, the current rules it triggers and their surroundings.

    Args:
        memory: A connected graph memory.
        namespace: The namespace to read.
        risk: The risk factor's exact name (case-insensitive).
        limit: Most rules shown (by name); the rest are counted in ``left_off``.

    Raises:
        ValueError: A non-positive limit, or no risk factor of that name (the message
            names the closest risk factors there are).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    group_id = namespace.group_id
    key = entity_key(group_id, "RiskFactor", risk) if risk.strip() else ""
    rows = await _rows(memory, group_id, _RISK, {"key": key}) if key else []
    if not rows:
        close = await close_risk_factors(memory, namespace, risk)
        hint = f"; close: {', '.join(repr(n) for n in close)}" if close else ""
        raise ValueError(f"no risk factor named {risk!r} in {namespace}{hint}")
    center = _node(rows[0]["key"], "RiskFactor", rows[0]["name"])
    names = sorted(n for n in rows[0]["rules"] if n)
    hood = await _around(memory, group_id, center, names[:limit])
    return Neighbourhood(hood.center, hood.nodes, hood.edges, left_off=len(names[limit:]))


async def close_risk_factors(
    memory: GraphMemory, namespace: Namespace, risk: str, n: int = SUGGESTIONS
) -> list[str]:
    """Return up to `n` risk factor names of the namespace that look like `risk`.

    Names that contain the text (or that it contains) and names `difflib` finds close,
    most alike first. Reads the risk factors' names only (a label lookup), on the
    error path.
    """
    if not await memory.db.has_graph(namespace.group_id):
        return []
    names = sorted({name for _, name, _ in await memory.entity_names(namespace, "RiskFactor")})
    folded = {name.casefold(): name for name in names}
    wanted = " ".join(risk.casefold().split())
    if not wanted:
        return []
    within = [
        name for low, name in folded.items() if wanted in low or (len(low) > 2 and low in wanted)
    ]
    alike = [folded[low] for low in difflib.get_close_matches(wanted, list(folded), n, 0.6)]

    def likeness(name: str) -> float:
        return difflib.SequenceMatcher(None, wanted, name.casefold()).ratio()

    return sorted(dict.fromkeys([*alike, *within]), key=lambda name: (-likeness(name), name))[:n]


async def _around(
    memory: GraphMemory, group_id: str, center: GraphNode, rule_names: list[str]
) -> Neighbourhood:
    """The view of `center` with the current edges of the named rules."""
    rows = await _rows(
        memory, group_id, _EDGES, {"names": rule_names, "relations": list(RELATIONS)}
    )
    return _assemble(center, rows)


def _assemble(center: GraphNode, rows: Iterable[Mapping[str, Any]]) -> Neighbourhood:
    """Fold edge rows into a neighbourhood (edges touching a retired node are skipped)."""
    nodes = {center.id: center}
    edges: dict[str, GraphEdge] = {}
    for row in rows:
        if not (row["s_live"] and row["t_live"]):
            continue
        source = _node(row["s_key"], row["s_label"], row["s_name"])
        target = _node(row["t_key"], row["t_label"], row["t_name"])
        nodes.setdefault(source.id, source)
        nodes.setdefault(target.id, target)
        edge = GraphEdge(source.id, target.id, row["relation"])
        edges.setdefault(edge.id, edge)
    rank = {kind: i for i, kind in enumerate(KINDS)}
    ordered = sorted(nodes.values(), key=lambda n: (rank.get(n.kind, len(KINDS)), n.name, n.id))
    return Neighbourhood(
        center=center.id,
        nodes=tuple(ordered),
        edges=tuple(sorted(edges.values(), key=lambda e: (e.relation, e.source, e.target))),
    )


def _node(key: str, label: str, name: str) -> GraphNode:
    return GraphNode(id=key, kind=label, name=name, rule=name if label == "Rule" else None)


async def _rows(
    memory: GraphMemory, group_id: str, cypher: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    if not await memory.db.has_graph(group_id):
        return []
    return await memory.db.query(group_id, cypher, params, read_only=True)


__all__ = [
    "GraphEdge",
    "GraphNode",
    "Neighbourhood",
    "close_risk_factors",
    "risk_neighbourhood",
    "rule_neighbourhood",
]
