"""What the rulebook decides to write, and which stored rules it reads back, over plain data.

`apply_rule_graph_per_item` writes a rule node by node, then edge by edge: for each
node `node_write` decides its summary, properties and confidence from what is stored
under its key, and `edge_writes` gives the edges between the keys the nodes were
written under. `stored_rules` keeps the rules that Rule records hold (`rules_in`).
These are pure functions: the tests hand them graphs, stored records and keys as
plain values. What ends up in the store (tallies, sources, namespaces, the order of
read-back) is checked against the embedded FalkorDB in
`tests/integration/test_rulebook_store.py`.
"""

from __future__ import annotations

import pytest

from memory.model import EntityRecord
from memory.underwriting import SHARED_LABELS, rule_graph
from memory.underwriting.rulebook import EdgeWrite, NodeWrite, edge_writes, node_write, rules_in
from schemas.rules import ExtractedRule
from tests.rules import KITCHEN

SHARED = {"RiskFactor", "Outcome", "Source", "Mitigant"}
KEYS = {
    ("RiskFactor", "Cooking"): "key:risk",
    ("Rule", "Open Kitchen"): "key:rule",
    ("Outcome", "Refer"): "key:refer",
    ("Source", "BOP guide"): "key:guide",
    ("Mitigant", "Hood suppression"): "key:hood",
}


def _record(label: str, name: str, **fields: object) -> EntityRecord:
    """A node as an earlier writer left it."""
    return EntityRecord.model_validate(
        {"uuid": f"u:{name}", "entity_key": f"k:{name}", "label": label, "name": name, **fields}
    )


def _writes(existing: dict[tuple[str, str], EntityRecord]) -> dict[tuple[str, str], NodeWrite]:
    graph = rule_graph(KITCHEN)
    written = [
        node_write(spec, existing.get((spec.label, spec.name)), graph, SHARED_LABELS)
        for spec in graph.entities
    ]
    assert [(w.label, w.name) for w in written] == [(s.label, s.name) for s in graph.entities]
    return {(w.label, w.name): w for w in written}


def test_the_shared_labels_are_the_ontologys() -> None:
    assert SHARED_LABELS == SHARED


def test_a_rule_into_an_empty_namespace_writes_every_node_as_its_graph_has_it() -> None:
    writes = _writes({})
    assert {k: (w.summary, w.confidence) for k, w in writes.items()} == {
        ("RiskFactor", "Cooking"): ("", 0.5),
        ("Rule", "Open Kitchen"): ("Open flame cooking is referred.", 0.5),
        ("Outcome", "Refer"): ("", 0.5),
        ("Source", "BOP guide"): ("", 0.5),
        ("Mitigant", "Hood suppression"): ("", 0.5),
    }
    assert writes[("RiskFactor", "Cooking")].properties == {"risk_category": "operations"}
    assert writes[("Outcome", "Refer")].properties == {"action": "refer"}
    assert writes[("Source", "BOP guide")].properties == {"source_type": "manual"}
    assert writes[("Mitigant", "Hood suppression")].properties == {}
    rule = writes[("Rule", "Open Kitchen")].properties
    assert rule["outcome_description"] == "Open flame cooking is referred."
    assert rule == KITCHEN.model_dump(mode="json")


def test_the_edges_join_the_keys_the_nodes_were_written_under() -> None:
    edges = edge_writes(rule_graph(KITCHEN), KEYS)
    assert [(e.source_key, e.relation, e.target_key) for e in edges] == [
        ("key:risk", "TRIGGERS", "key:rule"),
        ("key:rule", "RESULTS_IN", "key:refer"),
        ("key:rule", "DERIVED_FROM", "key:guide"),
        ("key:hood", "OVERRIDES", "key:rule"),
    ]
    assert edges[1] == EdgeWrite(
        "key:rule",
        "RESULTS_IN",
        "key:refer",
        "[BOP] Rule 'Open Kitchen' results in refer. Open flame cooking is referred.",
        {"product_type": "BOP", "rule_name": "Open Kitchen", "action": "refer"},
        0.5,
    )
    assert {e.confidence for e in edges} == {0.5}
    graph = rule_graph(KITCHEN)
    assert [(e.fact, e.properties) for e in edges] == [
        (r.fact, r.properties) for r in graph.relationships
    ]


def test_an_edge_to_a_node_not_written_is_refused() -> None:
    keys = {k: v for k, v in KEYS.items() if k != ("Outcome", "Refer")}
    with pytest.raises(KeyError):
        edge_writes(rule_graph(KITCHEN), keys)
    keys = {k: v for k, v in KEYS.items() if k != ("RiskFactor", "Cooking")}
    with pytest.raises(KeyError):
        edge_writes(rule_graph(KITCHEN), keys)


def test_a_confident_rule_writes_its_nodes_and_edges_with_its_confidence() -> None:
    graph = rule_graph(KITCHEN.model_copy(update={"confidence": "high"}))
    assert {node_write(s, None, graph, SHARED_LABELS).confidence for s in graph.entities} == {0.9}
    assert {e.confidence for e in edge_writes(graph, KEYS)} == {0.9}


def test_shared_nodes_keep_what_they_hold_and_a_rule_node_is_overwritten() -> None:
    stored = {
        ("RiskFactor", "Cooking"): _record(
            "RiskFactor",
            "cooking",
            summary="Cooking on the premises.",
            properties={"risk_category": "occupancy", "seen_in": "GL guide"},
            confidence=0.95,
        ),
        ("Mitigant", "Hood suppression"): _record("Mitigant", "Hood Suppression", confidence=0.2),
        ("Source", "BOP guide"): _record("Source", "BOP guide", summary="The BOP manual."),
        ("Rule", "Open Kitchen"): _record(
            "Rule",
            "Open Kitchen",
            summary="An older wording.",
            properties={"rule_name": "Open Kitchen", "old": True},
            confidence=0.99,
        ),
    }
    writes = _writes(stored)
    # The risk factor keeps all it held (its summary, its values on conflict, the
    # highest confidence) and gains what it lacked.
    risk = writes[("RiskFactor", "Cooking")]
    assert (risk.name, risk.summary, risk.properties, risk.confidence) == (
        "Cooking",
        "Cooking on the premises.",
        {"risk_category": "occupancy", "seen_in": "GL guide"},
        0.95,
    )
    # The mitigant gains confidence; the source keeps its summary.
    assert writes[("Mitigant", "Hood suppression")].confidence == 0.5
    source = writes[("Source", "BOP guide")]
    assert (source.summary, source.properties) == ("The BOP manual.", {"source_type": "manual"})
    rule = writes[("Rule", "Open Kitchen")]
    assert (rule.summary, rule.confidence) == ("Open flame cooking is referred.", 0.5)
    assert "old" not in rule.properties
    assert rule.properties == KITCHEN.model_dump(mode="json")
    outcome = writes[("Outcome", "Refer")]
    assert (outcome.properties, outcome.confidence) == ({"action": "refer"}, 0.5)


def test_a_stored_node_without_confidence_takes_the_rules() -> None:
    graph = rule_graph(KITCHEN)
    [outcome] = [s for s in graph.entities if s.label == "Outcome"]
    stored = _record("Outcome", "Refer", properties={"note": "x"})
    assert node_write(outcome, stored, graph, SHARED_LABELS) == NodeWrite(
        "Outcome", "Refer", "", {"action": "refer", "note": "x"}, 0.5
    )


def test_a_node_of_a_label_no_one_shares_is_overwritten() -> None:
    graph = rule_graph(KITCHEN)
    [risk] = [s for s in graph.entities if s.label == "RiskFactor"]
    stored = _record(
        "RiskFactor", "Cooking", summary="Old.", properties={"seen_in": "GL"}, confidence=0.95
    )
    assert node_write(risk, stored, graph, {"Outcome"}) == NodeWrite(
        "RiskFactor", "Cooking", "", {"risk_category": "operations"}, 0.5
    )
    assert node_write(risk, stored, graph, {"RiskFactor"}) == NodeWrite(
        "RiskFactor", "Cooking", "Old.", {"risk_category": "operations", "seen_in": "GL"}, 0.95
    )


def _stored_rule(rule: ExtractedRule) -> EntityRecord:
    """The Rule node `rule_graph` writes for a rule, as a reader gets it back."""
    [node] = [s for s in rule_graph(rule).entities if s.label == "Rule"]
    return _record("Rule", node.name, summary=node.summary, properties=node.properties)


def test_rules_in_keeps_the_whole_rules_of_rule_records_by_name() -> None:
    alpha, bravo, charlie = (
        KITCHEN.model_copy(update={"rule_name": name}) for name in ("Alpha", "Bravo", "Charlie")
    )
    # A Rule node that holds no whole rule, and another label's node whose properties
    # look like a rule (the generic memory lets any node hold any properties).
    lookalike = alpha.model_copy(update={"rule_name": "Hood Rule"})
    records = [
        _stored_rule(charlie),
        _record("Rule", "Draft", properties={"rule_name": "Draft"}),
        _stored_rule(alpha),
        _record("Mitigant", "Hood Rule", properties=lookalike.model_dump(mode="json")),
        _stored_rule(bravo),
    ]
    assert rules_in(records) == [charlie, alpha, bravo]
    assert rules_in(records, None) == [charlie, alpha, bravo]
    assert rules_in(records, ["Charlie", "Alpha"]) == [charlie, alpha]
    assert rules_in(records, iter(["Charlie"])) == [charlie]
    assert rules_in(records, ["Draft", "Nobody", "Hood Rule"]) == []
    assert rules_in(records, []) == []
    assert rules_in([]) == []
    assert rules_in(iter(records), ("Bravo",)) == [bravo]


def test_a_retired_rule_is_read_back_with_its_history() -> None:
    retired = KITCHEN.model_copy(update={"valid_to": "2026-01-01"})
    [node] = rule_graph(retired, history={"versions": []}, retired=True).entities
    record = _record("Rule", node.name, properties=node.properties)
    assert rules_in([record]) == [retired]
