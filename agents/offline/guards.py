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
from agents.offline.textproc import IMPERATIVE
from schemas.rules import Condition

#: Words that open a restrictive modifier of the subject's noun.
_QUALIFIER = re.compile(
    r"\b(?:with|that|which|who|whose|where|doing|using|having|running|performing|"
    r"handling|offering|selling|storing)\s+(?=[a-z])",
    re.IGNORECASE,
)
#: "We will not insure X ...": the refusal's object is the rule's subject.
_REFUSED_OBJECT = re.compile(
    r"^\W*(?:we|the company|the carrier)\s+(?:will not|won't|do not|don't|cannot|can't|"
    r"never)\s+(?:write|insure|accept|quote|bind|cover|offer)\s+",
    re.IGNORECASE,
)
#: A relative pronoun right before a verb: the verb is the relative clause's.
_RELATIVE_BEFORE = re.compile(r"\b(?:that|which|who)\s+$", re.IGNORECASE)
#: Where the subject ends: its verb, or a speaker who acts on it ("we refer").
_SUBJECT_END = re.compile(
    r"\b(?:is|are|was|were|gets?|will|must|should|shall|may|can|goes|go|we|I|needs?)\b"
)


#: A qualifier that names the class a building's tenant is: "with X among its tenants".
_TENANT_QUALIFIER = re.compile(
    r"\bamong\s+(?:its|the)\s+tenants\b|\bas\s+(?:a|one of its|its)\s+tenants?\b", re.I
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
    if IMPERATIVE.match(a.trigger):
        return False  # "Honey packing plant: write with conditions": the order has no subject
    if _TENANT_QUALIFIER.search(a.trigger):
        return False  # "a building with a hatchet throwing lounge among its tenants": the class
    said = _REFUSED_OBJECT.sub("", a.trigger)  # "We will not insure a grower that ..."
    # the subject's verb, not the verb of its relative clause ("a grower that is not ...")
    end = next(
        (m for m in _SUBJECT_END.finditer(said) if not _RELATIVE_BEFORE.search(said[: m.start()])),
        None,
    )
    subject = said[: end.start()] if end else said
    match = _QUALIFIER.search(subject)
    if match is None or not subject[: match.start()].strip(" ,"):
        return False
    return not _class_in_qualifier(subject[: match.start()], said[match.end() :], conditions)


#: The head of a subject that only says "a piece of business": "lessor's risk submissions".
_GENERIC_HEAD = re.compile(
    r"\b(?:submissions?|applications?|risks?|accounts?|quotes?|polic(?:y|ies)|files?|"
    r"renewals?|business)\s*$",
    re.IGNORECASE,
)


def _class_in_qualifier(head: str, rest: str, conditions: list[Condition]) -> bool:
    """True when the qualifier is where the class was read, and nothing narrows it after.

    "Submissions where the building is let to a kipper smokehouse are declined": the
    subject's head names only business, and its "where" clause names the class.
    """
    if not _GENERIC_HEAD.search(head.strip(" ,")):
        return False
    values = [
        str(v).lower()
        for c in conditions
        for v in (c.value if isinstance(c.value, list) else [c.value])
    ]
    lowered = rest.lower()
    if not values or any(v not in lowered for v in values):
        return False
    after = rest[max(lowered.rfind(v) + len(v) for v in values) :]
    end = _SUBJECT_END.search(after)
    return _QUALIFIER.search(after[: end.start()] if end else after) is None


#: A conjunct that names something missing: "and has no such policy", "and lacks a plan".
_MISSING_CONJUNCT = re.compile(
    r"\b(?:and|but)\s+(?:(?:has|have|had|holds?|keeps?)\s+no|lacks?|"
    r"(?:does|do)\s*(?:not|n[’']t)\s+(?:have|hold|keep))\s+[\w-]",
    re.IGNORECASE,
)


def unread_absence(a: ClauseAnalysis, conditions: list[Condition]) -> bool:
    """True when a clause names something missing that no condition of the rule reads.

    "If the shop fills tanks and has no such policy, verify": read as "verify every
    shop that fills tanks", the rule would fire on the shops that have the policy. A
    missing thing is a condition (a flag false, a count of none); without it the rule
    is wider than its sentence, and the sentence is left for review.
    """
    if _MISSING_CONJUNCT.search(a.trigger) is None:
        return False
    if a.protective_neg:
        return False
    return not any(
        c.value is False or (c.operator in ("lt", "lte", "eq") and c.value == 0) for c in conditions
    )


#: A clause about a limit's change or its place, not a rule: "the referral point for leech
#: farms drops from forty to thirty", "the fleet size at which an operator is referred is
#: lowered".
_LIMIT_CHANGE = re.compile(
    r"\b(?:(?:size|point|figure|limit|number|count|threshold|level)\s+at which|"
    r"(?:drops?|falls?|rises?|moves?|goes|went|shifts?|changes?)\s+"
    r"(?:[\w-]+\s+){0,3}?from\b|(?:is|are|has been|have been|will be)\s+"
    r"(?:lowered|raised|reduced|increased|tightened|relaxed|cut|changed|amended)\b)",
    re.IGNORECASE,
)


def limit_changed(a: ClauseAnalysis, conditions: list[Condition], occupancy: str | None) -> bool:
    """True when a clause says how a limit changes and reads no figure of its own.

    What remains of such a clause (the class, a count above none) is no rule: the new
    limit is read where the text states it.
    """
    if not _LIMIT_CHANGE.search(a.trigger):
        return False
    return all(c.field == occupancy or (c.operator == "gt" and c.value == 0) for c in conditions)
