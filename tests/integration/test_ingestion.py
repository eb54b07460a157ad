"""Ingestion graph against a real embedded FalkorDB, offline and with scripted LLMs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agents.cli import main
from agents.ingestion import IngestionPipeline, ingest_rules, load_rules, load_texts
from memory import GraphMemory, Namespace
from memory.underwriting import OUTCOME_NAMES, stored_rules
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.unit.test_ingestion_fakes import ScriptedChatModel, structured, tool_calls

pytestmark = pytest.mark.integration

# The texts of the seed's four examples: gas-station referral, warehouse adverse
# selection decline, low property rate under BASIC cause of loss, exposure discrepancy.
SEED_TEXTS = ("k001", "k009", "k010", "k011")

RULE = {
    "rule_name": "Widget Referral",
    "risk_factor": "Widgets",
    "risk_category": "operations",
    "product_type": "GL",
    "action": "refer",
    "mitigants": ["Widget guard installed"],
    "mitigant_fields": ["sprinklered"],
    "threshold": {"field": "employee_count", "operator": "gt", "value": 10},
    "threshold_type": "soft",
    "soft_limit": 12,
    "conditions": [{"field": "employee_count", "operator": "gt", "value": 10}],
}


def _seed_texts(dev_set: Path) -> list[KnowledgeText]:
    texts = {t.id: t for t in load_texts(dev_set / "knowledge.jsonl")}
    return [texts[i] for i in SEED_TEXTS]


async def assert_rule_shapes(memory: GraphMemory, ns: Namespace, rules: list[ExtractedRule]):
    """Every rule is RiskFactor-TRIGGERS->Rule-RESULTS_IN->Outcome, -DERIVED_FROM->Source."""
    edges = await memory.relationships(ns)
    by_rule: dict[str, dict[str, list]] = {}
    for e in edges:
        rule = e.target_name if e.target_label == "Rule" else e.source_name
        by_rule.setdefault(rule, {}).setdefault(e.relation, []).append(e)
        assert e.last_update_source and e.confidence is not None
    for rule in rules:
        rel = by_rule[rule.rule_name]
        [trig] = rel["TRIGGERS"]
        assert (trig.source_label, trig.source_name) == ("RiskFactor", rule.risk_factor)
        assert trig.properties["threshold_type"] == rule.threshold_type
        assert trig.properties["conditions"] == [c.model_dump(mode="json") for c in rule.conditions]
        [res] = rel["RESULTS_IN"]
        assert (res.target_label, res.target_name) == ("Outcome", OUTCOME_NAMES[rule.action])
        [der] = rel["DERIVED_FROM"]
        assert (der.target_label, der.target_name) == ("Source", rule.source)
        assert sorted(e.source_name for e in rel.get("OVERRIDES", [])) == sorted(rule.mitigants)
    for entity in await memory.entities(ns):
        assert entity.last_update_source and entity.confidence is not None


async def test_seed_texts_offline_shapes_provenance_and_idempotency(
    memory: GraphMemory, namespace: Namespace, dev_set: Path
) -> None:
    texts = _seed_texts(dev_set)
    pipeline = IngestionPipeline(memory, namespace)
    report = await pipeline.run(texts, batch_size=2)
    assert report.mode == "offline" and report.texts_processed == 4
    assert report.rules_extracted >= 4 and report.rules_written == report.rules_extracted
    assert report.tool_errors == [] and report.edges.created > 0
    rules = await stored_rules(memory, namespace)
    assert len(rules) == report.rules_extracted
    assert {r.text_id for r in rules} == set(SEED_TEXTS)
    actions = {r.action for r in rules}
    assert {"refer", "decline"} <= actions
    await assert_rule_shapes(memory, namespace, rules)
    # Each text is a source episode that mentions the rules it yielded.
    for source in await memory.sources(namespace):
        names = {r.rule_name for r in rules if r.text_id == source.source_id}
        keys = {memory.entity_key(namespace, "Rule", n) for n in names}
        assert keys <= set(source.mentions)
    before = await memory.export(namespace)
    again = await pipeline.run(texts)
    assert again.nodes.created == again.nodes.updated == 0
    assert again.edges.created == again.edges.updated == 0
    assert await memory.export(namespace) == before


async def test_gold_rules_ingest_through_the_same_tools(
    memory: GraphMemory, namespace: Namespace, dev_set: Path
) -> None:
    gold = [r for r in load_rules(dev_set / "rules.jsonl") if r.text_id in SEED_TEXTS]
    report = await ingest_rules(memory, namespace, gold)
    assert report.rules_written == len(gold) and report.tool_errors == []
    assert report.sources.created == len(SEED_TEXTS)
    stored = await stored_rules(memory, namespace)
    assert {r.rule_name for r in stored} == {r.rule_name for r in gold}
    await assert_rule_shapes(memory, namespace, gold)
    before = await memory.export(namespace)
    await ingest_rules(memory, namespace, gold)
    assert await memory.export(namespace) == before


async def test_llm_mode_with_scripted_model_and_a_tool_error(
    memory: GraphMemory, namespace: Namespace
) -> None:
    bad_edge = {
        "source_label": "Rule",
        "source_name": "Widget Referral",
        "relation": "TRIGGERS",
        "target_label": "Outcome",
        "target_name": "Refer",
        "fact": "wrong way round",
    }
    model = ScriptedChatModel(
        extraction=[structured([{"bad": 1}]), structured([RULE])],
        agent=[
            tool_calls(
                ("write_rule", {"rule": {**RULE, "text_id": "doc-7"}, "source_id": "doc-7"}),
                ("upsert_relationship", bad_edge),
            ),
            tool_calls(("explore", {"query": "widgets"})),
            tool_calls(
                (
                    "add_mitigant",
                    {"mitigant": "Annual widget audit", "rule_name": "Widget Referral"},
                )
            ),
            AIMessage("done"),
        ],
    )
    pipeline = IngestionPipeline(memory, namespace, chat_model=model)
    report = await pipeline.run({"doc-7": "Widgets over ten staff are referred."})
    assert report.mode == "llm" and report.rules_extracted == 1 and report.rules_written == 1
    assert report.iterations == 4 and report.tool_calls == 4
    [error] = report.tool_errors
    assert "TRIGGERS cannot start at a Rule" in error
    rels = {
        (e.source_name, e.relation, e.target_name) for e in await memory.relationships(namespace)
    }
    assert ("Widgets", "TRIGGERS", "Widget Referral") in rels
    assert ("Annual widget audit", "OVERRIDES", "Widget Referral") in rels
    [source] = await memory.sources(namespace)
    assert source.source_id == "doc-7" and source.mentions


async def test_llm_invalid_output_fails_with_nothing_written(
    memory: GraphMemory, namespace: Namespace
) -> None:
    model = ScriptedChatModel(extraction=[structured([{"bad": 1}]) for _ in range(3)])
    report = await IngestionPipeline(memory, namespace, chat_model=model).run(
        {"w1": "Widgets are bad."}
    )
    assert report.failed_texts == ["w1"] and "invalid structured output" in report.errors[0]
    # Extraction failed before any write: no entity, no source episode.
    assert await memory.entities(namespace) == [] and await memory.sources(namespace) == []


async def test_iteration_limit_and_empty_text(memory: GraphMemory, namespace: Namespace) -> None:
    looping = ScriptedChatModel(
        extraction=[structured([RULE])],
        agent=[tool_calls(("explore", {"query": "x"})) for _ in range(3)],
    )
    report = await IngestionPipeline(memory, namespace, chat_model=looping, max_iterations=3).run(
        "Widgets are referred."
    )
    assert report.iterations == 3 and any("limit of 3" in w for w in report.warnings)
    empty = await IngestionPipeline(memory, namespace).run({"blank": "   "})
    assert empty.rules_extracted == 0 and any("empty" in w for w in empty.warnings)


def test_cli_ingest_json(falkordb_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({**RULE, "text_id": "cli-1"}) + "\n")
    assert main(["ingest", str(rules), "--namespace", "agent:cli-test", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rules_written"] == 1 and report["mode"] == "offline"
    bad = tmp_path / "more-rules.jsonl"
    bad.write_text(json.dumps(RULE) + "\nnot json\n")
    assert main(["ingest", str(bad), "--namespace", "agent:cli-test"]) == 2
    assert "more-rules.jsonl:2" in capsys.readouterr().err


class _FixedExtractor:
    mode = "offline"

    def __init__(self, rules: list[dict]) -> None:
        self.rules = [ExtractedRule.model_validate(r) for r in rules]

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        return list(self.rules)


async def test_entities_match_existing_nodes(memory: GraphMemory, namespace: Namespace) -> None:
    await memory.upsert_entity(namespace, "RiskFactor", "Widget Hazard", source="seed")
    await memory.upsert_entity(namespace, "RiskFactor", "Zone 1 Widgets", source="seed")
    extractor = _FixedExtractor(
        [
            {**RULE, "rule_name": "A", "risk_factor": "widget hazards"},
            {**RULE, "rule_name": "B", "risk_factor": "Zone 2 Widgets"},
            {**RULE, "rule_name": "C", "risk_factor": "Widget Hazard"},
        ]
    )
    pipeline = IngestionPipeline(memory, namespace, extractor=extractor, similarity_threshold=0.3)
    report = await pipeline.run("Widgets.")
    stored = {r.rule_name: r.risk_factor for r in await stored_rules(memory, namespace)}
    # canonical-name match, numbers keep Zone 2 apart even at a low threshold, key match
    assert stored == {"A": "Widget Hazard", "B": "Zone 2 Widgets", "C": "Widget Hazard"}
    assert report.entities_matched >= 1 and report.entities_new >= 1
