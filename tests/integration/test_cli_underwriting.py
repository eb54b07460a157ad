"""The read-side commands end to end: eval, query, trace, decide, export, visualize."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from agents.cli import main
from agents.underwriting import policy
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule
from schemas.submission import parse_submission

pytestmark = pytest.mark.integration

TEXTS = 8


@pytest.fixture(scope="module")
def mini_set(dev_set: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first texts of the dev set with their rules, queries and (re-decided) submissions."""
    root = tmp_path_factory.mktemp("mini")
    shutil.copy(dev_set / "fields.json", root / "fields.json")
    texts = (dev_set / "knowledge.jsonl").read_text().splitlines()[:TEXTS]
    ids = {json.loads(t)["id"] for t in texts}
    rules = [
        ExtractedRule.model_validate_json(line)
        for line in (dev_set / "rules.jsonl").read_text().splitlines()
        if json.loads(line)["text_id"] in ids
    ]
    names = {r.rule_name for r in rules}
    (root / "knowledge.jsonl").write_text("\n".join(texts) + "\n")
    (root / "rules.jsonl").write_text("\n".join(r.model_dump_json() for r in rules) + "\n")
    queries = [
        q
        for q in map(json.loads, (dev_set / "queries.jsonl").read_text().splitlines())
        if set(q["expected"]) <= names
    ]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    fields = load_data_dictionary(root / "fields.json")
    rows = []
    for line in (dev_set / "submissions.jsonl").read_text().splitlines()[:12]:
        row = json.loads(line)
        values = parse_submission(row["submission"], fields).values
        result = policy.decide(rules, values)
        row["expected_decision"] = result.decision
        row["expected_rules"] = list(result.cited_rule_names)
        rows.append(json.dumps(row))
    (root / "submissions.jsonl").write_text("\n".join(rows) + "\n")
    return root


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_then_the_read_commands(
    mini_set: Path,
    falkordb_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    ns = f"agent:cli-{uuid.uuid4().hex[:8]}"
    code, out, _ = _run(["eval", str(mini_set), "--json", "--namespace", ns], capsys)
    report = json.loads(out)
    assert code == 0 and report["namespace"] == ns
    assert report["decisions"]["accuracy"] == 1.0
    assert report["decisions"]["cited_rule_recall"] in (1.0, None)
    assert report["retrieval"]["recall_at_5"] >= 0.9
    assert report["extraction"]["recall"] == 1.0
    assert report["latency_ms"]["decide_p50"] > 0

    common = ["--namespace", ns, "--fields", str(mini_set / "fields.json")]
    code, out, _ = _run(
        ["query", "gas station", "--product-type", "LRO", "--json", *common], capsys
    )
    results = json.loads(out)["results"]
    assert code == 0 and results[0]["rule_name"] and "score" in results[0]

    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "b", "query": "gas station"}\n{"id": "a", "query": "cannabis"}\n')
    code, out, _ = _run(["query", "--batch", str(batch), "--json", "--limit", "3", *common], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["b", "a"]
    assert all(len(line["results"]) <= 3 for line in lines)

    code, out, _ = _run(["trace", "Gas Station", "--json", *common], capsys)
    assert code == 0 and json.loads(out)["paths"][0]["risk_factor"] == "Gas Station"

    subs = (mini_set / "submissions.jsonl").read_text().splitlines()
    one = tmp_path / "one.json"
    one.write_text(subs[0])
    code, out, _ = _run(["decide", str(one), "--json", *common], capsys)
    assert code == 0 and json.loads(out)["decision"] == json.loads(subs[0])["expected_decision"]

    many = tmp_path / "many.jsonl"
    many.write_text(f'{subs[1]}\n{{"id": "bad", "submission": {{"stories": "tall"}}}}\n{subs[0]}\n')
    code, out, _ = _run(["decide", "--batch", str(many), "--json", *common], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [line["id"] for line in lines] == [json.loads(subs[1])["id"], "bad", "s001"]
    assert "field 'stories' expects int, got 'tall'" in lines[1]["error"]
    assert lines[2]["decision"] == json.loads(subs[0])["expected_decision"]

    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    code, _, err = _run(["decide", str(broken), *common], capsys)
    assert code == 2 and "is not JSON" in err

    code, out, _ = _run(["export", "--json", *common], capsys)
    document = json.loads(out)
    assert document["count"] == len(document["rules"]) > 0
    assert {"rule_name", "conditions", "id", "provenance"} <= set(document["rules"][0])

    picture = tmp_path / "g.png"
    code, out, _ = _run(["visualize", "-o", str(picture), *common], capsys)
    assert code == 0 and picture.stat().st_size > 1000


def test_eval_extract_mode_reports_every_measure(
    mini_set: Path,
    falkordb_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(falkordb_dir))
    code, out, _ = _run(["eval", str(mini_set), "--mode", "extract"], capsys)
    assert code == 0
    for heading in ("Retrieval", "Decisions", "Extraction: precision", "Latency ms"):
        assert heading in out
    code, _, err = _run(["eval", str(mini_set / "nowhere")], capsys)
    assert code == 2 and "no such dataset folder" in err
