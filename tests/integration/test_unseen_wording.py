"""Unseen wording (issue 16): texts in styles dev lacks, read offline, decide and retrieve.

The texts and submissions come from the validation set (agents/data/validation), whose
data dictionary has fields dev does not: a bullet list, a table written as text, an
e-mail thread and a bulletin.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main
from agents.ingestion import IngestionPipeline, load_texts
from agents.underwriting.service import decide_submission
from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics
from schemas.fields import load_data_dictionary

pytestmark = pytest.mark.integration

VALIDATION = Path(__file__).resolve().parents[2] / "agents" / "data" / "validation"
TEXTS = ("v02", "v04", "v06", "v12")


def _rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (VALIDATION / name).read_text("utf-8").splitlines()]


async def test_unseen_styles_extracted_offline_decide_and_rank(
    memory: GraphMemory, namespace: Namespace
) -> None:
    fields = load_data_dictionary(VALIDATION / "fields.json")
    texts = [t for t in load_texts(VALIDATION / "knowledge.jsonl") if t.id in TEXTS]
    pipeline = IngestionPipeline(memory, namespace, fields=fields)
    report = await pipeline.run(texts)
    assert report.mode == "offline" and report.tool_errors == []
    assert report.rules_written >= 8

    cases = [
        ({"product_type": "BOP", "wiring_type": "knob and tube"}, "decline"),
        ({"product_type": "BOP", "wiring_type": "aluminum", "occupancy": "bakery"}, "refer"),
        ({"product_type": "BOP", "heating_system": "wood stove"}, "approve_with_conditions"),
        ({"product_type": "BOP", "heating_system": "gas furnace"}, "approve"),
        (
            {"product_type": "Property", "protection_class": 8, "construction_type": "frame"},
            "refer",
        ),
        ({"product_type": "GL", "occupancy": "nightclub"}, "decline"),
        (
            {
                "product_type": "GL",
                "occupancy": "bar",
                "late_night_hours": True,
                "security_staff": False,
            },
            "refer",
        ),
        ({"product_type": "LRO", "fuel_storage_gallons": 2500}, "refer"),
        ({"product_type": "GL", "fuel_storage_gallons": 20000}, "decline"),
    ]
    for submission, expected in cases:
        decision = await decide_submission(memory, namespace, submission, fields)
        assert decision.decision == expected, (submission, decision.reasoning_chain)

    # A query that states facts finds the rule those facts satisfy first.
    analytics = GraphAnalytics(memory, namespace, fields)
    [top, *_] = await analytics.query("a bakery heated mostly by space heaters", "BOP")
    stored = {r.rule_name: r for r in await analytics.rules()}
    conditions = stored[top.rule_name].conditions
    assert [(c.field, c.value) for c in conditions] == [("heating_system", "space heaters")]
    # 20,000 gallons satisfies both fuel thresholds (over 1,000 and over 10,000).
    hits = await analytics.query("a depot storing 20,000 gallons of diesel", "GL", limit=3)
    assert {stored[h.rule_name].action for h in hits[:2]} == {"refer", "decline"}
    assert all(
        c.field == "fuel_storage_gallons" for h in hits[:2] for c in stored[h.rule_name].conditions
    )


async def test_ingestion_report_lists_rule_like_sentences_without_rules(
    memory: GraphMemory,
    namespace: Namespace,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fields = load_data_dictionary(VALIDATION / "fields.json")
    texts = load_texts(VALIDATION / "knowledge.jsonl")
    pipeline = IngestionPipeline(memory, namespace, fields=fields)
    report = await pipeline.run([t for t in texts if t.id in ("v08", "v01")])
    uncovered = [(u.text_id, u.sentence) for u in report.uncovered]
    assert (
        "v08",
        "And please stop referring bakeries just because they have a gas furnace - those are fine.",
    ) in uncovered
    assert all(text_id in {"v01", "v08"} for text_id, _ in uncovered)

    # What `athena ingest` shows a user of the same texts: as JSON, and as lines.
    knowledge = tmp_path / "knowledge.jsonl"
    knowledge.write_text(
        "".join(json.dumps(r) + "\n" for r in _rows("knowledge.jsonl") if r["id"] in ("v08", "v01"))
    )
    monkeypatch.setenv("ATHENA_DATA_DIR", str(memory.settings.data_dir))
    fields_path = str(VALIDATION / "fields.json")
    args = ["ingest", str(knowledge), "--fields", fields_path]
    capsys.readouterr()
    assert await asyncio.to_thread(main, [*args, "--namespace", f"{namespace}-j", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["uncovered"]
    assert [(u["text_id"], u["sentence"]) for u in shown] == uncovered
    assert await asyncio.to_thread(main, [*args, "--namespace", f"{namespace}-h"]) == 0
    out = capsys.readouterr().out
    assert f"  {len(uncovered)} sentence(s) read like rules but yielded none:" in out
    assert all(f"    [{text_id}] {sentence}" in out for text_id, sentence in uncovered)
