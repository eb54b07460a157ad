"""Reusable entry points of the underwriting agent (CLI, eval and demo call these)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.underwriting.context import Context, Mode
from schemas.fields import DataDictionary
from schemas.submission import Decision, SubmissionError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory import GraphMemory, Namespace


@dataclass(frozen=True)
class SubmissionItem:
    """One submission of a batch: its id (or line number) and raw fields."""

    id: str
    submission: dict[str, Any]
    as_of: str | None = None


async def decide_submission(
    memory: GraphMemory,
    namespace: Namespace | str,
    submission: dict[str, Any] | str,
    fields: DataDictionary | None = None,
    *,
    mode: Mode = "offline",
    chat_model: BaseChatModel | None = None,
    model: str | None = None,
    search_limit: int = 5,
    as_of: str | None = None,
) -> Decision:
    """Run the underwriting graph on one submission.

    Args:
        memory: An open graph memory.
        namespace: Namespace holding the rules.
        submission: Field -> value (or its JSON text).
        fields: The data dictionary; None uses the settings' or the packaged one.
        mode: ``offline`` (policy) or ``llm`` (chat model checked against the policy).
        chat_model: The chat model for the LLM mode; None builds the configured one.
        model: Chat model name when `chat_model` is None.
        search_limit: Rules kept per semantic query.
        as_of: Decide by the rules as they stood on this ISO day or time (None: now).

    Returns:
        The decision with cited rules, missing fields, reasoning chain and latency.

    Raises:
        SubmissionError: The submission is not JSON, a field has the wrong type, or
            `as_of` is not an ISO day or time.
    """
    from agents.underwriting.graph import graph

    context = Context(
        namespace=str(namespace),
        mode=mode,
        model=model,
        search_limit=search_limit,
        memory=memory,
        fields=fields,
        chat_model=chat_model,
    )
    result = await graph.ainvoke({"submission": submission, "as_of": as_of}, context=context)
    decision: Decision = result["decision"]
    return decision


async def share_batch_work(
    memory: GraphMemory,
    namespace: Namespace | str,
    submissions: list[dict[str, Any]],
    fields: DataDictionary | None = None,
    *,
    search_limit: int = 5,
) -> int:
    """Rank every distinct risk signal of a batch at once, before its decisions.

    A submission's field signals read the same in every submission
    (`agents.underwriting.retrieval`), and the memory keeps each ranking until the next
    commit: ranked here together (one embedding call and one vector query per product),
    the batch's decisions then find them ranked. Submissions that do not parse are
    skipped (their decision reports the error). Returns the signals ranked.
    """
    from agents.underwriting.nodes import data_dictionary
    from agents.underwriting.retrieval import risk_signals
    from memory.underwriting import GraphAnalytics, canonical_product
    from schemas.submission import parse_submission

    if fields is None:
        fields = data_dictionary(Context(memory=memory))
    by_product: dict[str | None, dict[str, None]] = {}
    for submission in submissions:
        try:
            values = parse_submission(submission, fields).values
            product = values.get("product_type")
            product = product if isinstance(product, str) else None
            canonical_product(product)
        except (SubmissionError, ValueError):
            continue
        texts = by_product.setdefault(product, {})
        texts.update(dict.fromkeys(s.query for s in risk_signals(values, fields)))
    analytics = GraphAnalytics(memory, namespace)
    if not await analytics.rule_count():
        return 0
    for product, texts in by_product.items():
        if texts:
            await analytics.query_many(
                list(texts), product_type=product, limit=search_limit, read_facts=False
            )
    return sum(len(texts) for texts in by_product.values())


def read_submission(path: str | Path) -> dict[str, Any]:
    """Read one submission from a JSON file (a ``submissions.jsonl`` line also works).

    Raises:
        SubmissionError: The file is unreadable, not JSON, or not a JSON object.
    """
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmissionError(f"cannot read submission file {path}: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"{path} is not JSON: {exc}") from exc
    return _unwrap(data, str(path)).submission


def read_submissions(path: str | Path) -> list[SubmissionItem]:
    """Read a JSONL batch: one submission per line, bare or as ``{"id", "submission"}``.

    A wrapped line may carry ``as_of`` (an ISO day): that submission is decided by
    the rules as they stood then.

    Raises:
        SubmissionError: The file is unreadable or a line is not a JSON object (the
            message names the line).
    """
    from agents.jsonl import read_jsonl

    return [
        _unwrap(data, f"{path}:{number}", default_id=f"line-{number}")
        for number, data in read_jsonl(path, error=SubmissionError)
    ]


def _unwrap(data: Any, where: str, default_id: str = "submission") -> SubmissionItem:
    if not isinstance(data, dict):
        raise SubmissionError(
            f"{where}: a submission must be a JSON object of field -> value, "
            f"got {type(data).__name__}"
        )
    if isinstance(data.get("submission"), dict):
        as_of = data.get("as_of")
        if as_of is not None and not isinstance(as_of, str):
            raise SubmissionError(f"{where}: as_of must be an ISO date text, got {as_of!r}")
        return SubmissionItem(str(data.get("id") or default_id), data["submission"], as_of)
    return SubmissionItem(str(data.get("id") or default_id), data)


def decision_line(item_id: str, decision: Decision) -> dict[str, Any]:
    """Return the batch JSON line of a decision (the CLI's stable contract)."""
    return {"id": item_id, **decision.model_dump(mode="json")}
