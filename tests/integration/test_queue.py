"""The durable job queue: retries, dead letters, leases, redelivery after a SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from agents.ingestion import ingest_rules
from agents.worker import enqueue_transcript, work
from memory import GraphMemory, Namespace
from memory.sessions import Job, JobQueue, run_worker
from memory.underwriting import stored_rules
from tests.integration.test_supersede import CAP, LEARNING
from tests.timeless import VALID_TIMES

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def new_queue(memory: GraphMemory, **kwargs: Any) -> JobQueue:
    kwargs.setdefault("backoff_seconds", 0.05)
    kwargs.setdefault("visibility_timeout", 2.0)
    return JobQueue(memory.db, prefix=f"test:{uuid.uuid4().hex[:8]}", **kwargs)


async def test_retry_with_backoff_then_dead_letter(memory: GraphMemory) -> None:
    queue = new_queue(memory)
    seen: list[float] = []

    async def broken(job: Job) -> dict[str, Any]:
        seen.append(time.monotonic())
        raise RuntimeError(f"cannot ingest {job.id}")

    assert await queue.enqueue("j1", {"x": 1})
    assert await run_worker(queue, broken, drain=True, poll_seconds=0.01) == 3
    [job] = await queue.jobs()
    assert (job.status, job.failures, job.attempts) == ("dead", 3, 3)
    assert job.error == "RuntimeError: cannot ingest j1"
    [letter] = await queue.dead_letters()
    assert letter == {"job_id": "j1", "error": "RuntimeError: cannot ingest j1", "attempts": "3"}
    gaps = [b - a for a, b in zip(seen, seen[1:], strict=False)]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.1  # exponential backoff
    await queue.reset()


async def test_flaky_job_succeeds_and_done_jobs_are_never_rerun(memory: GraphMemory) -> None:
    queue = new_queue(memory)
    calls: list[str] = []

    async def flaky(job: Job) -> dict[str, Any]:
        calls.append(job.id)
        if len(calls) == 1:
            raise RuntimeError("transient")
        return {"ok": True}

    await queue.enqueue("j1", {})
    await run_worker(queue, flaky, drain=True, poll_seconds=0.01)
    job = await queue.get("j1")
    assert job is not None and (job.status, job.attempts, job.result) == ("done", 2, {"ok": True})
    # Enqueuing it again, or a duplicate stream entry, does not run it again.
    assert not await queue.enqueue("j1", {})
    await memory.db.call(
        lambda: memory.db.client.connection.xadd(queue.key("stream"), {"job_id": "j1"})
    )
    await run_worker(queue, flaky, drain=True, poll_seconds=0.01)
    assert calls == ["j1", "j1"]
    assert await queue.counts() == {"pending": 0, "running": 0, "retrying": 0, "done": 1, "dead": 0}
    await queue.reset()


async def test_two_workers_never_run_one_job_at_once(memory: GraphMemory) -> None:
    queue = new_queue(memory, visibility_timeout=1.0)
    running: set[str] = set()
    runs: list[str] = []

    async def slow(job: Job) -> dict[str, Any]:
        assert job.id not in running, f"{job.id} runs twice at once"
        running.add(job.id)
        runs.append(job.id)
        # Run past the lease the job was claimed with, until a heartbeat has renewed it:
        # the lease outlives its first expiry, so no other worker may take the job.
        lease = queue.key("lease", job.id)
        expires = time.monotonic() + await memory.db.redis(lambda r: r.pttl(lease)) / 1000
        deadline = time.monotonic() + 30
        while time.monotonic() < expires + 0.1:
            assert time.monotonic() < deadline, f"{job.id}: the lease was never renewed"
            await asyncio.sleep(0.02)
        assert await memory.db.redis(lambda r: r.pttl(lease)) > 0, f"{job.id} lost its lease"
        running.discard(job.id)
        return {}

    for i in range(4):
        await queue.enqueue(f"j{i}", {})
    await asyncio.gather(
        *(run_worker(queue, slow, consumer=f"w{n}", drain=True, poll_seconds=0.05) for n in (1, 2))
    )
    assert sorted(runs) == ["j0", "j1", "j2", "j3"]
    # A lease held by one worker keeps the job from another.
    await queue.enqueue("held", {})
    first = await queue.claim("w1", "token-1")
    assert first is not None and await queue.claim("w2", "token-2") is None
    await queue.complete(first)
    await queue.reset()


async def test_empty_transcript_makes_no_job(memory: GraphMemory) -> None:
    queue = new_queue(memory)
    with pytest.raises(ValueError, match="empty transcript"):
        await enqueue_transcript(queue, conversation_id="c", namespace="agent:x", transcript=" \n")
    assert await queue.jobs() == []


def _normalised(document: dict[str, Any]) -> Any:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            # Times of the run (and the valid times they stamp on versions) differ.
            return {
                k: strip(v)
                for k, v in value.items()
                if not k.endswith("_at") and k not in VALID_TIMES
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip({k: v for k, v in document.items() if k != "namespace"})


async def _wait_for(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.1)


async def _a_clean_run_and_a_job_to_kill(
    memory: GraphMemory,
) -> tuple[Namespace, Namespace, JobQueue, JobQueue]:
    """Two namespaces holding the cap: one's learning job run clean, the other's queued."""
    tag = uuid.uuid4().hex[:8]
    killed_ns, clean_ns = Namespace.agent(f"k-{tag}"), Namespace.agent(f"c-{tag}")
    for ns in (killed_ns, clean_ns):
        await ingest_rules(memory, ns, [CAP])
    clean_q, queue = new_queue(memory), new_queue(memory)
    for q, ns in ((clean_q, clean_ns), (queue, killed_ns)):
        await enqueue_transcript(
            q, conversation_id=f"conv-{tag}", namespace=ns, transcript=LEARNING
        )
    await work(memory, clean_q, drain=True)
    return killed_ns, clean_ns, queue, clean_q


async def test_killed_worker_job_is_redelivered_and_graph_equals_a_clean_run(
    memory: GraphMemory, falkordb_dir: Path
) -> None:
    killed_ns, clean_ns, queue, clean_q = await _a_clean_run_and_a_job_to_kill(memory)

    env = {**os.environ, "ATHENA_DATA_DIR": str(falkordb_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "agents.cli", "worker", "--drain", "--queue", queue.prefix]
    cmd += ["--visibility-timeout", "2", "--pause-after-write", "60", "--name", "doomed"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:

        async def written() -> bool:  # the learning's version of the rule is stored
            return any(r.threshold_type == "soft" for r in await stored_rules(memory, killed_ns))

        await _wait_for(written, 90)
        job = (await queue.jobs())[0]
        assert (job.status, job.worker) == ("running", "doomed")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert await work(memory, queue, drain=True, consumer="rescuer") == 1
    [job] = await queue.jobs()
    assert (job.status, job.worker, job.attempts) == ("done", "rescuer", 2)
    assert _normalised(await memory.export(killed_ns)) == _normalised(await memory.export(clean_ns))
    await queue.reset()
    await clean_q.reset()


async def test_a_job_killed_between_its_rules_and_its_sources_redoes_like_a_clean_run(
    memory: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker above can be killed at any point of its job; this one dies at the worst:
    # its rules are committed, its source episode is not. The redone job hears the same
    # claim again (nothing to write) and must still link its source to the rule.
    killed_ns, clean_ns, queue, clean_q = await _a_clean_run_and_a_job_to_kill(memory)
    add_sources, calls = type(memory).add_sources, []

    async def dies_once(self: GraphMemory, *args: Any, **kwargs: Any) -> Any:
        calls.append(any(r.threshold_type == "soft" for r in await stored_rules(self, killed_ns)))
        if len(calls) == 1:
            raise ConnectionError("the worker was killed before its sources were written")
        return await add_sources(self, *args, **kwargs)

    monkeypatch.setattr(type(memory), "add_sources", dies_once)
    assert await work(memory, queue, drain=True) == 1
    assert calls == [True, True]  # the rules were in when it died, and when it was redone
    [job] = await queue.jobs()
    assert (job.status, job.attempts) == ("done", 2)
    [source] = [s for s in (await memory.export(killed_ns))["sources"] if "conv" in s["source_id"]]
    assert {"label": "Rule", "name": CAP.rule_name} in source["mentions"]
    assert _normalised(await memory.export(killed_ns)) == _normalised(await memory.export(clean_ns))
    await queue.reset()
    await clean_q.reset()


async def test_worker_survives_the_server_restarting_under_it(tmp_path: Path) -> None:
    from memory import Settings
    from memory.backend.server import ensure_server, server_status, stop_server

    settings = Settings(ATHENA_DATA_DIR=tmp_path / "db")
    ns = Namespace.agent("restart")
    prefix = f"test:{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "ATHENA_DATA_DIR": str(settings.data_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "agents.cli", "worker", "--queue", prefix, "--name", "steady"]
    proc: subprocess.Popen[bytes] | None = None
    try:
        async with GraphMemory(settings) as memory:
            await ingest_rules(memory, ns, [CAP])
            queue = JobQueue(memory.db, prefix=prefix, backoff_seconds=0.05)
            proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            await asyncio.sleep(3)  # the worker is waiting on the stream
            os.kill(server_status(settings.data_dir).pid or 0, signal.SIGKILL)
            await asyncio.sleep(0.5)
            ensure_server(settings.data_dir)
            await enqueue_transcript(
                queue, conversation_id="conv-restart", namespace=ns, transcript=LEARNING
            )

            async def done() -> bool:
                jobs = await queue.jobs()
                return bool(jobs) and jobs[0].status == "done"

            await _wait_for(done, 60)
            assert proc.poll() is None, "the worker died with the server"
            [job] = await queue.jobs()
            assert job.worker == "steady"
            [rule] = await stored_rules(memory, ns)
            assert (rule.threshold_type, rule.soft_limit) == ("soft", 23)
            assert [s.text_id for s in rule.sources] == [CAP.text_id, "conv-restart"]
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(20)
        stop_server(settings.data_dir)
