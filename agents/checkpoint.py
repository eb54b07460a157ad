"""A durable checkpointer for runs started outside `langgraph dev` (CLI, worker).

`langgraph dev` brings its own persistence, so the graphs in `langgraph.json`
are compiled without one; from the command line an interrupted run (e.g. a
referral waiting for a reviewer) must survive the process, so it is kept in
SQLite next to the embedded database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from memory import Settings

CHECKPOINT_FILE = "checkpoints.sqlite"


@asynccontextmanager
async def durable_checkpointer(settings: Settings) -> AsyncIterator[AsyncSqliteSaver]:
    """Open the SQLite checkpointer in the settings' data dir (created 0700 if missing)."""
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(settings.data_dir / CHECKPOINT_FILE)) as saver:
        yield saver
