"""`athena reembed`: re-embed a namespace with another embedder (e.g. after setting a key)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory
from memory import Namespace

if TYPE_CHECKING:
    from memory.store import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `reembed` command."""
    parser = commands.add_parser(
        "reembed",
        help="re-embed a namespace's names and facts with another embedder",
        description=(
            "Each namespace keeps the embedder it was first written with (name, model, "
            "dimension) and reads with it. To switch, re-embed every entity name and edge "
            "fact with the chosen embedder; the vector index is rebuilt for its dimension."
        ),
    )
    parser.add_argument(
        "--embedder",
        choices=("auto", "wordllama", "openai"),
        default=None,
        help="embedder to switch to (default: ATHENA_EMBEDDER; auto = OpenAI with a key)",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Re-embed one namespace with a progress bar and print what changed."""
    from rich.progress import Progress

    from memory.embedder_identity import reembed
    from memory.embedders import create_embedder

    settings = settings_from(args)
    if args.embedder:
        settings = settings.model_copy(update={"embedder": args.embedder})
    ns = Namespace.parse(args.namespace or settings.namespace)
    embedder = create_embedder(settings)

    async def work(memory: GraphMemory) -> dict[str, Any]:
        if ns not in await memory.list_namespaces():
            raise ValueError(f"namespace {ns} holds nothing to re-embed")
        with Progress(transient=True, disable=args.json) as bar:
            task = bar.add_task(f"re-embedding {ns}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            out = await reembed(
                memory.db, memory.commit, ns.group_id, embedder, on_progress=progress
            )
            memory.embedders.forget(ns.group_id)
        return {"namespace": str(ns), **out}

    out = with_memory(settings, work)
    if args.json:
        print_json(out)
    else:
        print(
            f"reembed {out['namespace']}: {out['entities']} name(s) and {out['edges']} fact(s) "
            f"re-embedded, {out['from'] or 'unrecorded'} -> {out['to']}"
        )
    return 0
