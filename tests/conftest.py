"""Shared fixtures: a restored environment for every test, offline by default."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

DEV_SET = (
    Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "underwriting" / "dev"
)


@pytest.fixture(autouse=True)
def _restore_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run each test offline and put the environment back afterwards."""
    saved = dict(os.environ)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "FALKORDB_URL",
        "FALKORDB_READ_URLS",
        "FALKORDB_POOL_SIZE",
        "ATHENA_CONFIG",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHITI_TELEMETRY_ENABLED", "false")
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="session")
def dev_set() -> Path:
    """The shared dev dataset, or skip when it is not beside the checkout."""
    if not DEV_SET.is_dir():
        pytest.skip(f"dev dataset not found at {DEV_SET}")
    return DEV_SET


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A scripted OpenAI-compatible server on loopback (see tests/fakeopenai.py)."""
    from tests.fakeopenai import FakeOpenAI

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = FakeOpenAI().start()
    yield server
    server.stop()
