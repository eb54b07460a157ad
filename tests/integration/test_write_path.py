"""The write path at scale: pipelined bulk loads, the CLI's bulk ingest, fast restarts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agents.ingestion import load_rules
from bench.synthetic import generate_rules, with_sources, write_rules_file
from memory import GraphMemory, Namespace, Settings
from memory.backend.server import ensure_server, stop_server
from memory.model import SourceItem
from memory.underwriting import rule_graph, stored_rules
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule
from tests.processes import athena

pytestmark = pytest.mark.integration

TIMES = ("created_at", "updated_at", "valid_at")
CLOSED = ("expired_at", "invalid_at")  # compared as closed or not: the times differ by path


def _timeless(document: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in document.items() if k != "namespace"}
    for kind in ("entities", "relationships", "sources"):
        out[kind] = sorted(
            (
                {k: (v is not None if k in CLOSED else v) for k, v in d.items() if k not in TIMES}
                for d in document[kind]
            ),
            key=lambda d: json.dumps(d, sort_keys=True),
        )
    return out


def _next_version(rule: ExtractedRule) -> ExtractedRule:
    """The rule rewritten: another action and its mitigants dropped."""
    action = "decline" if rule.action != "decline" else "refer"
    return rule.model_copy(update={"action": action, "mitigants": [], "mitigant_fields": []})


async def test_pipelined_batches_equal_one_rule_per_commit(
    memory: GraphMemory, dev_set: Path
) -> None:
    rules = load_rules(dev_set / "rules.jsonl")
    # The third batch rewrites a rule of the second (it must wait for that commit) and
    # every batch shares risk factors, outcomes and sources with the ones before it.
    batches = [rules[:20], rules[20:45], [*rules[45:], _next_version(rules[30])]]
    bulk, item = Namespace.agent("pipelined-a"), Namespace.agent("pipelined-b")
    for ns in (bulk, item):
        await memory.clear(ns)
    async with memory.bulk_writer(bulk) as writer:
        for batch in batches:
            episodes = [SourceItem(f"batch-{r.rule_name}", r.rule_name) for r in batch]
            await writer.write([rule_graph(r) for r in batch], source="dev", episodes=episodes)
    for batch in batches:
        for rule in batch:
            # One rule per commit (write_batch retires what a new version lacks).
            await memory.write_batch(item, [rule_graph(rule)], source="dev")
            await memory.add_source(item, rule.rule_name, source_id=f"batch-{rule.rule_name}")
    exported = await memory.export(bulk)
    assert _timeless(exported) == _timeless(await memory.export(item))
    # The rewritten rule shows its new version; the old one stays for earlier reads.
    current = {e.fact for e in await memory.relationships(bulk) if rules[30].rule_name in e.fact}
    assert any(_next_version(rules[30]).action.replace("_", " ") in f for f in current)
    every = await memory.relationships(bulk, include_invalid=True)
    assert len(every) > len(await memory.relationships(bulk))


async def test_a_large_load_postpones_aof_compaction_and_restores_it(memory: GraphMemory) -> None:
    from memory.backend.bulkload import AOF_REWRITE_PERCENTAGE

    async def rewrite_percentage() -> int:
        reply = await memory.db.redis(lambda c: c.config_get("auto-aof-rewrite-percentage"))
        return int(reply["auto-aof-rewrite-percentage"])

    ns = Namespace.agent("aof-postponed")
    await memory.clear(ns)
    assert await rewrite_percentage() == AOF_REWRITE_PERCENTAGE
    rule = load_rules(Path(__file__).parents[2] / "agents/data/validation/rules.jsonl")[0]
    with pytest.raises(RuntimeError, match="stop"):
        async with memory.bulk_writer(ns, defer_vector_index=True) as writer:
            await writer.write([rule_graph(rule)], source="aof")
            assert await rewrite_percentage() == 0  # every commit still fsynced, not compacted
            raise RuntimeError("stop")
    assert await rewrite_percentage() == AOF_REWRITE_PERCENTAGE  # on again after a failure too
    async with memory.bulk_writer(ns, defer_vector_index=True) as writer:
        await writer.write([rule_graph(rule)], source="aof")
    assert await rewrite_percentage() == AOF_REWRITE_PERCENTAGE
    assert [e.name for e in await memory.entities(ns, "Rule")] == [rule.rule_name]


async def test_cli_ingests_rules_with_a_source_each_in_bulk(
    memory: GraphMemory, falkordb_dir: Path, tmp_path: Path
) -> None:
    rules = with_sources(generate_rules(load_data_dictionary(), 120), "own")
    path = write_rules_file(rules, tmp_path / "decision-log.jsonl")
    ns = Namespace.agent("cli-bulk-own")
    await memory.clear(ns)
    done = athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", str(ns), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rules_written"] == 120 and report["sources"]["created"] == 120
    sources = await memory.sources(ns)
    assert len(sources) == 120
    for source in sources:  # each episode mentions the rule it holds
        [rule] = [r for r in rules if r.text_id == source.source_id]
        assert memory.entity_key(ns, "Rule", rule.rule_name) in source.mentions
    before = await memory.export(ns)
    again = athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", str(ns), "--json")
    assert json.loads(again.stdout)["sources"]["unchanged"] == 120
    assert await memory.export(ns) == before


async def test_the_same_rule_stated_by_another_text_is_one_rule_citing_both(
    memory: GraphMemory, falkordb_dir: Path, tmp_path: Path
) -> None:
    ns = Namespace.agent("cli-bulk-same-name")
    await memory.clear(ns)
    [rule] = generate_rules(load_data_dictionary(), 1)
    for text_id, day in (("manual-2024", "2024-01-10"), ("bulletin-7", "2024-06-01")):
        path = write_rules_file(
            [rule.model_copy(update={"text_id": text_id, "date": day})], tmp_path / "r.jsonl"
        )
        args = ("ingest", str(path), "--rules", "--namespace", str(ns), "--json")
        done = athena(falkordb_dir, *args)
        assert done.returncode == 0, done.stdout + done.stderr  # written, not "not written"
    assert json.loads(done.stdout)["rule_names"] == [rule.rule_name]
    [stored] = await stored_rules(memory, ns)
    assert [s.text_id for s in stored.sources] == ["manual-2024", "bulletin-7"]
    assert stored.valid_from == "2024-06-01" and stored.valid_to is None  # the restatement


async def test_restart_answers_at_once_while_indexes_build(tmp_path: Path) -> None:
    data_dir = tmp_path / "db"
    settings = Settings(ATHENA_DATA_DIR=data_dir)
    ns = Namespace.agent("restart")
    rules = generate_rules(load_data_dictionary(), 600)  # 2,400 edges: the HNSW path
    async with GraphMemory(settings) as memory:
        from agents.ingestion import ingest_rules

        await ingest_rules(memory, ns, rules)
        query = f"{rules[7].risk_factor} {rules[7].threshold.field if rules[7].threshold else ''}"
        before = [h.relationship.uuid for h in await memory.search(ns, query, limit=5)]
    try:
        assert stop_server(data_dir) is True  # compacts the append-only file first
        tails = list((data_dir / "appendonlydir").glob("*.incr.aof"))
        assert tails and all(t.stat().st_size == 0 for t in tails)
        ensure_server(data_dir)
        assert "constructed in the background" in (data_dir / "falkordb.log").read_text()
        async with GraphMemory(settings) as memory:
            after = [h.relationship.uuid for h in await memory.search(ns, query, limit=5)]
            assert after[0] == before[0]
            assert len(await memory.entities(ns, "Rule")) == len(rules)
    finally:
        stop_server(data_dir)


async def test_after_a_crash_the_server_answers_while_indexes_build(tmp_path: Path) -> None:
    import signal

    from memory.backend.server import server_status

    data_dir = tmp_path / "db"
    settings = Settings(ATHENA_DATA_DIR=data_dir)
    ns = Namespace.agent("crash-restart")
    rules = generate_rules(load_data_dictionary(), 600)  # 2,400 edges: the HNSW path
    try:
        async with GraphMemory(settings) as memory:
            from agents.ingestion import ingest_rules

            await ingest_rules(memory, ns, rules[:-2])
            assert stop_server(data_dir)  # a compacted file: the tail starts empty
            for rule in rules[-2:]:  # two commits after it: a tail of transactions
                await ingest_rules(memory, ns, [rule])
            before = await memory.export(ns)
        tails = list((data_dir / "appendonlydir").glob("*.incr.aof"))
        assert any(b"MULTI" in t.read_bytes() for t in tails)
        os.kill(server_status(data_dir).pid or 0, signal.SIGKILL)
        log = data_dir / "falkordb.log"
        starts = log.read_text().count("Server initialized")
        ensure_server(data_dir)
        # The tail was rewritten without its transactions, so the indexes were built in
        # the background instead of before the first answer; nothing committed is lost.
        new_start = log.read_text().split("Server initialized")[starts:]
        assert "constructed in the background" in "".join(new_start)
        assert not any(b"MULTI" in t.read_bytes() for t in tails)
        async with GraphMemory(settings) as memory:
            assert await memory.export(ns) == before
            assert len(await memory.entities(ns, "Rule")) == len(rules)
            assert await memory.search(ns, rules[-1].risk_factor, limit=3)
    finally:
        stop_server(data_dir)
