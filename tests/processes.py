"""Processes as the tests see them: `athena` run as a user runs it, the server's pids."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def athena(
    data_dir: Path, *args: str, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the CLI the way a user does: a fresh process on the data dir.

    `env` adds to (or overrides) this process's environment; `stdin` is piped in.
    """
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir), **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=ROOT,
    )


def server_pids(data_dir: Path) -> list[int]:
    """Pids of redis-server processes working in `data_dir`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            exe, cwd = os.readlink(proc / "exe"), os.readlink(proc / "cwd")
        except OSError:
            continue
        if Path(exe).name.startswith("redis-server") and Path(cwd) == data_dir.resolve():
            found.append(int(proc.name))
    return found


def wait_dead(pid: int, timeout: float = 10.0) -> None:
    """Wait until `pid` is gone (or a zombie its parent has not reaped); fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (ProcessLookupError, FileNotFoundError):
            return
        if state == "Z":
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} still alive after {timeout}s")
