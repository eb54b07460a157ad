"""The embedded server's processes, as the tests see them (Linux /proc)."""

from __future__ import annotations

import os
import time
from pathlib import Path


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
