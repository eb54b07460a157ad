"""Reading a free-text query into a partial submission (field -> value).

"a three-storey frame diner, 40 years old, a mile from the beach" becomes
``{"stories": 3, "construction_type": "frame", "year_built": <this year - 40>,
"coastal_distance_miles": 1.0, ...}`` with the fields of whatever data dictionary is
given: numbers are tied to fields by their unit and the words around them,
categorical values by the values the dictionary lists and the values rules use,
booleans by their synonyms (negated by "no", "without", "un-").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from memory.underwriting.fieldlink.linker import Embed, FieldLinker
from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers
from memory.underwriting.fieldlink.profile import STOP_STEMS, DictionaryProfile, FieldProfile
from memory.underwriting.fieldlink.states import US_STATES
from memory.underwriting.fieldlink.stems import stem

Scalar = str | int | float | bool

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*|\d[\d,]*(?:\.\d+)?")
_NEGATION = frozenset({"no", "not", "without", "lacks", "lacking", "missing", "absent", "non"})
_AGE = re.compile(r"^[\s-]*(?:years?|yrs?)[\s-]*old\b", re.I)
#: "in the last five years": a time window, not a value.
_TIME_WINDOW = re.compile(
    r"\b(?:(?:in|within|during)\s+(?:the\s+)?(?:(?:last|past|prior|previous)\s+)?|"
    r"(?:over|for)\s+(?:the\s+)?(?:last|past|prior|previous)\s+)$",
    re.I,
)
_ABOVE = re.compile(
    r"\b(?:over|above|more than|greater than|exceeding|in excess of|beyond|past)\s*$", re.I
)
_BELOW = re.compile(r"\b(?:under|below|less than|fewer than|short of)\s*(?:the\s*)?$", re.I)
_WINDOW = 5
_CONVERSIONS: dict[tuple[str, str], float] = {
    ("ft", "miles"): 1 / 5280,
    ("miles", "ft"): 5280.0,
    ("months", "years"): 1 / 12,
    ("years", "months"): 12.0,
}
_STATE_NAME = re.compile(
    r"\b(" + "|".join(sorted((re.escape(n) for n in US_STATES), key=len, reverse=True)) + r")\b",
    re.I,
)
_STATE_CODE = re.compile(r"\b([A-Z]{2})\b")
_AMBIGUOUS_CODES = frozenset({"IN", "OR", "ME", "OK", "HI", "AS", "US", "DE", "PA", "AL", "LA"})


@dataclass(frozen=True)
class _Tok:
    stem: str
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(stem(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


class QueryReader:
    """Reads queries into field values with one data dictionary's vocabulary."""

    def __init__(
        self,
        profile: DictionaryProfile,
        known_values: Mapping[str, Iterable[str]] | None = None,
        embed: Embed | None = None,
        today: dt.date | None = None,
    ) -> None:
        """Prepare the linker.

        Args:
            profile: The data dictionary's profile.
            known_values: Values rules use, per categorical field (matched verbatim).
            embed: Optional embedder, to match values worded differently.
            today: Reference date for "N years old" on a calendar-year field.
        """
        self.profile = profile
        self.linker = FieldLinker(profile, known_values, embed)
        self.year = (today or dt.date.today()).year

    def read(self, text: str) -> dict[str, Scalar]:
        """Return the field values a query states (fields it does not mention are absent).

        Args:
            text: The query.

        Returns:
            Canonical field -> value.
        """
        return {name: value for name, (value, _) in self.read_scored(text).items()}

    def read_scored(self, text: str) -> dict[str, tuple[Scalar, float]]:
        """`read` with a confidence per field.

        1 when the value is stated in so many words, 0.5 when a categorical value was
        matched by meaning only.
        """
        values: dict[str, tuple[Scalar, float]] = {}
        tokens = _tokens(text)
        for hit in self.linker.values_in(text, similar=True):
            if hit.field not in values:
                values[hit.field] = (hit.value, 1.0 if hit.score >= 1.0 else 0.5)
        state = self.profile.state
        if state is not None and state not in values:
            code = _state_code(text)
            if code:
                values[state] = (code, 1.0)
        for name, flag in self._bools(tokens).items():
            values[name] = (flag, 1.0)
        for mention in find_numbers(text):
            found = self._number(text, tokens, mention)
            if found is not None and found[0] not in values:
                values[found[0]] = (found[1], 1.0)
        return values

    def _bools(self, tokens: list[_Tok]) -> dict[str, bool]:
        found: dict[str, bool] = {}
        stems = [t.stem for t in tokens]
        for info in self.profile.of_kind("bool"):
            for phrase in info.phrases:
                at = _find(stems, phrase)
                negated = False
                if at is None and len(phrase) == 1:
                    for prefix in ("un", "non"):
                        at = _find(stems, (prefix + phrase[0],))
                        if at is not None:
                            negated = True
                            break
                if at is None:
                    continue
                before = {s for s in stems[max(0, at - 3) : at]}
                found[info.name] = not (negated or bool(before & _NEGATION))
                break
        return found

    def _number(
        self, text: str, tokens: list[_Tok], mention: NumberMention
    ) -> tuple[str, Scalar] | None:
        """Tie one number to a numeric field: (field, value), or None when unclear."""
        before = text[max(0, mention.start - 30) : mention.start]
        if _TIME_WINDOW.search(before):
            return None
        pos = next((i for i, t in enumerate(tokens) if t.start >= mention.start), len(tokens))
        end = next((i for i, t in enumerate(tokens) if t.start >= mention.end), len(tokens))
        near = [t.stem for t in tokens[max(0, pos - _WINDOW) : end + _WINDOW]]
        aged = bool(_AGE.match(text[mention.num_end :]))
        best: tuple[float, FieldProfile, float] | None = None
        tie = False
        for info in self.profile.of_kind("numeric"):
            fit = self._fit(info, mention, aged)
            if fit is None:
                continue
            unit_score, value = fit
            score = unit_score + self._evidence(info, near)
            if info.name in text:
                score += 3.0
            if score <= 0.15:
                continue
            if best is None or score > best[0] + 1e-9:
                best, tie = (score, info, value), False
            elif abs(score - best[0]) <= 1e-9:
                tie = True
        if best is None or tie:
            return None
        info, value = best[1], best[2]
        step = 1.0 if info.spec.type == "int" else max(abs(value) * 1e-6, 1e-9)
        if _ABOVE.search(before):  # "over 25%" is a value past 25
            value += step
        elif _BELOW.search(before):
            value -= step
        if info.spec.type == "int":
            return info.name, int(round(value))
        return info.name, round(value, 9)

    def _fit(
        self, info: FieldProfile, mention: NumberMention, aged: bool
    ) -> tuple[float, float] | None:
        """(unit evidence, value in the field's unit), or None when the units clash."""
        unit, value = mention.unit, mention.value
        if aged:
            if info.unit == "year":  # a calendar year: "40 years old" -> built 40 years ago
                return 0.5, float(self.year - value)
            return (0.5, value) if info.unit == "years" else None
        if mention.fraction and info.unit in {"percent", "rate"}:  # "a third of sales"
            named = unit is not None and unit in info.words
            return (1.5 if named else 0.2), value * (100.0 if info.unit == "percent" else 1.0)
        if unit is None:
            return 0.0, value
        if unit == "percent":
            if info.unit == "percent":
                return 1.0, value
            return (1.0, value / 100.0) if info.unit == "rate" else None
        if unit == info.unit:
            return 1.5, value
        if info.unit and (unit, info.unit) in _CONVERSIONS:
            return 1.0, value * _CONVERSIONS[(unit, info.unit)]
        if unit in info.words or (info.unit and stem(unit) == stem(info.unit)):
            return 1.5, value
        return None

    def _evidence(self, info: FieldProfile, near: list[str]) -> float:
        """Words of the field around the number: whole synonyms 2, words by specificity."""
        score = 0.0
        content = [s for s in near if s not in STOP_STEMS]
        for phrase in info.phrases:
            if len(phrase) > 1 and _find(content, phrase) is not None:
                score += 2.0
        for word in set(content):
            if word in info.words:
                score += self.profile.weight(word)
            elif word in info.desc_words:
                score += self.profile.weight(word) / 3.0
        return score


def _find(stems: list[str], phrase: tuple[str, ...]) -> int | None:
    n = len(phrase)
    for i in range(len(stems) - n + 1):
        if tuple(stems[i : i + n]) == phrase:
            return i
    return None


def _state_code(text: str) -> str | None:
    name = _STATE_NAME.search(text)
    if name:
        return US_STATES[name.group(1).lower()]
    codes = set(US_STATES.values())
    for match in _STATE_CODE.finditer(text):
        code = match.group(1)
        if code in codes and code not in _AMBIGUOUS_CODES:
            return code
    return None
