"""`athena` command groups; each module exposes `register(subparsers)`."""

from agents.commands import db, ingest

COMMAND_MODULES = [db, ingest]
