"""A 3-primary FalkorDB cluster on loopback: eval, chat -> workers -> decide, shards, replicas."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.cli import main
from agents.eval_run import run_eval
from agents.underwriting.service import decide_submission
from agents.worker import enqueue_transcript
from memory import GraphMemory, Namespace, Settings
from memory.backend.changelog import log_key
from memory.sessions import JobQueue
from tests.cluster import Cluster, Node, local_cluster, primary_with_replica
from tests.integration.test_supersede import CAP

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SUBMISSION = {"product_type": "BOP", "employee_count": 22, "years_in_business": 12}
LEARNING = "The 20 employee limit for BOP is really a guideline; we have approved up to {}."


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Three FalkorDB primaries on loopback, stopped after the module."""
    with local_cluster(tmp_path_factory.mktemp("cluster"), primaries=3) as running:
        yield running


@pytest.fixture
def on_cluster(cluster: Cluster, tmp_path: Path) -> Settings:
    """Settings that point at the cluster (the data dir only holds index snapshots)."""
    return Settings(FALKORDB_URL=cluster.url, ATHENA_DATA_DIR=tmp_path / "data")


def figures(report: dict) -> dict:
    """What an eval measured, without timings and names."""
    return {k: report[k] for k in ("ingestion", "retrieval", "decisions", "extraction")}


async def test_dev_eval_on_the_cluster_equals_the_embedded_server(
    on_cluster: Settings, settings: Settings, dev_set: Path
) -> None:
    for mode in ("gold", "extract"):
        async with GraphMemory(on_cluster) as memory:
            assert memory.db.cluster
            clustered = (await run_eval(memory, dev_set, mode)).to_dict()
        async with GraphMemory(settings) as memory:
            assert not memory.db.cluster
            embedded = (await run_eval(memory, dev_set, mode)).to_dict()
        for report in (clustered, embedded):
            del report["ingestion"]["seconds"]
        assert figures(clustered) == figures(embedded)
        assert clustered["decisions"]["submissions"] == 60


async def test_namespaces_spread_over_shards_with_their_logs(
    on_cluster: Settings, cluster: Cluster
) -> None:
    tag = uuid.uuid4().hex[:6]
    namespaces = [Namespace.agent(f"spread-{tag}-{i}") for i in range(8)]
    async with GraphMemory(on_cluster) as writer, GraphMemory(on_cluster) as reader:
        for i, ns in enumerate(namespaces):
            # The reader builds its index first, then follows the writer's log.
            assert await reader.search(ns, "fuel storage") == []
            risk = await writer.upsert_entity(ns, "RiskFactor", "Gas Station")
            rule = await writer.upsert_entity(ns, "Rule", f"Gas Station Refer {i}")
            await writer.upsert_relationship(
                ns, risk.key, "TRIGGERS", rule.key,
                fact=f"Gas stations are referred: fuel storage liability ({i}).",
                properties={"product_type": "LRO"},
            )  # fmt: skip
            [hit] = await reader.search(ns, "fuel storage")
            assert hit.relationship.fact.endswith(f"({i}).")
        listed = {str(ns) for ns in await reader.list_namespaces()}
    assert {str(ns) for ns in namespaces} <= listed
    where = cluster.graph_nodes()
    ports = {where[ns.group_id] for ns in namespaces}
    assert len(ports) > 1, f"every namespace landed on one shard: {ports}"
    keys = cluster.keys_by_node(f"athena:{{agent__spread-{tag}-*")
    for ns in namespaces:
        # The change log lives beside its graph: a commit is one node's transaction.
        assert log_key(ns.group_id) in keys[where[ns.group_id]]


def _slot_owner(cluster: Cluster, slot: int) -> Node:
    """The primary that serves `slot`, by the cluster's own slot map."""
    for start, end, (_, port, *_) in cluster.primaries[0].client().execute_command("CLUSTER SLOTS"):
        if int(start) <= slot <= int(end):
            return next(n for n in cluster.primaries if n.port == int(port))
    raise AssertionError(f"slot {slot} is not served")


def _move_empty_slot(cluster: Cluster, slot: int, source: Node, target: Node) -> None:
    """Hand an empty slot from `source` to `target` (a reshard with no keys to migrate)."""
    source_id = source.client().execute_command("CLUSTER MYID")
    target_id = target.client().execute_command("CLUSTER MYID")
    target.client().execute_command("CLUSTER SETSLOT", slot, "IMPORTING", source_id)
    source.client().execute_command("CLUSTER SETSLOT", slot, "MIGRATING", target_id)
    for node in [target, source, *(n for n in cluster.primaries if n not in (source, target))]:
        node.client().execute_command("CLUSTER SETSLOT", slot, "NODE", target_id)


async def test_a_commit_follows_its_slot_to_another_primary(
    on_cluster: Settings, cluster: Cluster
) -> None:
    ns = Namespace.agent(f"moved-{uuid.uuid4().hex[:6]}")
    slot = int(cluster.primaries[0].client().execute_command("CLUSTER KEYSLOT", ns.group_id))
    async with GraphMemory(on_cluster) as memory:
        assert await memory.search(ns, "fuel storage") == []  # the slot map is read
        source = _slot_owner(cluster, slot)
        target = next(n for n in cluster.primaries if n is not source)
        _move_empty_slot(cluster, slot, source, target)
        # The client still maps the slot to `source`: the commit is refused there
        # (MOVED), the map re-read, and the whole transaction run on `target`.
        await memory.db.commit(
            ns.group_id,
            [("CREATE (:Probe {name: $name})", {"name": "moved"})],
            [("SET", f"athena:{{{ns.group_id}}}:probe", "1")],
        )
        rows = await memory.db.query(ns.group_id, "MATCH (p:Probe) RETURN p.name AS name")
        assert rows == [{"name": "moved"}]
        # And the whole write path with it.
        risk = await memory.upsert_entity(ns, "RiskFactor", "Gas Station")
        rule = await memory.upsert_entity(ns, "Rule", "Gas Station Refer")
        await memory.upsert_relationship(
            ns, risk.key, "TRIGGERS", rule.key,
            fact="Gas stations are referred: fuel storage liability.",
            properties={"product_type": "LRO"},
        )  # fmt: skip
        [hit] = await memory.search(ns, "fuel storage")
        assert hit.relationship.fact.startswith("Gas stations are referred")
    assert cluster.graph_nodes()[ns.group_id] == target.port
    keys = cluster.keys_by_node(f"athena:{{{ns.group_id}}}*")[target.port]
    assert {log_key(ns.group_id), f"athena:{{{ns.group_id}}}:probe"} <= set(keys)


def athena(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def decide(settings: Settings, namespace: str) -> str:
    async def run() -> str:
        async with GraphMemory(settings) as memory:
            return (await decide_submission(memory, namespace, SUBMISSION)).decision

    return asyncio.run(run())


def test_chat_then_worker_then_decide_on_the_cluster(
    cluster: Cluster,
    on_cluster: Settings,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("FALKORDB_URL", cluster.url)
    monkeypatch.setenv("ATHENA_DATA_DIR", str(on_cluster.data_dir))
    tag = uuid.uuid4().hex[:8]
    ns, queue, session = f"agent:e2e-{tag}", f"test:e2e-{tag}", f"chat-{tag}"
    rules = tmp_path / "rules.jsonl"
    rules.write_text(CAP.model_dump_json() + "\n", "utf-8")
    athena(capsys, "ingest", str(rules), "--namespace", ns)
    assert decide(on_cluster, ns) == "decline"
    monkeypatch.setattr("sys.stdin", io.StringIO(LEARNING.format(23) + "\n"))
    athena(capsys, "chat", "--user", "jane", "--session", session, "--namespace", ns,
           "--queue", queue)  # fmt: skip
    athena(capsys, "worker", "--drain", "--queue", queue)
    jobs = json.loads(athena(capsys, "jobs", "--json", "--queue", queue))
    assert jobs["counts"]["done"] == 1
    assert decide(on_cluster, ns) == "refer"
    # Every key of the queue sits on one node (hash tag), so its scripts run there.
    holders = [port for port, keys in cluster.keys_by_node(f"{{{queue}}}*").items() if keys]
    assert len(holders) == 1


async def test_two_worker_processes_share_the_queue(
    cluster: Cluster, on_cluster: Settings, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    queue_name, conversations = f"test:workers-{tag}", [f"conv-{tag}-{i}" for i in range(8)]
    async with GraphMemory(on_cluster) as memory:
        queue = JobQueue(memory.db, prefix=queue_name)
        for i, conversation in enumerate(conversations):
            ns = f"agent:workers-{tag}-{i % 4}"
            await enqueue_transcript(
                queue, conversation_id=conversation, namespace=ns,
                transcript=LEARNING.format(21 + i),
            )  # fmt: skip
        env = {**os.environ, "FALKORDB_URL": cluster.url, "ATHENA_DATA_DIR": str(tmp_path)}
        command = [sys.executable, "-m", "agents.cli", "worker", "--drain", "--queue", queue_name,
                   "--pause-after-write", "0.3"]  # fmt: skip
        workers = [
            subprocess.Popen(
                [*command, "--name", f"w{i}"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )  # fmt: skip
            for i in range(2)
        ]
        try:
            for worker in workers:
                assert worker.wait(timeout=180) == 0, worker.stderr.read() if worker.stderr else ""
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
                    worker.wait(10)
        jobs = await queue.jobs()
        await queue.reset()
    assert sorted(job.id for job in jobs) == sorted(f"ingest:{c}" for c in conversations)
    assert all(job.status == "done" and job.attempts == 1 for job in jobs), jobs
    assert {job.worker for job in jobs} == {"w0", "w1"}


async def test_read_replica_serves_reads_and_the_writer_reads_its_writes(
    tmp_path: Path,
) -> None:
    with primary_with_replica(tmp_path) as (primary, replica):
        settings = Settings(
            FALKORDB_URL=primary.url, FALKORDB_READ_URLS=replica.url, ATHENA_DATA_DIR=tmp_path
        )
        ns = Namespace.agent("replicated")
        async with GraphMemory(settings) as memory:
            replicas = memory.db.replicas
            assert replicas is not None
            risk = await memory.upsert_entity(ns, "RiskFactor", "Gas Station")
            rule = await memory.upsert_entity(ns, "Rule", "Gas Station Refer")
            await memory.upsert_relationship(
                ns, risk.key, "TRIGGERS", rule.key, fact="Gas stations are referred.",
                properties={"product_type": "LRO"},
            )  # fmt: skip
            deadline = time.monotonic() + 10
            while replicas.reads["replica"] == 0 and time.monotonic() < deadline:
                assert len(await memory.search(ns, "gas station")) == 1
                await asyncio.sleep(0.05)
            assert replicas.reads["replica"] > 0  # caught up: the replica serves reads

            # Cut the replica off: it no longer receives writes. This process's next
            # write must still be read back, so its reads go to the primary.
            replica.client().execute_command("REPLICAOF", "NO", "ONE")
            mitigant = await memory.upsert_entity(ns, "Mitigant", "Fire Suppression")
            await memory.upsert_relationship(
                ns, mitigant.key, "OVERRIDES", rule.key, fact="Fire suppression overrides it.",
                properties={"product_type": "LRO"},
            )  # fmt: skip
            before = dict(replicas.reads)
            facts = {h.relationship.fact for h in await memory.search(ns, "fire suppression")}
            assert "Fire suppression overrides it." in facts
            assert replicas.reads["primary"] > before["primary"]
            assert replicas.reads["replica"] == before["replica"]
            # A process that did not write reads the replica (eventually consistent for it).
            async with GraphMemory(settings) as other:
                assert other.db.replicas is not None
                await other.db.query(ns.group_id, "MATCH (n) RETURN count(n) AS n")
                assert other.db.replicas.reads == {"primary": 0, "replica": 1}
