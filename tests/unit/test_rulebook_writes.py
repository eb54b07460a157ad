"""Rules written to graph memory and read back, against an in-process stand-in store.

`apply_rule_graph_per_item` is the reference path of writing a rule: node by node,
then edge by edge, through `GraphMemory`'s one-at-a-time calls. `stored_rules` reads
the rules of a namespace back. `_Store` keeps what those calls write in dicts (no
server), so a test can check what a later reader would find: the nodes, their
summaries, properties, confidence and source, the edges between them, the tallies,
and the rules read back. `apply_rule_graph(s)` hand their graphs to the batch writer,
which `_Store` records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from memory.model import EntityRecord, WriteResult, WriteStatus, WriteTally
from memory.underwriting import (
    UNDERWRITING,
    apply_rule_graph,
    apply_rule_graph_per_item,
    apply_rule_graphs,
    rule_graph,
    stored_rules,
)
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import SubGraph

NS = "agent__rules"

KITCHEN = ExtractedRule.model_validate(
    {
        "rule_name": "Open Kitchen",
        "risk_factor": "Cooking",
        "risk_category": "operations",
        "product_type": "BOP",
        "action": "refer",
        "outcome_description": "Open flame cooking is referred.",
        "mitigants": ["Hood suppression"],
        "mitigant_fields": ["hood_system"],
        "source": "BOP guide",
        "source_type": "manual",
        "confidence": "low",
        "conditions": [{"field": "cooking", "operator": "eq", "value": True}],
    }
)


class _Store:
    """The calls of `GraphMemory` the rulebook makes, over dicts.

    Nodes are keyed by namespace and "label/name" (the name case-folded); a write
    is "created" for a new key, "unchanged" when summary, properties and
    confidence are the same, else "updated".
    """

    ontology = UNDERWRITING

    def __init__(self) -> None:
        self.nodes: dict[tuple[str, str], EntityRecord] = {}
        self.edges: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.batches: list[dict[str, Any]] = []
        self.tallies = (WriteTally(created=7), WriteTally(updated=3))

    @property
    def memory(self) -> GraphMemory:
        return cast("GraphMemory", self)

    def entity_key(self, namespace: str, label: str, name: str) -> str:
        return f"{namespace}/{label}/{name.casefold()}"

    async def get_entity(self, namespace: str, key: str) -> EntityRecord | None:
        return self.nodes.get((namespace, key))

    def put(self, namespace: str, label: str, name: str, **fields: Any) -> None:
        """Store a node as an earlier writer left it."""
        key = self.entity_key(namespace, label, name)
        self.nodes[(namespace, key)] = EntityRecord(
            uuid=key, entity_key=key, label=label, name=name, **fields
        )

    async def upsert_entity(
        self,
        namespace: str,
        label: str,
        name: str,
        *,
        summary: str = "",
        properties: dict[str, Any] | None = None,
        source: str | None = None,
        confidence: float | None = None,
    ) -> WriteResult:
        key = self.entity_key(namespace, label, name)
        old = self.nodes.get((namespace, key))
        record = EntityRecord(
            uuid=key,
            entity_key=key,
            label=label,
            name=name,
            summary=summary,
            properties=properties or {},
            confidence=confidence,
            last_update_source=source,
        )
        self.nodes[(namespace, key)] = record
        same = old is not None and (old.summary, old.properties, old.confidence) == (
            summary,
            properties,
            confidence,
        )
        status: WriteStatus = "created" if old is None else "unchanged" if same else "updated"
        return WriteResult(status=status, key=key, uuid=key)

    async def upsert_relationship(
        self,
        namespace: str,
        source_key: str,
        relation: str,
        target_key: str,
        *,
        fact: str,
        properties: dict[str, Any] | None = None,
        source: str | None = None,
        confidence: float | None = None,
    ) -> WriteResult:
        edge = (namespace, source_key, relation, target_key)
        written = {"fact": fact, "properties": properties, "source": source}
        old = self.edges.get(edge)
        self.edges[edge] = {**written, "confidence": confidence}
        status: WriteStatus = (
            "created" if old is None else "unchanged" if old == self.edges[edge] else "updated"
        )
        return WriteResult(status=status, key="|".join(edge), uuid="|".join(edge))

    async def entities(self, namespace: str, label: str | None = None) -> list[EntityRecord]:
        if label is not None:
            self.ontology.check_label(label)  # as GraphMemory does: an unknown label raises
        found = [
            record
            for (ns, _), record in self.nodes.items()
            if ns == namespace and label in (None, record.label)
        ]
        return sorted(found, key=lambda r: (r.label, r.name))

    async def write_batch(
        self,
        namespace: str,
        graphs: list[SubGraph],
        *,
        source: str | list[str],
        prefetch: object = None,
    ) -> tuple[WriteTally, WriteTally]:
        self.batches.append(
            {"namespace": namespace, "graphs": graphs, "source": source, "prefetch": prefetch}
        )
        return self.tallies


def _key(label: str, name: str) -> str:
    return f"{NS}/{label}/{name.casefold()}"


async def test_a_rule_written_into_an_empty_namespace_creates_its_nodes_and_edges() -> None:
    store = _Store()
    tallies = await apply_rule_graph_per_item(
        store.memory, NS, rule_graph(KITCHEN), source="ingest:bop.md"
    )
    assert tallies == (WriteTally(created=5), WriteTally(created=4))
    nodes = {(r.label, r.name): r for r in store.nodes.values()}
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
    rule = _key("Rule", "Open Kitchen")
    assert set(store.edges) == {
        (NS, _key("RiskFactor", "Cooking"), "TRIGGERS", rule),
        (NS, rule, "RESULTS_IN", _key("Outcome", "Refer")),
        (NS, rule, "DERIVED_FROM", _key("Source", "BOP guide")),
        (NS, _key("Mitigant", "Hood suppression"), "OVERRIDES", rule),
    }
    assert store.edges[(NS, rule, "RESULTS_IN", _key("Outcome", "Refer"))] == {
        "fact": "[BOP] Rule 'Open Kitchen' results in refer. Open flame cooking is referred.",
        "properties": {"product_type": "BOP", "rule_name": "Open Kitchen", "action": "refer"},
        "source": "ingest:bop.md",
        "confidence": 0.5,
    }
    assert {(e["source"], e["confidence"]) for e in store.edges.values()} == {
        ("ingest:bop.md", 0.5)
    }


async def test_a_rule_written_twice_changes_nothing_the_second_time() -> None:
    store = _Store()
    graph = rule_graph(KITCHEN)
    await apply_rule_graph_per_item(store.memory, NS, graph, source="ingest:bop.md")
    again = await apply_rule_graph_per_item(store.memory, NS, graph, source="ingest:bop.md")
    assert again == (WriteTally(unchanged=5), WriteTally(unchanged=4))


async def test_shared_nodes_keep_what_they_hold_and_a_rule_node_is_overwritten() -> None:
    store = _Store()
    store.put(
        NS,
        "RiskFactor",
        "cooking",
        summary="Cooking on the premises.",
        properties={"risk_category": "occupancy", "seen_in": "GL guide"},
        confidence=0.95,
    )
    store.put(NS, "Mitigant", "Hood Suppression", confidence=0.2)
    store.put(
        NS,
        "Rule",
        "Open Kitchen",
        summary="An older wording.",
        properties={"rule_name": "Open Kitchen", "old": True},
        confidence=0.99,
    )
    # The same outcome in another namespace is not this namespace's node.
    store.put("agent__other", "Outcome", "Refer", properties={"action": "decline"}, confidence=1)
    nodes, edges = await apply_rule_graph_per_item(
        store.memory, NS, rule_graph(KITCHEN), source="ingest:bop.md"
    )
    # The risk factor keeps all it held: unchanged. The mitigant gains confidence.
    assert (nodes, edges) == (
        WriteTally(created=2, updated=2, unchanged=1),
        WriteTally(created=4),
    )
    by_key = {key: r for (ns, key), r in store.nodes.items() if ns == NS}
    risk = by_key[_key("RiskFactor", "Cooking")]
    assert (risk.summary, risk.properties, risk.confidence) == (
        "Cooking on the premises.",
        {"risk_category": "occupancy", "seen_in": "GL guide"},
        0.95,
    )
    assert by_key[_key("Mitigant", "Hood suppression")].confidence == 0.5
    rule = by_key[_key("Rule", "Open Kitchen")]
    assert (rule.summary, rule.confidence) == ("Open flame cooking is referred.", 0.5)
    assert "old" not in rule.properties
    outcome = by_key[_key("Outcome", "Refer")]
    assert (outcome.properties, outcome.confidence) == ({"action": "refer"}, 0.5)
    assert await stored_rules(store.memory, NS) == [KITCHEN]


async def test_stored_rules_reads_back_the_rules_of_a_namespace_by_name() -> None:
    store = _Store()
    rules = {
        name: KITCHEN.model_copy(update={"rule_name": name})
        for name in ("Alpha", "Bravo", "Charlie")
    }
    for rule in rules.values():
        await apply_rule_graph_per_item(store.memory, NS, rule_graph(rule), source="s")
    # A Rule node that holds no whole rule, and another label's node whose properties
    # look like a rule (the generic memory lets any node hold any properties).
    store.put(NS, "Rule", "Draft", properties={"rule_name": "Draft"})
    other = rules["Alpha"].model_copy(update={"rule_name": "Hood Rule"})
    store.put(NS, "Mitigant", "Hood Rule", properties=other.model_dump(mode="json"))
    alpha, bravo, charlie = rules["Alpha"], rules["Bravo"], rules["Charlie"]
    assert await stored_rules(store.memory, NS) == [alpha, bravo, charlie]
    assert await stored_rules(store.memory, NS, ["Charlie", "Alpha"]) == [alpha, charlie]
    assert await stored_rules(store.memory, NS, iter(["Charlie"])) == [charlie]
    assert await stored_rules(store.memory, NS, ["Draft", "Nobody"]) == []
    assert await stored_rules(store.memory, NS, []) == []
    assert await stored_rules(store.memory, "agent__other") == []


async def test_apply_rule_graph_hands_one_graph_to_the_batch_writer() -> None:
    store = _Store()
    graph = rule_graph(KITCHEN)
    assert await apply_rule_graph(store.memory, NS, graph, source="ingest:bop.md") == (
        WriteTally(created=7),
        WriteTally(updated=3),
    )
    assert store.batches == [
        {"namespace": NS, "graphs": [graph], "source": "ingest:bop.md", "prefetch": None}
    ]


async def test_apply_rule_graphs_hands_every_graph_its_source_and_the_prefetch() -> None:
    store = _Store()
    graphs = [rule_graph(KITCHEN), rule_graph(KITCHEN.model_copy(update={"rule_name": "B"}))]
    prefetch = object()
    tallies = await apply_rule_graphs(
        store.memory,
        NS,
        graphs,
        source=["ingest:a.md", "ingest:b.md"],
        prefetch=prefetch,  # type: ignore[arg-type]
    )
    assert tallies == (WriteTally(created=7), WriteTally(updated=3))
    assert store.batches == [
        {
            "namespace": NS,
            "graphs": graphs,
            "source": ["ingest:a.md", "ingest:b.md"],
            "prefetch": prefetch,
        }
    ]
