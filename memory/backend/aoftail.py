"""The append-only file's tail, rewritten without transactions before a server loads it.

After a crash the embedded server has a tail to replay: the commits since the last
compaction, each a ``MULTI ... EXEC`` transaction (`memory.backend.changelog`).
Redis serves its clients while it loads a file: FalkorDB yields to the event loop
in the middle of a graph query, and a client's command (any command, even a
``PING``) arriving while that query runs inside a replayed ``EXEC`` kills the
server (``ASSERTION FAILED server.c '!server.in_exec'``). Every restart after a
crash in the middle of a bulk load did that as soon as another process asked
whether it was up.

So before a server starts, `prepare_tail` rewrites every tail, whatever its size,
as the same commands without their ``MULTI`` / ``EXEC`` lines. That loads to the
same data (loading applies the file's commands in order and nothing interleaves
with them), and what Redis itself drops on load is dropped too: a last
transaction without its ``EXEC`` (the commit never happened) and a command cut
off by the crash. The file is read and written as a stream (a tail of gigabytes
needs no memory), and the new one replaces the old by an atomic rename, so a
crash during the rewrite leaves one or the other, whole.

Without transactions the server may also build its indexes in the background
after loading (``DELAY_INDEXING``), which answers a restart over 100k rules in
seconds instead of minutes. That is worth it for a short tail only: replayed
without indexes, each node or edge the tail looks up by uuid scans the graph.
Measured at 100k rules (a 763 MB snapshot): 38 such lookups replayed in 4.2 s,
where building the indexes first took 141 s; both grow with the graph, so past
about 1,300 lookups the indexed load is the faster one. A tail with more than
`MAX_REPLAY_LOOKUPS` (a crash in the middle of a bulk load) is loaded with its
indexes built first.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

logger = logging.getLogger(__name__)

MAX_REPLAY_LOOKUPS = 1000  # uuid lookups a tail may replay without indexes
_LOOKUP = b"uuid`:"  # each row parameter naming a node or edge by uuid (`uuid`, `source_uuid`)
_CRLF = b"\r\n"
_MULTI, _EXEC = b"MULTI", b"EXEC"
_MULTI_COMMAND = b"*1\r\n$5\r\nMULTI\r\n"  # how a MULTI is written to the file
_ANNOTATION = b"#"  # Redis's own annotation lines (``#TS:...``), skipped on load


class _CutOff(Exception):
    """The file ends inside a command (the crash cut it short)."""


def _line(stream: BinaryIO) -> bytes:
    line = stream.readline()
    if not line.endswith(_CRLF):
        raise _CutOff
    return line


def _read_command(stream: BinaryIO, at: int) -> tuple[bytes, bytes] | None:
    """The next entry as (upper-cased command name, raw bytes); None at the end.

    An annotation line is returned with the name ``#``.

    Raises:
        _CutOff: The file ends inside the entry.
        ValueError: Bytes that are not a RESP array of bulk strings.
    """
    head = stream.readline()
    if not head:
        return None
    if not head.endswith(_CRLF):
        raise _CutOff
    if head.startswith(_ANNOTATION):
        return _ANNOTATION, head
    if not head.startswith(b"*"):
        raise ValueError(f"not a RESP array at byte {at}")
    parts, name = [head], b""
    for number in range(int(head[1:-2])):
        size_line = _line(stream)
        if not size_line.startswith(b"$"):
            raise ValueError(f"not a RESP bulk string at byte {at + sum(map(len, parts))}")
        size = int(size_line[1:-2])
        data = stream.read(size + 2)
        if len(data) < size + 2:
            raise _CutOff
        if number == 0:
            name = data[:size].upper()
        parts += [size_line, data]
    return name, b"".join(parts)


def _commands(stream: BinaryIO) -> Iterator[tuple[bytes, bytes]]:
    """The whole entries of a RESP file as (name, raw bytes), then ``(b"", b"")`` if cut off.

    Raises:
        ValueError: Bytes that are not RESP.
    """
    at = 0
    while True:
        try:
            found = _read_command(stream, at)
        except _CutOff:
            yield b"", b""  # the crash cut the last command short: Redis drops it too
            return
        if found is None:
            return
        yield found
        at += len(found[1])


@dataclass
class _Unwrapped:
    changed: bool = False  # whether anything was dropped
    lookups: int = 0  # uuid lookups in what is kept


def _unwrap(source: BinaryIO, out: BinaryIO) -> _Unwrapped:
    """Copy `source` to `out` without MULTI / EXEC, an unfinished last transaction dropped."""
    result = _Unwrapped()
    pending_at: int | None = None  # where the open transaction's commands begin in `out`
    pending_lookups = 0
    for name, raw in _commands(source):
        if name == _MULTI:
            result.changed, pending_at, pending_lookups = True, out.tell(), 0
        elif name == _EXEC:
            result.changed, pending_at = True, None
            result.lookups += pending_lookups
        elif not raw:
            result.changed = True  # cut off
        else:
            out.write(raw)
            if pending_at is None:
                result.lookups += raw.count(_LOOKUP)
            else:
                pending_lookups += raw.count(_LOOKUP)
    if pending_at is not None:  # a transaction still open never committed
        out.truncate(pending_at)
        out.seek(pending_at)
    return result


def unwrapped(data: bytes) -> bytes:
    """The tail's commands without MULTI / EXEC, an unfinished last transaction dropped.

    Raises:
        ValueError: Bytes that are not RESP.
    """
    out = io.BytesIO()
    _unwrap(io.BytesIO(data), out)
    return out.getvalue()


def tail_files(appendonly_dir: Path) -> list[Path]:
    """The incremental files the manifest lists (the tail), in order."""
    manifest = appendonly_dir / "appendonly.aof.manifest"
    if not manifest.is_file():
        return []
    files = []
    for line in manifest.read_text().splitlines():
        parts = line.split()
        fields = dict(zip(parts[::2], parts[1::2], strict=False))
        if fields.get("type") == "i" and fields.get("file"):
            files.append(appendonly_dir / fields["file"])
    return files


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _scan(path: Path) -> tuple[bool, int]:
    """Whether a tail file may hold a transaction, and its uuid lookups (a quick read).

    A MULTI is looked for as the bytes Redis writes for it; the same bytes inside a
    value only cost a rewrite that changes nothing.

    Raises:
        ValueError: A file that does not begin as RESP does.
    """
    found, lookups, carry = False, 0, b""
    with path.open("rb") as f:
        if f.read(1) not in (b"*", _ANNOTATION, b""):
            raise ValueError(f"{path} is not a RESP file")
        f.seek(0)
        while chunk := f.read(1 << 22):
            data = carry + chunk
            found = found or _MULTI_COMMAND in data
            lookups += data.count(_LOOKUP) - carry.count(_LOOKUP)
            carry = data[-(len(_MULTI_COMMAND) - 1) :]
    return found, lookups


def _unwrap_file(path: Path) -> int:
    """Rewrite one tail file without transactions (atomically); its uuid lookups.

    The new file has the old one's permissions (the server's are owner-only).
    """
    transactions, lookups = _scan(path)
    if not transactions:
        return lookups  # a command the crash cut short is dropped by Redis itself
    tmp = path.with_name(f".{path.name}.unwrapped")
    mode = path.stat().st_mode & 0o777
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        os.fchmod(fd, mode)
        with path.open("rb", buffering=1 << 20) as source, open(fd, "wb") as out:
            result = _unwrap(source, out)
            if result.changed:
                out.flush()
                os.fsync(out.fileno())
        if result.changed:
            os.replace(tmp, path)
            _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)
    return result.lookups


def unwrap_transactions(appendonly_dir: Path, max_lookups: int | None = None) -> bool:
    """Rewrite the tail without transactions; True when it holds none (or nothing) now.

    Args:
        appendonly_dir: The server's ``appendonlydir``.
        max_lookups: None (what a server start does) rewrites every tail. A number
            leaves a tail naming more nodes and edges by uuid as it is (False).

    Raises:
        ValueError: A tail that is not a RESP file (it is left as it is).
        OSError: The tail could not be read or replaced (it is left as it is).
    """
    files = [f for f in tail_files(appendonly_dir) if f.is_file() and f.stat().st_size > 0]
    if max_lookups is not None and sum(_scan(path)[1] for path in files) > max_lookups:
        return False
    for path in files:
        _unwrap_file(path)
    return True


@dataclass(frozen=True)
class TailPlan:
    """How a server is to load its append-only file.

    Attributes:
        transactions: The tail may still hold transactions (it could not be rewritten):
            no client may send a command until the server has loaded it.
        delay_indexing: The server may build its indexes in the background after
            loading (no transaction and a short tail).
        lookups: The uuid lookups the tail replays.
    """

    transactions: bool
    delay_indexing: bool
    lookups: int = 0


def prepare_tail(appendonly_dir: Path, max_lookups: int = MAX_REPLAY_LOOKUPS) -> TailPlan:
    """Rewrite the tail without transactions (whatever its size) and say how to load it.

    Call it only while no server runs on the folder. A tail that cannot be rewritten
    (not RESP, or the disk is full) is left as it is, whole, and logged.
    """
    files = [f for f in tail_files(appendonly_dir) if f.is_file() and f.stat().st_size > 0]
    if not files:
        return TailPlan(transactions=False, delay_indexing=True)
    try:
        lookups = sum(_unwrap_file(path) for path in files)
    except (OSError, ValueError) as exc:
        logger.warning(
            "could not rewrite the AOF tail in %s without transactions (%s): the server "
            "replays it as it is, and no command is sent to it until it has loaded",
            appendonly_dir,
            exc,
        )
        return TailPlan(transactions=True, delay_indexing=False)
    if lookups > max_lookups:
        logger.warning(
            "FalkorDB replays a long AOF tail in %s (%d lookups: a crash during a bulk "
            "load?): it builds its indexes before it answers",
            appendonly_dir,
            lookups,
        )
    return TailPlan(transactions=False, delay_indexing=lookups <= max_lookups, lookups=lookups)


def tail_empty(appendonly_dir: Path) -> bool:
    """Whether the append-only file has no tail to replay (only its base)."""
    return not any(f.is_file() and f.stat().st_size > 0 for f in tail_files(appendonly_dir))


def loads_unindexed(appendonly_dir: Path) -> bool:
    """Whether the server can load with its indexing delayed (`prepare_tail`)."""
    return prepare_tail(appendonly_dir).delay_indexing


__all__ = [
    "MAX_REPLAY_LOOKUPS",
    "TailPlan",
    "loads_unindexed",
    "prepare_tail",
    "tail_empty",
    "tail_files",
    "unwrap_transactions",
    "unwrapped",
]
