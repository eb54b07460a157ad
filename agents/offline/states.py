"""US states named in a clause, and "any other state" read against the sentences before."""

from __future__ import annotations

import re

from agents.offline import lexicon_subjects as lxs
from memory.underwriting.fieldlink.numbers import _SMALL
from memory.underwriting.fieldlink.states import US_STATES
from schemas.rules import Condition

#: "A risk located in any other state": the states named just before, by contrast.
_OTHER_STATES = re.compile(r"\b(?:any|all|every|an?)\s+other\s+states?\b|\bother states\b", re.I)
#: "located in those five states", "in these states": the states a sentence before lists.
_THOSE_STATES = re.compile(
    r"\b(?:(?:those|these)\s+(?:(?P<count>\w+)\s+)?states|(?P<two>either|both)\s+states?"
    r"|(?:located|based|operating|domiciled|situated|headquartered)\s+there)\b",
    re.I,
)
#: Where a sentence or a clause ends: "It remains in force in Nevada and Arizona: ..."
_SEGMENT_END = re.compile(r"(?<=[.!?:;])\s+")


def read_states(text: str, state_field: str | None) -> list[Condition]:
    """US states named in the text, as two-letter codes.

    Args:
        text: A clause or sentences.
        state_field: The dictionary's state field (None: no state conditions).

    Returns:
        One `eq` / `in` condition, or `neq` / `not_in` after "except" / "other than".
    """
    if not state_field:
        return []
    hits: list[tuple[int, str]] = [
        (m.start(), US_STATES[m.group(1).lower()]) for m in lxs.STATE_NAME_RE.finditer(text)
    ]
    codes = set(US_STATES.values())
    found = [
        m
        for m in lxs.STATE_CODE_RE.finditer(text)
        if m.group(1) in codes and not _in_identifier(text, m.start(), m.end())
    ]
    hits += [
        (m.start(), m.group(1))
        for m in found
        if m.group(1) not in lxs.AMBIGUOUS_STATE_CODES
        or any(
            o is not m
            and (separated(text, o.end(), m.start()) or separated(text, m.end(), o.start()))
            for o in found
        )
        or _placed_in(text, m)
    ]
    if not hits:
        return []
    hits.sort()
    values = list(dict.fromkeys(code for _, code in hits))
    negated = negated_list(text, hits[0][0])
    if len(values) == 1:
        return [Condition(field=state_field, operator="neq" if negated else "eq", value=values[0])]
    return [
        Condition(field=state_field, operator="not_in" if negated else "in", value=list(values))
    ]


#: "... lime kiln works in PA, new or renewal": a location's preposition before the code;
#: "sorghum mills in OR are declined": the clause's verb after it.
_IN_BEFORE = re.compile(r"\b(?:located|situated|based)?\s*\bin\s+$")
_CODE_AFTER = re.compile(
    r"^\s*(?:[,.;:)]|$|(?:and|or|only|are|is|were|was|gets?|go|goes|must|may|will|should|"
    r"can|cannot)\b)"
)


def _placed_in(text: str, code: re.Match[str]) -> bool:
    """True when an ambiguous code ("PA", "IN") is a place: "in PA," or "in PA."."""
    if code.group(1) in {"US", "AS"}:
        return False
    return bool(_IN_BEFORE.search(text[: code.start()]) and _CODE_AFTER.match(text[code.end() :]))


def other_states(trigger: str, context: str, state_field: str | None) -> list[Condition]:
    """States a clause about "any other state" excludes: those named just before.

    "... filed only in Texas and Ohio. A risk in any other state is declined." names,
    by contrast, the states the sentences before list: the rule applies outside them
    (`not_in` / `neq`).

    Args:
        trigger: The clause.
        context: The sentences before it.
        state_field: The dictionary's state field.

    Returns:
        The negated condition, or [] when the clause says no "other state" or the
        sentences before name no single list of states.
    """
    if not context:
        return []
    if not _OTHER_STATES.search(trigger):
        return those_states(trigger, context, state_field)
    named = read_states(context, state_field)
    if len(named) != 1 or named[0].operator not in {"in", "eq"}:
        return []
    value = named[0].value
    op = "not_in" if isinstance(value, list) else "neq"
    return [Condition(field=named[0].field, operator=op, value=value)]  # type: ignore[arg-type]


def those_states(trigger: str, context: str, state_field: str | None) -> list[Condition]:
    """The states "those (N) states" points back to: the list the sentences before name.

    "California, Maryland and Ohio have no such statute. Submissions located in those
    three states are referred." applies in the three states (`in` / `eq`). A count that
    disagrees with the list, or a list read as an exception ("except ..."), gives none.

    Args:
        trigger: The clause.
        context: The sentences before it.
        state_field: The dictionary's state field.

    Returns:
        The condition, or [] when the clause has no "those states" or the sentences
        before name no single plain list of states.
    """
    match = _THOSE_STATES.search(trigger)
    if not match or not context:
        return []
    count = "two" if match.group("two") else (match.group("count") or "").lower()
    # the nearest sentence (or clause) naming states first: "The filing is approved in
    # Colorado and Utah; it remains in force in Nevada and Arizona: drillers located
    # there are declined" points to the last two, not to every state said before
    nearest = next(
        (part for part in reversed(_SEGMENT_END.split(context)) if read_states(part, state_field)),
        context,
    )
    for said in dict.fromkeys((nearest, context)):
        named = read_states(said, state_field)
        if len(named) != 1 or named[0].operator not in {"in", "eq"}:
            continue
        size = len(named[0].value) if isinstance(named[0].value, list) else 1
        stated = (int(count) if count.isdigit() else _SMALL.get(count)) if count else size
        if stated == size:  # not "those five states" after four, or "those coastal states"
            return named
    return []


def names_those_states(trigger: str) -> bool:
    """True when a clause points back at states named before ("in either state")."""
    return bool(_THOSE_STATES.search(trigger))


def separated(text: str, end: int, start: int) -> bool:
    """True when only list separators sit between two offsets."""
    return end <= start and bool(re.fullmatch(r"[\s,/]*(?:or|and)?[\s,/]*", text[end:start]))


def negated_list(text: str, start: int) -> bool:
    """True when "except" / "other than" / "outside" opens the list at `start`."""
    return bool(lxs.NEGATED_LIST.search(text[max(0, start - 30) : start]))


def _in_identifier(text: str, start: int, end: int) -> bool:
    """True for letters inside a code such as "DC-EX-01" (a form number, not a state)."""
    return text[end : end + 1] == "-" or text[max(0, start - 1) : start] == "-"
