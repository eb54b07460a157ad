"""GraphAnalytics: query, trace, rules by field, export and visualize over a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics, apply_rule_graph, canonical_product, rule_graph
from schemas.rules import ExtractedRule

pytestmark = pytest.mark.integration


def _rule(**values: Any) -> ExtractedRule:
    base = {"risk_category": "operations", "source": "Test Guide", "source_type": "manual"}
    return ExtractedRule.model_validate({**base, **values})


RULES = [
    _rule(
        rule_name="Kiln LRO Referral",
        risk_factor="Pottery Kiln",
        product_type="LRO",
        action="refer",
        outcome_description="Pottery studios with kilns are referred for fire review.",
        mitigants=["Kiln room fire separation"],
        mitigant_fields=["kiln_separated"],
        conditions=[{"field": "occupancy", "operator": "eq", "value": "pottery studio"}],
    ),
    _rule(
        rule_name="Kiln BOP Decline",
        risk_factor="Pottery Kiln",
        product_type="BOP",
        action="decline",
        outcome_description="Pottery studios with kilns are ineligible for the BOP.",
        conditions=[{"field": "occupancy", "operator": "eq", "value": "pottery studio"}],
    ),
    _rule(
        rule_name="Crew Size Limit",
        risk_factor="Crew Size",
        product_type="ALL",
        action="refer",
        outcome_description="Crews above 30 people are referred.",
        threshold={"field": "crew_size", "operator": "gt", "value": 30, "unit": "people"},
        threshold_type="soft",
        soft_limit=34,
        historical_exceptions="Approved up to 34 for seasonal crews",
        conditions=[{"field": "crew_size", "operator": "gt", "value": 30}],
    ),
]


async def _analytics(memory: GraphMemory, namespace: Namespace) -> GraphAnalytics:
    for rule in RULES:
        await apply_rule_graph(memory, namespace, rule_graph(rule), source="t001")
    return GraphAnalytics(memory, namespace)


async def test_query_filters_by_product_and_collapses_edges_per_rule(
    memory: GraphMemory, namespace: Namespace
) -> None:
    analytics = await _analytics(memory, namespace)
    hits = await analytics.query("pottery kiln studio", product_type="lro")
    names = [h.rule_name for h in hits]
    assert names[0] == "Kiln LRO Referral" and "Kiln BOP Decline" not in names
    assert len(names) == len(set(names))
    assert {"source", "relation", "target", "fact", "properties", "score"} <= set(
        hits[0].model_dump()
    )
    unfiltered = await analytics.check_risk_appetite("pottery kiln studio")
    assert {"Kiln LRO Referral", "Kiln BOP Decline"} <= {h.rule_name for h in unfiltered}
    with pytest.raises(ValueError, match="allowed: BOP, LRO"):
        await analytics.query("kiln", product_type="Auto")
    with pytest.raises(ValueError, match="non-empty"):
        await analytics.query("  ")


async def test_trace_gives_full_paths_with_metadata(
    memory: GraphMemory, namespace: Namespace
) -> None:
    analytics = await _analytics(memory, namespace)
    paths = await analytics.trace("Pottery Kiln", product_type="LRO", limit=3)
    first = paths[0]
    assert first.describe() == "Pottery Kiln -> Kiln LRO Referral -> Refer"
    assert first.mitigants == ["Kiln room fire separation"]
    assert first.mitigant_fields == ["kiln_separated"]
    assert (first.source, first.source_type) == ("Test Guide", "manual")
    assert "Kiln BOP Decline" not in [p.rule_name for p in paths]
    [crew] = await analytics.paths(["Crew Size Limit"])
    assert crew.threshold == {"field": "crew_size", "operator": "gt", "value": 30, "unit": "people"}
    assert (crew.threshold_type, crew.soft_limit) == ("soft", 34)
    assert crew.historical_exceptions == "Approved up to 34 for seasonal crews"


async def test_rules_for_submission_and_current_rules_only(
    memory: GraphMemory, namespace: Namespace
) -> None:
    analytics = await _analytics(memory, namespace)
    found = await analytics.rules_for_submission({"crew_size": 31}, product_type="GL")
    assert [r.rule_name for r in found] == ["Crew Size Limit"]
    assert await analytics.rules_for_submission({"crew_size": 30}, product_type="GL") == []
    kiln = {"occupancy": "Pottery Studio", "crew_size": 4}
    by_occupancy = await analytics.rules_for_submission(kiln, product_type="BOP")
    assert [r.rule_name for r in by_occupancy] == ["Kiln BOP Decline"]
    assert await analytics.rule_count() == 3
    for rel in await memory.relationships(namespace):
        if rel.properties.get("rule_name") == "Kiln BOP Decline":
            await memory.invalidate_relationship(namespace, rel.uuid)
    assert await analytics.rule_count() == 2
    assert await analytics.rules_for_submission(kiln, product_type="BOP") == []


async def test_rules_for_submission_sees_writes_made_by_another_process_connection(
    memory: GraphMemory, namespace: Namespace
) -> None:
    analytics = await _analytics(memory, namespace)
    crew = {"crew_size": 45}
    assert [r.rule_name for r in await analytics.rules_for_submission(crew)] == ["Crew Size Limit"]
    # A second client (as a worker process would be) writes a rule: the index is rebuilt.
    async with GraphMemory(memory.settings) as other:
        extra = RULES[2].model_copy(update={"rule_name": "Crew Size Decline"})
        await apply_rule_graph(other, namespace, rule_graph(extra), source="t002")
    names = [r.rule_name for r in await analytics.rules_for_submission(crew)]
    assert names == ["Crew Size Decline", "Crew Size Limit"]


async def test_export_and_visualize(
    memory: GraphMemory, namespace: Namespace, tmp_path: Path
) -> None:
    analytics = await _analytics(memory, namespace)
    exported = await analytics.export()
    assert [r["rule_name"] for r in exported] == [
        "Crew Size Limit",
        "Kiln BOP Decline",
        "Kiln LRO Referral",
    ]
    gold = RULES[2].model_dump(mode="json")
    assert {k: exported[0][k] for k in gold} == gold
    assert exported[0]["id"] and exported[0]["provenance"]["last_update_source"] == "t001"
    path = tmp_path / "rules.json"
    assert await analytics.export_to_json(path) == 3
    assert json.loads(path.read_text())["count"] == 3

    page = await analytics.visualize(tmp_path / "graph.html", title="Kilns <test>")
    text = page.read_text()
    assert "Kiln LRO Referral" in text and "Kilns &lt;test&gt;" in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    picture = await analytics.visualize(tmp_path / "graph.png")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match=r"\.png or \.html"):
        await analytics.visualize(tmp_path / "graph.svg")


def test_canonical_product() -> None:
    assert canonical_product(" property ") == "Property"
    assert canonical_product(None) is None


async def test_condition_index_is_built_once_and_kept_current_for_every_memory_of_a_process(
    memory: GraphMemory, namespace: Namespace
) -> None:
    from memory.backend.derived import EVENTS

    analytics = await _analytics(memory, namespace)
    builds = EVENTS["conditions:build"]
    assert await analytics.rule_count() == 3
    # A graph run opens its own memory on the same server: it reuses the index.
    async with GraphMemory(memory.settings) as other:
        assert await GraphAnalytics(other, namespace).rule_count() == 3
        assert EVENTS["conditions:build"] == builds + 1
        extra = RULES[2].model_copy(update={"rule_name": "Crew Size Decline"})
        await apply_rule_graph(other, namespace, rule_graph(extra), source="t003")
    assert await analytics.rule_count() == 4  # the write reached the index through the log
    assert await analytics.rule_count() == 4
    assert EVENTS["conditions:build"] == builds + 1  # ... without a rebuild
