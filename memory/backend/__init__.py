"""The database layer.

Embedded server lifecycle, the `GraphBackend` protocol and its FalkorDB
implementation, row parsing, parameter literals and read-only traversal.

`Database` (it pulls in Graphiti's driver) is loaded on first use.
"""

import typing

from memory.backend.changelog import Change
from memory.backend.derived import DerivedIndexes, DerivedKind, Reader, read_by_ids
from memory.backend.protocol import GraphBackend, Statement
from memory.backend.server import (
    ServerStatus,
    ensure_server,
    server_status,
    stop_server,
)

if typing.TYPE_CHECKING:
    from memory.backend.falkordb import Database


def __getattr__(name: str) -> typing.Any:
    if name == "Database":
        from memory.backend.falkordb import Database

        return Database
    raise AttributeError(f"module 'memory.backend' has no attribute {name!r}")


__all__ = [
    "Change",
    "Database",
    "DerivedIndexes",
    "DerivedKind",
    "GraphBackend",
    "Reader",
    "Statement",
    "ServerStatus",
    "ensure_server",
    "read_by_ids",
    "server_status",
    "stop_server",
]
