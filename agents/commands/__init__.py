"""`athena` command groups; each module exposes `register(subparsers)`.

Modules are imported on demand: a run imports only the module of the command it
runs (its start-up then pays for that command's imports alone), `athena --help`
imports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType

# Command name = module name, in the order `athena --help` lists them.
COMMANDS = (
    "db",
    "ingest",
    "query",
    "trace",
    "conflicts",
    "decide",
    "export",
    "visualize",
    "eval",
    "demo",
    "mcp",
    "ui",
    "review",
    "chat",
    "worker",
    "jobs",
    "sweep",
    "reembed",
    "bench",
)


def command_modules(names: Iterable[str] = COMMANDS) -> list[ModuleType]:
    """Import and return the modules of the named commands."""
    return [importlib.import_module(f"agents.commands.{name}") for name in names]


__all__ = ["COMMANDS", "command_modules"]
