import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agents.ingestion.loaders import MAX_TEXT_CHARS, load_texts, normalise_texts
from agents.ingestion.matching import canonical_name, same_numbers
from agents.jsonl import load_rules
from agents.models import ExtractionError, LLMRuleExtractor
from agents.offline.planner import OfflinePlanner
from memory.underwriting import UNDERWRITING
from prompts.extraction import build_extraction_messages
from prompts.relationship import build_relationship_messages, parse_rules_block
from schemas.fields import load_data_dictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.unit.test_ingestion_fakes import ScriptedChatModel, structured
from tools import ToolContext, create_memory_tools

ROOT = Path(__file__).parents[2]
RULE = {
    "rule_name": "Widget Referral",
    "risk_factor": "Widgets",
    "risk_category": "operations",
    "action": "refer",
    "conditions": [{"field": "employee_count", "operator": "gt", "value": 10}],
}


def test_normalise_texts_accepts_str_list_and_dict() -> None:
    [one] = normalise_texts("a rule", source_id="doc-1")
    assert one.id == "doc-1"
    listed = normalise_texts(["a", "b"], source_id="conv")
    assert [t.id for t in listed] == ["conv:1", "conv:2"]
    keyed = normalise_texts({"k1": "x"}, source="Manual", source_type="manual")
    assert keyed[0].id == "k1" and keyed[0].source == "Manual"
    # Unkeyed texts get a content id: the same in another process (so ingesting a text
    # again in a later run finds it), different for another text.
    same, other = normalise_texts(["same", "other"])
    assert same.id != other.id and same.id.startswith("text-")
    for seed in ("0", "1"):
        elsewhere = subprocess.run(
            [sys.executable, "-c", "from agents.ingestion.loaders import normalise_texts as n\n"
             "print(n('same')[0].id, n(['other'])[0].id)"],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert elsewhere.stdout.split() == [same.id, other.id]


def test_bad_inputs_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="limit is"):
        normalise_texts("x" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(ValueError, match="texts must be strings"):
        normalise_texts([1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="source_type"):
        normalise_texts("x", source_type="rumour")


def test_files_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "latin.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ValueError, match="latin.txt is not UTF-8"):
        load_texts(bad)
    rules = tmp_path / "rules.jsonl"
    rules.write_text(ExtractedRule(**RULE).model_dump_json() + '\n{"rule_name": 3}\n')
    with pytest.raises(ValueError, match=r"rules.jsonl:2"):
        load_rules(rules)
    with pytest.raises(ValueError, match="unsupported file type"):
        load_texts(tmp_path / "x.pdf")


def test_canonical_name_folds_plurals_and_punctuation() -> None:
    assert canonical_name("Gas Stations.") == canonical_name("gas-station")
    assert same_numbers("Tier 1 County", "county, tier 1")
    assert not same_numbers("Tier 1 County", "Tier 2 County")


def test_prompts_carry_ontology_fields_and_rules() -> None:
    fields = load_data_dictionary()
    text = KnowledgeText(id="t1", text="Always decline widgets.", source="M")
    system, human = build_extraction_messages(text, UNDERWRITING, fields)
    assert "TRIGGERS" in system.content and fields.names()[0] in system.content
    assert "Always decline widgets." in human.content
    rule = ExtractedRule(**RULE)
    _, agent_human = build_relationship_messages([rule], [], UNDERWRITING)
    assert parse_rules_block(str(agent_human.content)) == [rule]


def test_offline_planner_emits_write_rule_calls_then_stops() -> None:
    planner = OfflinePlanner()
    rule = ExtractedRule(**RULE, text_id="t1")
    messages = build_relationship_messages([rule], [], UNDERWRITING)
    first = planner.invoke(messages)
    assert [c["name"] for c in first.tool_calls] == ["write_rule"]
    assert first.tool_calls[0]["args"]["source_id"] == "t1"
    done = planner.invoke([*messages, first, ToolMessage("ok", tool_call_id="c0")])
    assert isinstance(done, AIMessage) and not done.tool_calls
    assert not planner.invoke([HumanMessage("nothing here")]).tool_calls


def test_offline_planner_needs_write_rule_tool() -> None:
    with pytest.raises(ValueError, match="write_rule"):
        OfflinePlanner().bind_tools([])
    tools = create_memory_tools(ToolContext(memory=None, namespace="agent:x"))  # type: ignore[arg-type]
    bound = OfflinePlanner().bind_tools(tools)
    rules = [ExtractedRule(**RULE, text_id="t1"), ExtractedRule(**{**RULE, "rule_name": "W2"})]
    calls = bound.invoke(build_relationship_messages(rules, [], UNDERWRITING)).tool_calls
    # Bound to the real memory tools, it calls one of them for each rule in the prompt.
    assert {c["name"] for c in calls} <= {t.name for t in tools}
    assert [c["args"]["rule"] for c in calls] == [r.model_dump(mode="json") for r in rules]
    assert [c["name"] for c in calls] == ["write_rule", "write_rule"]
    assert calls[0]["args"]["source_id"] == "t1"


async def test_llm_extractor_retries_invalid_output() -> None:
    model = ScriptedChatModel(extraction=[structured([{"rule_name": 1}]), structured([RULE])])
    extractor = LLMRuleExtractor(model, load_data_dictionary())
    rules = await extractor.extract(KnowledgeText(id="t", text="..."))
    assert [r.rule_name for r in rules] == ["Widget Referral"]
    assert model.calls == ["extraction", "extraction"]


async def test_llm_extractor_fails_clearly_after_retries() -> None:
    bad = [structured([{"nope": True}]) for _ in range(2)]
    extractor = LLMRuleExtractor(
        ScriptedChatModel(extraction=bad), load_data_dictionary(), attempts=2
    )
    with pytest.raises(ExtractionError, match="'t9'.*2 time"):
        await extractor.extract(KnowledgeText(id="t9", text="..."))
