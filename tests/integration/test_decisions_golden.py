"""Decisions stay exactly what they were: `athena decide --batch` on the dev and validation sets.

`tests/data/decisions_golden.json` holds the batch JSON lines (without `latency_ms`) that
the decide path produced before its speed-ups (issue 26): decisions, cited rules with their
sources, missing fields, notes, retrieved rules and the reasoning chain, for every
submission of both sets. Each set's gold rules (with their texts) are ingested into a fresh
namespace of a fixed name through the CLI, as a user does (the name reads
``<namespace>`` here). Regenerate (only for an intended change of
output) with ``ATHENA_WRITE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "decisions_golden.json"
VALIDATION = ROOT / "agents" / "data" / "validation"


def _decide_all(
    dataset: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> list[dict[str, Any]]:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(data_dir))
    # A fixed name: ids are derived from it, and ties in a ranking are broken by id.
    namespace = f"agent:golden-{dataset.name}"
    common = ["--namespace", namespace]
    common += ["--fields", str(dataset / "fields.json")]
    code = main(
        [
            "ingest",
            str(dataset / "rules.jsonl"),
            "--rules",
            "--texts",
            str(dataset / "knowledge.jsonl"),
            "--json",
            *common,
        ]
    )
    capsys.readouterr()
    assert code == 0
    code = main(["decide", "--batch", str(dataset / "submissions.jsonl"), "--json", *common])
    out = capsys.readouterr().out
    assert code == 0
    lines = []
    for line in out.replace(namespace, "<namespace>").splitlines():
        decided = json.loads(line)
        decided.pop("latency_ms")
        lines.append(decided)
    return lines


def test_decisions_citations_and_reasoning_are_unchanged(
    dev_set: Path,
    falkordb_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = {
        "dev": _decide_all(dev_set, falkordb_dir, monkeypatch, capsys),
        "validation": _decide_all(VALIDATION, falkordb_dir, monkeypatch, capsys),
    }
    assert len(found["dev"]) == 60 and len(found["validation"]) == 66
    if os.environ.get("ATHENA_WRITE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", "utf-8")
    golden = json.loads(GOLDEN.read_text("utf-8"))
    changed = {}
    for name in ("dev", "validation"):
        for want, got in zip(golden[name], found[name], strict=True):
            keys = sorted(k for k in {*want, *got} if want.get(k) != got.get(k))
            if keys:
                changed[f"{name} {want['id']}"] = {k: [want.get(k), got.get(k)] for k in keys}
    assert not changed, json.dumps(changed, indent=1)
