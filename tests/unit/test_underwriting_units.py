"""Pure parts of the underwriting agent and its eval: signals, checks, readers, metrics."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agents.eval_run import eval_namespace, percentile, rule_aliases
from agents.underwriting.context import Context
from agents.underwriting.nodes import _review_answer, check_proposal, decision_prompt
from agents.underwriting.retrieval import risk_signals
from agents.underwriting.service import read_submission, read_submissions
from schemas.decision import DecisionProposal
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule
from schemas.submission import SubmissionError

FIELDS = DataDictionary.model_validate(
    {
        "fields": {
            "product_type": {"type": "str"},
            "crew_size": {"type": "int", "unit": "people", "synonyms": ["crew", "headcount"]},
            "kiln_separated": {"type": "bool", "synonyms": ["kiln room separated"]},
            "occupancy": {"type": "str", "synonyms": ["class of business"]},
        }
    }
)


def test_risk_signals_come_from_the_data_dictionary() -> None:
    values = {"product_type": "BOP", "crew_size": 22, "kiln_separated": True, "occupancy": "x"}
    signals = risk_signals(values, FIELDS)
    assert [s.field for s in signals] == ["occupancy", "crew_size", "kiln_separated"]
    assert signals[0].query == "occupancy class of business x"
    # A number or a flag is matched by the condition index: its text is the field's
    # meaning alone, the same in every submission.
    assert signals[1].query == "crew size crew headcount people"
    assert signals[2].query == "kiln separated kiln room separated"
    again = risk_signals({"crew_size": 40, "kiln_separated": False}, FIELDS)
    assert [s.query for s in again] == [signals[1].query, signals[2].query]


def _state(threshold_type: str = "hard") -> dict[str, Any]:
    rule = {
        "rule_name": "R1",
        "product_type": "ALL",
        "action": "decline",
        "threshold_type": threshold_type,
        "historical_exceptions": None,
    }
    evaluation = {
        "rule_name": "R1",
        "fires": True,
        "applies": True,
        "outcome": "decline",
        "why": "Fires: x.",
        "missing_fields": [],
    }
    return {
        "values": {"crew_size": 50},
        "rules": [rule],
        "evaluations": [evaluation],
        "policy": {"decision": "decline", "cited": ["R1"], "missing_fields": []},
    }


def test_check_proposal_rejects_contradictions_and_unknown_citations() -> None:
    state: Any = _state()
    ok = DecisionProposal(decision="decline", cited_rules=["R1"])
    assert check_proposal(ok, state) is None
    soft = DecisionProposal(decision="refer", cited_rules=["R1"])
    assert "contradicts the fired hard rule 'R1'" in (check_proposal(soft, state) or "")
    assert check_proposal(soft, _state("soft")) is None  # type: ignore[arg-type]
    ghost = DecisionProposal(decision="decline", cited_rules=["Nope"])
    assert "did not fire: Nope" in (check_proposal(ghost, state) or "")
    bare = DecisionProposal(decision="decline")
    assert "must cite" in (check_proposal(bare, state) or "")
    assert "R1 [ALL, action decline, hard]: FIRES -> outcome decline" in decision_prompt(state)


def test_review_answers() -> None:
    assert _review_answer(" Refer ") == ("refer", "")
    assert _review_answer({"decision": "approve", "note": "ok"}) == ("approve", "ok")
    with pytest.raises(ValueError, match="one of decline, refer"):
        _review_answer({"note": "no decision"})


def test_context_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="mode must be"):
        Context(mode="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="search_limit"):
        Context(search_limit=0)


def test_submission_readers(tmp_path: Path) -> None:
    single = tmp_path / "s.json"
    single.write_text('{"id": "s9", "submission": {"crew_size": 3}}')
    assert read_submission(single) == {"crew_size": 3}
    single.write_text("[1, 2]")
    with pytest.raises(SubmissionError, match="must be a JSON object"):
        read_submission(single)
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"crew_size": 1}\n\n{"id": 7, "submission": {"crew_size": 2}}\n')
    items = read_submissions(batch)
    assert [(i.id, i.submission) for i in items] == [
        ("line-1", {"crew_size": 1}),
        ("7", {"crew_size": 2}),
    ]
    batch.write_text('{"crew_size": 1}\nnope\n')
    with pytest.raises(SubmissionError, match=r"b\.jsonl:2: not valid JSON"):
        read_submissions(batch)


def test_eval_helpers(tmp_path: Path) -> None:
    assert percentile([], 50) is None
    assert percentile([5.0, 1.0, 3.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    assert eval_namespace(tmp_path, "gold") == eval_namespace(tmp_path / ".", "gold")
    assert str(eval_namespace(tmp_path, "extract")).startswith("agent:eval-")

    def rule(name: str, value: int) -> ExtractedRule:
        return ExtractedRule.model_validate(
            {
                "rule_name": name,
                "text_id": "k1",
                "risk_factor": "Crew",
                "risk_category": "operations",
                "action": "refer",
                "conditions": [{"field": "crew_size", "operator": "gt", "value": value}],
            }
        )

    aliases = rule_aliases([rule("Gold", 30)], [rule("Mine", 30), rule("Other", 99)])
    assert aliases == {"Gold": {"Gold", "Mine"}}


def test_the_run_reads_its_data_dictionary_again_only_when_the_file_changes(
    tmp_path: Path,
) -> None:
    from agents.underwriting.nodes import data_dictionary

    path = tmp_path / "fields.json"
    path.write_text(json.dumps({"fields": {"crew_size": {"type": "int"}}}))
    context = Context(fields_path=str(path))
    first = data_dictionary(context)
    assert data_dictionary(context) is first  # not parsed again per node
    both = {"crew_size": {"type": "int"}, "kiln": {"type": "bool"}}
    path.write_text(json.dumps({"fields": both}))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert set(data_dictionary(context).fields) == {"crew_size", "kiln"}
