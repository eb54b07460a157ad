"""The read-side commands end to end: eval, query, trace, decide, export, visualize."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from pathlib import Path

import pytest

from agents.cli import main
from schemas.rules import ExtractedRule

pytestmark = pytest.mark.integration

TEXTS = 8


@pytest.fixture(scope="module")
def mini_set(dev_set: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first texts of the dev set with their rules, queries and submissions.

    A submission is kept, with the dataset's own expected decision and rules, when every
    rule the dataset expects it to cite comes from these texts: the decision is the most
    severe fired outcome and cites every rule giving it, so no rule left out can change
    what the dataset expects.
    """
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
    rows = [
        line
        for line in (dev_set / "submissions.jsonl").read_text().splitlines()
        if set(json.loads(line)["expected_rules"]) <= names
    ]
    (root / "submissions.jsonl").write_text("\n".join(rows) + "\n")
    return root


def test_the_mini_set_keeps_every_kind_of_decision(mini_set: Path) -> None:
    """Accuracy on the mini set means something only if it is not all one decision."""
    rows = [json.loads(line) for line in (mini_set / "submissions.jsonl").read_text().splitlines()]
    assert rows[0]["id"] == "s001" and len(rows) >= 12
    assert {r["expected_decision"] for r in rows} == {
        "approve",
        "approve_with_conditions",
        "refer",
        "decline",
    }
    assert sum(len(r["expected_rules"]) for r in rows) >= 10


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
    submissions = (mini_set / "submissions.jsonl").read_text().splitlines()
    began = time.perf_counter()
    code, out, _ = _run(["eval", str(mini_set), "--json", "--namespace", ns], capsys)
    wall_ms = (time.perf_counter() - began) * 1000.0
    report = json.loads(out)
    assert code == 0 and report["namespace"] == ns
    decisions = report["decisions"]
    assert decisions["submissions"] == len(submissions)
    assert decisions["errors"] == [] and decisions["wrong"] == []
    assert decisions["accuracy"] == 1.0
    assert decisions["cited_rule_recall"] == 1.0
    assert report["retrieval"]["recall_at_5"] >= 0.9
    assert report["extraction"]["recall"] == 1.0
    # Deciding one submission (a graph run with reads from the server) takes well over a
    # millisecond; all of them together fit in the eval's own wall time.
    latency = report["latency_ms"]
    assert 1.0 <= latency["decide_p50"] <= latency["decide_p95"]
    assert latency["decide_p50"] * len(submissions) / 2 <= wall_ms

    common = ["--namespace", ns, "--fields", str(mini_set / "fields.json")]
    gas_lro = next(
        q
        for q in map(json.loads, (mini_set / "queries.jsonl").read_text().splitlines())
        if q["query"] == "gas station" and q["product_type"] == "LRO"
    )
    code, out, _ = _run(
        ["query", "gas station", "--product-type", "LRO", "--json", *common], capsys
    )
    results = json.loads(out)["results"]
    assert code == 0 and results[0]["rule_name"] == gas_lro["expected"][0]
    assert isinstance(results[0]["score"], float)

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
