"""Readings held back for review: a rule broader than the sentence that states it.

Precision comes before recall: a rule that fires on risks its sentence never meant
declines good business. When the reader finds only a business class in a subject that
narrows the class ("a mover that relocates masonry buildings is referred", "any supplement
maker with a recall in the last five years is referred"), the narrowing part is what the
rule is about, and the reader did not understand it. Such a sentence goes to the uncovered
list for a person instead of becoming "every mover is referred". Generic English only.
"""

from __future__ import annotations

import re

from agents.offline.analysis import ClauseAnalysis
from schemas.rules import Condition

#: Words that open a restrictive modifier of the subject's noun.
_QUALIFIER = re.compile(
    r"\b(?:with|that|which|who|whose|where|doing|using|having|running|performing|"
    r"handling|offering|selling|storing)\s+(?=[a-z])",
    re.IGNORECASE,
)
#: Where the subject ends: its verb, or a speaker who acts on it ("we refer").
_SUBJECT_END = re.compile(
    r"\b(?:is|are|was|were|gets?|will|must|should|shall|may|can|goes|go|we|I|needs?)\b"
)


def unread_qualifier(a: ClauseAnalysis, conditions: list[Condition], occupancy: str | None) -> bool:
    """True when a rule would read only a business class from a subject that narrows it.

    Args:
        a: The clause's analysis.
        conditions: The rule's conditions as completed from the clause and its context.
        occupancy: The name of the dataset's occupancy field.

    Returns:
        True when the rule should not be made: every condition is the class, the clause
        read nothing else (no flag, no measured field), and the subject carries a
        modifier ("with ...", "that ...", "doing ...") after its first word.
    """
    if not conditions or any(c.field != occupancy for c in conditions):
        return False
    if a.protective_pos or a.protective_neg or any(h.field for h in a.numbers):
        return False
    end = _SUBJECT_END.search(a.trigger)
    subject = a.trigger[: end.start()] if end else a.trigger
    match = _QUALIFIER.search(subject)
    return match is not None and bool(subject[: match.start()].strip(" ,"))
