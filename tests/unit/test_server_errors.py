"""What a server that exited while starting or loading tells the user (issue 24)."""

from __future__ import annotations

from pathlib import Path

from agents.errors import ENVIRONMENT_ERROR, describe
from memory.backend import server

START = "1:C 25 Nov 2026 20:09:18.094 * Redis version=8.2.3, bits=64, pid=1, just started\n"
OVERCOMMIT = "1:C 25 Nov 2026 20:09:18.094 # WARNING Memory overcommit must be enabled!\n"


def _exited(tmp_path: Path, log: str) -> server.ServerError:
    (tmp_path / server.LOG_NAME).write_text(log)
    return server._exited(server._paths(tmp_path), 42, "while loading its data")


def test_a_crash_is_an_environment_failure_to_retry(tmp_path: Path) -> None:
    error = _exited(
        tmp_path,
        "old start # === ASSERTION FAILED === from before\n"
        + START
        + OVERCOMMIT
        + "1:M 25 Nov 2026 20:09:18.575 # === ASSERTION FAILED ===\n"
        + "1:M 25 Nov 2026 20:09:18.575 # ==> server.c:4076 '!server.in_exec' is not true\n"
        + "1:M 25 Nov 2026 20:09:18.600 * memory test junk\n",
    )
    assert error.retry
    message, code = describe(error)
    assert code == ENVIRONMENT_ERROR
    assert "'!server.in_exec' is not true" in message and "memory test junk" not in message
    assert "from before" not in message and "overcommit" not in message  # this start's errors
    assert "Nothing was deleted: run the command again" in message
    assert str(tmp_path / server.LOG_NAME) in message


def test_files_that_cannot_be_loaded_say_how_to_repair_them(tmp_path: Path) -> None:
    error = _exited(
        tmp_path, START + "1:M 25 Nov 2026 20:09:18 # Invalid AOF manifest file format\n"
    )
    assert not error.retry  # the same files fail the same way
    message, code = describe(error)
    assert code == ENVIRONMENT_ERROR
    assert "Invalid AOF manifest" in message and "nothing was deleted" in message
    manifest = tmp_path.resolve() / "appendonlydir" / "appendonly.aof.manifest"
    assert f"redis-check-aof --fix {manifest}" in message


def test_a_log_without_error_lines_gives_its_tail(tmp_path: Path) -> None:
    lines = "".join(f"1:M 25 Nov 2026 20:09:18 * line {n}\n" for n in range(30))
    message = str(_exited(tmp_path, START + lines))
    assert "line 29" in message and "line 5 " not in message
