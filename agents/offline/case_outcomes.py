"""The furthest case a production log approved past a rule's limit: its soft limit.

"- Hotshot carrier, 12 gooseneck rigs. BOP cap is ten rigs before referral. Approved at
12." then "- Hotshot carrier, 14 rigs. Approved at 14." then "- 16 rigs. Referred; not
bound.": practice reached 14, the furthest approved case, not the first one told.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agents.offline import lexicon as lx
from agents.offline.assemble import RuleDraft
from agents.offline.conditions import NumericHit
from agents.offline.placement import find_product
from agents.offline.softlimits import near_limit as _near
from memory.underwriting.fieldlink.numbers import find_numbers

#: A log's case line: a bullet or a numbered item ...
_CASE_LINE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+\S")
#: ... or a line opening on a case's reference ("LRO-25-0031 - two-storey brick ..."), in
#: a log of several such short lines.
_CASE_REFERENCE = re.compile(r"^\s*[A-Z]{2,}[-/]?\d[\w/-]*\s*[-:\u2013\u2014]\s")
_CASE_CHARS = 320
#: The case went through: "Approved", "bound", "written", "signed off".
_APPROVED = re.compile(
    r"(?<!not )(?<!never )(?<!n't )\b(?:approved|bound|written|accepted|signed off|okayed|"
    r"OK['\u2019]?d|appr['\u2019]d)(?!\w)",
    re.I,
)
#: The case did not go through, in the end: "declined", "not bound", "broker withdrew".
_REFUSED = re.compile(
    r"\b(?:declined|not (?:bound|written|approved|accepted)|withdr[ea]w\w*|refused|"
    r"turned down|rejected|nobody has|no one has)\b",
    re.I,
)
_ORDERING = ("gt", "gte", "lt", "lte")
#: A case's date, no figure of it: "19 Jul 2024", "Jul 19, 2024", "2024-07-19", "07/19/24".
_CASE_DATE = re.compile(
    r"\b(?:\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
    r"(?:\s+\d{4})?|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+"
    r"\d{1,2}(?:st|nd|rd|th)?,?(?:\s+\d{4})?|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})\b"
)
#: The parts of a case line, each told apart: "Starlight Roadshow, 24 a month at the
#: summer peak, crew of six - approved".
_CASE_PARTS = re.compile(r",\s+|;\s+|\s+[-\u2013\u2014]\s+")


def furthest_approved(
    body: str,
    drafts: list[RuleDraft],
    read: Callable[[str, str | None], list[NumericHit]],
    present: Callable[[str], list[str]] = lambda _line: [],
) -> None:
    """Raise each limit's soft limit to the furthest figure an approved case reached.

    Only a rule with one ordering condition, only a case line whose outcome is an
    approval (no decline, no "not bound" in it), and only a figure the line states
    without a comparator of its own (the case's, not a guideline quoted in it).

    Args:
        body: The text of a production log.
        drafts: Its rule drafts, changed in place.
        read: Reads the field-bound numbers of a line, given the field a figure no word
            places continues (or None).
        present: The flags a line names as present. A case with a rule's mitigant
            present ("9 pots, sprinklered. Written as standard") shows the mitigant at
            work, not how far practice bends the rule.
    """
    limits = [
        (draft, bounds[0])
        for draft in drafts
        if not draft.withdrawn
        and len(bounds := [c for c in draft.conditions if c.operator in _ORDERING]) == 1
        and isinstance(bounds[0].value, int | float)
        and not isinstance(bounds[0].value, bool)
    ]
    if not limits:
        return
    lines = body.splitlines()
    referenced = [k for k in lines if _CASE_REFERENCE.match(k) and len(k) <= _CASE_CHARS]
    cases = [k for k in lines if _CASE_LINE.match(k)] + (referenced if len(referenced) > 1 else [])
    for line in cases:
        if not _APPROVED.search(line) or _REFUSED.search(line):
            continue
        said = set(present(line))
        # "- Starlight Roadshow, 24 - approved": the outcome word names no field ("saddles
        # out on approval"); the figure is read without it
        plain = _CASE_DATE.sub(" ", _APPROVED.sub(" ", line))
        hits = _case_hits(plain, read, [b.field for _, b in limits])
        for hit in hits:
            if hit.operator is not None and not hit.soft_evidence:
                continue
            for draft, bound in limits:
                if hit.field != bound.field or said & set(draft.mitigant_fields):
                    continue
                upward = bound.operator in ("gt", "gte")
                reach = draft.soft_limit if draft.soft_limit is not None else bound.value
                further = (hit.value > reach) if upward else (hit.value < reach)  # type: ignore[operator]
                if further and _near(hit.value, float(bound.value)):  # type: ignore[arg-type]
                    draft.soft_limit = float(hit.value)
                    draft.historical.append(line.strip(" -*\u2022"))


def _case_hits(
    line: str, read: Callable[[str, str | None], list[NumericHit]], fields: list[str]
) -> list[NumericHit]:
    """The figures of a case line, bound to the limits' `fields` where the line allows.

    The line is read whole; where it binds no figure to a limit's field, each of its
    parts apart ("Starlight Roadshow, 24 a month at the summer peak, crew of six": the
    crew names no screenings); then a figure no word places continues the limit's field
    ("- Han River Foods. 2,600 gal. Appr'd.").
    """
    hits = _said_with_unit(read(line, None))
    if any(h.field in fields for h in hits):
        return hits
    parts = _CASE_PARTS.split(line)
    apart = [h for part in parts for h in read(part, None)]
    if any(h.field in fields for h in apart):
        return apart
    wanted = dict.fromkeys(fields)
    return hits + [
        h for part in parts for field in wanted for h in read(part, field) if h.field == field
    ]


def _said_with_unit(hits: list[NumericHit]) -> list[NumericHit]:
    """One figure a field in a case line: the one said with its words, where one is.

    "crew of 18, two losses in three years": "two losses" is the losses; the 18 before
    it only borrowed the word.
    """
    longest: dict[str | None, int] = {}
    for hit in hits:
        longest[hit.field] = max(longest.get(hit.field, 0), hit.end - hit.start)
    return [h for h in hits if h.field is None or h.end - h.start == longest[h.field]]


#: A case's outcome after a dash: "a Phoenix firm at 24 ft - bound after senior sign-off".
_DASHED_OUTCOME = re.compile(
    r"\s[-\u2013\u2014]\s[^;]*?\b(?:bound|referred|declined|approved|written|accepted|quoted|"
    r"signed off|cleared|excluded|flagged)\b",
    re.I,
)
#: Cases a log lists inline after a label, apart by semicolons: "Decisions: a grower with
#: 2,800 visitors - bound; a grower with 3,000 - bound after review; ...".
_INLINE_CASES = re.compile(r"(?<=:)[ \t]+(?P<items>[^:\n]*?;[^:\n]*?)(?=\.(?:\s+[A-Z(]|\s*$)|\n|$)")
#: Cases a log letters: "Cases: (a) 18 pods, Aspen - bound normally. (b) 22 pods, ...".
_LETTER = re.compile(r"(?:(?<=[.:;])|^)[ \t]*\((?P<mark>[a-h])\)[ \t]+", re.M)
_LETTERED_END = re.compile(r"\.(?=\s+[A-Z]|\s*$)")


def logged_cases(body: str) -> str:
    """A production log's cases said so they are read as cases, with the limits they cite.

    Inline and lettered cases go on lines of their own (`cases_on_lines`); a case told
    against the limit it breaks gets that limit as a rule before its sentence.
    """
    return _cited_limits(cases_on_lines(body))


def cases_on_lines(body: str) -> str:
    """A log's inline cases, each on a line of its own as a case record.

    "Decisions: an Oregon grower with 2,800 visitors - bound without referral; a North
    Carolina grower with 3,000 visitors - bound after senior review; ..." (or "(a) ...
    (b) ..." items) lists cases, not rules: each becomes a "- Case record: ..." line, read
    for how far practice went (`furthest_approved`), never for a rule. Only when every
    item tells its outcome after a dash.
    """
    if ";" in body:
        body = _INLINE_CASES.sub(_inline_said, body)
    if "(a)" in body and "(b)" in body:
        body = _lettered_said(body)
    return body


def _as_lines(items: list[str]) -> str:
    return "".join(f"\n- {lx.CASE_RECORD}: {item.strip()}" for item in items) + ".\n"


def _inline_said(match: re.Match[str]) -> str:
    items = [item for item in match.group("items").split(";") if item.strip()]
    if len(items) < 2 or not all(_DASHED_OUTCOME.search(f" {item}") for item in items):
        return match.group(0)
    return _as_lines(items)


def _lettered_said(body: str) -> str:
    marks = list(_LETTER.finditer(body))
    if len(marks) < 2 or [m.group("mark") for m in marks] != list("abcdefgh"[: len(marks)]):
        return body
    ends = [m.start() for m in marks[1:]]
    last = _LETTERED_END.search(body, marks[-1].end())
    ends.append(last.end() if last else len(body))
    items = [body[m.end() : end].strip() for m, end in zip(marks, ends, strict=True)]
    if not all(_DASHED_OUTCOME.search(f" {item}") for item in items):
        return body
    return body[: marks[0].start()] + _as_lines([i.rstrip(".") for i in items]) + body[ends[-1] :]


#: A log's case told against the limit it breaks: "2,300 acres against the 2,000-acre
#: guideline", "12 sorting machines against our Property guideline of ten".
_AGAINST_LIMIT = re.compile(
    r"(?P<fig>\$?\d[\d,.]*|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty)\b)\s+(?P<words>(?:[a-z-]+\s+){0,3}?[a-z-]+)\s+against\s+(?:the|our)\s+"
    r"(?P<limit>(?:[^.;:,()]|(?<=\d)[.,](?=\d)){0,40}?\b(?:guideline|limit|threshold|cap)"
    r"(?:\s+of\s+(?:\$?\d[\d,.]*|"
    r"[a-z-]+))?)(?P<rest>[^.;]*)(?P<end>[.;]|$)",
    re.I,
)


_RECOMMENDED = re.compile(r"\brecommended\s+(?:a\s+)?(declin\w*|refer\w*)", re.I)


def _cited_limits(body: str) -> str:
    """A log's cases said with the limit each breaks, and that limit as a rule before them.

    "2,300 acres against the 2,000-acre guideline for the farm property program; the
    underwriter approved ..." cites a guideline past which a case goes to referral: "More
    than 2,000 acres is referred." goes on a line before the case's sentence, for the case
    and the cases after it to bend. Only where the case's figure and the limit's are in one
    unit, the case past the limit.
    """
    if "against" not in body and " line " not in body and "limit" not in body:
        return body
    # "Athena had recommended decline": the action the limit carries, else a referral
    recommended = _RECOMMENDED.search(body)
    declined = recommended is not None and recommended.group(1).lower().startswith("decl")
    done = "declined" if declined else "referred"
    rules: list[tuple[int, str]] = []
    for match in _AGAINST_LIMIT.finditer(body):
        case = find_numbers(f"{match.group('fig')} {match.group('words')}")
        limit = find_numbers(match.group("limit"))
        if not case or not limit or case[0].value == limit[-1].value:
            continue
        bound = "more than" if case[0].value > limit[-1].value else "fewer than"
        value = limit[-1].value  # "2,000" (no year 2000), "1,500,000"
        figure = f"{int(value):,}" if float(value).is_integer() else f"{value:g}"
        said = f"{bound} {figure} {match.group('words')} is {done}"
        rules.append(_guideline(body, match, said, match.group("limit") + match.group("rest")))
    for match in _OVER_THE_LINE.finditer(body):  # "both over the $250,000 BOP line for X"
        if not find_numbers(match.group("limit")):
            continue
        said = f"more than {match.group('fig')} of {match.group('words').strip()} is {done}"
        rules.append(_guideline(body, match, said, match.group("limit")))
    for at, rule in sorted(rules, reverse=True):
        body = f"{body[:at]}{rule}{body[at:]}"
    return body


def _guideline(body: str, case: re.Match[str], said: str, limit: str) -> tuple[int, str]:
    """The line stating a limit a case cites, and where it goes: before the case's sentence.

    The product the limit's words name ("the 2,000-acre guideline for the farm property
    program") is the rule's.
    """
    product = find_product(limit)
    on = f" on the {product}" if product and product != "ALL" else ""
    opening = max((m.end() for m in _STATEMENT_END.finditer(body, 0, case.start())), default=0)
    return opening, f"Guideline: {said}{on}.\n"


#: Cases said to be over a limit named for what it counts: "two keyboard makers, both over
#: the $250,000 BOP line for customers' instruments in care: we bound ...".
_OVER_THE_LINE = re.compile(
    r"\b(?:over|above|past|beyond)\s+(?:the|our)\s+(?P<limit>(?P<fig>\$\d[\d,.]*[kKmM]?|"
    r"\d[\d,.]*)(?:\s+[A-Z]{2,8})?\s+(?:line|limit|guideline|threshold|cap|trigger))\s+"
    r"(?:for|on)\s+(?P<words>[^:;.,]{3,60}?)(?=\s*[:;.,]|$)",
)


#: Where a sentence or a line ends (the next one starts after it).
_STATEMENT_END = re.compile(r"(?<!\d)\.\s+|\n")
