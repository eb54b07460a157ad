"""After a crash and under racing writers the server comes back and nothing is lost (issue 24).

Every test runs `athena` in subprocesses against a real embedded server in a data
directory of its own, as a user would: `kill -9` of the server during a bulk load
while another process polls it, processes ingesting into a fresh directory at
once, and the exit codes of what fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench.synthetic import generate_rules, write_rules_file
from memory import GraphMemory, Namespace, Settings
from memory.backend import server
from memory.backend.aoftail import TailPlan
from memory.backend.server import REPLAYING_NAME, ensure_server, server_status, stop_server
from schemas.fields import load_data_dictionary
from tests.processes import server_pids, wait_dead

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
NS = "agent:crash-race"
# Times differ between runs: when a row was written, and the valid times stamped at
# ingestion on undated rules (also inside their sources, versions and claims).
TIMES = {"created_at", "updated_at", "valid_at", "date", "valid_from", "valid_to"}
CLOSED = {"expired_at", "invalid_at"}  # compared as closed or not
CRASHED = "ASSERTION FAILED"  # what a server killed by a client during a replay logs


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (v is not None if k in CLOSED else _untimed(v))
            for k, v in value.items()
            if k not in TIMES
        }
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _comparable(document: dict[str, Any]) -> dict[str, list[Any]]:
    """An export without times, in a stable order.

    A node several files share (a risk factor, an outcome, a source) names the text
    that wrote it first (`last_update_source`): which one depends on the order the
    files were written in, so it is left out for every node but the rules.
    """
    out: dict[str, list[Any]] = {}
    for kind in ("entities", "relationships", "sources"):
        rows = []
        for row in _untimed(document[kind]):
            if kind == "entities" and row.get("label") != "Rule":
                row.pop("last_update_source", None)
            rows.append(row)
        out[kind] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))
    return out


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "ATHENA_DATA_DIR": str(data_dir), **extra}
    env.pop("FALKORDB_URL", None)
    env.update(extra)
    return env


def _athena(data_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env=_env(data_dir, **extra),
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )


def _start_athena(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env=_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ingest_args(path: Path, namespace: str = NS) -> tuple[str, ...]:
    return ("ingest", str(path), "--rules", "--namespace", namespace, "--json")


@pytest.fixture
def base() -> Iterator[Path]:
    """A short folder under /tmp (unix socket paths are short); every server in it is
    stopped afterwards, whatever happened."""
    root = Path(tempfile.mkdtemp(prefix="athena-crash-", dir="/tmp"))
    yield root
    for pid_file in root.glob("*/" + server.PID_NAME):
        try:
            stop_server(pid_file.parent, timeout=10, compact_timeout=0)
        except (TimeoutError, OSError):
            pass
    for data_dir in root.iterdir():
        for pid in server_pids(data_dir):  # safety net: never leave a server behind
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(root, ignore_errors=True)


async def _export(data_dir: Path, namespace: str = NS) -> dict[str, Any]:
    async with GraphMemory(Settings(ATHENA_DATA_DIR=data_dir)) as memory:
        return await memory.export(namespace)


async def _duplicate_uuids(data_dir: Path, namespace: str = NS) -> list[dict[str, Any]]:
    """Nodes or edges that share a uuid (none may)."""
    group_id = Namespace.parse(namespace).group_id
    async with GraphMemory(Settings(ATHENA_DATA_DIR=data_dir)) as memory:
        found = []
        for match in ("MATCH (x)", "MATCH ()-[x]->()"):
            found += await memory.db.query(
                group_id, f"{match} WITH x.uuid AS id, count(*) AS n WHERE n > 1 RETURN id, n"
            )
        return found


# --- kill -9 of the server during a 1,000-rule bulk load -------------------------------

RULES = 1000
SOURCES = 5
KILL_POINTS = 10
QUERY = "gas station employee count"


@dataclass
class CleanRun:
    rules: Path
    export: dict[str, list[Any]]
    window: float  # seconds from the server's start to the end of the load


def _written_pid(data_dir: Path) -> int | None:
    """The pid the server's pid file names, or None until the number is written.

    The server creates the file before it writes the number, so a reader can find it empty.
    """
    try:
        text = (data_dir / server.PID_NAME).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@pytest.fixture(scope="module")
def clean_run() -> Iterator[CleanRun]:
    """The bulk load without a crash: what every crashed load must end up equal to."""
    root = Path(tempfile.mkdtemp(prefix="athena-clean-", dir="/tmp"))
    rules = generate_rules(load_data_dictionary(), RULES)
    rules = [r.model_copy(update={"text_id": f"crash-{i % SOURCES}"}) for i, r in enumerate(rules)]
    path = write_rules_file(rules, root / "rules.jsonl")
    data_dir = root / "clean"
    try:
        load = _start_athena(data_dir, *_ingest_args(path))
        while not (data_dir / server.PID_NAME).exists() and load.poll() is None:
            time.sleep(0.005)
        began = time.monotonic()
        out, err = load.communicate(timeout=240)
        window = time.monotonic() - began
        assert load.returncode == 0, err
        assert json.loads(out)["rules_written"] == RULES
        yield CleanRun(path, _comparable(asyncio.run(_export(data_dir))), window)
    finally:
        stop_server(data_dir, compact_timeout=0)
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Poller:
    """`athena query` run again and again in another process, until stopped.

    With `pings`, this process also sends a bare PING to the socket every 10 ms
    (connection refused or LOADING while the server is down or loading): a client
    of any kind talking to a server while it loads.
    """

    data_dir: Path
    pings: bool = False
    runs: list[tuple[int, str]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Poller:
        loops = [self._queries, self._pings] if self.pings else [self._queries]
        self._threads = [threading.Thread(target=loop, daemon=True) for loop in loops]
        for thread in self._threads:
            thread.start()
        return self

    def _queries(self) -> None:
        while not self._stop.is_set():
            args = ("-v", "query", QUERY, "--namespace", NS, "--limit", "3")
            done = _athena(self.data_dir, *args)
            failed = done.stderr.strip()[-6000:] if done.returncode else ""  # the traceback
            self.runs.append((done.returncode, failed))

    def _pings(self) -> None:
        import redis

        socket_path = str(self.data_dir / server.SOCKET_NAME)
        while not self._stop.wait(0.01):
            client = redis.Redis(unix_socket_path=socket_path, socket_timeout=1)
            try:
                client.ping()
            except (redis.RedisError, OSError):
                pass
            finally:
                client.close()

    def stop(self) -> list[tuple[int, str]]:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=240)
        return self.runs


@pytest.mark.parametrize("point", range(KILL_POINTS))
def test_kill_9_during_a_bulk_load_the_server_comes_back_and_a_rerun_equals_a_clean_run(
    base: Path, clean_run: CleanRun, point: int
) -> None:
    data_dir = base / "db"
    # Spread over the clean load, from the server's start to the load's end: before the
    # first commit, while the server runs one (a transaction of ~10 MB), between and after.
    at = clean_run.window * (point + 0.5) / KILL_POINTS
    load = _start_athena(data_dir, *_ingest_args(clean_run.rules))
    poller = Poller(data_dir, pings=True)
    try:
        while (pid := _written_pid(data_dir)) is None:
            assert load.poll() is None, load.communicate()
            time.sleep(0.002)
        began = time.monotonic()
        poller.start()  # polls through the crash and the restart
        time.sleep(max(0.0, at - (time.monotonic() - began)))
        loading = load.poll() is None
        os.kill(pid, signal.SIGKILL)
        wait_dead(pid)
        out, err = load.communicate(timeout=240)
        # The load itself restarted the server and finished its work.
        assert load.returncode == 0, err
        assert json.loads(out)["rules_written"] == RULES
        again = _athena(data_dir, *_ingest_args(clean_run.rules))
        assert again.returncode == 0, again.stderr
    finally:
        runs = poller.stop()
        load.kill()
    log = (data_dir / server.LOG_NAME).read_text(errors="replace")
    assert CRASHED not in log, log[log.find(CRASHED) - 2000 :][:4000]
    status = server_status(data_dir)
    assert status.running and status.pid != pid
    # it was restarted after the kill (a kill during the first server's start-up leaves
    # that server no "Server initialized" line of its own, so the new one is looked for)
    assert any(
        line.startswith(f"{status.pid}:") and "Ready to accept connections" in line
        for line in log.splitlines()
    ), log[-4000:]
    assert runs and all(code == 0 for code, _ in runs), runs
    assert asyncio.run(_duplicate_uuids(data_dir)) == []
    assert _comparable(asyncio.run(_export(data_dir))) == clean_run.export
    print(f"kill at {at:.2f}s of {clean_run.window:.2f}s, during the load: {loading}")


def test_a_tail_of_large_transactions_is_replayed_while_clients_talk_to_the_server(
    base: Path, clean_run: CleanRun
) -> None:
    """The crash the issue found: a bulk load's commits in the tail, clients polling.

    Every restart of this tail used to die (``'!server.in_exec'``) on the first
    command a client sent while it replayed a transaction.
    """
    data_dir = base / "db"
    done = _athena(data_dir, *_ingest_args(clean_run.rules))
    assert done.returncode == 0, done.stderr
    pid = server_status(data_dir).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)
    tails = list((data_dir / "appendonlydir").glob("*.incr.aof"))
    assert sum(t.read_bytes().count(b"MULTI") for t in tails) >= 1
    poller = Poller(data_dir, pings=True).start()
    try:
        time.sleep(0.5)  # the first query is on its way
        ensure_server(data_dir)
        time.sleep(1.0)
    finally:
        runs = poller.stop()
    log = (data_dir / server.LOG_NAME).read_text(errors="replace")
    assert CRASHED not in log, log[log.find(CRASHED) - 2000 :][:4000]
    assert not any(b"MULTI" in t.read_bytes() for t in tails)  # rewritten before the start
    assert runs and all(code == 0 for code, _ in runs), runs
    assert _comparable(asyncio.run(_export(data_dir))) == clean_run.export


def test_a_tail_that_cannot_be_rewritten_is_waited_for_without_a_command(
    base: Path, clean_run: CleanRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback: a crash tail left with its transactions (say the disk was full).

    The server replays them; every process waits for it without sending a command
    (the first one would kill it), then queries as usual.
    """
    data_dir = base / "db"
    done = _athena(data_dir, *_ingest_args(clean_run.rules))
    assert done.returncode == 0, done.stderr
    pid = server_status(data_dir).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # a tail of two large transactions is left to replay
    wait_dead(pid)
    tails = list((data_dir / "appendonlydir").glob("*.incr.aof"))
    assert any(b"MULTI" in t.read_bytes() for t in tails)
    monkeypatch.setattr(
        server, "prepare_tail", lambda folder: TailPlan(transactions=True, delay_indexing=False)
    )
    paths = server._paths(data_dir)
    pollers = []
    try:
        # The pollers start while this process holds the start lock, so the server
        # they find is the one started here, replaying its transactions.
        with server._start_lock(paths, time.monotonic() + 20):
            pollers = [Poller(data_dir).start() for _ in range(2)]
            time.sleep(1.5)  # they have imported and wait for the lock
            server._remove_stale(paths)
            proc = server._spawn(paths)
            assert (data_dir / REPLAYING_NAME).exists()
            assert server._wait_ready(paths, time.monotonic() + 20, proc.pid, proc)
        threading.Thread(target=proc.wait, daemon=True).start()
        ensure_server(data_dir)
        time.sleep(1.0)  # the pollers query the loaded server
    finally:
        runs = [run for poller in pollers for run in poller.stop()]
    log = (data_dir / server.LOG_NAME).read_text(errors="replace")
    assert CRASHED not in log, log[log.find(CRASHED) - 2000 :][:4000]
    assert server_status(data_dir).pid == proc.pid
    assert not (data_dir / REPLAYING_NAME).exists()  # removed once it had loaded
    assert any(b"MULTI" in t.read_bytes() for t in tails)  # replayed as it was
    assert runs and all(code == 0 for code, _ in runs), runs
    assert _comparable(asyncio.run(_export(data_dir))) == clean_run.export


@pytest.mark.parametrize(
    ("start", "running"),
    [("bgrewriteaof", "aof_rewrite_in_progress"), ("bgsave", "rdb_bgsave_in_progress")],
    ids=["compaction", "snapshot-save"],
)
def test_kill_9_during_a_compaction_or_a_snapshot_save_loses_nothing(
    base: Path, clean_run: CleanRun, start: str, running: str
) -> None:
    import redis

    data_dir = base / "db"
    done = _athena(data_dir, *_ingest_args(clean_run.rules))
    assert done.returncode == 0, done.stderr
    status = server_status(data_dir)
    assert status.pid is not None
    client = redis.Redis(unix_socket_path=str(status.socket_path))
    try:
        getattr(client, start)()
        deadline = time.monotonic() + 30
        while not int(client.info("persistence")[running]):
            assert time.monotonic() < deadline, f"{start} never ran"
            time.sleep(0.001)
    finally:
        client.close()
    os.kill(status.pid, signal.SIGKILL)  # the rewrite's child dies with it, or finishes alone
    wait_dead(status.pid)
    assert _athena(data_dir, "query", QUERY, "--namespace", NS).returncode == 0
    assert _comparable(asyncio.run(_export(data_dir))) == clean_run.export


# --- processes ingesting into a fresh data dir at once ---------------------------------

PER_PROCESS = 60


@pytest.mark.parametrize("processes", [3, 8])
def test_racing_first_writers_all_succeed_and_equal_a_sequential_run(
    base: Path, processes: int
) -> None:
    rules = generate_rules(load_data_dictionary(), processes * PER_PROCESS, seed=11)
    files = [
        write_rules_file(
            [
                r.model_copy(update={"text_id": f"race-{k}-{i % 3}"})
                for i, r in enumerate(rules[k::processes])
            ],
            base / f"part-{k}.jsonl",
        )
        for k in range(processes)
    ]
    data_dir = base / "db"  # fresh: no server, no namespace, no embedder record yet
    racers = [_start_athena(data_dir, *_ingest_args(path)) for path in files]
    results = [(p.wait(timeout=240), *p.communicate()) for p in racers]
    assert [code for code, _, _ in results] == [0] * processes, results
    assert sum(json.loads(out)["rules_written"] for _, out, _ in results) == len(rules)
    for path in files:  # the same files one after the other, into another namespace
        done = _athena(data_dir, *_ingest_args(path, "agent:sequential"))
        assert done.returncode == 0, done.stderr
    raced = _comparable(asyncio.run(_export(data_dir)))
    assert raced == _comparable(asyncio.run(_export(data_dir, "agent:sequential")))
    assert len([e for e in raced["entities"] if e["label"] == "Rule"]) == len(rules)
    assert asyncio.run(_duplicate_uuids(data_dir)) == []
    assert len(server_pids(data_dir)) == 1


async def test_first_writers_racing_in_one_process_all_agree_on_a_whole_record(
    base: Path,
) -> None:
    """The same race, many writers at each round trip: none reads a part of the record."""
    from memory.embedder_identity import EmbedderChooser, identity_of, recorded_identity

    async with GraphMemory(Settings(ATHENA_DATA_DIR=base / "db")) as memory:
        mine = identity_of(memory.embedder)
        for trial in range(20):
            group_id = Namespace.agent(f"identity-race-{trial}").group_id
            writers = [
                EmbedderChooser(memory.settings, memory.embedder, explicit=True) for _ in range(8)
            ]
            chosen = await asyncio.gather(*(w.for_write(memory.db, group_id) for w in writers))
            assert all(e is memory.embedder for e in chosen)
            assert await recorded_identity(memory.db, group_id) == mine


# --- exit codes: 1 when the environment failed, 2 for bad input ------------------------


def test_a_server_that_cannot_load_its_files_exits_1_says_what_to_do_and_deletes_nothing(
    base: Path,
) -> None:
    data_dir = base / "db"
    ensure_server(data_dir)
    stop_server(data_dir)
    manifest = data_dir / "appendonlydir" / "appendonly.aof.manifest"
    manifest.write_text("this is not a manifest\n")
    files = {p: p.read_bytes() for p in (data_dir / "appendonlydir").iterdir()}
    done = _athena(data_dir, "query", QUERY, "--namespace", NS)
    assert done.returncode == 1, done.stderr
    message = done.stderr
    assert "Invalid AOF manifest" in message and "nothing was deleted" in message
    assert "redis-check-aof --fix" in message and str(manifest) in message
    assert {p: p.read_bytes() for p in (data_dir / "appendonlydir").iterdir()} == files
    assert message.count("athena query: error:") == 1 and len(message.splitlines()) == 1


def test_an_unreachable_server_exits_1(base: Path) -> None:
    done = _athena(base / "db", "query", QUERY, FALKORDB_URL="redis://127.0.0.1:1")
    assert done.returncode == 1, done.stderr
    assert "cannot reach FalkorDB" in done.stderr


def test_bad_input_exits_2(base: Path) -> None:
    data_dir = base / "db"
    missing = _athena(data_dir, "ingest", str(base / "missing.jsonl"), "--rules")
    assert missing.returncode == 2, missing.stderr
    bad = base / "bad.jsonl"
    bad.write_text('{"rule_name": "no other field"}\n')
    malformed = _athena(data_dir, "ingest", str(bad), "--rules")
    assert malformed.returncode == 2, malformed.stderr
    assert not (data_dir / "appendonlydir").exists()  # refused before anything was written
