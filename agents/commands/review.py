"""`athena review`: decide with a human reviewer on referrals, across processes.

    athena review start SUBMISSION.json      # pauses on `refer`, prints the thread id
    athena review resume THREAD --decision approve_with_conditions [--note "..."]

Paused runs are kept by the durable SQLite checkpointer in ATHENA_DATA_DIR.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_memory
from agents.underwriting.policy import SEVERITY
from schemas.fields import load_data_dictionary

if TYPE_CHECKING:
    from agents.underwriting.review import ReviewOutcome
    from memory import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `review` command group."""
    parser = commands.add_parser("review", help="decide with a human reviewer on referrals")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="decide a submission; pause if it is referred")
    start.add_argument("submission", metavar="SUBMISSION.json")
    resume = actions.add_parser("resume", help="give the reviewer's decision to a paused run")
    resume.add_argument("thread", help="thread id printed by `review start`")
    resume.add_argument("--decision", required=True, choices=SEVERITY)
    resume.add_argument("--note", default="", help="the reviewer's reason")
    for sub in (start, resume):
        add_common_options(sub)
        sub.set_defaults(handler=run)


def _show(outcome: ReviewOutcome, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "thread_id": outcome.thread_id,
                "status": "paused" if outcome.pending else "done",
                "pending": outcome.pending,
                "decision": outcome.decision.model_dump(mode="json") if outcome.decision else None,
            }
        )
    elif outcome.pending:
        print(f"Paused for review: proposed {outcome.pending['proposed_decision']}")
        for rule in outcome.pending.get("cited_rules", []):
            print(f"  - {rule['rule_name']}: {rule['why']}")
        print(f"Resume with: athena review resume {outcome.thread_id} --decision ...")
    elif outcome.decision:
        print(f"Decision: {outcome.decision.decision}  (thread {outcome.thread_id})")
        for note in outcome.decision.notes:
            print(f"Note: {note}")


def run(args: argparse.Namespace) -> int:
    """Start or resume a reviewed decision."""
    from agents.checkpoint import durable_checkpointer
    from agents.underwriting.review import resume_review, start_review
    from agents.underwriting.service import read_submission

    settings = settings_from(args)
    namespace = str(namespace_of(args, settings))
    fields = load_data_dictionary(settings.fields_path)

    async def work(memory: GraphMemory) -> ReviewOutcome:
        async with durable_checkpointer(settings) as saver:
            if args.action == "start":
                submission = read_submission(args.submission)
                return await start_review(memory, namespace, submission, fields, saver)
            answer = {"decision": args.decision, "note": args.note}
            return await resume_review(memory, namespace, args.thread, answer, fields, saver)

    _show(with_memory(settings, work), args.json)
    return 0
