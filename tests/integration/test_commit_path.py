"""Memory that keeps learning: one commit path, a change log other processes follow.

A long-running reader (this test process) and writers in other processes share
the real embedded server. The reader's in-process indexes follow the writers'
commits through the change log, without rebuilding, and agree with the graph.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory import GraphMemory, Namespace, Settings
from memory.backend import derived
from memory.search import lexical_index
from memory.underwriting import GraphAnalytics, apply_rule_graphs, rule_graph
from schemas.rules import ExtractedRule

ROOT = Path(__file__).resolve().parents[2]


def _rule(name: str, **changes: Any) -> ExtractedRule:
    body: dict[str, Any] = {
        "rule_name": name,
        "risk_factor": f"{name} Risk",
        "risk_category": "operations",
        "product_type": "BOP",
        "action": "refer",
        "outcome_description": f"{name} is referred to a senior underwriter.",
        "mitigants": ["Quarterly safety audit"],
        "mitigant_fields": ["safety_audit"],
        "source": "Commit Path Manual",
        "source_type": "manual",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 20}],
    }
    body.update(changes)
    return ExtractedRule.model_validate(body)


def _cli(settings: Settings, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ATHENA_DATA_DIR": str(settings.data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _builds(family: str = "") -> int:
    """How many derived indexes this process built from a whole graph (of one family)."""
    return sum(
        n for k, n in derived.EVENTS.items() if k.startswith(family) and k.endswith(":build")
    )


async def apply_rules(memory: GraphMemory, ns: Namespace, rules: list[ExtractedRule]) -> None:
    await apply_rule_graphs(memory, ns, [rule_graph(r) for r in rules], source="commit-test")


async def _graph_edges(memory: GraphMemory, ns: Namespace) -> set[str]:
    return {r.uuid for r in await memory.relationships(ns)}


async def _indexed_edges(memory: GraphMemory, ns: Namespace) -> set[str]:
    ontology = memory.ontology
    index = await lexical_index(
        memory.db, ns.group_id, ontology.partition_property, ontology.partition_wildcard
    )
    return set(index.slot)


async def test_a_long_running_reader_follows_another_process_without_rebuilding(
    memory: GraphMemory, namespace: Namespace, settings: Settings, tmp_path: Path
) -> None:
    await apply_rules(memory, namespace, [_rule(f"Reader Rule {i}") for i in range(30)])
    analytics = GraphAnalytics(memory, namespace)
    assert await analytics.query("Reader Rule 3 Risk", product_type="BOP")
    assert await analytics.rules_for_submission({"employee_count": 25}, "BOP")
    builds = _builds()

    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps(_rule("Zeppelin Hangar Referral").model_dump(mode="json")) + "\n")
    done = _cli(settings, "ingest", str(rules), "--namespace", str(namespace), "--json")
    assert done.returncode == 0, done.stderr

    hits = await analytics.query("zeppelin hangar", product_type="BOP")
    assert hits and hits[0].rule_name == "Zeppelin Hangar Referral"
    fired = await analytics.rules_for_submission({"employee_count": 25}, "BOP")
    assert "Zeppelin Hangar Referral" in {r.rule_name for r in fired}
    assert _builds() == builds
    assert await _indexed_edges(memory, namespace) == await _graph_edges(memory, namespace)


async def test_a_changed_rule_replaces_its_old_version_and_as_of_still_sees_it(
    memory: GraphMemory, namespace: Namespace
) -> None:
    name = "Fog Machine Referral"
    await apply_rules(memory, namespace, [_rule(name)])
    before_change = datetime.now(UTC)
    time.sleep(0.01)
    declined = _rule(
        name,
        action="decline",
        mitigants=[],
        mitigant_fields=[],
        outcome_description="Fog machines are declined.",
    )
    await apply_rules(memory, namespace, [declined])

    analytics = GraphAnalytics(memory, namespace)
    [path] = await analytics.paths([name])
    assert path.outcomes == ["Decline"]
    assert path.mitigants == []
    assert path.action == "decline"
    [exported] = await analytics.export()
    assert exported["action"] == "decline" and exported["mitigants"] == []
    hits = await memory.search(namespace, "fog machine refer quarterly safety audit", limit=20)
    facts = " ".join(h.relationship.fact for h in hits)
    assert "Quarterly safety audit" not in facts and "action refer" not in facts

    then = await memory.search(namespace, "fog machine", limit=20, as_of=before_change)
    old = {(h.relationship.relation, h.relationship.target_name) for h in then}
    assert ("RESULTS_IN", "Refer") in old and ("RESULTS_IN", "Decline") not in old
    assert any("action refer" in h.relationship.fact for h in then)
    assert any(h.relationship.relation == "OVERRIDES" for h in then)
    stats = await memory.stats(namespace)
    assert stats.invalidated_edges >= 3  # old outcome, old mitigant, old trigger text


async def test_a_log_trimmed_past_the_reader_falls_back_to_a_rebuild(
    memory: GraphMemory, namespace: Namespace, settings: Settings
) -> None:
    await apply_rules(memory, namespace, [_rule("Trim Rule A")])
    analytics = GraphAnalytics(memory, namespace)
    assert await analytics.query("Trim Rule A Risk")
    builds = _builds("lexical")
    async with GraphMemory(settings) as writer:
        for letter in "BCDE":
            await apply_rules(writer, namespace, [_rule(f"Trim Rule {letter}")])
        await writer.trim_change_log(namespace, keep=1)
    hits = await analytics.query("Trim Rule C Risk")
    assert hits and hits[0].rule_name == "Trim Rule C"
    assert _builds("lexical") == builds + 1
    assert await _indexed_edges(memory, namespace) == await _graph_edges(memory, namespace)


async def test_clearing_a_namespace_is_seen_by_a_reader_holding_its_index(
    memory: GraphMemory, namespace: Namespace, settings: Settings
) -> None:
    await apply_rules(memory, namespace, [_rule("Cleared Rule")])
    analytics = GraphAnalytics(memory, namespace)
    assert await analytics.query("Cleared Rule Risk")
    async with GraphMemory(settings) as other:
        assert await other.clear(namespace)
        await apply_rules(other, namespace, [_rule("Fresh Rule")])
    names = {h.rule_name for h in await analytics.query("Cleared Rule Risk Fresh Rule Risk")}
    assert names == {"Fresh Rule"}


WRITER = """
import asyncio, os, sys
from memory import GraphMemory, Namespace
from memory.underwriting import apply_rule_graphs, rule_graph
from schemas.rules import ExtractedRule

def say(line):
    # One write(2) a line: print() writes "done", " ", "2" apart when the interpreter is
    # unbuffered (PYTHONUNBUFFERED), and a kill between them leaves half a line.
    os.write(1, (line + "\\n").encode())

async def main():
    ns, tag = Namespace.parse(sys.argv[1]), sys.argv[2]
    async with GraphMemory() as memory:
        say("ready")
        for batch in range(10_000):
            rules = [
                ExtractedRule.model_validate({
                    "rule_name": f"Killed Writer Rule {tag}-{batch}-{i}",
                    "risk_factor": f"Killed Writer Risk {tag}-{batch}-{i}",
                    "risk_category": "operations", "product_type": "BOP", "action": "refer",
                    "source": "Killed Writer Log", "source_type": "production",
                    "conditions": [
                        {"field": "employee_count", "operator": "gt", "value": i % BATCH}
                    ],
                })
                # from batch 2 on, a long batch: the kill must land inside it even when the
                # machine is slow to read "begin 2" and send the signal
                for i in range(BATCH if batch < 2 else BATCH * LONGER)
            ]
            say(f"begin {batch}")
            await apply_rule_graphs(memory, ns, [rule_graph(r) for r in rules], source="w")
            say(f"done {batch}")

asyncio.run(main())
"""
WRITER_BATCH = 90  # rule i fires above i % 90 employees: all fire at 100
WRITER_LONGER = 8  # batches 2 and later are this many times longer
WRITER = WRITER.replace("LONGER", str(WRITER_LONGER)).replace("BATCH", str(WRITER_BATCH))


def _batch_size(batch: int) -> int:
    return WRITER_BATCH if batch < 2 else WRITER_BATCH * WRITER_LONGER


class _Lines:
    """A child's stdout read line by line, each wait bounded by a deadline that fails loudly."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self.proc, self.fd, self.buffer = proc, proc.stdout.fileno(), b""

    def next(self, deadline: float) -> str:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the writer said nothing more before the deadline: {self.buffer!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    err = self.proc.stderr.read() if self.proc.stderr else b""
                    pytest.fail(f"the writer exited early: {err.decode(errors='replace')}")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def rest(self) -> str:
        """Everything the (dead) writer printed that was not read yet."""
        assert self.proc.stdout is not None
        return (self.buffer + self.proc.stdout.read()).decode()


async def test_a_writer_killed_mid_commit_leaves_graph_and_reader_indexes_agreeing(
    memory: GraphMemory, namespace: Namespace, settings: Settings
) -> None:
    await apply_rules(memory, namespace, [_rule("Before The Kill")])
    analytics = GraphAnalytics(memory, namespace)
    assert await analytics.query("Before The Kill Risk")
    env = {**os.environ, "ATHENA_DATA_DIR": str(settings.data_dir)}
    landed: list[tuple[str, int, int]] = []  # (tag, batch in flight, its rules stored)
    for attempt in range(10):  # a kill can land between two batches; then try again
        tag = f"a{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(namespace), tag],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            lines = _Lines(proc)
            deadline = time.monotonic() + 120
            assert lines.next(deadline) == "ready"
            while (line := lines.next(deadline)) != "done 1":
                assert line.startswith(("begin ", "done ")), line
            await analytics.query("Killed Writer Risk")  # the reader follows while it writes
            assert lines.next(deadline) == "begin 2"
            os.kill(proc.pid, signal.SIGKILL)  # batch 2 is being planned, embedded, committed
            assert proc.wait(timeout=30) == -signal.SIGKILL
            after = lines.rest().split()
        finally:
            proc.kill()
            proc.wait(timeout=30)
        names = {e.name for e in await memory.entities(namespace, "Rule")}
        per_batch: dict[int, int] = {}  # batch -> its rules stored
        for name in names:
            if name.startswith(f"Killed Writer Rule {tag}-"):
                batch = int(name.split("-")[-2])
                per_batch[batch] = per_batch.get(batch, 0) + 1
        # The batches reported done are whole, and a batch the kill cut is all there or
        # not there at all: a commit is one transaction.
        assert per_batch[0] == per_batch[1] == WRITER_BATCH
        assert all(n == _batch_size(b) for b, n in per_batch.items()), per_batch
        if "done" in after:  # the signal arrived after batch 2 ended: try again
            assert after[:2] == ["done", "2"], after
            continue
        assert after == [] and set(per_batch) <= {0, 1, 2}, (after, per_batch)
        landed.append((tag, 2, per_batch.get(2, 0)))
        break
    if not landed:
        pytest.fail("in 10 attempts no kill landed while the writer was inside a batch")
    assert await _indexed_edges(memory, namespace) == await _graph_edges(memory, namespace)
    fired = await analytics.rules_for_submission({"employee_count": 100}, "BOP")
    stored = await analytics.rules()
    assert {r.rule_name for r in fired} == {r.rule_name for r in stored}
    assert "Before The Kill" in {r.rule_name for r in stored}
    # A fresh process (warm start from the snapshot, then the log) agrees too.
    derived.forget()
    assert await _indexed_edges(memory, namespace) == await _graph_edges(memory, namespace)


async def test_a_fresh_process_starts_warm_from_a_snapshot(
    memory: GraphMemory, namespace: Namespace, settings: Settings, tmp_path: Path
) -> None:
    await apply_rules(memory, namespace, [_rule(f"Warm Rule {i}") for i in range(5)])
    assert await GraphAnalytics(memory, namespace).query("Warm Rule 2 Risk")  # builds, saves
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps(_rule("Warm Late Rule").model_dump(mode="json")) + "\n")
    assert _cli(settings, "ingest", str(rules), "--namespace", str(namespace)).returncode == 0
    done = _cli(
        settings, "-v", "query", "Warm Late Rule Risk", "--namespace", str(namespace), "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["rule_name"] == "Warm Late Rule"
    assert "loaded lexical index snapshot" in done.stderr
    assert "building lexical index" not in done.stderr


@pytest.mark.parametrize("raw", ["CREATE (:Entity {name: 'sneaky'})", "MATCH (n) DELETE n"])
async def test_writes_outside_the_commit_path_are_refused(
    memory: GraphMemory, namespace: Namespace, raw: str
) -> None:
    await apply_rules(memory, namespace, [_rule("Guarded Rule")])
    with pytest.raises(ValueError, match="read-only"):
        await memory.backend.query(namespace.group_id, raw)


async def test_a_reader_reads_each_thing_once_per_commit_and_sees_another_process_change_it(
    memory: GraphMemory,
    namespace: Namespace,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = "Fog Lamp Referral"
    await apply_rules(memory, namespace, [_rule(name), _rule("Other Lamp Referral", mitigants=[])])
    analytics = GraphAnalytics(memory, namespace)

    async def read_all() -> tuple[str | None, str, str]:
        [path] = await analytics.paths([name])
        [rule] = await analytics.rules([name])
        hits = await memory.search(namespace, "fog lamp refer quarterly safety audit", limit=20)
        return path.action, rule.action, " ".join(h.relationship.fact for h in hits)

    first = await read_all()
    assert first[:2] == ("refer", "refer") and "Quarterly safety audit" in first[2]
    queries: list[str] = []
    real_query = memory.db.query

    async def counted(group_id: str, cypher: str, *args: Any, **kwargs: Any) -> Any:
        queries.append(cypher)
        return await real_query(group_id, cypher, *args, **kwargs)

    monkeypatch.setattr(memory.db, "query", counted)
    assert await read_all() == first
    assert queries == []  # served from what was read since the last commit

    changed = _rule(name, action="decline", mitigants=[], mitigant_fields=[])
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps(changed.model_dump(mode="json")) + "\n")
    done = _cli(settings, "ingest", str(rules), "--namespace", str(namespace), "--json")
    assert done.returncode == 0, done.stderr

    path_action, rule_action, facts = await read_all()
    assert (path_action, rule_action) == ("decline", "decline")
    assert queries  # the other process's commit emptied what this one had read
    assert "Quarterly safety audit" not in facts
