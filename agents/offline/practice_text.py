"""What a practice text says of limits: a guideline, and how far approvals went.

An SME says "I read 25 as a guideline ... the biggest I've signed off was 32", or
answers "Is that absolute?" with "No" and "What is the oldest you have accepted?"
with "Twenty-four years". Read here as plain readings (a limit, its product, how far
practice went); `agents.ingestion.practice` binds them to the stated rules. Generic
English only: nothing here knows a field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.offline import lexicon as lx
from agents.offline.field_choice import unit_factor
from agents.offline.pipeline import find_product
from agents.offline.softlimits import run_end
from agents.offline.tables import table_rows
from agents.offline.texts import single_product
from agents.offline.units import SPELLED_UNITS
from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers

#: "sq ft", "square feet": one word, as field names spell it ("..._per_sqft_usd").
SQFT = re.compile(r"\bsq(?:uare)?\.?\s*(?:ft|feet|foot)\b\.?", re.I)
#: Units that say only an amount or a share: no unit alone tells their field.
COMMON_UNITS = frozenset({"usd", "percent"})
_UNIT_WORDS = {
    "$": "usd", "dollar": "usd", "%": "percent", "/": "per", "pct": "percent",
    "feet": "ft", "foot": "ft", "inche": "in", "inch": "in",
    "mile": "mi", "gallon": "gal", "degree": "deg", **SPELLED_UNITS,
}  # fmt: skip
#: Words of a field name that say nothing of which field it is (units, generic nouns).
_GENERIC = frozenset(
    {
        "count", "usd", "pct", "percent", "amount", "total", "number", "num", "year", "value",
        "day", "month", "mile", "building", "per", "rate", "ratio", "score", "level", "type",
    }
)  # fmt: skip


def unit_words(unit: str) -> list[str]:
    """A unit as words: "USD/sq ft" and "usd_per_sqft" are both [usd, per, sqft]."""
    text = SQFT.sub(" sqft ", unit.lower())
    words = re.findall(r"[a-z]+|[$%/]", text)
    words = [w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words]
    return [_UNIT_WORDS.get(w, w) for w in words]


def field_words(field_name: str) -> list[str]:
    """The words of a field name that tell which field it is ("roof", "tiv", "sqft")."""
    words = [w[:-1] if w.endswith("s") else w for w in field_name.lower().split("_")]
    # "lapsed" is said "lapse" or "lapsed": the past participle's stem names the field
    words = [w[:-2] if w.endswith("ed") and len(w) > 5 else w for w in words]
    return [w for w in words if len(w) > 2 and w not in _GENERIC]


def says(text: str, value: str) -> bool:
    """True when the text holds the value as words of its own ("la" is not in "lifted").

    A plural counts ("dispensaries" says "dispensary", "kiosks" says "kiosk").
    """
    head = value[:-1] if value.endswith("y") else value
    if head not in text:  # cheap: the regex below needs these characters as they are
        return False
    stem = re.escape(head) + "(?:y|ies)" if value.endswith("y") else re.escape(value)
    return re.search(rf"(?<![a-z0-9]){stem}(?:e?s)?(?![a-z0-9])", text) is not None


@dataclass(frozen=True)
class LimitReading:
    """A limit a practice text speaks of.

    Attributes:
        product: The product it names ("" for none).
        value: The limit as stated.
        soft_limit: How far practice went past it; None when the text calls it hard.
        sentence: The sentences that say so.
        unit: The unit the limit is said in, if any.
    """

    product: str
    value: float
    soft_limit: float | None
    sentence: str
    unit: str | None = None


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_GUIDELINE = re.compile(
    r"\b(?:guidelines?|soft (?:limit|cap|threshold)|not a hard|more of a|rule of thumb|"
    r"flexible|not (?:a )?(?:strict|firm)|starting point|where (?:i|we) start|"
    r"not where (?:i|we|it|appetite) (?:stops?|ends?)|"
    # "it's a trigger for getting eyes on the risk, not a cap"; "a review point, not a wall"
    r"not (?:a|an) (?:cap|wall|ceiling|hard line)|review point)\b",
    re.I,
)
_HARD = re.compile(r"\b(?:hard (?:limit|cap|line|stop)|no exceptions?)\b", re.I)
_SIGNED_OFF = re.compile(
    r"\b(?:signed off|sign off|signing off|okayed|cleared)\s+(?:\w+\s+){0,3}?up to\s+", re.I
)
APPROVED = re.compile(
    r"\b(?:approved|accepted|bound|signed off|okayed|written with conditions|quoted and bound|"
    r"(?:I'?ve|I have|we'?ve|we have|has|have) (?:signed|written|passed)|"
    # "I signed a coracle maker with four pots last autumn" (not "I signed the decline")
    r"\b(?:I|we) signed (?!(?:off\s+)?(?:on\s+)?(?:the|a|an|that|this|his|her|their)\s+"
    r"(?:decline|declination|referral|refusal|non-renewal)\b)(?=(?:an?|one|two|three|the)\s)|"
    # "PR-25-1102, row crop farm, 340 acres burned, ...: referred and written"
    r"referred and written|"
    # "I've let a chute go at forty-three", "we have let two through"
    r"(?:I'?ve|I have|we'?ve|we have) let (?:[\w-]+\s+){0,3}?(?:go|through)\b|"
    # "I'll sign it off with conditions": an approval the speaker gives
    r"sign(?:ed|s)? (?:it|them|those|these|that) off|"
    # "In practice I've taken a handful of them past that"
    r"(?:I'?ve|I have|we'?ve|we have) taken|"
    # "I've recommended approval on buildings as low as 60% grounded"
    r"(?:I'?ve|I have|we'?ve|we have) recommended approval|"
    # "I approve three layers", "I've cleared applicants with three trade names"
    r"\b(?:I|we) approve (?=(?:up to |as many as |as much as )?(?:\d|(?:one|two|three|four|"
    r"five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)\b))|"
    # "We routinely approve beekeepers up to seven hundred": how far it goes, habitually
    r"\b(?:I|we)\s+(?:\w+ly\s+)?(?:approve|accept|write|bind)\s+(?:[\w-]+\s+){0,3}?"
    r"(?=(?:up|down) to\s+(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred)\b))|"
    r"(?:I'?ve|I have|we'?ve|we have) cleared|"
    # "The underwriter offered terms anyway because ...", "the risk was written"
    r"offered terms|terms were offered|(?:was|were) written|"
    # "the lead referred it instead and we wrote it on the package", "overturned by the
    # lead and written with an erosion deductible"
    r"(?:I|we|they) wrote (?:it|the risk|the account)|(?:and|then) written|"
    # "I've put cottages on at twenty yards from the edge"
    # "I have put walks through with seventy-five minutes of margin"
    r"(?:I'?ve|I have|we'?ve|we have) put (?:[\w-]+\s+){0,3}?(?:on|through)\b|"
    # "I put one through at forty-six days last winter" (not "put it through to the desk")
    r"\b(?:I|we) (?:put|let) (?:[\w-]+\s+){0,3}?through\b(?!\s+to\b)|"
    # "Approve with conditions? --- From: T. Marsh. Yes, approve with conditions."
    r"yes,?\s+(?:approve|write|bind|accept)|"
    r"attached)\b",
    re.I,
)
REFUSED = re.compile(
    # (not "it should have been declined": what the rule said, not the outcome)
    # (not "we referred rather than declined": what the desk did instead)
    r"\b(?:(?<!should have been )(?<!would have been )(?<!rather than )(?<!instead of )"
    r"declined|rejected|refused|turned down|"
    r"denied|none|"
    # (not "nothing in this note changes that one": what the text leaves alone)
    # (not "seventy-two hours or nothing": how firm the rule reads on paper)
    r"(?<!\bor )nothing(?! (?:in|about) (?:this|the|that)\b)|"
    # (not "goes to twenty-two, never higher": how far practice went)
    r"never(?! (?:higher|lower|more|less|further|farther|beyond|above|below|past|over)\b)|"
    r"not (?:been )?(?:approved|accepted|written|bound|taken|signed off|attached)|"
    # "... was withdrawn by the agent before a decision": no outcome to learn from
    r"withdrawn by the (?:agent|broker|producer|insured|applicant)|before a decision)\b",
    re.I,
)
#: "declined at the desk; overturned on appeal ... and approved with conditions", "were
#: declined ... Three went to the regional manager on appeal and were approved".
_OVERTURNED = re.compile(r"\b(?:overturned|reversed|on appeal)\b", re.I)


def approved_outcome(sentence: str) -> bool:
    """True when a line's outcome is an approval: approved, and not refused after all.

    A refusal overturned later in the line ("declined at the desk; overturned on appeal
    and approved with conditions") ends approved.
    """
    approved = [m.start() for m in APPROVED.finditer(sentence)]
    if not approved:
        return False
    refused = [m.start() for m in REFUSED.finditer(sentence)]
    if not refused:
        return True
    overturned = _OVERTURNED.search(sentence, refused[-1])
    return overturned is not None and approved[-1] > overturned.start()


FURTHEST = re.compile(
    lx.SUPERLATIVE + r"[^.;]{0,60}?"
    r"\b(?:signed off|signed|approved|written|wrote|accepted|bound|gone|taken)\b[^.;]{0,30}?"
    r"\b(?:was|is|at|were)\b:?\s*",
    re.I,
)
#: "What is the oldest you have accepted?", answered by the next sentence's first number.
_ASKED_FURTHEST = re.compile(
    lx.SUPERLATIVE + r"[^?]{0,60}?\b(?:signed off|approved|written|wrote|accepted|bound|"
    r"gone|taken)\b[^?]*\?\s*$",
    re.I,
)
_ANSWER = re.compile(r"^\s*(?:a|answer)\s*:\s*", re.I)
#: "How many have you accepted?", "How much bigger?": a question about how far practice went.
_EXTENT = re.compile(
    lx.SUPERLATIVE + r"|\bhow (?:many|much|far|big|large|high|old|long|low|small|close|deep|"
    r"fast|tall|heavy|wide|thick|thin|hot|cold|steep|loud|young|new|short|slow|near)\b|"
    # "What have you actually written above it?"
    r"\b(?:above|past|beyond|over|below|under|short of) (?:it|that|the line|the limit)\s*\?",
    re.I,
)
#: What a question asks practice did: "the biggest you've taken", "how many ... accepted".
_PRACTISED = re.compile(
    APPROVED.pattern
    + r"|\b(?:taken|took|written|wrote|gone|done|signed|let (?:through|go)|allowed)\b",
    re.I,
)
_SPEAKER = re.compile(r"^\s*(?:[A-Z][\w.' -]{0,30})\s*:\s*")
#: "Is that absolute?" / "Is that a hard stop for you?", answered "No".
_FIRM_ASKED = re.compile(
    r"^\W*(?:q\s*:\s*)?(?:is|are) (?:that|this|it|they|those)\s+(?:an?\s+)?(?:absolute|firm|"
    r"fixed|strict|rigid|final|hard)\b[^?]*\?\s*$",
    re.I,
)
_DENIED = re.compile(r"^\s*(?:a|answer)\s*:\s*(?:no|not really|not always)\b", re.I)
#: A number that names a document part ("Section 5.2", "Rule 12"), not a limit.
CITED = re.compile(
    r"\b(?:sections?|rules?|chapters?|clauses?|parts?|articles?|paragraphs?|items?|steps?|"
    r"forms?|bulletins?|standards?|slides?|modules?|manual|guide|notes?|tables?|appendix)"
    r"\s*(?:[a-z]{1,2}[-.]?\s*)?$|§\s*$|"
    # "the 300 in GL 22.2": a product's manual section; "(1) PR-24-0419, ...": a list's item
    r"\b(?-i:GL|BOP|LRO|CGL)\s*$|(?:^|\n)\s*\($",
    re.I,
)
_LOOK_AHEAD = 5  # sentences after a guideline in which its approvals may follow


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


#: "Four is the most I've approved": the furthest practice went, said before its cue.
_FURTHEST_SAID = re.compile(
    r"\b(?:is|was) (?:about |roughly )?the " + lx.SUPERLATIVE + r"[^.;]{0,40}?"
    r"\b(?:signed off|signed|approved|written|wrote|accepted|bound|gone|taken|cleared)\b",
    re.I,
)


def _approved_values(sentence: str) -> list[float]:
    """Values a sentence says practice went up (or down) to: "approved up to 23"."""
    said = _FURTHEST_SAID.search(sentence)
    if said is not None:
        before = [n.value for n in find_numbers(sentence) if n.end <= said.start()][-1:]
        if before:
            return before
    cue = lx.SOFT_LIMIT_CUE.search(sentence) or _SIGNED_OFF.search(sentence)
    cue = cue or FURTHEST.search(sentence) or _NEVER_PAST.search(sentence)
    if cue is None:
        return []
    window = sentence[cue.end() : cue.end() + 60]
    run = find_numbers(window)
    if run and run[0].start <= 2:  # "written three at twelve hundred and one at thirteen"
        return [run_end(window, run).value]
    return [n.value for n in find_numbers(sentence) if n.start >= cue.end()][:1]


#: "I have never gone past three": the furthest practice went, said by what it never did.
_NEVER_PAST = re.compile(
    r"\b(?:never|not once|haven't ever|have not ever)\s+(?:gone|went|go|approved|written|"
    r"signed off|taken it)\s+(?:\w+\s+)?(?:past|beyond|above|over|higher than|further than)\s",
    re.I,
)


def _furthest(sentence: str) -> list[float]:
    """The furthest practice went, when a sentence says it: "Four is the most I've approved"."""
    if not (FURTHEST.search(sentence) or _FURTHEST_SAID.search(sentence)):
        return []
    return _approved_values(sentence)


def _answered(question: str, answer: str) -> list[float]:
    """The value an answer opens with, when the question asked how far practice went."""
    if not _ASKED_FURTHEST.search(question):
        return []
    label = _ANSWER.match(answer)
    start = label.end() if label else 0
    numbers = find_numbers(answer[start:])
    return [numbers[0].value] if numbers and numbers[0].start <= 2 else []


#: A case number opening a log entry: "PR-24-301:", "LRO-24-07:", "Case 24-0917.".
#: "PR-24-301", "24-301", "GL-REC-24-201": a case number opening a log's case.
_CASE_NUMBER = re.compile(
    r"(?:^|(?<=[.;]\s))(?:(?:case\s+)?(?:(?:[A-Z]{1,5}-){0,3}\d{2,4}-\d{2,5}|[A-Z]{1,5}-\d{3,5})\b|"
    # "Renewal A (Property, ...): ...", "Case 2: ...": a case named by a letter or a count
    r"(?:case|renewal|account|file|submission|risk)\s+(?:[A-Z]|\d{1,2})(?=\s*[(:]))",
    re.I,
)


def _cases_of(line: str) -> list[str]:
    """A line that logs several numbered cases, one case each ("PR-24-301: ... PR-24-318: ...").

    A line of one case, or of no case number, stays whole.
    """
    starts = [m.start() for m in _CASE_NUMBER.finditer(line)]
    if len(starts) < 2:
        return [line]
    head = [line[: starts[0]]] if line[: starts[0]].strip() else []
    cases = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    return [*head, *cases]


def opens_on_case(unit: str) -> bool:
    """True when a unit opens on a case's number ("Case PR-25-2210: ...", "PR-24-301: ...")."""
    return _CASE_NUMBER.match(unit.strip()) is not None


def approval_units(text: str) -> list[tuple[str, int]]:
    """The lines of a text that may record an approval, each with where its values start.

    A line is a unit of its own (a log's case: its number and outcome often in two
    sentences), values anywhere in it; a table's row is one with its columns' names. A
    question about how far practice went ("How many have you accepted?", or "How much
    bigger?" after an answer that approved) joins the answer's first sentence: values
    from the answer only, the question's words naming the field.

    Returns:
        (unit text, offset of its first value) pairs, in text order.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # a log's table row carries its columns' names ("Design density 0.18: accepted")
    rows = table_rows(lines)
    units: list[tuple[str, int]] = [
        (part, 0) for line in rows for case in _cases_of(line) for part in _refusal_apart(case)
    ]
    for at, line in enumerate(lines[:-1]):
        question = line.rstrip()
        if not question.endswith("?") or not _EXTENT.search(question):
            continue
        before = lines[at - 1] if at else ""
        if not (_PRACTISED.search(question) or (APPROVED.search(before) and len(question) < 40)):
            continue
        answer = _sentences(_SPEAKER.sub("", lines[at + 1], count=1))
        if not answer or REFUSED.search(answer[0]):
            continue
        asked = REFUSED.sub("", _SPEAKER.sub("", question, count=1)) + " approved:"
        # "A: Once. A punt company with a new fleet, seven inches loaded, ...": a bare
        # "Once." or "Yes." opens the answer; the case is the sentence after it
        told = " ".join(answer[:2]) if len(answer[0].split()) <= _BARE_ANSWER else answer[0]
        units.append((f"{asked} {told}", len(asked) + 1))
    return units


#: An answer's first sentence this short ("Once.", "Yes, twice.") tells no case itself.
_BARE_ANSWER = 2


def _refusal_apart(line: str) -> list[str]:
    """A paragraph that refuses one risk and approved others, a unit per sentence.

    "In practice I've approved operators whose policy goes to twenty-two ... I turned down
    a twenty-five last summer": the refusal is its own sentence's, not the approval's. A
    line of a few sentences (a log's case) stays one unit.
    """
    sentences = _sentences(line)
    if len(sentences) > 1 and sum(bool(_OUTCOME_LABEL.match(s)) for s in sentences) > 1:
        return sentences  # "Approved with conditions: a ... Declined: a ...": a unit each
    if not REFUSED.search(line):
        return [line]
    if len(sentences) >= _PARAGRAPH:
        return sentences
    # "we have approved a builder closed six months a year; a studio closed ten months was
    # declined. Highest approved so far: seven months.": each part tells its own case
    parts = [part for sentence in sentences for part in _CLAUSE_END.split(sentence)]
    told = [_own_case(part) for part in parts]
    # "... The walnut site also passed the desk's own check": a remark of no outcome
    remarks = [not (APPROVED.search(p) or REFUSED.search(p)) for p in parts]
    if sum(told) > 1 and all(t or r for t, r in zip(told, remarks, strict=True)):
        return parts
    return [line]


#: Where a clause of a case ends: "...; a paper marbling studio ... was declined".
_CLAUSE_END = re.compile(r"\s*;\s+")


def _own_case(part: str) -> bool:
    """True when a part of a short paragraph tells a figure and its own outcome."""
    return bool(APPROVED.search(part) or REFUSED.search(part)) and bool(find_numbers(part))


#: A sentence opening on the outcome of the cases it lists: "Declined: a kintsugi shop ...".
_OUTCOME_LABEL = re.compile(
    r"^\W*(?:Approved|Declined|Referred|Bound|Written|Accepted|Quoted|Not taken up)"
    r"(?: with conditions)?\s*:",
    re.I,
)


#: A line of this many sentences or more is a paragraph, not a case record.
_PARAGRAPH = 4
_BUT = re.compile(r"\bbut\b", re.I)


def _disowned(after: Sequence[str]) -> bool:
    """True when a limit is followed by "Is that absolute?" and an answer of "No".

    "It reads like one, but we've written spans up to 180 feet" says no by its practice.
    """
    if len(after) != 2 or not _FIRM_ASKED.search(after[0]):
        return False
    practice = lx.SOFT_LIMIT_CUE.search(after[1]) or _SIGNED_OFF.search(after[1])
    return bool(
        _DENIED.search(after[1])
        or (practice and _BUT.search(after[1]))
        or _GUIDELINE.search(after[1])  # "Is that a hard line? A: It's a guideline."
    )


def _in_unit(sentence: str, value: float, unit: str | None) -> float:
    """Practice's reach in the limit's unit: "a day and a half" past a 48-hour limit is 36."""
    for mention in find_numbers(sentence):
        if mention.value == value and mention.unit != unit:
            factor = unit_factor(mention.unit, unit)
            return round(value * factor, 9) if factor is not None else value
    return value


#: "the 200-cell line", "the twenty-five-kilo rule": a limit named by its figure.
_LIMIT_NAMED_AFTER = re.compile(
    r"^[- ]?(?:[a-z]+[- ])?(?:line|limit|rule|cap|threshold|trigger|ceiling)\b", re.I
)
#: "Twenty overnight guests is the guide figure for GL farm stays": the book's number.
_BOOK_FIGURE = re.compile(
    r"\b(?:is|was) the (?:guide|book|manual|guideline|written|stated|official) "
    r"(?:figure|number|limit|line|cap)\b",
    re.I,
)
#: A sentence that tells what practice did: "In practice I have gone as high as 260".
_IN_PRACTICE = re.compile(r"^\W*(?:but\s+)?(?:in practice|in reality|practically)\b", re.I)


def _named_limit(sentence: str, numbers: Sequence[NumberMention]) -> bool:
    """True when the sentence names a limit by its figure ("The 200-cell line ...")."""
    return any(
        _LIMIT_NAMED_AFTER.match(sentence[n.end :])
        and sentence[: n.start].rstrip().lower().endswith("the")
        for n in numbers
    )


def read_limits(text: str, source: str | None = None) -> list[LimitReading]:
    """Read the limit revisions of a text.

    A revision names a limit and calls it a guideline (or a hedge) and says how far
    approvals went, in the same sentence or one of the next two (soft, with the
    historical limit); or calls a limit hard. A revision without a product in its
    sentence or text applies to the rules of every product with that limit.
    """
    found: list[LimitReading] = []
    sentences = _sentences(text)
    # "Does the BOP team do the same? ... I only speak for monoline Property": a product
    # a question names is not the one the text speaks for
    said = " ".join(s for s in sentences if not s.rstrip().endswith("?"))
    product_of_text = find_product(said) or find_product(text) or single_product(source) or ""
    for number, sentence in enumerate(sentences):
        product = find_product(sentence) or product_of_text
        numbers = find_numbers(sentence)
        if product == "ALL" or not numbers:
            continue
        soft = bool(_GUIDELINE.search(sentence) or lx.SOFT_HEDGE.search(sentence))
        soft = soft or _disowned(sentences[number + 1 : number + 3])
        if not soft and number + 1 < len(sentences) and not find_numbers(sentences[number + 1]):
            # "How do you handle the forty-foot slide rule? A: ... not a cap."
            soft = bool(_GUIDELINE.search(sentences[number + 1]))
        if not soft and number + 1 < len(sentences):
            # "The 200-cell line came out of one bad fire. In practice I have gone as high
            # as 260": practice past the limit just named says it is soft
            # "Twenty overnight guests is the guide figure ... We go up to twenty-six"
            named = _named_limit(sentence, numbers) and _IN_PRACTICE.match(sentences[number + 1])
            soft = bool(named or _BOOK_FIGURE.search(sentence)) and bool(
                _approved_values(sentences[number + 1])
            )
        cue = lx.SOFT_LIMIT_CUE.search(sentence) or _SIGNED_OFF.search(sentence)
        if soft:
            limits = [
                n
                for n in numbers
                if (cue is None or n.end <= cue.start()) and not CITED.search(sentence[: n.start])
            ]
            approved = _approved_values(sentence)
            window = sentences[number + 1 : number + 1 + _LOOK_AHEAD]
            for at, later in enumerate(window if not approved else []):
                beyond = number + 2 + at  # the sentence after `later` (past the window too)
                after = sentences[beyond] if beyond < len(sentences) else ""
                approved = _approved_values(later) or _answered(later, after)
                if not approved:
                    continue
                furthest = _furthest(after)
                if furthest:  # "signed off on three and on four. Four is the most ..."
                    approved = furthest
                if furthest or not _approved_values(later):
                    later = f"{later} {after}"
                sentence = f"{sentence} {later}"
                break
            seen = {(r.product, r.value, r.soft_limit) for r in found}
            if limits and approved:
                reach = _in_unit(sentence, approved[0], limits[0].unit)
                if (product, limits[0].value, reach) not in seen:
                    found.append(
                        LimitReading(product, limits[0].value, reach, sentence, limits[0].unit)
                    )
        elif _HARD.search(sentence) and len(numbers) == 1:
            found.append(LimitReading(product, numbers[0].value, None, sentence, numbers[0].unit))
    return found


__all__ = [
    "APPROVED",
    "CITED",
    "COMMON_UNITS",
    "FURTHEST",
    "REFUSED",
    "SQFT",
    "LimitReading",
    "approval_units",
    "approved_outcome",
    "field_words",
    "opens_on_case",
    "read_limits",
    "says",
    "unit_words",
]
