import json
from pathlib import Path

import pytest

from agents.cli import main


def test_demo_ingests_and_decides_offline(
    falkordb_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["demo", "--namespace", "agent:demo-test"]) == 0
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "Rules in memory" in out and "offline mode" in out
    # The soft employee limit (15, approved up to 18) turns 17 employees into a referral,
    # and a V-zone property is declined.
    assert "demo-b: refer" in out and "demo-c: decline" in out
    assert "within the soft limit 18" in out
    assert "[source: Demo" in out


def test_demo_on_a_dataset_folder(
    falkordb_dir: Path,
    dev_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    monkeypatch.setenv("COLUMNS", "200")
    code = main(
        ["demo", "--dataset", str(dev_set), "--limit", "2", "--namespace", "agent:demo-dev"]
    )
    assert code == 0
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    rows = [json.loads(line) for line in (dev_set / "submissions.jsonl").read_text().splitlines()]
    gold = [json.loads(line) for line in (dev_set / "rules.jsonl").read_text().splitlines()]
    factor = {rule["rule_name"]: rule["risk_factor"] for rule in gold}
    for row in rows[:2]:  # decided as the dataset expects, on the risk its rules are about
        assert f"{row['id']}: {row['expected_decision']} (" in out
        assert f"Decision: {row['expected_decision']} (by policy)" in out
        assert row["expected_rules"]
        for name in row["expected_rules"]:  # offline extraction names rules its own way
            assert f"- {factor[name]} -> " in out
    assert f"{rows[2]['id']}:" not in out  # --limit 2
