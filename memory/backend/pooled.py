"""Around `Database`: Graphiti's driver on the connection pool, and the primary reader.

Graphiti's own queries (index creation, its stock searches) take a slot of the
database's pool like every other query. The derived in-process indexes read
the change log and the changed ids through `PrimaryReader`, always from the
primary, so a lagging read replica can never make an index skip a commit.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

# The database is `memory.backend.falkordb.Database` (not imported: it imports this module).
Database = Any


@functools.cache
def pooled_driver_class() -> type:
    """Graphiti's FalkorDB driver whose queries take a slot of the database's pool."""
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    logging.getLogger("graphiti_core.driver.falkordb_driver").setLevel(logging.WARNING)
    from graphiti_core.driver.driver import GraphDriverSession
    from graphiti_core.driver.falkordb_driver import FalkorDriver, FalkorDriverSession

    class PooledSession(FalkorDriverSession):  # type: ignore[misc]
        def __init__(self, graph: Any, db: Database) -> None:
            super().__init__(graph)
            self._db = db

        async def run(self, query: str | list, **kwargs: Any) -> Any:
            async with self._db.slot():
                return await super().run(query, **kwargs)

    class PooledFalkorDriver(FalkorDriver):  # type: ignore[misc]
        """A Graphiti FalkorDB driver whose queries take a slot of the database's pool."""

        def __init__(self, db: Database, database: str) -> None:
            self._db = db
            # Index creation is done explicitly by Database.ensure_indices.
            super().__init__(falkor_db=db.client, database=database)
            if self._init_task is not None:
                self._init_task.cancel()
                self._init_task = None

        async def execute_query(self, cypher_query_: str, **kwargs: Any) -> Any:
            """Run one query on a pooled connection."""
            async with self._db.slot():
                return await super().execute_query(cypher_query_, **kwargs)

        def session(self, database: str | None = None) -> GraphDriverSession:
            """Return a session whose queries take pool slots."""
            return PooledSession(self._get_graph(database), self._db)

        def clone(self, database: str) -> FalkorDriver:
            """Return the driver of another graph on the same pool."""
            return self._db.driver(database)

    return PooledFalkorDriver


class PrimaryReader:
    """The database as the derived indexes read it: always the primary (see replicas)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def target(self) -> str:
        """Where the server is."""
        return self._db.target

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = True,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run read-only Cypher on the primary."""
        return await self._db.query(
            group_id, cypher, params, read_only=read_only, timeout_ms=timeout_ms, primary=True
        )

    async def execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Run raw commands on the primary (the change log)."""
        return await self._db.execute(commands)


__all__ = ["PrimaryReader", "pooled_driver_class"]
