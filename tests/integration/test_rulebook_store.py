"""Rules written into the embedded FalkorDB through the rulebook, and read back.

`apply_rule_graph_per_item` is the reference path of writing a rule: node by node,
then edge by edge, through `GraphMemory`'s one-at-a-time calls. `apply_rule_graph(s)`
hand their graphs to `GraphMemory.write_batch`. `stored_rules` reads the rules of a
namespace back. These tests check what a later reader of the real store finds: the
nodes, their summaries, properties, confidence and source, the edges between them,
the tallies, and the rules read back. What the rulebook decides to write, apart from
the store, is checked in `tests/unit/test_rulebook_writes.py`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from memory import GraphMemory, Namespace
from memory.embedders import EmbeddingPrefetch
from memory.model import WriteTally
from memory.underwriting import (
    apply_rule_graph,
    apply_rule_graph_per_item,
    apply_rule_graphs,
    rule_graph,
    stored_rules,
)
from tests.rules import KITCHEN

pytestmark = pytest.mark.integration


EDGES = {
    (("RiskFactor", "Cooking"), "TRIGGERS", ("Rule", "Open Kitchen")),
    (("Rule", "Open Kitchen"), "RESULTS_IN", ("Outcome", "Refer")),
    (("Rule", "Open Kitchen"), "DERIVED_FROM", ("Source", "BOP guide")),
    (("Mitigant", "Hood suppression"), "OVERRIDES", ("Rule", "Open Kitchen")),
}


def _other() -> Namespace:
    return Namespace.agent(f"t-{uuid.uuid4().hex[:10]}")


async def _nodes(memory: GraphMemory, namespace: Namespace) -> dict[tuple[str, str], Any]:
    return {(r.label, r.name): r for r in await memory.entities(namespace)}


async def _edges(memory: GraphMemory, namespace: Namespace) -> dict[Any, Any]:
    return {
        ((e.source_label, e.source_name), e.relation, (e.target_label, e.target_name)): e
        for e in await memory.relationships(namespace)
    }


def _written(nodes: dict[Any, Any], edges: dict[Any, Any]) -> tuple[Any, Any]:
    """What a reader finds, without keys and times (they differ between namespaces)."""
    return (
        {
            k: (r.summary, r.properties, r.confidence, r.last_update_source)
            for k, r in nodes.items()
        },
        {k: (e.fact, e.properties, e.confidence, e.last_update_source) for k, e in edges.items()},
    )


async def test_a_rule_written_into_an_empty_namespace_creates_its_nodes_and_edges(
    memory: GraphMemory, namespace: Namespace
) -> None:
    tallies = await apply_rule_graph_per_item(
        memory, namespace, rule_graph(KITCHEN), source="ingest:bop.md"
    )
    assert tallies == (WriteTally(created=5), WriteTally(created=4))
    nodes = await _nodes(memory, namespace)
    assert {k: (r.summary, r.confidence, r.last_update_source) for k, r in nodes.items()} == {
        ("RiskFactor", "Cooking"): ("", 0.5, "ingest:bop.md"),
        ("Rule", "Open Kitchen"): ("Open flame cooking is referred.", 0.5, "ingest:bop.md"),
        ("Outcome", "Refer"): ("", 0.5, "ingest:bop.md"),
        ("Source", "BOP guide"): ("", 0.5, "ingest:bop.md"),
        ("Mitigant", "Hood suppression"): ("", 0.5, "ingest:bop.md"),
    }
    assert nodes[("RiskFactor", "Cooking")].properties == {"risk_category": "operations"}
    assert nodes[("Outcome", "Refer")].properties == {"action": "refer"}
    assert nodes[("Source", "BOP guide")].properties == {"source_type": "manual"}
    assert nodes[("Mitigant", "Hood suppression")].properties == {}
    assert nodes[("Rule", "Open Kitchen")].properties["outcome_description"] == (
        "Open flame cooking is referred."
    )
    edges = await _edges(memory, namespace)
    assert set(edges) == EDGES
    for (source, _, target), edge in edges.items():
        assert (edge.source_key, edge.target_key) == (
            nodes[source].entity_key,
            nodes[target].entity_key,
        )
    results_in = edges[(("Rule", "Open Kitchen"), "RESULTS_IN", ("Outcome", "Refer"))]
    assert (
        results_in.fact,
        results_in.properties,
        results_in.last_update_source,
        results_in.confidence,
    ) == (
        "[BOP] Rule 'Open Kitchen' results in refer. Open flame cooking is referred.",
        {"product_type": "BOP", "rule_name": "Open Kitchen", "action": "refer"},
        "ingest:bop.md",
        0.5,
    )
    assert {(e.last_update_source, e.confidence) for e in edges.values()} == {
        ("ingest:bop.md", 0.5)
    }


async def test_a_rule_written_twice_changes_nothing_the_second_time(
    memory: GraphMemory, namespace: Namespace
) -> None:
    graph = rule_graph(KITCHEN)
    await apply_rule_graph_per_item(memory, namespace, graph, source="ingest:bop.md")
    again = await apply_rule_graph_per_item(memory, namespace, graph, source="ingest:bop.md")
    assert again == (WriteTally(unchanged=5), WriteTally(unchanged=4))


async def test_shared_nodes_keep_what_they_hold_and_a_rule_node_is_overwritten(
    memory: GraphMemory, namespace: Namespace
) -> None:
    # Nodes as earlier writers left them.
    await memory.upsert_entity(
        namespace,
        "RiskFactor",
        "cooking",
        summary="Cooking on the premises.",
        properties={"risk_category": "occupancy", "seen_in": "GL guide"},
        source="ingest:gl.md",
        confidence=0.95,
    )
    await memory.upsert_entity(
        namespace, "Mitigant", "Hood Suppression", source="ingest:gl.md", confidence=0.2
    )
    await memory.upsert_entity(
        namespace,
        "Rule",
        "Open Kitchen",
        summary="An older wording.",
        properties={"rule_name": "Open Kitchen", "old": True},
        source="ingest:old.md",
        confidence=0.99,
    )
    # The same outcome in another namespace is not this namespace's node.
    other = _other()
    await memory.upsert_entity(
        other, "Outcome", "Refer", properties={"action": "decline"}, source="x", confidence=1
    )
    nodes, edges = await apply_rule_graph_per_item(
        memory, namespace, rule_graph(KITCHEN), source="ingest:bop.md"
    )
    # The risk factor keeps all it held: unchanged. The mitigant gains confidence.
    assert (nodes, edges) == (
        WriteTally(created=2, updated=2, unchanged=1),
        WriteTally(created=4),
    )
    by_key = {r.entity_key: r for r in await memory.entities(namespace)}
    assert len(by_key) == 5

    def stored(label: str, name: str) -> Any:
        return by_key[memory.entity_key(namespace, label, name)]

    risk = stored("RiskFactor", "Cooking")
    assert (risk.summary, risk.properties, risk.confidence) == (
        "Cooking on the premises.",
        {"risk_category": "occupancy", "seen_in": "GL guide"},
        0.95,
    )
    assert stored("Mitigant", "Hood suppression").confidence == 0.5
    rule = stored("Rule", "Open Kitchen")
    assert (rule.summary, rule.confidence) == ("Open flame cooking is referred.", 0.5)
    assert "old" not in rule.properties
    outcome = stored("Outcome", "Refer")
    assert (outcome.properties, outcome.confidence) == ({"action": "refer"}, 0.5)
    assert await stored_rules(memory, namespace) == [KITCHEN]
    [theirs] = await memory.entities(other)
    assert (theirs.properties, theirs.confidence) == ({"action": "decline"}, 1)


async def test_stored_rules_reads_back_the_rules_of_a_namespace_by_name(
    memory: GraphMemory, namespace: Namespace
) -> None:
    rules = {
        name: KITCHEN.model_copy(update={"rule_name": name})
        for name in ("Charlie", "Alpha", "Bravo")
    }
    for rule in rules.values():
        await apply_rule_graph_per_item(memory, namespace, rule_graph(rule), source="s")
    # A Rule node that holds no whole rule, and another label's node whose properties
    # look like a rule (the generic memory lets any node hold any properties).
    await memory.upsert_entity(namespace, "Rule", "Draft", properties={"rule_name": "Draft"})
    lookalike = rules["Alpha"].model_copy(update={"rule_name": "Hood Rule"})
    await memory.upsert_entity(
        namespace, "Mitigant", "Hood Rule", properties=lookalike.model_dump(mode="json")
    )
    # A rule of another namespace is not this namespace's.
    other, delta = _other(), KITCHEN.model_copy(update={"rule_name": "Delta"})
    await apply_rule_graph_per_item(memory, other, rule_graph(delta), source="s")
    alpha, bravo, charlie = rules["Alpha"], rules["Bravo"], rules["Charlie"]
    assert await stored_rules(memory, namespace) == [alpha, bravo, charlie]
    assert await stored_rules(memory, namespace, ["Charlie", "Alpha"]) == [alpha, charlie]
    assert await stored_rules(memory, namespace, iter(["Charlie"])) == [charlie]
    assert await stored_rules(memory, namespace, ["Draft", "Nobody", "Delta"]) == []
    assert await stored_rules(memory, namespace, []) == []
    assert await stored_rules(memory, other) == [delta]
    assert await stored_rules(memory, _other()) == []


async def test_apply_rule_graph_writes_what_the_reference_path_writes(
    memory: GraphMemory, namespace: Namespace
) -> None:
    graph = rule_graph(KITCHEN)
    assert await apply_rule_graph(memory, namespace, graph, source="ingest:bop.md") == (
        WriteTally(created=5),
        WriteTally(created=4),
    )
    reference = _other()
    await apply_rule_graph_per_item(memory, reference, graph, source="ingest:bop.md")
    batched = (await _nodes(memory, namespace), await _edges(memory, namespace))
    assert set(batched[1]) == EDGES
    assert _written(*batched) == _written(
        await _nodes(memory, reference), await _edges(memory, reference)
    )
    assert await stored_rules(memory, namespace) == [KITCHEN]
    assert await apply_rule_graph(memory, namespace, graph, source="ingest:bop.md") == (
        WriteTally(unchanged=5),
        WriteTally(unchanged=4),
    )


class _Recorded(EmbeddingPrefetch):
    """The embeddings a write takes from its prefetch."""

    def __init__(self, memory: GraphMemory) -> None:
        super().__init__(memory.embedder)
        self.taken: list[str] = []

    async def take(self, texts: Sequence[str]) -> np.ndarray:
        self.taken += texts
        return await super().take(texts)


async def test_apply_rule_graphs_stamps_each_graph_its_source_and_takes_the_prefetch(
    memory: GraphMemory, namespace: Namespace
) -> None:
    bravo = KITCHEN.model_copy(update={"rule_name": "B"})
    graphs = [rule_graph(KITCHEN), rule_graph(bravo)]
    prefetch = _Recorded(memory)
    tallies = await apply_rule_graphs(
        memory, namespace, graphs, source=["ingest:a.md", "ingest:b.md"], prefetch=prefetch
    )
    # The second rule shares its risk factor, outcome, source and mitigant with the first.
    assert tallies == (WriteTally(created=6, unchanged=4), WriteTally(created=8))
    nodes = await _nodes(memory, namespace)
    assert {k: r.last_update_source for k, r in nodes.items()} == {
        ("RiskFactor", "Cooking"): "ingest:a.md",
        ("Rule", "Open Kitchen"): "ingest:a.md",
        ("Outcome", "Refer"): "ingest:a.md",
        ("Source", "BOP guide"): "ingest:a.md",
        ("Mitigant", "Hood suppression"): "ingest:a.md",
        ("Rule", "B"): "ingest:b.md",
    }
    edges = await _edges(memory, namespace)
    assert {k: e.last_update_source for k, e in edges.items()} == {
        **{edge: "ingest:a.md" for edge in EDGES},
        **{
            tuple(("Rule", "B") if end == ("Rule", "Open Kitchen") else end for end in edge): (
                "ingest:b.md"
            )
            for edge in EDGES
        },
    }
    facts = {rel.fact for graph in graphs for rel in graph.relationships}
    assert facts == {e.fact for e in edges.values()}
    assert facts <= set(prefetch.taken)
    assert await stored_rules(memory, namespace) == [bravo, KITCHEN]
