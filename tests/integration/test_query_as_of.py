import json
from pathlib import Path

import pytest

from agents.cli import main

RULE = {
    "rule_name": "Escape Room Referral",
    "risk_factor": "Escape Room",
    "risk_category": "operations",
    "product_type": "GL",
    "action": "refer",
    "outcome_description": "Escape rooms are referred for egress review.",
    "source": "As-of Test Guide",
    "source_type": "manual",
    "conditions": [{"field": "occupancy", "operator": "eq", "value": "escape room"}],
}


def test_query_as_of_before_the_rule_existed(
    falkordb_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    ns = ["--namespace", "agent:as-of-test"]
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps(RULE) + "\n")
    assert main(["ingest", str(rules), "--json", *ns]) == 0
    capsys.readouterr()
    assert main(["query", "escape room", "--json", *ns]) == 0
    now = json.loads(capsys.readouterr().out)
    assert [r["rule_name"] for r in now["results"]][:1] == ["Escape Room Referral"]
    assert main(["query", "escape room", "--as-of", "2001-01-01T00:00:00", "--json", *ns]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []
    with pytest.raises(SystemExit):
        main(["query", "escape room", "--as-of", "last tuesday", *ns])
    assert "--as-of expects an ISO time" in capsys.readouterr().err


def test_decide_as_of_before_any_rule_approves_and_an_empty_namespace_refers(
    falkordb_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rules stored but none in force then: nothing fires. No rules at all: refer."""
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({**RULE, "date": "2020-06-01"}) + "\n")
    submission = tmp_path / "sub.json"
    submission.write_text(json.dumps({"product_type": "GL", "occupancy": "escape room"}))
    ns = ["--namespace", "agent:as-of-decide"]
    assert main(["ingest", str(rules), "--rules", "--json", *ns]) == 0
    capsys.readouterr()

    def decision(*extra: str, namespace: list[str] = ns) -> str:
        assert main(["decide", str(submission), "--json", *namespace, *extra]) == 0
        return str(json.loads(capsys.readouterr().out)["decision"])

    assert decision() == "refer"
    assert decision("--as-of", "2020-07-01") == "refer"
    assert decision("--as-of", "2019-01-01") == "approve"
    assert decision("--as-of", "2019-01-01", namespace=["--namespace", "agent:as-of-empty"]) == (
        "refer"
    )
