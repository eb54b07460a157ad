"""Waivers: a clause that lifts an earlier rule's action when a protection holds.

"Pawn shops are referred. The referral is waived when a vault is on file." / "If the
building is sprinklered, the referral is not required" / "a sprinklered store does not
need to be referred at all": the clause states no rule of its own; the protection it
names (a boolean field of the data dictionary) is a mitigant of the latest rule with
the action it waives. Only general English (action nouns, waiver predicates,
subordinators) is used here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.offline.clauses import detect_action

if TYPE_CHECKING:
    from agents.offline.assemble import RuleDraft
    from agents.offline.clauses import ClauseAnalyzer

#: An action named as a noun, and the action it is.
_NOUN_ACTION = {
    "referral": "refer",
    "decline": "decline",
    "declination": "decline",
    "exclusion": "exclude",
    "verification": "verify",
    "check": "verify",
    "screen": "verify",
    "flag": "flag_for_review",
    "review": "refer",
    "refer": "refer",
    "verify": "verify",
}
#: "the referral is waived", "the referral may be skipped / closed / cleared", "the referral
#: is not required".
_NOUN_WAIVED = re.compile(
    r"\b(?P<det>the|this|that|such|its|their|any|an?|every|each|all)\s+(?:[\w-]+\s+)?"
    r"(?P<noun>referral|decline|declination|exclusion|verification|check|flag)s?\s+"
    # "A referral in this table (not a decline) is cleared when ...": every one it lists
    r"(?P<listed>(?:in|from|under|of)\s+(?:this|the|that)\s+(?:table|section|list|appendix|"
    r"schedule|chapter)\s+)?(?:\([^()]{1,40}\)\s+)?"
    r"(?:(?:is|are|will be|would be|may be|can be|could be|shall be|should be|gets?)\s+"
    # "the referral is normally waived": the same waiver, hedged
    r"(?:(?:then|also|simply|normally|usually|generally|typically|often|routinely)\s+)?"
    r"(?:waived|skipped|dropped|lifted|dispensed with|set aside|omitted|cleared|closed|"
    r"satisfied|"
    r"not (?:required|needed|necessary)|unnecessary)|"
    r"(?:does|do) not apply|doesn't apply|(?:isn't|aren't) (?:required|needed|necessary))\b",
    re.I,
)
#: "a park that keeps a test log satisfies the verification": the subject lifts it.
_SUBJECT_SATISFIES = re.compile(
    r"\b(?:satisf(?:y|ies)|clears?)\s+(?:the|this|that|its|their)\s+(?:[\w-]+\s+)?"
    r"(?P<noun>referral|verification|check|flag|screen)\b",
    re.I,
)
#: "A daily auger-check log takes away the need to refer": the subject lifts the rule.
_NEED_REMOVED = re.compile(
    r"\b(?:takes? away|removes?|eliminates?|does away with|do away with)\s+the\s+need\s+"
    r"(?:to\s+|for\s+(?:a\s+|the\s+|any\s+)?)(?P<noun>refer|verify|referral|verification|check)\b",
    re.I,
)
#: "A fixed foam system over the tank farm makes the referral unnecessary."
_MADE_UNNECESSARY = re.compile(
    r"\bmakes?\s+(?:the|this|that|any|a)\s+(?:[\w-]+\s+)?"
    r"(?P<noun>referral|verification|check|flag)\s+(?:unnecessary|redundant|moot)\b",
    re.I,
)
#: "Where the agent manages it, I waive the walk-round referral": a person lifts it.
_ACTIVE_WAIVED = re.compile(
    r"\b(?:I|we|the desk|underwriters?)\s+(?:(?:usually|normally|generally|often|routinely|"
    r"will|would|can|may|just|simply)\s+)?(?:waive|skip|drop|lift|set aside|clear)s?\s+"
    r"(?:the|this|that|such|its|their|any)\s+(?:[\w-]+\s+){0,2}?"
    # "a consent on file lets the underwriter waive the review": the referral for review
    r"(?P<noun>referral|decline|declination|verification|check|flag|review)s?\b",
    re.I,
)
#: "When the whole team holds the carnet I treat the altitude referral as close to a
#: formality": the rule kept in name only.
_A_FORMALITY = re.compile(
    r"\b(?:treat|treats|regard|regards|see|sees|consider|considers)\s+(?:the|this|that|its|"
    r"their)\s+(?:[\w-]+\s+){0,2}?(?P<noun>referral|verification|check|flag)s?\s+as\s+"
    r"(?:(?:close to|almost|nearly|little more than|just|purely|mostly|largely)\s+)?(?:a\s+)?"
    r"(?:formality|rubber[- ]stamp|box[- ]ticking(?: exercise)?)\b",
    re.I,
)
#: Waivers whose subject is the protection ("X satisfies the check").
#: "a discharge consent on file lets the underwriter waive the review": the subject waives.
_LETS_WAIVE = re.compile(
    r"\b(?:lets?|allows?|permits?)\s+(?:the\s+)?(?:underwriters?|desk|us)\s+(?:to\s+)?"
    r"(?:waive|skip|drop|lift|clear)\s+(?:the|this|that|its)\s+(?:[\w-]+\s+){0,2}?"
    r"(?P<noun>referral|decline|declination|verification|check|flag|review)s?\b",
    re.I,
)
_BY_SUBJECT = (_SUBJECT_SATISFIES, _NEED_REMOVED, _MADE_UNNECESSARY, _LETS_WAIVE)
#: "If an inspection confirms the repairs, no referral is needed."
_NO_NOUN_NEEDED = re.compile(
    r"\bno\s+(?:further\s+)?(?P<noun>referral|decline|declination|exclusion|verification|check|"
    r"flag)\s+(?:is|will be|would be)\s+(?:needed|required|necessary)\b",
    re.I,
)
#: "When the insured gives us a CPA statement, that is the verification": X stands for it.
_STANDS_FOR = re.compile(
    r"\b(?:that|this|it)\s+(?:is|counts as|serves as|stands in for)\s+the\s+"
    r"(?P<noun>verification|check)\b",
    re.I,
)
#: "neither X nor Y clears that referral": no waiver.
_DENIED = re.compile(r"\b(?:neither|nor|not|never|no)\b", re.I)
#: "the concern is considered answered when X": what makes the rule before give way.
_CONCERN_CURED = re.compile(
    r"\b(?:the|this|that|such|its|their)\s+(?:[\w-]+\s+)?"
    # "that requirement is met": the check the rule before asks for
    r"(?:concern|issue|exposure|problem|hazard|objection|requirement)s?\s+"
    r"(?:is|are|will be|would be|may be|can be|shall be)\s+"
    r"(?:considered\s+|treated as\s+|deemed\s+|then\s+)?"
    r"(?:answered|addressed|resolved|satisfied|met|cured|mitigated|overcome|taken care of|"
    r"dealt with)\b",
    re.I,
)
#: "...; in that case the account may be bound ...": what follows from a waiver.
CONSEQUENCE = re.compile(r"^\W*(?:in (?:that|which|this|such a) case|if so|then)\b", re.I)
#: "does not need to be referred", "need not be declined".
_VERB_WAIVED = re.compile(
    r"\b(?:(?:does|do|will|would) not|doesn't|don't|won't)\s+(?:need|have)\s+to\s+be\s+"
    r"(?P<verb>referr|declin|exclud|flagg|verifi)\w*|"
    r"\b(?:need not|needn't)\s+be\s+(?P<verb2>referr|declin|exclud|flagg|verifi)\w*",
    re.I,
)
_VERB_ACTION = {
    "referr": "refer",
    "declin": "decline",
    "exclud": "exclude",
    "flagg": "flag_for_review",
    "verifi": "verify",
}
#: What opens the protection's own clause.
_SUBORDINATOR = re.compile(
    r"\b(?:if|when|whenever|where|once|provided(?: that)?|as long as|so long as)\b|"
    r"^\W*with\b",  # "With telematics in every vehicle, the flag is cleared"
    re.I,
)
#: Determiners that make a waiver lift every rule with its action ("any referral").
_EVERY = frozenset({"a", "an", "any", "every", "each", "all"})
#: Actions a mitigant does not lift (the decision policy applies them either way).
_UNMITIGATED = frozenset({"exclude", "approve_with_conditions"})
#: How many sentences back the waived rule may be.
_REACH = 2
_LOG_REACH = 4


@dataclass
class Waiver:
    """An action a clause lifts, and the protections it lifts it for."""

    action: str | None  # None: whatever the rule before does ("the concern is answered")
    fields: list[str]
    text: str
    #: "A referral in this table is cleared when ...": every rule of the text with the action
    every: bool = False


#: "..., in which case the referral can be cleared": the consequence of a mitigant.
_IN_WHICH_CASE = re.compile(r"\bin which case\b", re.I)


def read_waiver(clause: str, analyzer: ClauseAnalyzer) -> Waiver | None:
    """The waiver a clause states, or None.

    Args:
        clause: One clause of a sentence.
        analyzer: The clause analyzer (its vocabulary names the protections).

    Returns:
        The waived action with the boolean fields named where the waiver holds (none
        when the clause names no protection), or None when the clause waives nothing.
    """
    noun = (
        _LETS_WAIVE.search(clause)
        or _NOUN_WAIVED.search(clause)
        or _SUBJECT_SATISFIES.search(clause)
        or _NEED_REMOVED.search(clause)
        or _MADE_UNNECESSARY.search(clause)
        or _NO_NOUN_NEEDED.search(clause)
        or _STANDS_FOR.search(clause)
        or _ACTIVE_WAIVED.search(clause)
        or _A_FORMALITY.search(clause)
    )
    verb = None if noun else _VERB_WAIVED.search(clause)
    cured = None if noun or verb else _CONCERN_CURED.search(clause)
    action: str | None = None
    if noun is not None:
        action, match = _NOUN_ACTION[noun.group("noun").lower()], noun
    elif verb is not None:
        word = (verb.group("verb") or verb.group("verb2")).lower()
        action, match = _VERB_ACTION[word], verb
    elif cured is not None:
        match = cured
    else:
        return None
    before = clause[: match.start()]
    if match.re in _BY_SUBJECT and (detect_action(before) is not None or _DENIED.search(before)):
        return None  # "flag X unless they carry Y, which clears the flag": the rule's own
    consequence = _IN_WHICH_CASE.search(before)
    if consequence and detect_action(clause[: consequence.start()]) is not None:
        return None  # "X is referred, unless Y, in which case the referral can be cleared"
    by_subject = verb is not None or match.re in _BY_SUBJECT
    where = _protection_text(clause, match, subject=by_subject)
    fields = analyzer.mitigant_fields(where) if where else []
    if not fields and match.re is _NO_NOUN_NEEDED:
        return None  # "For Property in Tier 2 no referral is needed, but ...": a rule's scope
    every = match.re is _NOUN_WAIVED and (
        bool(match.group("listed")) or match.group("det").lower() in _EVERY
    )
    return Waiver(action, fields, where, every)


def _protection_text(clause: str, match: re.Match[str], subject: bool) -> str:
    """The words that say when the waiver holds.

    "If X, the referral is not required ..." -> X; "the referral is waived when X" ->
    X; "an X store does not need to be referred" -> the subject before the predicate.
    """
    before = clause[: match.start()]
    opening = _SUBORDINATOR.search(before)
    if opening is not None:
        return before[opening.end() :].strip(" ,")
    after = _SUBORDINATOR.search(clause, match.end())
    if after is not None:
        return re.split(r"[;:]", clause[after.end() :])[0].strip(" ,.")
    return before.strip(" ,") if subject else ""


def waive(
    waiver: Waiver, drafts: list[RuleDraft], sentence_index: int, *, log: bool = False
) -> bool:
    """Attach a waiver's protections to the latest nearby rule with the action it lifts.

    Args:
        waiver: The waiver read from a clause.
        drafts: The drafts read so far.
        sentence_index: Index of the waiver's sentence.
        log: The text is a decision log, whose cases told between a rule and its waiver
            ("Decisions: ... Cantina Bellows, referred and declined. Where the shop keeps
            a vault, the referral is waived") do not part them.

    Returns:
        True when a rule received the protections.
    """
    if not waiver.fields:
        return False
    if waiver.every:
        lifted = [
            d
            for d in drafts
            if waiver.action in (None, d.action) and not (d.action in _UNMITIGATED and d.conditions)
        ]
        for draft in lifted:
            draft.add_mitigants(waiver.fields, [waiver.text])
        if lifted:
            return True
    for draft in reversed(drafts):
        if draft.sentence_index < sentence_index - (_LOG_REACH if log else _REACH):
            return False
        if waiver.action in (None, draft.action):
            if draft.action in _UNMITIGATED and draft.conditions:
                # "Without an isolation ward, exclude. With one, no exclusion is needed":
                # a mitigated exclusion still applies, so the ward stays its condition
                return True
            draft.add_mitigants(waiver.fields, [waiver.text])
            return True
    return False


__all__ = ["CONSEQUENCE", "Waiver", "read_waiver", "waive"]
