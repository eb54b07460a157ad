"""kill -9 of `athena ingest` mid-consolidation: nothing is half-merged, a re-run completes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench.synthetic import generate_rules, write_rules_file
from memory import GraphMemory, Namespace, Settings
from memory.backend.server import ensure_server, stop_server
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule
from tests.timeless import VALID_TIMES, untimed

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
TIMES = VALID_TIMES | {"created_at", "updated_at", "valid_at"}


def claims(n: int) -> list[ExtractedRule]:
    """Each synthetic rule as a manual states it, then as a decision log bends it."""
    out = []
    for rule in generate_rules(load_data_dictionary(), n):
        stated = rule.model_copy(
            update={"text_id": f"{rule.text_id}-manual", "date": "2024-01-01",
                    "threshold_type": "hard", "soft_limit": None, "source_type": "manual"}
        )  # fmt: skip
        limit = float(rule.conditions[-1].value)  # type: ignore[arg-type]
        bent = rule.model_copy(
            update={"rule_name": f"{rule.rule_name} (log)", "text_id": f"{rule.text_id}-log",
                    "date": "2025-01-01", "threshold_type": "soft", "soft_limit": limit * 1.5,
                    "source": "Decision log", "source_type": "production"}
        )  # fmt: skip
        out += [stated, bent]
    return out


def ingest(data_dir: Path, path: Path, ns: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "ingest", str(path), "--rules", "--namespace", ns],
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def whole_rules(memory: GraphMemory, ns: Namespace) -> dict[str, dict[str, Any]]:
    """Every Rule node, checked whole: its newest version is the rule, the node is
    retired exactly when that version ended, and it cites only texts it has claims of."""
    rows = await memory.db.query(
        ns.group_id,
        "MATCH (n:Rule) RETURN n.name AS name, n.props_json AS props, n.invalid_at AS ended",
        {},
        read_only=True,
    )
    found = {}
    for row in rows:
        doc = json.loads(row["props"])
        versions = doc.get("versions") or [doc]
        newest = {k: v for k, v in doc.items() if k not in ("versions", "claims")}
        assert versions[-1] == newest, row["name"]
        assert (row["ended"] is None) == (newest["valid_to"] is None), row["name"]
        heard = {c["text_id"] for c in doc.get("claims") or [newest]}
        assert {s["text_id"] for s in newest["sources"]} <= heard, row["name"]
        found[row["name"]] = untimed(doc, TIMES)
    return found


async def _count(memory: GraphMemory, ns: Namespace) -> int:
    rows = await memory.db.query(
        ns.group_id, "MATCH (n:Rule) RETURN count(n) AS n", {}, read_only=True
    )
    return int(rows[0]["n"]) if rows else 0


async def test_a_killed_ingest_leaves_whole_rules_and_a_rerun_equals_a_clean_run(
    tmp_path: Path,
) -> None:
    # A server of its own: a killed bulk load leaves the server's AOF compaction
    # postponed until the next load ends (other tests check the setting).
    falkordb_dir = tmp_path / "db"
    settings = Settings(ATHENA_DATA_DIR=falkordb_dir)
    ensure_server(falkordb_dir)
    try:
        await _killed_and_rerun(falkordb_dir, settings, tmp_path)
    finally:
        stop_server(falkordb_dir)


async def _killed_and_rerun(falkordb_dir: Path, settings: Settings, tmp_path: Path) -> None:
    total = 2000  # four commits of 500 rules (two claims each)
    path = write_rules_file(claims(total), tmp_path / "claims.jsonl")
    clean, killed = Namespace.agent("crash-clean"), Namespace.agent("crash-killed")
    done = ingest(falkordb_dir, path, str(clean))
    assert done.wait(300) == 0, done.stderr.read() if done.stderr else ""
    async with GraphMemory(settings) as memory:
        expected = await whole_rules(memory, clean)
        assert len(expected) == total  # one rule per piece of knowledge, two claims each
        assert all(r["threshold_type"] == "soft" for r in expected.values())
        await memory.db.ensure_indices(killed.group_id)
        mid_load = 0
        for _ in range(3):
            before = await _count(memory, killed)
            proc = ingest(falkordb_dir, path, str(killed))
            deadline = time.monotonic() + 120
            while await _count(memory, killed) == before and time.monotonic() < deadline:
                await asyncio.sleep(0.02)  # kill as soon as a commit of this run landed
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            partial = await whole_rules(memory, killed)  # whole, however many
            assert set(partial) <= set(expected)
            mid_load += before < len(partial) < total
        assert mid_load >= 1, "no kill landed between two commits of a load"
        rerun = ingest(falkordb_dir, path, str(killed))
        assert rerun.wait(300) == 0, rerun.stderr.read() if rerun.stderr else ""
        assert await whole_rules(memory, killed) == expected
