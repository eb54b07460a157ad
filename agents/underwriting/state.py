"""State of the underwriting graph: input, working state and output types.

The working state holds plain JSON data only (dicts, lists, text), so any
checkpointer can store it across a human-review interrupt.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Required

from typing_extensions import TypedDict

from schemas.submission import Decision


class UnderwritingInput(TypedDict, total=False):
    """What a run takes: one submission (a JSON object of field -> value, or its text).

    Attributes:
        submission: The submission (required).
        as_of: Decide by the rules as they stood on this ISO day or time (default: now).
    """

    submission: Required[dict[str, Any] | str]
    as_of: str | None


class UnderwritingOutput(TypedDict):
    """What a run returns."""

    decision: Decision


class UnderwritingState(TypedDict, total=False):
    """Everything the nodes pass along.

    Attributes:
        submission: The raw submission.
        as_of: Decide by the rules valid then (ISO day or UTC time); None: the current rules.
        started: Wall-clock start (epoch seconds).
        machine_ms: Time spent before a human review, in ms.
        submission_id: The submission's id, if it had one.
        values: Canonical field values (data-dictionary types).
        notes: Warnings for the caller (appended by several nodes).
        rule_count: Current rules in the namespace.
        rules: Candidate rules (``rules.jsonl`` dicts).
        found_by: Rule name -> the risk signals that retrieved it.
        paths: Rule name -> decision path (RiskFactor -> Rule -> Outcome, source...).
        evaluations: Policy evaluation of every candidate rule.
        policy: The policy's decision: ``decision``, ``cited``, ``missing_fields``.
        draft: The decision being made: ``decision``, ``cited``, ``rationale``, ``by``.
        decision: The final decision.
    """

    submission: dict[str, Any] | str
    as_of: str | None
    started: float
    machine_ms: float
    submission_id: str | None
    values: dict[str, Any]
    notes: Annotated[list[str], operator.add]
    rule_count: int
    rules: list[dict[str, Any]]
    found_by: dict[str, list[str]]
    paths: dict[str, dict[str, Any]]
    evaluations: list[dict[str, Any]]
    policy: dict[str, Any]
    draft: dict[str, Any]
    decision: Decision
