import json
from pathlib import Path

import pytest

from agents.cli import main

RULE = {
    "rule_name": "Axe Throwing Referral",
    "risk_factor": "Axe Throwing",
    "risk_category": "operations",
    "product_type": "GL",
    "action": "refer",
    "outcome_description": "Axe throwing venues are referred for a GL review.",
    "mitigants": ["Lane barriers and a staff safety officer"],
    "mitigant_fields": [],
    "source": "Review Test Guide",
    "source_type": "manual",
    "confidence": "high",
    "conditions": [{"field": "occupancy", "operator": "eq", "value": "axe throwing venue"}],
}


def test_a_referral_pauses_and_resumes_in_another_run(
    falkordb_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    ns = ["--namespace", "agent:review-test"]
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps(RULE) + "\n")
    assert main(["ingest", str(rules), "--json", *ns]) == 0
    submission = tmp_path / "sub.json"
    submission.write_text(json.dumps({"product_type": "GL", "occupancy": "axe throwing venue"}))
    capsys.readouterr()

    assert main(["review", "start", str(submission), "--json", *ns]) == 0
    paused = json.loads(capsys.readouterr().out)
    assert paused["status"] == "paused" and paused["pending"]["proposed_decision"] == "refer"
    assert (falkordb_dir / "checkpoints.sqlite").exists()

    # A new command (new event loop, new checkpointer connection) picks the run up.
    assert (
        main(
            [
                "review",
                "resume",
                paused["thread_id"],
                "--decision",
                "approve_with_conditions",
                "--note",
                "barriers seen",
                "--json",
                *ns,
            ]
        )
        == 0
    )
    done = json.loads(capsys.readouterr().out)
    assert done["status"] == "done"
    assert done["decision"]["decision"] == "approve_with_conditions"
    assert any("barriers seen" in n for n in done["decision"]["notes"])

    assert main(["review", "resume", paused["thread_id"], "--decision", "decline", *ns]) == 2
    assert "no paused review" in capsys.readouterr().err
