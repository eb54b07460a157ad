"""`athena` command groups; each module exposes `register(subparsers)`."""

from agents.commands import db

COMMAND_MODULES = [db]
