"""What a fresh `athena` process does before its command runs (start-up cost, issue 13)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents import cli

ROOT = Path(__file__).resolve().parents[2]


def test_blas_runs_one_thread_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("GRAPHITI_TELEMETRY_ENABLED", raising=False)
    cli.set_env_defaults()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert os.environ["GRAPHITI_TELEMETRY_ENABLED"] == "false"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    cli.set_env_defaults()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


def _imported_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "ATHENA_DATA_DIR": "/nonexistent/athena-startup-test"},
    )
    return set(done.stdout.split())


def test_settings_without_a_file_do_not_import_yaml() -> None:
    modules = _imported_by(
        "import agents.commands.decide\nfrom memory.settings import load_settings\nload_settings()"
    )
    assert "memory.settings" in modules
    assert "yaml" not in modules
