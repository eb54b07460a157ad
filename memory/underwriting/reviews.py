"""A person's review of a rule, written as a claim on the one commit path.

A reviewer accepts a rule as it stands, rejects it, or edits it. Each becomes a
claim of source type ``review`` dated when it was made, so the consolidation
policy (`memory.underwriting.consolidate`) does the rest: an acceptance restates
the rule (a later statement of one side settles a conflict: the other side ends),
a rejection withdraws it, an edit amends it (an edit that changes what the rule is
about withdraws the old rule and states the new one). The review itself (who,
when, why) is stored as a source text, so the rule's history names it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from memory.underwriting.analytics import GraphAnalytics
from memory.underwriting.claims import now, write_claims
from memory.underwriting.consolidate import signature

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace
    from schemas.rules import ExtractedRule

ReviewAction = Literal["accept", "reject", "edit"]
REVIEW_ACTIONS: tuple[str, ...] = get_args(ReviewAction)
_DONE = {"accept": "accepted", "reject": "rejected", "edit": "edited"}
_KEEP_OUT = ("sources", "conflicts", "valid_from", "valid_to", "withdrawn", "date")


@dataclass(frozen=True)
class Review:
    """What a reviewer decided about one rule.

    Attributes:
        rule_name: The current rule reviewed.
        action: ``accept``, ``reject`` or ``edit``.
        who: The reviewer's name.
        why: The reviewer's reason (kept with the review's source text).
        edited: The rule as edited (``edit`` only).
    """

    rule_name: str
    action: str
    who: str
    why: str
    edited: ExtractedRule | None = None


@dataclass(frozen=True)
class ReviewResult:
    """What a review wrote.

    Attributes:
        text_id: The id of the review's source text.
        rule_name: The rule the review's claim joined (the edited rule's name for an edit).
        when: When the review took effect (UTC time, the new version's valid from).
    """

    text_id: str
    rule_name: str
    when: str


def _checked(review: Review) -> None:
    if review.action not in REVIEW_ACTIONS:
        raise ValueError(
            f"unknown review action {review.action!r}; allowed: {', '.join(REVIEW_ACTIONS)}"
        )
    if not review.who.strip():
        raise ValueError("a review needs the reviewer's name (who)")
    if not review.why.strip():
        raise ValueError("a review needs a reason (why)")
    if (review.action == "edit") != (review.edited is not None):
        raise ValueError("an edited rule goes with the action 'edit', and only with it")


async def current_rule(memory: GraphMemory, namespace: Namespace, name: str) -> ExtractedRule:
    """The current rule of this name.

    Raises:
        ValueError: No current rule has this name.
    """
    found = await GraphAnalytics(memory, namespace).rules([name])
    if not found:
        raise ValueError(f"no current rule named {name!r}")
    return found[0]


def review_text(review: Review, rule: ExtractedRule, when: str) -> str:
    """The review as a source text: who did what to which rule, when, and why."""
    text = f"{review.who} {_DONE[review.action]} the rule '{rule.rule_name}' on {when}."
    if review.edited is not None:
        conditions = " AND ".join(
            f"{c.field} {c.operator} {c.value}" for c in review.edited.conditions
        )
        text += f" As edited: {review.edited.action} when {conditions}."
    return f"{text} Reason: {review.why.strip()}"


def _claim(rule: ExtractedRule, text_id: str, source: str, when: str) -> ExtractedRule:
    body = rule.model_dump(exclude=set(_KEEP_OUT))
    body.update(text_id=text_id, source=source, source_type="review", date=when, confidence="high")
    return type(rule).model_validate(body)


async def apply_review(
    memory: GraphMemory,
    namespace: Namespace,
    review: Review,
) -> ReviewResult:
    """Write a review: its source text, then its claims through the commit path.

    Args:
        memory: A connected graph memory.
        namespace: Where the rule lives.
        review: The reviewer's decision.

    An edited rule is checked against the data dictionary by the caller (the
    ingestion checks live with the agents).

    Raises:
        ValueError: An unknown action, no reviewer or reason, or an unknown rule
            (nothing is written).
    """
    _checked(review)
    rule = await current_rule(memory, namespace, review.rule_name)
    when = now()
    digest = hashlib.sha256(f"{review.rule_name}|{when}|{review.who}".encode()).hexdigest()
    text_id = f"review-{digest[:12]}"
    source = f"Review by {review.who.strip()}"
    claims = []
    if review.action == "reject":
        claims.append(_claim(rule, text_id, source, when).model_copy(update={"withdrawn": True}))
    elif review.edited is None:
        claims.append(_claim(rule, text_id, source, when))
    else:
        edited = _claim(review.edited, text_id, source, when)
        if signature(edited.product_type, edited.conditions) != signature(
            rule.product_type, rule.conditions
        ):
            withdrawal = _claim(rule, text_id, source, when)
            claims.append(withdrawal.model_copy(update={"withdrawn": True}))
        claims.append(edited)
    await memory.add_source(
        namespace, review_text(review, rule, when), source_id=text_id, description=source
    )
    plan, _, _ = await write_claims(memory, namespace, claims, source=text_id)
    joined = plan.joined.get(claims[-1].rule_name, claims[-1].rule_name)
    return ReviewResult(text_id=text_id, rule_name=joined, when=when)


__all__ = ["REVIEW_ACTIONS", "Review", "ReviewAction", "ReviewResult", "apply_review"]
