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


def test_safetensors_tensors_are_mapped_as_safetensors_reads_them(tmp_path: Path) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    from memory.embedders import _mapped_tensor

    tensors = {
        "a": np.arange(12, dtype=np.float16).reshape(3, 4),
        "b": np.linspace(0, 1, 10, dtype=np.float32),
        "c": np.arange(6, dtype=np.int64).reshape(2, 3),  # a dtype read through safetensors
    }
    path = tmp_path / "t.safetensors"
    save_file(tensors, str(path))
    for name, expected in tensors.items():
        got = _mapped_tensor(path, name)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert np.array_equal(got, expected)
    assert isinstance(_mapped_tensor(path, "a"), np.memmap)
    assert not isinstance(_mapped_tensor(path, "c"), np.memmap)


def test_embedding_offline_maps_the_table_without_importing_safetensors() -> None:
    modules = _imported_by(
        "from memory.embedders import WordLlamaEmbedder\n"
        "assert WordLlamaEmbedder().embed(['rural dance studio']).shape == (1, 256)"
    )
    assert "tokenizers" in modules
    assert "safetensors" not in modules


class _Texts:
    """A derived kind whose state is a bytes value (saved and loaded as is)."""

    name = "texts"
    version = 1

    def dump(self, state: bytes) -> bytes:
        return state

    def load(self, data: bytes) -> bytes:
        return data


class _Target:
    target = "unix:///nowhere"


def test_a_snapshot_loads_back_its_whole_body(tmp_path: Path) -> None:
    from memory.backend.derived import DerivedIndexes, _Held

    indexes = DerivedIndexes(_Target(), tmp_path)  # type: ignore[arg-type]
    body = b"first line\n" + bytes(range(256)) * 4000 + b"\n"
    indexes._save("g", _Texts(), _Held("epoch-1", "5-0", body))
    held = indexes._load("g", _Texts())
    assert held is not None
    assert (held.epoch, held.offset, held.state) == ("epoch-1", "5-0", body)
    path = indexes._path("g", _Texts())
    assert path is not None
    path.write_bytes(b"no header line")
    assert indexes._load("g", _Texts()) is None


def test_the_program_exits_with_the_command_code_its_objects_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(cli, "main", lambda: 3)
    monkeypatch.setattr(cli.gc, "freeze", lambda: frozen.append(True))
    with pytest.raises(SystemExit) as exited:
        cli.run()
    assert exited.value.code == 3
    assert frozen == [True]


def test_the_athena_script_runs_the_program() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["scripts"]["athena"] == "agents.cli:run"
    done = subprocess.run(
        [sys.executable, "-m", "agents.cli", "decide"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "ATHENA_DATA_DIR": "/nonexistent/athena-startup-test"},
    )
    assert done.returncode == 2
    assert "give either a SUBMISSION.json" in done.stderr
