from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.evaluation import rules_match, score_extraction, values_equal
from agents.jsonl import load_rules
from schemas.rules import ExtractedRule


def _rule(
    name: str, action: str, conditions: list[tuple[str, str, object]], text_id: str | None = "t1"
) -> ExtractedRule:
    return ExtractedRule.model_validate(
        {
            "rule_name": name,
            "risk_factor": name,
            "risk_category": "eligibility",
            "action": action,
            "text_id": text_id,
            "conditions": [{"field": f, "operator": o, "value": v} for f, o, v in conditions],
        }
    )


def test_values_equal_numbers_strings_lists() -> None:
    assert values_equal(100, 100.5)
    assert not values_equal(100, 102)
    assert values_equal(0.0025, 0.00251)
    assert values_equal("Gas Station", "gas station")
    assert values_equal(["V", "VE"], ["ve", "v"])
    assert not values_equal(["V", "VE"], ["V"])
    assert not values_equal(True, 1)
    assert not values_equal("1", 1)
    assert not values_equal(["A"], "A")


def test_match_needs_action_and_one_condition() -> None:
    gold = _rule("G", "refer", [("occupancy", "eq", "bakery"), ("fleet_size", "gt", 4)])
    assert rules_match(gold, _rule("E", "refer", [("fleet_size", "gt", 4.01)]))
    assert not rules_match(gold, _rule("E", "decline", [("fleet_size", "gt", 4)]))
    assert not rules_match(gold, _rule("E", "refer", [("fleet_size", "gte", 4)]))
    assert not rules_match(gold, _rule("E", "refer", []))


def test_text_id_must_agree_only_when_both_present() -> None:
    gold = _rule("G", "decline", [("state", "eq", "CA")], text_id="k1")
    assert not rules_match(gold, _rule("E", "decline", [("state", "eq", "CA")], text_id="k2"))
    assert rules_match(gold, _rule("E", "decline", [("state", "eq", "CA")], text_id=None))


def test_score_precision_recall_f1_and_missed() -> None:
    gold = [
        _rule("A", "refer", [("x", "gt", 1)]),
        _rule("B", "decline", [("y", "eq", True)]),
    ]
    extracted = [
        _rule("e1", "refer", [("x", "gt", 1)]),
        _rule("e2", "refer", [("x", "gt", 1), ("z", "lt", 3)]),
        _rule("e3", "verify", [("y", "eq", True)]),
    ]
    score = score_extraction(gold, extracted)
    assert score.recall == pytest.approx(0.5)
    assert score.precision == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert score.missed == ["B"]
    assert (score.matched_gold, score.total_gold) == (1, 2)
    assert (score.matched_extracted, score.total_extracted) == (2, 3)


def test_score_empty_inputs() -> None:
    nothing = score_extraction([], [])
    assert (nothing.precision, nothing.recall, nothing.missed) == (1.0, 1.0, [])
    empty = score_extraction([_rule("A", "refer", [("x", "gt", 1)])], [])
    assert empty.recall == 0.0 and empty.precision == 0.0 and empty.missed == ["A"]


def test_load_rules(tmp_path: Path) -> None:
    good = _rule("A", "refer", [("x", "gt", 1)]).model_dump()
    path = tmp_path / "rules.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(good) + "\n", "utf-8")
    rules = load_rules(path)
    assert len(rules) == 2 and rules[0].rule_name == "A"


@pytest.mark.parametrize("bad", ["{not json", json.dumps({"rule_name": "x"})])
def test_load_rules_names_bad_line(tmp_path: Path, bad: str) -> None:
    good = json.dumps(_rule("A", "refer", [("x", "gt", 1)]).model_dump())
    path = tmp_path / "rules.jsonl"
    path.write_text(f"{good}\n{good}\n{bad}\n", "utf-8")
    with pytest.raises(ValueError, match=r"rules\.jsonl:3: "):
        load_rules(path)


def test_load_rules_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        load_rules(tmp_path / "nope.jsonl")
