"""`athena decide SUBMISSION.json` / `--batch SUBMISSIONS.jsonl`: underwrite submissions."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agents.commands.common import add_common_options, print_json, settings_from
from agents.commands.query import namespace_of, with_memory
from schemas.fields import load_data_dictionary
from schemas.submission import Decision, SubmissionError

if TYPE_CHECKING:
    from agents.underwriting.context import Mode
    from memory import GraphMemory


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `decide` command."""
    parser = commands.add_parser(
        "decide",
        help="decide a submission from the rules in memory, with cited rules and reasoning",
        description="Decide one submission (a JSON file) or, with --batch, a JSONL file of "
        'submissions (bare, or {"id", "submission"} lines); a batch prints one JSON line '
        "per submission, in input order.",
    )
    parser.add_argument("submission", nargs="?", metavar="SUBMISSION.json")
    parser.add_argument("--batch", metavar="SUBMISSIONS.jsonl", help="decide a file of them")
    parser.add_argument(
        "--mode",
        choices=("auto", "offline", "llm"),
        default="auto",
        help="offline: the policy; llm: a chat model checked against the policy; "
        "auto: llm when OPENAI_API_KEY is set",
    )
    parser.add_argument(
        "--as-of",
        metavar="DATE",
        help="decide by the rules as they stood on this ISO day (or time); a --batch "
        "line's own as_of wins",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _print_decision(decision: Decision) -> None:
    print(f"Decision: {decision.decision}   ({decision.latency_ms:.0f} ms)")
    for cited in decision.cited_rules:
        sources = "; ".join(cited.sources) or cited.source
        print(f"  - {cited.rule_name} -> {cited.outcome}  [sources: {sources}]")
        print(f"      {cited.why}")
    if decision.missing_fields:
        print(f"Missing fields: {', '.join(decision.missing_fields)}")
    for note in decision.notes:
        print(f"Note: {note}")
    print("Reasoning:")
    for number, step in enumerate(decision.reasoning_chain, start=1):
        print(f"  {number}. {step}")


def run(args: argparse.Namespace) -> int:
    """Decide one submission or a batch."""
    from agents.underwriting.service import (
        decide_submission,
        read_submission,
        read_submissions,
        share_batch_work,
    )

    if (args.submission is None) == (args.batch is None):
        raise ValueError("give either a SUBMISSION.json file or --batch SUBMISSIONS.jsonl")
    settings = settings_from(args)
    namespace = namespace_of(args, settings)
    fields = load_data_dictionary(settings.fields_path)
    # agents.models.mode, without importing the model factories (0.4 s of LangChain).
    auto = "llm" if settings.llm_enabled else "offline"
    wanted = auto if args.mode == "auto" else args.mode
    mode: Mode = "llm" if wanted == "llm" else "offline"
    items = read_submissions(args.batch) if args.batch else None
    single = read_submission(args.submission) if args.submission else None

    async def work(memory: GraphMemory) -> list[dict[str, Any]]:
        if single is not None:
            decision = await decide_submission(
                memory, namespace, single, fields, mode=mode, as_of=args.as_of
            )
            return [{"decision": decision}]
        # The batch's signals are ranked together first (one embedding call for all).
        await share_batch_work(
            memory,
            namespace,
            [i.submission for i in items or [] if not (i.as_of or args.as_of)],
            fields,
        )
        lines = []
        for item in items or []:
            try:
                decision = await decide_submission(
                    memory,
                    namespace,
                    item.submission,
                    fields,
                    mode=mode,
                    as_of=item.as_of or args.as_of,
                )
            except SubmissionError as exc:
                lines.append({"id": item.id, "error": str(exc)})
                continue
            lines.append({"id": item.id, **decision.model_dump(mode="json")})
        return lines

    results = with_memory(settings, work)
    if single is not None:
        decision = results[0]["decision"]
        if args.json:
            print_json(decision.model_dump(mode="json"))
        else:
            _print_decision(decision)
        return 0
    for line in results:
        print_json(line)
    return 1 if any("error" in line for line in results) else 0
