"""`athena` command groups; each module exposes `register(subparsers)`."""

from agents.commands import (
    bench,
    chat,
    db,
    decide,
    demo,
    eval,
    export,
    ingest,
    jobs,
    mcp,
    query,
    review,
    sweep,
    trace,
    visualize,
    worker,
)

COMMAND_MODULES = [
    db,
    ingest,
    query,
    trace,
    decide,
    export,
    visualize,
    eval,
    demo,
    mcp,
    review,
    chat,
    worker,
    jobs,
    sweep,
    bench,
]
