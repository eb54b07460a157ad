"""A durable checkpointer for runs started outside `langgraph dev` (CLI, worker).

`langgraph dev` brings its own persistence, so the graphs in `langgraph.json`
are compiled without one; from the command line an interrupted run (e.g. a
referral waiting for a reviewer) must survive the process, so it is kept in
SQLite next to the embedded database.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from memory import Settings

CHECKPOINT_FILE = "checkpoints.sqlite"
# The project's own types a paused run's state holds: read back without a warning
# (langgraph will refuse unregistered types in a later version).
CHECKPOINT_TYPES = (
    ("schemas.submission", "Decision"),
    ("schemas.submission", "CitedRule"),
    ("schemas.submission", "ParsedSubmission"),
    ("schemas.decision", "DecisionProposal"),
)


@asynccontextmanager
async def durable_checkpointer(settings: Settings) -> AsyncIterator[AsyncSqliteSaver]:
    """Open the SQLite checkpointer in the settings' data dir (created 0700 if missing).

    The database file (and SQLite's journal files beside it, which copy its mode) is
    owner-only, 0600, like the rest of the data dir.
    """
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = settings.data_dir / CHECKPOINT_FILE
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for file in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        if file.exists() and file.stat().st_mode & 0o077:
            file.chmod(0o600)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        saver.serde = JsonPlusSerializer(allowed_msgpack_modules=CHECKPOINT_TYPES)
        yield saver
