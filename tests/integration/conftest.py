"""Integration fixtures: one real embedded FalkorDB per test session, in a temp dir."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from memory import GraphMemory, Namespace, Settings
from memory.backend.server import ensure_server, stop_server


@pytest.fixture(scope="session")
def falkordb_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data dir with a running embedded server, stopped and removed at the end."""
    data_dir = tmp_path_factory.mktemp("falkordb")
    ensure_server(data_dir)
    yield data_dir
    stop_server(data_dir)


@pytest.fixture(scope="session")
def settings(falkordb_dir: Path) -> Settings:
    """Offline settings that point at the session's embedded server."""
    return Settings(ATHENA_DATA_DIR=falkordb_dir)


@pytest.fixture
async def memory(settings: Settings) -> AsyncIterator[GraphMemory]:
    """A connected GraphMemory; closed after the test."""
    async with GraphMemory(settings) as mem:
        yield mem


@pytest.fixture
def namespace() -> Namespace:
    """A fresh agent namespace per test."""
    return Namespace.agent(f"t-{uuid.uuid4().hex[:10]}")
