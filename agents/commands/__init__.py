"""`athena` command groups; each module exposes `register(subparsers)`."""

from agents.commands import (
    db,
    decide,
    demo,
    eval,
    export,
    ingest,
    mcp,
    query,
    review,
    trace,
    visualize,
)

COMMAND_MODULES = [db, ingest, query, trace, decide, export, visualize, eval, demo, mcp, review]
