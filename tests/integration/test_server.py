"""Integration tests of the embedded FalkorDB server lifecycle (real redis-server processes)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from falkordb import FalkorDB

from memory.backend.server import (
    LOG_NAME,
    MAX_SOCKET_PATH_BYTES,
    PID_NAME,
    SOCKET_NAME,
    ensure_server,
    server_status,
    stop_server,
)
from tests.processes import server_pids, wait_dead

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]
HAS_PROC = Path("/proc/self").exists()
needs_proc = pytest.mark.skipif(not HAS_PROC, reason="needs Linux /proc")


def _kill_9(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)


def _listening_tcp_ports(pid: int) -> list[int]:
    """TCP ports on which process `pid` has a listening socket (Linux only)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A = LISTEN
                ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A fresh (not yet created) data dir; its server is stopped afterwards, whatever happens."""
    base = tmp_path
    if len(os.fsencode(tmp_path / "data" / SOCKET_NAME)) > MAX_SOCKET_PATH_BYTES:
        base = Path(tempfile.mkdtemp(prefix="athena-", dir="/tmp"))  # long TMPDIR (macOS)
    directory = base / "data"
    yield directory
    try:
        stop_server(directory, timeout=20)
    finally:
        for pid in server_pids(directory):  # safety net: never leave a server behind
            os.kill(pid, signal.SIGKILL)


def test_start_listens_only_on_a_private_unix_socket(data_dir: Path) -> None:
    status = ensure_server(data_dir)

    assert status.running and status.pid is not None
    assert status.aof_enabled is True
    assert status.version and status.version[0].isdigit()
    assert status.used_memory_bytes and status.used_memory_bytes > 0
    assert status.socket_path == data_dir.resolve() / SOCKET_NAME
    json.dumps(status.to_dict())  # JSON-friendly
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    sock_mode = status.socket_path.stat().st_mode
    assert stat.S_ISSOCK(sock_mode)
    assert stat.S_IMODE(sock_mode) & 0o077 == 0, oct(sock_mode)
    assert (data_dir / PID_NAME).read_text().strip() == str(status.pid)
    assert "Ready to accept connections" in (data_dir / LOG_NAME).read_text()

    client = redis.Redis(unix_socket_path=str(status.socket_path))
    try:
        assert client.config_get("port") == {"port": "0"}
        assert client.config_get("tls-port") == {"tls-port": "0"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}
    finally:
        client.close()
    if HAS_PROC:
        assert _listening_tcp_ports(status.pid) == []


def test_ensure_server_is_idempotent(data_dir: Path) -> None:
    first = ensure_server(data_dir)
    second = ensure_server(data_dir)

    assert second.running
    assert second.pid == first.pid
    assert server_status(data_dir).pid == first.pid


@needs_proc
def test_concurrent_processes_share_one_server_that_outlives_them(
    data_dir: Path, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    script = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from memory.backend.server import ensure_server\n"
        "go, data_dir, me = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]\n"
        "Path(f'{go}.ready.{me}').touch()\n"
        "while not go.exists():\n"
        "    time.sleep(0.001)\n"
        "print(json.dumps({'pid': ensure_server(data_dir, timeout=60).pid}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    workers = 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(go), str(data_dir), str(i)],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(workers)
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("go.ready.*"))) < workers:  # all imported: start together
        assert time.monotonic() < deadline, "workers did not start"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    go.touch()
    outputs = [p.communicate(timeout=120) for p in procs]

    assert [p.returncode for p in procs] == [0] * workers, outputs
    pids = {json.loads(out)["pid"] for out, _ in outputs}
    assert len(pids) == 1, outputs
    # The starters have exited; the one server keeps running.
    status = server_status(data_dir)
    assert status.running
    assert {status.pid} == pids
    assert server_pids(data_dir) == [status.pid]


def test_server_survives_killing_the_starters_process_group(data_dir: Path) -> None:
    # Like Ctrl-C / closing the terminal of the CLI that happened to start the server.
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from memory.backend.server import ensure_server\n"
        "print(ensure_server(Path(sys.argv[1])).pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    starter = subprocess.Popen(
        [sys.executable, "-c", script, str(data_dir)],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the starter leads its own process group
    )
    assert starter.stdout is not None
    pid = int(starter.stdout.readline())
    os.killpg(starter.pid, signal.SIGKILL)
    starter.wait(timeout=10)

    status = server_status(data_dir)
    assert status.running
    assert status.pid == pid


def test_acknowledged_writes_survive_kill_9(data_dir: Path) -> None:
    status = ensure_server(data_dir)
    assert status.pid is not None
    db = FalkorDB(unix_socket_path=str(status.socket_path))
    graph = db.select_graph("memory_test")
    for n in range(200):
        graph.query("CREATE (:Person {name: $name, n: $n})", {"name": f"person {n}", "n": n})
    db.connection.close()

    _kill_9(status.pid)  # immediately after the last acknowledged write
    restarted = ensure_server(data_dir)

    assert restarted.running
    assert restarted.pid != status.pid
    db = FalkorDB(unix_socket_path=str(restarted.socket_path))
    try:
        graph = db.select_graph("memory_test")
        one = graph.ro_query("MATCH (p:Person {name: $name}) RETURN p.n", {"name": "person 199"})
        assert one.result_set == [[199]]
        assert graph.ro_query("MATCH (p:Person) RETURN count(p)").result_set == [[200]]
    finally:
        db.connection.close()


def test_kill_9_is_detected_and_stale_files_are_cleaned(data_dir: Path) -> None:
    status = ensure_server(data_dir)
    assert status.pid is not None
    _kill_9(status.pid)

    # The crash leaves the pid file and socket behind; neither fools the status.
    assert (data_dir / PID_NAME).exists()
    assert (data_dir / SOCKET_NAME).exists()
    after_crash = server_status(data_dir)
    assert not after_crash.running
    assert after_crash.pid is None

    restarted = ensure_server(data_dir)
    assert restarted.running and restarted.pid != status.pid
    assert (data_dir / PID_NAME).read_text().strip() == str(restarted.pid)


@pytest.mark.parametrize("leftover", ["dead pid", "live unrelated pid", "garbage"])
def test_leftover_pid_file_and_socket_do_not_block_start(data_dir: Path, leftover: str) -> None:
    data_dir.mkdir(mode=0o700)
    if leftover == "dead pid":
        dead = subprocess.Popen(["true"])
        dead.wait()
        content = str(dead.pid)
    elif leftover == "live unrelated pid":
        content = str(os.getpid())  # alive, but not a redis-server: must not be waited for
    else:
        content = "not a pid\n"
    (data_dir / PID_NAME).write_text(content)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(data_dir / SOCKET_NAME))  # a socket file nobody listens on
    stale.close()
    assert not server_status(data_dir).running

    status = ensure_server(data_dir, timeout=20)

    assert status.running
    assert status.pid not in (None, os.getpid())
    assert (data_dir / PID_NAME).read_text().strip() == str(status.pid)


def test_stop_server(data_dir: Path) -> None:
    status = ensure_server(data_dir)
    assert status.pid is not None

    assert stop_server(data_dir) is True

    wait_dead(status.pid, timeout=1)
    assert not server_status(data_dir).running
    assert not (data_dir / SOCKET_NAME).exists()
    assert not (data_dir / PID_NAME).exists()
    assert stop_server(data_dir) is False
    assert server_pids(data_dir) == []


def test_stop_and_status_never_create_the_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "never-created"

    assert stop_server(missing) is False
    assert not server_status(missing).running
    assert not missing.exists()


def test_too_long_socket_path_is_rejected(tmp_path: Path) -> None:
    long_dir = tmp_path / ("x" * 120)

    with pytest.raises(ValueError, match=f"{MAX_SOCKET_PATH_BYTES}-byte limit") as excinfo:
        ensure_server(long_dir)

    assert str(long_dir / SOCKET_NAME) in str(excinfo.value)
    assert not long_dir.exists()  # not silently relocated or created
    with pytest.raises(ValueError):
        server_status(long_dir)


def test_failed_start_reports_the_log_tail(data_dir: Path) -> None:
    ensure_server(data_dir)
    stop_server(data_dir)
    manifest = next((data_dir / "appendonlydir").glob("*.manifest"))
    manifest.write_text("this is not a manifest\n")

    with pytest.raises(RuntimeError, match="Invalid AOF manifest") as excinfo:
        ensure_server(data_dir, timeout=20)

    assert str(data_dir.resolve() / LOG_NAME) in str(excinfo.value)
    assert not server_status(data_dir).running


def test_hung_server_times_out_with_log_tail_and_is_killed_by_stop(data_dir: Path) -> None:
    status = ensure_server(data_dir)
    assert status.pid is not None
    os.kill(status.pid, signal.SIGSTOP)  # alive, ours, but never answers
    try:
        with pytest.raises(TimeoutError, match="did not answer PING") as excinfo:
            ensure_server(data_dir, timeout=1)
        assert "Ready to accept connections" in str(excinfo.value)  # the log tail
        assert server_status(data_dir).pid == status.pid  # seen as alive, not running

        assert stop_server(data_dir, timeout=2) is True  # SHUTDOWN impossible: SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(status.pid, signal.SIGCONT)
    wait_dead(status.pid, timeout=1)
    assert not server_status(data_dir).running


def test_a_server_hung_while_loading_is_killed_and_started_again(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory.backend.server as server

    status = ensure_server(data_dir)
    assert status.pid is not None
    client = redis.Redis(unix_socket_path=str(data_dir / SOCKET_NAME))
    client.set("kept", "yes")
    client.close()
    # A start that hung while loading its data: its log says it is loading, it answers
    # nothing and logs nothing more (a stopped process).
    os.kill(status.pid, signal.SIGSTOP)
    with (data_dir / LOG_NAME).open("a") as log:
        log.write("1:M 01 Jan 2026 00:00:00.000 * Server initialized\n")
    monkeypatch.setattr(server, "_HUNG_BASE_SECONDS", 2.0, raising=False)
    try:
        again = ensure_server(data_dir, timeout=10, load_timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(status.pid, signal.SIGCONT)
    assert again.running and again.pid != status.pid
    wait_dead(status.pid, timeout=5)
    client = redis.Redis(unix_socket_path=str(data_dir / SOCKET_NAME))
    assert client.get("kept") == b"yes"  # nothing committed is lost
    client.close()
