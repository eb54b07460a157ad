"""Comparators around a number: how a text bounds it ("more than N", "N or more").

Generic English only (the phrases are in `lexicon_comparators`); a requirement fires
below what it requires ("requires at least 5 years" -> lt 5).
"""

from __future__ import annotations

import re

from agents.offline import lexicon_comparators as lxc
from memory.underwriting.fieldlink.numbers import NumberMention

__all__ = ["PRE_PATTERNS", "comparator"]


def _compile(pairs: tuple[tuple[str, str], ...], pre: bool) -> list[tuple[re.Pattern[str], str]]:
    if pre:
        return [(re.compile(rf"(?:^|\W)(?:{p})-?\s*$", re.I), op) for p, op in pairs]
    return [(re.compile(rf"^\s*(?:{p})(?!\w)", re.I), op) for p, op in pairs]


PRE_PATTERNS = _compile(lxc.PRE_COMPARATORS, pre=True)
_POST = _compile(lxc.POST_COMPARATORS, pre=False)


#: "after" / "before" right before a number compare times only: a year, or an amount of
#: time ("after 1990", "before 6 months"), not "after two fall claims".
_TIME_WORD = re.compile(r"\b(?:after|before)\s*$", re.I)
_CALENDAR_OR_TIME = re.compile(
    r"\d{4}\b|[\w.,-]+\s+(?:years?|months?|weeks?|days?|hours?|minutes?)\b", re.I
)
#: "no more than eight playing fields before referral": what is allowed, then the action.
_BEFORE_ACTION = re.compile(
    r"^[^.;,]{0,40}?\bbefore (?:a |the |any |we |you |they |i |it (?:is |gets )?)?"
    r"(?:referral|refer\w*|decline|declin\w*|review)\b",
    re.I,
)
#: "12 sweeper trucks or more": the noun words between a number's unit and its comparator.
_NOUN_WORDS = re.compile(
    r"^(?:\s+(?!(?:or|and|than|per|of|in|on|at|to|is|are|be|a|an|the)\b)[a-z]+){1,2}(?=\s+(?:or|and)\b)",
    re.I,
)
#: What may follow "or more" after a noun: the clause's end or its verb.
_CLOSED = re.compile(
    r"^\s*(?:[,.;:)]|$|(?:is|are|was|were|get|gets|go|goes|will|would|should|must|may|can|"
    r"need|needs|require|requires|trigger|triggers|fall|falls)\b)",
    re.I,
)
#: The bound an allowance sets, as the rule that acts past it.
_ALLOWANCE = {"lte": "gt", "lt": "gte"}


def comparator(text: str, mention: NumberMention) -> str | None:
    """The comparison written around a number ("more than N", "N or more", "N minimum").

    Requirements fire below the required amount: "requires at least 5 years" -> lt 5.

    Args:
        text: The clause.
        mention: A number in it.

    Returns:
        An operator, or None when the number is not compared.
    """
    if mention.plus:
        return "gte"
    for post in (text[mention.num_end :], text[mention.end :]):
        for pattern, op in _POST:
            if pattern.match(post):
                return op
    nouns = _NOUN_WORDS.match(text[mention.end :])
    if nouns:  # "a dozen sweeper trucks or fewer are fine", not "coaches indoors or under canopy"
        post = text[mention.end + nouns.end() :]
        for pattern, op in _POST:
            said = pattern.match(post)
            if said and _CLOSED.match(post[said.end() :]):
                return op
    pre = text[max(0, mention.start - 40) : mention.start]
    for pattern, op in PRE_PATTERNS:
        if pattern.search(pre):
            if _TIME_WORD.search(pre) and not _CALENDAR_OR_TIME.match(text[mention.start :]):
                return None  # "After two rooftop fall claims": a sequence, no threshold
            if op in {"gte", "lte"} and lxc.REQUIREMENT.search(text[: mention.start]):
                return "lt" if op == "gte" else "gt"
            if op in _ALLOWANCE and _BEFORE_ACTION.match(text[mention.end :]):
                return _ALLOWANCE[op]  # "no more than eight fields before referral": past it
            return op
    after = text[mention.end :]
    if lxc.MINIMUM_LABEL.match(after) or lxc.MINIMUM_BEFORE.search(pre):
        return "lt"
    if lxc.MAXIMUM_LABEL.match(after) or lxc.MAXIMUM_BEFORE.search(pre):
        return "gt"
    return None
