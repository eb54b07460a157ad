"""`athena chat [--user U] [--session S]`: talk to the underwriting assistant.

In a terminal it is interactive; with piped input every non-empty line is one user
message and each reply is printed. The session ends at ``exit`` / end of input and
its transcript is enqueued for `athena worker`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import with_memory
from agents.commands.worker import add_queue_options, queue_of
from memory import Namespace
from schemas.text import clean_text

if TYPE_CHECKING:
    from memory import GraphMemory

EXIT_WORDS = frozenset({"exit", "quit", "/exit", "/quit"})


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `chat` command."""
    parser = commands.add_parser("chat", help="chat with the underwriting assistant")
    parser.add_argument("--user", default="underwriter", help="user id (underwriter)")
    parser.add_argument("--session", help="session id (default: a new one)")
    parser.add_argument("--shard", default="general", help="shard of shared facts (general)")
    add_queue_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _lines(interactive: bool):
    while True:
        if interactive:
            try:
                line = input("you> ")
            except EOFError:
                return
        else:
            line = sys.stdin.readline()
            if not line:
                return
        text = clean_text(line).strip()  # control characters are removed, as in the graph
        if text.lower() in EXIT_WORDS:
            return
        if text:
            yield text


def run(args: argparse.Namespace) -> int:
    """Run one chat session."""
    from agents.chat.session import ChatSession

    settings = settings_from(args)
    ns = Namespace.parse(args.namespace or settings.namespace)
    if ns.kind != "agent":
        raise ValueError(f"chat needs an agent namespace (agent:<id>), got {ns}")
    interactive = sys.stdin.isatty()

    async def talk(memory: GraphMemory) -> dict[str, object]:
        chat = ChatSession(
            memory,
            agent_id=ns.parts[0],
            user_id=args.user,
            session_id=args.session,
            shard_id=args.shard,
            queue=queue_of(memory, args),
        )
        replies = []
        try:
            for message in _lines(interactive):
                reply = await chat.send(message)
                replies.append(reply)
                if not args.json:
                    print(f"athena> {reply}" if interactive else reply, flush=True)
        finally:
            end = await chat.end()
        return {
            "session_id": end.session_id,
            "job_id": end.job_id,
            "enqueued": end.enqueued,
            "message": end.message,
            "replies": replies,
        }

    out = with_memory(settings, talk)
    if args.json:
        print_json(out)
    else:
        print(out["message"], file=sys.stderr)
    return 0
