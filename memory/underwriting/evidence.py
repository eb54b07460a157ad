"""Where a text states a rule: its sentences, scored against the rule's content.

Rules do not record the sentence they came from (and pre-extracted rules were written
by someone else), so the evidence is found again from what the rule says: its numbers
(threshold, soft limit, condition values), the words of its fields (their data-dictionary
synonyms and description when given), its categorical values, its action and its risk
factor. Everything here is pure: a text and a rule in, character spans out.

`sentence_spans` cuts a text into sentences and lines, `evidence_spans` ranks them for a
rule, `highlight` cuts the text into marked and unmarked pieces for a page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from memory.underwriting.fieldlink.numbers import KNOWN_UNITS, canonical_unit, find_numbers
from memory.underwriting.fieldlink.profile import STOP_STEMS, DictionaryProfile, profile_of, stems
from memory.underwriting.fieldlink.states import US_STATES
from schemas.fields import DataDictionary, FieldSpec
from schemas.rules import ExtractedRule

#: Words ending in a period that do not end a sentence (lower case, inner dots kept).
_ABBREVIATIONS = frozenset(
    "e.g i.e cf vs approx appx dept est inc corp ltd jr sr mr mrs ms dr st mt ave incl".split()
)
#: Abbreviations that do not end a sentence before a number ("No. 5", "s. 8.3", "p. 12").
_BEFORE_NUMBER = frozenset("no nos fig figs sec secs para art p pp s ss vol ch ref".split())
#: Function words that say nothing of a rule's content (beside `STOP_STEMS`).
_FUNCTION_WORDS = frozenset(
    "can may must not no will shall should would could been has have had was were it they we you "
    "if when unless only also such which who what where there these those then so but nor do does "
    "did normally generally usually always never every each other own same just".split()
)
_END = re.compile(r"[.!?]+[\"'’”)\]]*(?=\s)")
_WORD_BEFORE = re.compile(r"(?<![\w$'’])([A-Za-z][A-Za-z.]*)\.$")
_INITIALISM = re.compile(r"^(?:[a-z]\.)+[a-z]?$|^[a-z]$")
#: A line that starts a new piece: a bullet, a numbered item, a heading, a "Label:".
_LINE_START = re.compile(
    r"^\s*(?:[-*•·▪–—>#|]+\s|\(?[a-z0-9]{1,3}[.)]\s|\d+(?:\.\d+)+\s|[A-Z][\w /&-]{0,24}:\s)"
)
_LINE_END = re.compile(r"[.!?:][\"'’”)\]]*\s*$")
_SHORT_LINE = 40
#: What each action is called in a text (word stems or phrases), never a dataset's wording.
_ACTION_WORDS: dict[str, re.Pattern[str]] = {
    name: re.compile(rf"\b(?:{pattern})", re.I)
    for name, pattern in {
        "decline": r"declin|ineligib|not eligible|reject|prohibit|unacceptable|"
        r"(?:out of|outside)(?: the| our)? appetite|(?:may|can|does|do|will) not be (?:written"
        r"|bound)|cannot be (?:written|bound)|(?:do|does|will) not (?:write|insure|accept)",
        "refer": r"refer|escalat|senior|sign[- ]off|for review",
        "approve_with_conditions": r"approv|subject to|provided|accept|(?:may|can) be (?:"
        r"written|bound)|write|written|with conditions",
        "exclude": r"exclu|endorse",
        "verify": r"verif|confirm|validat|inspect|document|evidence",
        "flag_for_review": r"flag|review",
    }.items()
}
_STATE_NAMES = {code: name for name, code in US_STATES.items()}
#: What finding each part of a rule in a sentence adds to its score.
_WEIGHT_THRESHOLD, _WEIGHT_NUMBER, _WEIGHT_SOFT, _WEIGHT_VALUE, _WEIGHT_ACTION = 4, 2, 1.5, 2, 1
_KNOWN = KNOWN_UNITS | {"usd"}
_OTHER_VALUE = 1.0  # no number of the rule, but one in its unit (money, miles, percent, ...)
_WRONG_UNIT = 0.25  # a number in another unit ("40 people" for 40 percent)
_FLOOR, _RELATIVE = 3.0, 0.5  # a span scores at least this, and this share of the best


@dataclass(frozen=True)
class Span:
    """A stretch of a text that states a rule.

    Attributes:
        start: Offset of its first character.
        end: Offset just past its last character.
        score: How strongly it states the rule (higher is stronger).
    """

    start: int
    end: int
    score: float


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Cut a text into sentences (and lines that stand alone), as character spans.

    A sentence ends at ".", "!" or "?" and a space, unless the word before the period is an
    abbreviation ("e.g.", "U.S.", "approx.", an initial) or the next word is in lower case.
    Numbers keep their dots ("3.1", "s.8.3", "2.5", "$1.5M"); semicolons and colons end
    nothing; a line break ends a sentence before a bullet, a numbered item, a "Label:", a
    table row, after a short line (a heading) and after a blank line.

    Args:
        text: The text.

    Returns:
        (start, end) of every sentence in text order, without surrounding whitespace.
    """
    spans: list[tuple[int, int]] = []
    for first, last in _blocks(text):
        start = first
        for match in _END.finditer(text, first, last):
            if _ends_sentence(text, match, last):
                spans.append((start, match.end()))
                start = match.end()
        spans.append((start, last))
    return [t for t in (_trim(text, a, b) for a, b in spans) if t[0] < t[1]]


def _blocks(text: str) -> Iterator[tuple[int, int]]:
    """Runs of lines that belong together (a paragraph, one bullet, one table row)."""
    start = end = 0
    previous = ""
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if end > start and _breaks(previous, body):
            yield start, end
            start = end
        end += len(line)
        if body.strip():
            previous = body
        elif end > start:  # a blank line ends the block
            yield start, end
            start, previous = end, ""
    if end > start:
        yield start, end


def _breaks(previous: str, line: str) -> bool:
    """Whether a line break between two lines ends the piece before it."""
    last = previous.strip()
    table = "|" in previous + line or "\t" in last
    return bool(last) and bool(
        table or _LINE_END.search(previous) or _LINE_START.match(line) or len(last) < _SHORT_LINE
    )


def _ends_sentence(text: str, match: re.Match[str], last: int) -> bool:
    """A period, '!' or '?' run that ends a sentence (not an abbreviation's dot)."""
    rest = text[match.end() : last].lstrip()
    if not rest:
        return False  # the block's end closes it anyway
    if "!" in match.group(0) or "?" in match.group(0):
        return True
    if rest[0].islower():
        return False
    word = _WORD_BEFORE.search(text[max(0, match.start() - 20) : match.start() + 1])
    if word:
        name = word.group(1).lower()
        if name in _ABBREVIATIONS or _INITIALISM.match(name):
            return False
        if name in _BEFORE_NUMBER and rest[0].isdigit():
            return False
    return True


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    piece = text[start:end]
    return start + len(piece) - len(piece.lstrip()), end - len(piece) + len(piece.rstrip())


def _norm(word: str) -> str:
    """One form for a stem and its twins ("decline" / "declined", "refer" / "referred")."""
    if len(word) > 4 and (word[-1] == "e" or (word[-1] == word[-2] and word[-1] not in "aeiou")):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    """Content-word stems of a text, in order (numbers in words are left to the numbers)."""
    return [
        _norm(s)
        for s in stems(text)
        if len(s) > 1 and s not in STOP_STEMS and s not in _FUNCTION_WORDS and not _number_word(s)
    ]


@lru_cache(maxsize=4096)
def _number_word(word: str) -> bool:
    return bool(find_numbers(word))


@dataclass
class _Terms:
    """What a rule says, in the forms a sentence can be matched against."""

    numbers: dict[float, tuple[float, str | None]]
    """A number of the rule -> how much finding it tells, the unit it is counted in."""
    words: dict[str, float]
    values: list[tuple[tuple[str, ...], ...]]
    action: re.Pattern[str] | None


_PROFILES: dict[int, tuple[Mapping[str, FieldSpec], DictionaryProfile]] = {}


def _profile(fields: Mapping[str, FieldSpec] | None) -> DictionaryProfile | None:
    """The data dictionary's profile (`memory.underwriting.fieldlink`), once per mapping."""
    if not fields:
        return None
    cached = _PROFILES.get(id(fields))
    if cached is None or cached[0] is not fields:
        if len(_PROFILES) > 32:
            _PROFILES.clear()
        cached = _PROFILES[id(fields)] = (fields, profile_of(DataDictionary(fields=dict(fields))))
    return cached[1]


def _add(words: dict[str, float], text: str, weight: float) -> None:
    for word in _words(text):
        words[word] = max(words.get(word, 0.0), weight)


def _rule_numbers(
    rule: ExtractedRule, profile: DictionaryProfile | None
) -> dict[float, tuple[float, str | None]]:
    """The rule's numbers, how much finding each one tells and the unit it is counted in."""
    found: dict[float, tuple[float, str | None]] = {}

    def note(value: object, weight: float, field: str | None, unit: str | None) -> None:
        info = profile.fields.get(field) if profile and field else None
        unit = canonical_unit(unit) or (info.unit if info else None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, int | float) and not isinstance(item, bool):
                old = found.get(float(item), (0.0, None))
                if old[0] < weight:
                    found[float(item)] = (weight, unit or old[1])

    threshold = rule.threshold
    if threshold is not None:
        note(threshold.value, _WEIGHT_THRESHOLD, threshold.field, threshold.unit)
    if rule.soft_limit is not None:
        field = threshold.field if threshold else None
        note(rule.soft_limit, _WEIGHT_SOFT, field, threshold.unit if threshold else None)
    for condition in rule.conditions:
        note(condition.value, _WEIGHT_NUMBER, condition.field, None)
    return found


def _field_words(
    words: dict[str, float], name: str, profile: DictionaryProfile | None, weight: float
) -> None:
    """A field's naming words: its name, and its synonyms and description when known."""
    info = profile.fields.get(name) if profile else None
    if info is None or profile is None:
        _add(words, name, weight)
        return
    for word in info.words:
        specific = weight * (0.5 + 0.5 * profile.weight(word))
        words[_norm(word)] = max(words.get(_norm(word), 0.0), specific)
    for word in info.desc_words:
        words[_norm(word)] = max(words.get(_norm(word), 0.0), weight * 0.4)


def _terms(rule: ExtractedRule, profile: DictionaryProfile | None) -> _Terms:
    """Collect what a sentence stating the rule would say."""
    words: dict[str, float] = {}
    _add(words, rule.outcome_description, 0.3)
    _add(words, " ".join([rule.rule_name, *rule.mitigants]), 0.3)
    for name in rule.data_fields:
        _field_words(words, name, profile, 0.5)
    for name in rule.mitigant_fields:
        _field_words(words, name, profile, 0.6)
    fields = [c.field for c in rule.conditions]
    if rule.threshold is not None:
        fields.append(rule.threshold.field)
    for name in fields:
        _field_words(words, name, profile, 1.0)
    _add(words, rule.risk_factor, 1.0)
    values: list[tuple[tuple[str, ...], ...]] = []
    for condition in rule.conditions:
        items = condition.value if isinstance(condition.value, list) else [condition.value]
        for item in items:
            if isinstance(item, str):
                forms = (tuple(_words(item)), tuple(_words(_STATE_NAMES.get(item.upper(), ""))))
                if any(forms):
                    values.append(tuple(f for f in forms if f))
    return _Terms(_rule_numbers(rule, profile), words, values, _ACTION_WORDS.get(rule.action))


def _same(found: float, unit: str | None, wanted: float) -> bool:
    """A number in the text equals a rule's number (as written, signless, or as percent)."""
    scales = (1.0, 100.0, 0.01) if unit == "percent" else (1.0,)
    return any(math.isclose(found, abs(wanted) * k, rel_tol=1e-6) for k in scales) or (
        math.isclose(found, wanted, rel_tol=1e-6, abs_tol=1e-9)
    )


def _number_weight(written: str | None, wanted: str | None) -> float:
    """How far a number written with one unit can state a value in the other (0 to 1).

    A unit the number reader knows ("miles", "usd", "percent", ...) must agree with a
    known unit of the rule; a bare number may state anything, but counts half against a
    known unit ("Module 3", "one claim"); a word after a number ("employees", "people")
    only disagrees with a known unit.
    """
    if wanted is None or written == wanted or {written, wanted} <= {"year", "years"}:
        return 1.0
    if written is None:
        return 0.5 if wanted in _KNOWN else 1.0
    if wanted in _KNOWN or (written in _KNOWN and written != "percent"):
        return _WRONG_UNIT
    return 1.0


def _number_score(sentence: str, numbers: dict[float, tuple[float, str | None]]) -> float:
    """The weights of the rule's numbers the sentence writes, in a unit they can be in."""
    mentions = [(m.value, m.unit, canonical_unit(m.unit)) for m in find_numbers(sentence)]
    score = 0.0
    for value, (weight, unit) in numbers.items():
        fits = [_number_weight(u, unit) for v, raw, u in mentions if _same(v, raw, value)]
        score += weight * max(fits, default=0.0)
    # Another value in the rule's own unit is a weak sign (an older version's limit, a case).
    units = {unit for _, unit in numbers.values() if unit in _KNOWN}
    return max(score, _OTHER_VALUE if any(u in units for _, _, u in mentions) else 0.0)


def _score(sentence: str, terms: _Terms, rarity: Mapping[str, float]) -> float:
    """How strongly one sentence states the rule."""
    score = _number_score(sentence, terms.numbers)
    seen = set(_words(sentence))
    score += sum(w * rarity.get(word, 1.0) for word, w in terms.words.items() if word in seen)
    for forms in terms.values:
        share = max(sum(1 for v in form if v in seen) / len(form) for form in forms)
        score += _WEIGHT_VALUE * share if share >= 0.5 else 0.0
    if terms.action is not None and terms.action.search(sentence):
        score += _WEIGHT_ACTION
    return score


def _rarity(sentences: Sequence[str]) -> dict[str, float]:
    """Down-weight words every sentence of the text uses (they tell sentences apart less)."""
    count, df = len(sentences), dict[str, int]()
    if count < 3:
        return {}
    for sentence in sentences:
        for word in set(_words(sentence)):
            df[word] = df.get(word, 0) + 1
    return {w: 0.5 + 0.5 * math.log(count / n) / math.log(count) for w, n in df.items()}


def evidence_spans(
    text: str,
    rule: ExtractedRule,
    *,
    fields: Mapping[str, FieldSpec] | None = None,
    most: int = 2,
) -> list[Span]:
    """The sentences of a text that state a rule, best first.

    Args:
        text: A source text of the rule.
        rule: The rule.
        fields: The data dictionary's fields (`DataDictionary.fields`): their synonyms
            and descriptions count as the field's words; None for the field names only.
        most: At most this many spans.

    Returns:
        Up to `most` sentence spans whose score passes a floor and is at least half the
        best one's; [] when nothing in the text speaks of the rule.
    """
    if most <= 0 or not text.strip():
        return []
    spans = sentence_spans(text)
    terms, rarity = _terms(rule, _profile(fields)), _rarity([text[a:b] for a, b in spans])
    scored = [Span(a, b, round(_score(text[a:b], terms, rarity), 3)) for a, b in spans]
    ranked = sorted((s for s in scored if s.score >= _FLOOR), key=lambda s: (-s.score, s.start))
    return [s for s in ranked if s.score >= ranked[0].score * _RELATIVE][:most]


def highlight(text: str, spans: Sequence[Span]) -> list[tuple[str, bool]]:
    """Cut a text into (piece, highlighted) segments that cover it once, in order.

    Overlapping or touching spans are merged; spans are clipped to the text.

    Args:
        text: The text.
        spans: The spans to mark.

    Returns:
        The segments; joining their pieces gives `text` back. [] for an empty text.
    """
    marks: list[list[int]] = []
    for span in sorted(spans, key=lambda s: s.start):
        start, end = max(0, span.start), min(len(text), span.end)
        if start < end and marks and start <= marks[-1][1]:
            marks[-1][1] = max(marks[-1][1], end)
        elif start < end:
            marks.append([start, end])
    cuts = [0, *(at for mark in marks for at in mark), len(text)]
    pieces = [(text[a:b], n % 2 == 1) for n, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False))]
    return [(piece, marked) for piece, marked in pieces if piece]
