from pathlib import Path
from typing import Any

import pytest

import tools.rules
from agents.ingestion import IngestionPipeline, ingest_rules, load_rules
from memory import GraphMemory, Namespace
from memory.model import WriteTally
from memory.underwriting import apply_rule_graph_per_item, apply_rule_graphs, rule_graph
from tests.timeless import untimed

pytestmark = pytest.mark.integration

TIMES = ("created_at", "updated_at", "valid_at")


def _timeless(document: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in document.items() if k != "namespace"}
    for kind in ("entities", "relationships", "sources"):
        out[kind] = [
            {k: untimed(v) for k, v in d.items() if k not in TIMES} for d in document[kind]
        ]
    return out


def _sum(tallies: list[WriteTally]) -> WriteTally:
    total = WriteTally()
    for tally in tallies:
        for status, n in vars(tally).items():
            setattr(total, status, getattr(total, status) + n)
    return total


async def _fresh(memory: GraphMemory, *names: str) -> list[Namespace]:
    spaces = [Namespace.agent(n) for n in names]
    for ns in spaces:
        await memory.clear(ns)
    return spaces


async def test_bulk_and_per_item_writes_give_the_same_graph(
    memory: GraphMemory, dev_set: Path
) -> None:
    graphs = [rule_graph(r) for r in load_rules(dev_set / "rules.jsonl")]
    bulk, item = await _fresh(memory, "bulk-a", "bulk-b")
    nodes, edges = await apply_rule_graphs(memory, bulk, graphs, source="dev")
    per_item = [await apply_rule_graph_per_item(memory, item, g, source="dev") for g in graphs]
    assert (nodes, edges) == (_sum([n for n, _ in per_item]), _sum([e for _, e in per_item]))
    exported = await memory.export(bulk)
    assert _timeless(exported) == _timeless(await memory.export(item))
    # Idempotent: the same batch again changes nothing, not even updated_at.
    nodes, edges = await apply_rule_graphs(memory, bulk, graphs, source="dev")
    assert nodes.created == nodes.updated == edges.created == edges.updated == 0
    assert await memory.export(bulk) == exported
    assert await memory.search(bulk, graphs[0].name, limit=5)


async def test_bulk_ingest_equals_the_agent_path_with_per_item_writes(
    memory: GraphMemory, dev_set: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = load_rules(dev_set / "rules.jsonl")
    bulk, item = await _fresh(memory, "bulk-ingest-a", "bulk-ingest-b")
    report = await ingest_rules(memory, bulk, rules)
    assert report.rules_written == len(rules) and report.sources.created > 0
    monkeypatch.setattr(tools.rules, "apply_rule_graph", apply_rule_graph_per_item)
    reference = await IngestionPipeline(memory, item).run_rules(rules, via_agent=True)
    assert (report.nodes, report.edges, report.sources) == (
        reference.nodes,
        reference.edges,
        reference.sources,
    )
    exported = await memory.export(bulk)
    assert _timeless(exported) == _timeless(await memory.export(item))
    again = await ingest_rules(memory, bulk, rules)
    assert again.nodes.created == again.nodes.updated == again.sources.updated == 0
    assert await memory.export(bulk) == exported


async def test_nodes_carry_their_label_once_created_and_after_an_update(
    memory: GraphMemory, dev_set: Path
) -> None:
    rules = load_rules(dev_set / "rules.jsonl")
    [ns] = await _fresh(memory, "bulk-labels")
    await apply_rule_graphs(memory, ns, [rule_graph(r) for r in rules], source="dev")
    # New nodes are created with their label (not labelled after MERGE); a rewrite of an
    # existing node takes the other statement: both leave one node per key, labelled.
    changed = [r.model_copy(update={"outcome_description": "Changed."}) for r in rules[:3]]
    nodes, _ = await apply_rule_graphs(memory, ns, [rule_graph(r) for r in changed], source="x")
    assert nodes.updated == 3
    rows = await memory.db.query(
        ns.group_id,
        "MATCH (n:Entity) RETURN n.label AS label, labels(n) AS labels, count(*) AS copies "
        "ORDER BY label",
    )
    by_label = {r["label"]: r for r in rows}
    assert {r["label"] for r in rows} >= {"Rule", "RiskFactor", "Outcome", "Source"}
    for row in rows:
        assert sorted(row["labels"]) == sorted(["Entity", row["label"]])
    assert by_label["Rule"]["copies"] == len({r.rule_name for r in rules})
    keys = await memory.db.query(
        ns.group_id, "MATCH (n:Entity) WITH n.entity_key AS k, count(*) AS c WHERE c > 1 RETURN k"
    )
    assert keys == []
