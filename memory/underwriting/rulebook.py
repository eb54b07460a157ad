"""How an underwriting rule becomes graph memory, and how it is read back.

`rule_graph(rule)` is the one mapping from an `ExtractedRule` to the nodes and
edges of the underwriting ontology:

    RiskFactor -TRIGGERS-> Rule -RESULTS_IN-> Outcome
    Mitigant -OVERRIDES-> Rule          Rule -DERIVED_FROM-> Source

The Rule node keeps the whole structured rule in its properties (so decisions
can be evaluated and exports rebuilt), and every edge carries the rule's
nuance in its `fact` text too, because semantic search works over facts.
A `RuleGraph` is the generic `memory.model.SubGraph` of one rule. The ingestion
agent's planner turns it into tool calls; bulk writers apply many at once with
`apply_rule_graphs` (`GraphMemory.write_batch`). Both write what `GraphMemory`'s
one-at-a-time upserts would (`apply_rule_graph_per_item`).

What the reference path writes is decided apart from the store calls, by pure
functions over plain data: `node_write` (a node's summary, properties and confidence,
given what is stored under its key), `edge_writes` (the edges between the keys its
nodes were written under) and `rules_in` (the rules that stored Rule records hold).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memory.model import EntitySpec, RelationshipSpec, SubGraph, WriteTally, merge_shared
from schemas.rules import STORED, ExtractedRule

if TYPE_CHECKING:
    from memory.embedders import EmbeddingPrefetch
    from memory.graph import GraphMemory
    from memory.model import EntityRecord, Namespace

RuleGraph = SubGraph  # the subgraph of one rule (its name is the rule's name)

CONFIDENCE = {"high": 0.9, "medium": 0.7, "low": 0.5}
OUTCOME_NAMES = {
    "refer": "Refer",
    "decline": "Decline",
    "approve_with_conditions": "Approve With Conditions",
    "exclude": "Exclude",
    "verify": "Verify",
    "flag_for_review": "Flag For Review",
}


def _condition_text(rule: ExtractedRule) -> str:
    parts = []
    for c in rule.conditions:
        value = ", ".join(map(str, c.value)) if isinstance(c.value, list) else c.value
        parts.append(f"{c.field} {c.operator} {value}")
    return " AND ".join(parts)


def rule_fact(rule: ExtractedRule) -> str:
    """Return the fact text of a rule's TRIGGERS edge: everything retrieval may need."""
    lines = [
        f"[{rule.product_type}] {rule.risk_factor} triggers rule '{rule.rule_name}' "
        f"({rule.risk_category}): action {rule.action.replace('_', ' ')}.",
    ]
    if rule.outcome_description:
        lines.append(rule.outcome_description)
    if rule.conditions:
        lines.append(f"Fires when: {_condition_text(rule)}.")
    if rule.threshold is not None:
        t = rule.threshold
        kind = rule.threshold_type or "unspecified"
        text = (
            f"Threshold: {t.field} {t.operator} {t.value}{' ' + t.unit if t.unit else ''} ({kind})"
        )
        if rule.soft_limit is not None:
            text += f"; historically approved up to {rule.soft_limit:g}"
        lines.append(text + ".")
    elif rule.threshold_type:
        lines.append(f"This is a {rule.threshold_type} rule.")
    if rule.historical_exceptions:
        lines.append(f"Historical exceptions: {rule.historical_exceptions}.")
    if rule.decision_quality:
        lines.append(f"Decision quality in production: {rule.decision_quality}.")
    if rule.compound_trigger:
        lines.append(f"Compound trigger: {rule.compound_trigger}.")
    if rule.mitigants:
        lines.append(f"Mitigants: {'; '.join(rule.mitigants)}.")
    if rule.data_fields:
        lines.append(f"Data fields: {', '.join(rule.data_fields)}.")
    lines.append(f"Source: {rule.source} ({rule.source_type}).")
    return " ".join(lines)


def _day_start(day: str | None) -> datetime | None:
    """When a version dated `day` (an ISO day, or a UTC time) starts."""
    if day is None:
        return None
    when = datetime.fromisoformat(day)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def rule_graph(
    rule: ExtractedRule, *, history: Mapping[str, Any] | None = None, retired: bool = False
) -> RuleGraph:
    """Map a rule to the nodes and edges of the underwriting ontology.

    Args:
        rule: The rule (a consolidated rule's newest version, `memory.underwriting.claims`).
        history: Its versions and claims, kept on the Rule node beside it.
        retired: The rule no longer holds: only its node is written (with `history`),
            and its edges end at its `valid_to`.
    """
    rule_doc = {**rule.model_dump(mode="json"), **(history or {})}
    if retired:
        node = EntitySpec(
            "Rule",
            rule.rule_name,
            rule.outcome_description,
            rule_doc,
            invalid_at=_day_start(rule.valid_to),
        )
        return RuleGraph(
            name=rule.rule_name,
            entities=(node,),
            relationships=(),
            confidence=CONFIDENCE.get(rule.confidence, 0.7),
            valid_at=_day_start(rule.valid_to),
        )
    common = {"product_type": rule.product_type, "rule_name": rule.rule_name, "action": rule.action}
    risk = EntitySpec(
        "RiskFactor", rule.risk_factor, properties={"risk_category": rule.risk_category}
    )
    rule_node = EntitySpec("Rule", rule.rule_name, rule.outcome_description, rule_doc)
    outcome = EntitySpec("Outcome", OUTCOME_NAMES[rule.action], properties={"action": rule.action})
    cited = [(s.source, s.source_type) for s in rule.sources] or [(rule.source, rule.source_type)]
    sources = [
        EntitySpec("Source", name, properties={"source_type": kind})
        for name, kind in dict.fromkeys(cited)
    ]
    rule_ref = ("Rule", rule.rule_name)
    triggers = {
        **common,
        "risk_category": rule.risk_category,
        "threshold": rule.threshold.model_dump(mode="json") if rule.threshold else None,
        "threshold_type": rule.threshold_type,
        "soft_limit": rule.soft_limit,
        "historical_exceptions": rule.historical_exceptions,
        "confidence": rule.confidence,
        "decision_quality": rule.decision_quality,
        "compound_trigger": rule.compound_trigger,
        "conditions": [c.model_dump(mode="json") for c in rule.conditions],
        "data_fields": list(rule.data_fields),
    }
    edges = [
        RelationshipSpec(
            ("RiskFactor", rule.risk_factor), "TRIGGERS", rule_ref, rule_fact(rule), triggers
        ),
        RelationshipSpec(
            rule_ref,
            "RESULTS_IN",
            ("Outcome", outcome.name),
            f"[{rule.product_type}] Rule '{rule.rule_name}' results in "
            f"{rule.action.replace('_', ' ')}. {rule.outcome_description}".strip(),
            common,
        ),
    ]
    edges += [
        RelationshipSpec(
            rule_ref,
            "DERIVED_FROM",
            ("Source", source.name),
            f"Rule '{rule.rule_name}' is derived from {source.name} "
            f"({source.properties['source_type']}).",
            {**common, "source_type": source.properties["source_type"]},
        )
        for source in sources
    ]
    mitigants = [EntitySpec("Mitigant", m) for m in dict.fromkeys(rule.mitigants)]
    for m in mitigants:
        edges.append(
            RelationshipSpec(
                ("Mitigant", m.name),
                "OVERRIDES",
                rule_ref,
                f"[{rule.product_type}] '{m.name}' can override rule '{rule.rule_name}' "
                f"({rule.risk_factor}, action {rule.action.replace('_', ' ')}).",
                {**common, "mitigant_fields": list(rule.mitigant_fields)},
            )
        )
    return RuleGraph(
        name=rule.rule_name,
        entities=(risk, rule_node, outcome, *sources, *mitigants),
        relationships=tuple(edges),
        confidence=CONFIDENCE.get(rule.confidence, 0.7),
        valid_at=_day_start(rule.valid_from),
    )


async def apply_rule_graph(
    memory: GraphMemory, namespace: Namespace | str, graph: RuleGraph, *, source: str
) -> tuple[WriteTally, WriteTally]:
    """Upsert a rule's nodes then edges; return (node tally, edge tally).

    Writes through `GraphMemory.write_batch` (a few queries per rule); the
    result is the same as `apply_rule_graph_per_item`'s.
    """
    return await memory.write_batch(namespace, [graph], source=source)


async def apply_rule_graphs(
    memory: GraphMemory,
    namespace: Namespace | str,
    graphs: Sequence[RuleGraph],
    *,
    source: str | Sequence[str],
    prefetch: EmbeddingPrefetch | None = None,
) -> tuple[WriteTally, WriteTally]:
    """Upsert many rules' nodes and edges in a few queries; return (node tally, edge tally).

    Args:
        memory: Connected graph memory.
        namespace: Where to write.
        graphs: Rule graphs (`rule_graph`), applied in order.
        source: Provenance stamped on what each graph changes: one for all, or one per graph.
        prefetch: Embeddings started ahead of time (`EmbeddingPrefetch`); None embeds here.

    Raises:
        ValueError: An unknown label or relation, an empty name or fact, a bad
            confidence or property value (nothing is written then).
    """
    return await memory.write_batch(namespace, graphs, source=source, prefetch=prefetch)


@dataclass(frozen=True)
class NodeWrite:
    """One node as the reference path upserts it (`GraphMemory.upsert_entity`'s arguments)."""

    label: str
    name: str
    summary: str
    properties: dict[str, Any]
    confidence: float


@dataclass(frozen=True)
class EdgeWrite:
    """One edge as the reference path upserts it (`GraphMemory.upsert_relationship`'s)."""

    source_key: str
    relation: str
    target_key: str
    fact: str
    properties: dict[str, Any]
    confidence: float


def node_write(
    spec: EntitySpec,
    existing: EntityRecord | None,
    graph: RuleGraph,
    shared_labels: Collection[str],
) -> NodeWrite:
    """Decide what to write for one node of a rule graph, given what is stored.

    A node of a shared label (`NodeTypeDefinition.shared`) keeps what it holds and
    the highest confidence (`memory.model.merge_shared`); any other node, such as
    the Rule node, is overwritten with the graph's.

    Args:
        spec: The node of the graph.
        existing: What is stored under the node's key in the namespace, None if nothing.
        graph: The rule graph the node belongs to (its confidence is the node's).
        shared_labels: The labels whose nodes many rules share.
    """
    summary, props, confidence = merge_shared(
        spec, existing, graph.confidence, shared=spec.label in shared_labels
    )
    return NodeWrite(spec.label, spec.name, summary, props, confidence)


def edge_writes(graph: RuleGraph, keys: Mapping[tuple[str, str], str]) -> list[EdgeWrite]:
    """Decide the edges to write for a rule graph, in order, once its nodes are written.

    Args:
        graph: The rule graph.
        keys: The key each of its nodes, by (label, name), was written under.

    Raises:
        KeyError: An edge names a node the graph does not write.
    """
    return [
        EdgeWrite(
            keys[rel.source],
            rel.relation,
            keys[rel.target],
            rel.fact,
            rel.properties,
            graph.confidence,
        )
        for rel in graph.relationships
    ]


async def apply_rule_graph_per_item(
    memory: GraphMemory, namespace: Namespace | str, graph: RuleGraph, *, source: str
) -> tuple[WriteTally, WriteTally]:
    """Upsert a rule's nodes then edges one `GraphMemory` call at a time (the reference path).

    Each node is read just before it is written, so `node_write` sees what the
    nodes before it wrote too.

    Returns:
        The node tally and the edge tally.
    """
    nodes, edges = WriteTally(), WriteTally()
    keys: dict[tuple[str, str], str] = {}
    for spec in graph.entities:
        existing = await memory.get_entity(
            namespace, memory.entity_key(namespace, spec.label, spec.name)
        )
        node = node_write(spec, existing, graph, memory.ontology.shared_labels)
        result = await memory.upsert_entity(
            namespace,
            node.label,
            node.name,
            summary=node.summary,
            properties=node.properties,
            source=source,
            confidence=node.confidence,
        )
        keys[(spec.label, spec.name)] = result.key
        nodes.add(result.status)
    for edge in edge_writes(graph, keys):
        result = await memory.upsert_relationship(
            namespace,
            edge.source_key,
            edge.relation,
            edge.target_key,
            fact=edge.fact,
            properties=edge.properties,
            source=source,
            confidence=edge.confidence,
        )
        edges.add(result.status)
    return nodes, edges


def rule_from_properties(properties: dict[str, Any]) -> ExtractedRule | None:
    """Rebuild the structured rule a Rule node keeps; None if it holds no full rule."""
    try:
        return ExtractedRule.model_validate(properties, context={STORED: True})
    except ValidationError:
        return None


def rules_in(
    records: Iterable[EntityRecord], names: Iterable[str] | None = None
) -> list[ExtractedRule]:
    """Return the structured rules that Rule records hold, in their order.

    Args:
        records: Stored nodes; those of other labels, and Rule nodes that hold no
            whole rule, are skipped.
        names: Only the rules of these names; None: all.
    """
    wanted = set(names) if names is not None else None
    rules = []
    for record in records:
        if record.label != "Rule" or (wanted is not None and record.name not in wanted):
            continue
        rule = rule_from_properties(record.properties)
        if rule is not None:
            rules.append(rule)
    return rules


async def stored_rules(
    memory: GraphMemory, namespace: Namespace | str, names: Iterable[str] | None = None
) -> list[ExtractedRule]:
    """Return the structured rules stored in a namespace (optionally only some names)."""
    return rules_in(await memory.entities(namespace, "Rule"), names)
