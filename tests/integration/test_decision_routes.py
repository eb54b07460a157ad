"""A decision explains its fired rules from the condition index's routes, kept current.

The index keeps each current rule's route (what its current edges connect it to), so
`decide` reads no decision path from the server. These tests hold the routes to what
the graph says: the same risk factor, outcomes, mitigants and first source as the
paths read edge by edge (`GraphAnalytics.paths`), on the dev set's gold rules, and
still so after a mitigant is added to a rule by the relationship agent's tool in
another process's memory (the change log carries it), and after a rule is retired.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.ingestion.pipeline import ingest_rules
from memory import GraphMemory
from memory.model import Namespace
from memory.settings import Settings
from memory.underwriting import GraphAnalytics, condition_index
from schemas.rules import ExtractedRule
from tools._common import ToolContext
from tools.entities import create_add_mitigant_tool

pytestmark = pytest.mark.integration

DEV = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "underwriting" / "dev"


def _gold() -> list[ExtractedRule]:
    if not (DEV / "rules.jsonl").exists():
        pytest.skip("the shared dev set is not beside the repository")
    lines = (DEV / "rules.jsonl").read_text().splitlines()
    return [ExtractedRule.model_validate(json.loads(line)) for line in lines if line.strip()]


def _shown(path: object) -> tuple[object, ...]:
    """What a decision's reasoning chain shows of a path."""
    return (
        getattr(path, "risk_factor", None),
        getattr(path, "outcomes", None),
        getattr(path, "mitigants", None),
        getattr(path, "source", None),
    )


async def _both(memory: GraphMemory, namespace: Namespace, names: list[str]) -> tuple[dict, dict]:
    analytics = GraphAnalytics(memory, namespace)
    index = await condition_index(memory, namespace)
    routed = {p.rule_name: _shown(p) for p in await analytics.decision_paths(names, index)}
    read = {p.rule_name: _shown(p) for p in await analytics.paths(names)}
    return routed, read


async def test_routes_show_what_the_graph_paths_show(
    memory: GraphMemory, namespace: Namespace
) -> None:
    rules = _gold()
    await ingest_rules(memory, namespace, rules)
    # The first rule heard again from two more texts: three sources, "A..." first by name.
    first = rules[0]
    for source, text_id in (("Zeta memo", "t-zeta"), ("Alpha memo", "t-alpha")):
        again = first.model_copy(update={"source": source, "text_id": text_id})
        await ingest_rules(memory, namespace, [again])
    names = sorted({r.rule_name for r in rules})
    routed, read = await _both(memory, namespace, names)
    assert set(routed) == set(names)
    assert routed == read
    assert routed[first.rule_name][3] == "Alpha memo"
    # Every rule's route names its risk factor and its outcome (the dataset's own).
    for rule in rules:
        assert routed[rule.rule_name][0] == rule.risk_factor


async def test_a_mitigant_added_by_another_process_reaches_the_route(
    memory: GraphMemory, namespace: Namespace, settings: Settings
) -> None:
    rules = _gold()[:5]
    await ingest_rules(memory, namespace, rules)
    target = rules[0].rule_name
    routed, _ = await _both(memory, namespace, [target])  # this reader's index is built
    assert "night watchman on site" not in routed[target][2]
    async with GraphMemory(settings) as other:  # a second connection writes
        tool = create_add_mitigant_tool(ToolContext(other, namespace, default_source="review"))
        await tool.ainvoke({"mitigant": "night watchman on site", "rule_name": target})
    routed, read = await _both(memory, namespace, [target])
    assert "night watchman on site" in routed[target][2]
    assert routed == read
    # ...and it came from this reader's index, kept current by the change log.
    index = await condition_index(memory, namespace)
    assert ("OVERRIDES", "night watchman on site") in index.routes_named([target])[target]
