"""Number parsing for the offline extractor: digits, money, percents and number words."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.underwriting.fieldlink.stems import stem

_SMALL: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "dozen": 12,
}
_SCALES: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_FRACTIONS: dict[str, float] = {
    "quarter": 0.25,
    "quarters": 0.25,
    "half": 0.5,
    "third": 1 / 3,
    "thirds": 1 / 3,
    "fifth": 0.2,
    "fifths": 0.2,
    "tenth": 0.1,
    "tenths": 0.1,
}
#: "third" is an ordinal ("a third party") unless a share follows: "a third of sales".
_SHARE_ONLY = frozenset({"third", "thirds", "quarters", "fifth", "fifths", "tenth", "tenths"})
#: "a third of sales", "a fifth under the minimum": a share, not an ordinal
_OF_AFTER = re.compile(r"^\s+(?:of|under|below|above|over|short of)\b", re.I)
#: "up to about a third self-build", "more than a third": a bound before it makes a share.
_SHARE_BEFORE = re.compile(
    r"\b(?:(?:up to|more than|less than|fewer than|at least|at most|no more than|over|under|"
    r"above|below|exceeds?|exceeding|beyond|past)(?:\s+(?:about|roughly|around|nearly|"
    r"almost))?|about|roughly|around|nearly|almost)\s+$",
    re.I,
)
_TRAILING_AND = re.compile(r"(?:[\s-]+and)+$", re.I)
_OF_EVERY = re.compile(r"\s+(?:out\s+)?(?:of|in)\s+every\s+", re.I)
#: A word prefix hyphened to a number word: "sub-zero", "non-zero", "below-zero".
_PREFIXED = re.compile(r"\b(?:sub|non|below|above|near|multi)-$", re.I)
_PREFIX_REACH = len("below-") + 1  # the longest prefix and the boundary before it
#: "one sale in ten": a counted noun, then "in" or "out of" the whole.
_ONE_IN = re.compile(r"\s+[a-z]+\s+(?:in|out\s+of)\s+(?:every\s+)?", re.I)
#: A ratio's first term is a small count ("one in ten", "three in twenty").
_RATIO_TOP = 10
_OF_ONE_PERCENT = re.compile(r"^\s+of\s+(?:one|a|1)\s*(?:percent|per cent|%)", re.I)
_WORDS = "|".join(["a", "an", "and", "hundred", *_SMALL, *_SCALES, *_FRACTIONS])
#: "two point four million": "point" joins a number only between number words
_POINT = r"point(?=[\s-]+(?:zero|one|two|three|four|five|six|seven|eight|nine)\b)"
_WORD_SEQ = re.compile(rf"\b(?:{_WORDS})(?:[\s-]+(?:{_WORDS}|{_POINT}))*\b", re.I)
_BARE_A_UNITS = re.compile(
    # "an hour" alone is no number; "an hour and a half" is 1.5 hours
    r"^[\s-]*(?:mile|year|day|month|week|foot|story|quarter|half|million|thousand|"
    r"(?:hour|minute)(?=\s+and\s+a\s+half)|"
    # "an hour and forty-five minutes" is 105 minutes
    r"hour(?=\s+and\s+[\w-]+(?:\s+[\w-]+)?\s+minutes?\b))\b",
    re.I,
)

_DIGITS = re.compile(
    r"(?<![\w.$-])(?P<dollar>\$\s?)?"
    r"(?P<num>\d+/\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<scale>\s?(?:[kKmM]{1,2}|bn|[bB])\b|\s(?:million|billion|thousand)\b)?"
    r"(?P<pct>\s?(?:%|percent\b|per cent\b))?"
)
_DOLLAR_BEFORE_WORDS = re.compile(r"\$\s*$")
_SCALE_LETTER: dict[str, float] = {
    "k": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "million": 1e6,
    "billion": 1e9,
    "thousand": 1e3,
}

_UNIT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "usd_per_sqft",
        re.compile(r"^\s*(?:per|/|a)\s*(?:square\s*(?:foot|feet|ft)|sq\.?\s*ft\.?|sf)\b", re.I),
    ),
    (
        "sqft",
        re.compile(r"^[\s-]*(?:square[\s-]*(?:feet|foot|footage)|sq\.?\s*ft\.?|sqft|sf)\b", re.I),
    ),
    # "two floor guards" counts guards: a singular "floor" before a plural noun is a modifier
    (
        "stories",
        re.compile(r"^[\s-]*(?:stor(?:y|ies|eys?)|floors|floor(?![\s-]+[a-z]+s\b))\b", re.I),
    ),
    ("years", re.compile(r"^[\s-]*(?:years?|yrs?)\b", re.I)),
    ("months", re.compile(r"^[\s-]*months?\b", re.I)),
    # "4 1/2 h", "36 hrs": the short forms of hours in a log's cells
    ("hour", re.compile(r"^[\s-]*(?:hours?|hrs?|h)\b(?!\.?p\b)", re.I)),
    ("weeks", re.compile(r"^[\s-]*weeks?\b", re.I)),
    ("days", re.compile(r"^[\s-]*days?\b", re.I)),
    ("miles", re.compile(r"^[\s-]*(?:miles?|mi)\b", re.I)),
    # "2,600 gal" in a field counted in gallons
    ("gallon", re.compile(r"^[\s-]*(?:gallons?|gals?)\b", re.I)),
    # "sixty thousand foot-pounds": a unit of energy, not of length
    ("ft-lb", re.compile(r"^[\s-]*(?:foot|ft)[\s-]*(?:pounds?|lbs?)\b", re.I)),
    # not "foot-candles", a unit of light
    ("ft", re.compile(r"^[\s-]*(?:feet|foot|ft)\b(?!-candle)(?![\s-]*(?:pounds?|lbs?)\b)", re.I)),
    # "six and a half megawatts" in a field counted in "MW"
    ("mw", re.compile(r"^[\s-]*(?:megawatts?|mw)\b", re.I)),
    ("kw", re.compile(r"^[\s-]*(?:kilowatts?|kw)\b", re.I)),
    # "13 metres across" in a field counted in "m"
    ("meter", re.compile(r"^[\s-]*(?:met(?:er|re)s?|m)\b", re.I)),
)
_PLUS = re.compile(r"^(?:-?plus\b|\+)", re.I)
_POST_CMP = re.compile(
    r"^\s*(?:or|and)\s+(?:more|greater|higher|older|above|over|up|less|fewer|lower|younger|"
    r"under|below|worse|better|farther|further|closer|nearer)\b",
    re.I,
)
_RAW_UNIT = re.compile(r"^(-?)\s*([a-z][a-z]+)\b(?!-[a-z])", re.I)  # not "heavy" of "heavy-duty"
#: Words between a count and what it counts: "two formal walk-rounds", "three full shifts".
_UNIT_ADJECTIVES = frozenset(
    "formal full separate additional extra further distinct independent documented recorded "
    "scheduled physical written annual monthly weekly daily".split()
)
#: "... per square foot", "... per hour": what makes a unit a rate.
_PER = re.compile(r"^[\s-]*(?:per|/)[\s-]*((?:square|sq\.?)\s+)?([a-z]+)\b", re.I)
#: "fifteen miles an hour", "ten feet a second", "the eighteen-mile-an-hour line": a speed
#: said without "per".
#: "two days a week", "three months a year": a time counted in a longer period.
_A_PERIOD = re.compile(
    r"^[\s-]*(?:an?|in (?:the|a)|each|every)[\s-]+()(week|month|year)\b(?![\s-]*\d)", re.I
)
_AN_HOUR = re.compile(r"^[\s-]*an?[\s-]+()(hour|minute|second)\b", re.I)
_NOT_UNITS = frozenset(
    """
    or and to of in on at by as is are was were be been must may can could should will would
    the a an it that this for with from than per if when unless until but so then its their
    need needs require requires drop drops land lands mean means go goes get gets stay stays
    we you they he she i us our your there here every each all after before which who
    through thru till up down more less over under above below within between versus vs such
    where whereas while whose what how once since because though although
    pretty quite very fairly rather routinely regularly often usually generally typically
    easily comfortably without nonetheless went came come comes got had has have did does do
    """.split()
)
KNOWN_UNITS = frozenset(
    {
        "usd",
        "usd_per_sqft",
        "percent",
        "sqft",
        "stories",
        "years",
        "year",
        "months",
        "weeks",
        "days",
        "miles",
        "ft",
    }
)


@dataclass(frozen=True)
class NumberMention:
    """One number found in a text.

    Attributes:
        value: The number (money and scales applied; percents as written, 25% -> 25).
        unit: Canonical unit ("usd", "percent", "sqft", "years", "year", ...), a raw
            following word, or None.
        start: Offset of the first character of the mention.
        end: Offset just past the mention, including its unit.
        num_end: Offset just past the number itself (before the unit).
        attached: The unit was hyphen-attached ("36-unit"): a count, not a threshold.
        plus: Written with "+" or "-plus" ("ten-plus years").
        fraction: Written as a share in words ("half", "a third of"), value below 1.
    """

    value: float
    unit: str | None
    start: int
    end: int
    num_end: int
    attached: bool = False
    plus: bool = False
    fraction: bool = False


def canonical_unit(unit: str | None) -> str | None:
    """Map a unit string (a field's unit or a word after a number) to a canonical form.

    Args:
        unit: The unit as written, e.g. "USD", "sq ft", "percent", "employees".

    Returns:
        A canonical unit, or None for no unit.
    """
    if not unit:
        return None
    text = unit.strip().lower()
    if ("usd" in text or "$" in text) and ("sq" in text or "ft" in text):
        return "usd_per_sqft"
    if text in {"usd", "$", "dollars", "dollar"}:
        return "usd"
    if text in {"percent", "%", "pct", "percentage"}:
        return "percent"
    if text in {"year", "calendar year"}:
        return "year"
    for name, pattern in _UNIT_PATTERNS[1:]:
        match = pattern.match(text)
        if match and match.end() == len(text):
            return name
    return stem(text.split()[0])


def rate_fits(unit: str, field_unit: str) -> bool:
    """True when a rate read after a number ("pound per square foot") is a field's unit.

    The field may write it out ("vehicles/day", "residents per caregiver") or by initials,
    with or without the "per" ("psf", "psi", "mph").
    """
    words = unit.split(" per ")
    # "supervisors per hundred" is the field's "supervisors per 100 guests"
    said = [_PER_SCALE.get(stem(w), stem(w)) for part in words for w in part.split()]
    field = field_unit.strip().lower()
    if not field or not said:
        return False
    initials = "".join(w[0] for w in said)
    with_per = said[0][0] + "p" + "".join(w[0] for w in said[1:])
    if field in {initials, with_per}:
        return True
    written = [stem(w) for w in re.split(r"\s*(?:/|\bper\b)\s*|\s+", field) if w]
    if said[0] == "time" and len(said) == 2 and re.search(r"/|\bper\b", field):
        return written[-1] == said[-1]  # "eight times an hour" in "air changes/hour"
    # "per hundred" leaves out what the hundred counts ("per 100 guests")
    return written == said or (written[:-1] == said and said[-1].isdigit())


#: A scale a rate is per: "per hundred" is per 100.
_PER_SCALE = {"hundr": "100", "hundred": "100", "thousand": "1000"}


#: Units of time: a number in one is a duration ("three years"), never a count.
TIME_UNITS = frozenset({"years", "months", "days", "weeks"})
_CLOCK_UNITS = frozenset({"hour", "minute", "second"})
#: "a few", "a couple", "a handful" after a number: how often, not what it counts.
_SOME_WORDS = frozenset({"few", "couple", "handful", "lot", "bit"})
#: Number words (their stems too): they count things, they never name a field.
NUMBER_WORDS = frozenset([*_SMALL, "hundred", *_SCALES] + [stem(w) for w in _SMALL])


def _eval_words(words: list[str]) -> float | None:
    if (
        len(words) == 2
        and 1 <= _SMALL.get(words[0], 0) <= 9
        and _SMALL.get(words[1], 0) in range(20, 100, 10)
    ):
        # "six-fifty" is said for 650 (units then tens is no composed number)
        return _SMALL[words[0]] * 100.0 + _SMALL[words[1]]
    total, current, last_scale = 0.0, 0.0, 1.0
    pending_a, seen, previous = False, False, ""
    plus_share = False  # "two and a half": the share adds to the number before it
    place = 0.0  # after "point": the place of the next digit ("two point four" is 2.4)
    for word in words:
        after, previous = previous, word
        if word == "point":
            place = 0.1
            continue
        if place and _SMALL.get(word, 10) < 10:
            current, place = current + _SMALL[word] * place, place / 10
            continue
        place = 0.0
        if word in {"a", "an"}:
            if current == 0:
                current, pending_a = 1.0, True
            elif after == "and":
                plus_share = True
            continue
        if word == "and":
            continue
        seen = True
        if word in _FRACTIONS and plus_share:
            current += _FRACTIONS[word]
        elif word in _FRACTIONS:
            if total > 0 and pending_a:
                total += _FRACTIONS[word] * last_scale
                current = 0.0
            else:
                current = _FRACTIONS[word] * (1.0 if pending_a or current == 0 else current)
        elif word == "dozen":  # "four dozen" is 48, "half a dozen" 6, "a dozen" 12
            current = (current if current > 0 else 1.0) * 12
        elif word in _SMALL:
            current = (0.0 if pending_a else current) + _SMALL[word]
        elif word == "hundred":
            current = max(current, 1.0) * 100
        elif word in _SCALES:
            # "a quarter million" -> 250,000; "a million" -> 1,000,000
            total += (current if current > 0 else 1.0) * _SCALES[word]
            current, last_scale = 0.0, _SCALES[word]
        pending_a = plus_share = False
    if not seen and current == 0:
        return None
    return total + current


#: A foot mark right after a number: "200'", "40′" (not a quote that opens a word).
_FOOT_MARK = re.compile(r"^['’′](?![A-Za-z\d])")
#: A degree sign after a figure: "80 °F", "5°C", "72º".
_DEGREE_SIGN = re.compile(r"\s?[\u00b0\u00ba](?:\s?[FC]\b)?")


def _unit_after(text: str, pos: int) -> tuple[str | None, int, bool, bool]:
    """Read the unit following a number at `pos`: (unit, end, attached, plus)."""
    rest = text[pos:]
    plus = False
    match = _PLUS.match(rest)
    if match:
        plus, pos, rest = True, pos + match.end(), rest[match.end() :]
    match = _POST_CMP.match(rest)
    if match:
        pos, rest = pos + match.end(), rest[match.end() :]
    match = _DEGREE_SIGN.match(rest)
    if match:  # "80 °F", "5°C": degrees
        return "degree", pos + match.end(), False, plus
    match = _FOOT_MARK.match(rest)
    if match:  # "200' is the book number": feet
        return "ft", pos + match.end(), False, plus
    for name, pattern in _UNIT_PATTERNS[1:]:
        match = pattern.match(rest)
        if match:
            if name == "years" and re.match(r"^[\s-]*years?-old", rest, re.I):
                return name, pos + rest.lower().index("old") + 3, True, plus
            end = pos + match.end()
            rate = _PER.match(text[end:]) or _AN_HOUR.match(text[end:])
            if rate is None and name in ("days", "weeks", "months"):
                rate = _A_PERIOD.match(text[end:])  # "two days a week": days per week
            if rate and not rate.group(1):  # "15 miles per hour": a speed, not a distance
                said = stem(match.group(0).strip(" -").split()[-1])
                return f"{said} per {stem(rate.group(2))}", end + rate.end(), False, plus
            return name, end, rest.startswith("-"), plus
    match = _RAW_UNIT.match(rest)
    if match and not match.group(1) and match.group(2).lower() in _UNIT_ADJECTIVES:
        # "two formal walk-rounds", "three full years": what is counted comes after
        unit, end, attached, _ = _unit_after(text, pos + match.end())
        return (unit, end, attached, plus) if unit else (None, pos, False, plus)
    if match and match.group(2).lower() not in _NOT_UNITS:
        unit, end = stem(match.group(2)), pos + match.end()
        unit = "usd" if unit == "dollar" else unit  # "two million dollars" is money
        rate = _PER.match(text[end:]) or _AN_HOUR.match(text[end:])
        if rate:  # "150 pounds per square foot", "eight times an hour": a rate
            unit = f"{unit} per {'square ' if rate.group(1) else ''}{stem(rate.group(2))}"
            end += rate.end()
        else:
            compared = _POST_CMP.match(text[end:])
            rate = _PER.match(text[end + compared.end() :]) if compared else None
            if rate:  # "eight guests or fewer per wrangler": the rate, its comparator kept
                unit = f"{unit} per {'square ' if rate.group(1) else ''}{stem(rate.group(2))}"
        return unit, end, bool(match.group(1)), plus
    return None, pos, False, plus


def _digit_mentions(text: str) -> list[NumberMention]:
    found: list[NumberMention] = []
    for match in _DIGITS.finditer(text):
        raw = match.group("num")
        if "/" in raw:
            top, bottom = raw.split("/")
            if float(bottom) == 0:
                continue
            value = float(top) / float(bottom)
        else:
            value = float(raw.replace(",", ""))
        scale = (match.group("scale") or "").strip().lower()
        money = bool(match.group("dollar"))
        num_end = match.end()
        if scale and (money or scale in {"million", "billion", "thousand"}):
            value *= _SCALE_LETTER.get(scale, 1.0)
        elif scale:
            # "100k records", "1M records" (a capital M glued to the number is a million;
            # a lower-case or spaced "m" may be metres or minutes, "35 mm" millimetres)
            glued_m = match.group("scale") in {"M", "MM"}
            if scale in {"k", "bn"} or glued_m:
                value *= _SCALE_LETTER.get(scale, 1.0)
            elif scale == "mm" or match.group("scale") == " m":
                num_end = match.start("scale")  # the unit after the number reads it
        if match.group("pct"):
            found.append(NumberMention(value, "percent", match.start(), num_end, num_end))
            continue
        if money:
            per = _UNIT_PATTERNS[0][1].match(text[num_end:])
            money_unit, end = ("usd_per_sqft", num_end + per.end()) if per else ("usd", num_end)
            found.append(NumberMention(value, money_unit, match.start(), end, num_end))
            continue
        unit, end, attached, plus = _unit_after(text, num_end)
        year_like = 1600 <= value <= 2100 and value.is_integer() and "," not in raw
        if year_like and not attached and unit not in KNOWN_UNITS:
            unit, end = "year", num_end
        # "> 1/5 of receipts": a share written in digits, as "a fifth of" is in words
        share = "/" in raw and value < 1 and unit is None and bool(_OF_AFTER.match(text[num_end:]))
        found.append(NumberMention(value, unit, match.start(), end, num_end, attached, plus, share))
    return found


#: A whole number and a fraction of one: "4 1/2", "2 3/4".
_MIXED = re.compile(r"\d+ [1-9]/(?:2|3|4|8)")
#: "Class IV water", "grade III": a roman numeral ranks a class or a grade.
#: Only a compared one: "Class IV water or harder", "above grade III" (not "Class IV beam
#: shows", a name).
_ROMAN = re.compile(
    r"(?P<before>(?i:\b(?:above|over|below|under|beyond|past|at least|at most|than)\s+))?"
    r"\b(?i:class|grade)\s+(?P<num>VI{0,3}|IV|IX|I{1,3}|X)\b"
    r"(?P<after>(?:\s+[a-z]+)?\s+(?i:or|and)\s+(?i:harder|higher|above|more|worse|tougher|"
    r"easier|lower|below|less|milder|up|over|under)\b)?"
)
_ROMAN_VALUES = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8,
                 "IX": 9, "X": 10}  # fmt: skip


def _roman_mentions(text: str) -> list[NumberMention]:
    """Roman numerals after "class" or "grade" ("Class IV water or harder" is 4)."""
    return [
        NumberMention(
            float(_ROMAN_VALUES[m.group("num")]), None, m.start("num"), m.end("num"), m.end("num")
        )
        for m in _ROMAN.finditer(text)
        if m.group("after") or m.group("before")
    ]


#: "any one", "no one", "every one": "one" as a word of its determiner.
_ANY_ONE = re.compile(r"\b(?:any|no|every|each|some)\s+$", re.I)
#: "... and one at thirteen hundred": "one" counts a case placed at a figure of its own.
_ONE_AT = re.compile(
    r"\s+(?:at|of|with|on)\s+(?:about\s+|around\s+|roughly\s+|some\s+)?(?:\$?\d|"
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|a hundred|a thousand)\b)",
    re.I,
)


def _word_groups(match: re.Match[str]) -> list[tuple[int, int]]:
    """Split a run of number words into numbers: "a hundred and two hundred" is two.

    "and" joins one number only after a scale word ("two hundred and fifty") that does not
    come again, or before a share ("two and a half"); otherwise it separates two numbers
    ("ten and twenty").
    """
    words = list(re.finditer(r"[^\s-]+", match.group(0)))
    groups: list[tuple[int, int]] = []
    begin = 0
    for i, word in enumerate(words):
        if word.group(0).lower() != "and" or i in {0, len(words) - 1}:
            continue
        before = words[i - 1].group(0).lower()
        after = words[i + 1].group(0).lower()
        rest = [w.group(0).lower() for w in words[i + 1 :]]
        rest = rest[: rest.index("and")] if "and" in rest else rest  # up to the next "and"
        repeated = before in rest and before in {"hundred", *_SCALES}  # "a hundred and two hundred"
        # "three at twelve hundred and one at thirteen hundred": a count of one, told apart
        counted = rest == ["one"] and _ONE_AT.match(match.string, match.end()) is not None
        if not (repeated or counted) and (before in {"hundred", *_SCALES} or after in {"a", "an"}):
            continue
        if i > begin:
            groups.append((words[begin].start(), words[i - 1].end()))
        begin = i + 1
    if begin < len(words):
        groups.append((words[begin].start(), words[-1].end()))
    return [(match.start() + a, match.start() + b) for a, b in groups]


def _word_mentions(text: str) -> list[NumberMention]:
    found: list[NumberMention] = []
    for match in (
        m
        for whole in _WORD_SEQ.finditer(text)
        for a, b in _word_groups(whole)
        for m in [_WORD_SEQ.match(text, a, b)]
        if m is not None
    ):
        words = re.split(r"[\s-]+", match.group(0).lower())
        start = match.start()
        if _PREFIXED.search(text, max(0, start - _PREFIX_REACH), start):
            continue  # "a sub-zero room", "a non-zero balance": a word, no figure
        if words == ["one"] and _ANY_ONE.search(text, max(0, start - 6), start):
            continue  # "on any one sailing", "no one has": a determiner, no figure
        while words and words[0] == "and":
            start += len(words.pop(0)) + 1
        bare_a = bool(words) and all(w in {"a", "an", "and"} for w in words)
        if bare_a and not _BARE_A_UNITS.match(text[match.end() :]):
            continue
        per_a = False  # "six a month": a frequency, "a month" is no duration
        while not bare_a and words and words[-1] in {"and", "a", "an"}:
            per_a = per_a or words[-1] in {"a", "an"}
            words.pop()
        if not words:
            continue
        num_end = match.end()
        trailing_and = None if per_a else _TRAILING_AND.search(match.group(0))
        if trailing_and:  # "eighteen hundred and QA raised": the unit is not "QA"
            num_end = match.start() + trailing_and.start()
        shares = [w for w in words if w in _FRACTIONS]
        counted = words != shares and shares[-1:] == words[-1:] and words[-1].endswith("s")
        if (
            any(w in _SHARE_ONLY for w in shares)
            and (
                words == shares  # "the fifth of May"
                or not (
                    counted
                    or _OF_AFTER.match(text[match.end() :])  # not "two-tenths gpm"
                    or (  # "up to about a third", not "over a third party"
                        _SHARE_BEFORE.search(text[: match.start()])
                        and not re.match(r"[\s-]+part(?:y|ies)\b", text[match.end() :], re.I)
                    )
                )
            )
        ):
            continue
        value = _eval_words(words) if not bare_a else 1.0
        if value is None:
            continue
        value = round(value, 9)  # "six-tenths": 0.6, not 0.6000000000000001
        fraction = bool(shares) and value < 1
        dollar = bool(_DOLLAR_BEFORE_WORDS.search(text[:start]))
        unit, end, attached, plus = _unit_after(text, num_end)
        of_a = _OF_AN.match(text[num_end:]) if fraction and unit is None else None
        if of_a:  # "two-tenths of a gallon per minute": a share of one unit, in that unit
            found_unit = _unit_after(text, num_end + of_a.end())
            named = found_unit[0] or ""
            if named in _PATTERN_UNITS or " per " in named or named in _SHARE_OF_UNITS:
                num_end = num_end + of_a.end()
                unit, end, attached, plus = found_unit
        if per_a and (unit in TIME_UNITS or unit in _CLOCK_UNITS):  # "eight an hour": a rate
            unit, end = None, match.end()
        elif per_a and unit in _SOME_WORDS:  # "gone to forty a few times": no unit of forty
            unit, end, num_end = None, match.end(), match.end()
        if dollar:
            unit = "usd"
        of_percent = _OF_ONE_PERCENT.match(text[match.end() :]) if fraction else None
        if of_percent:  # "six-tenths of one percent" is 0.6%
            end = match.end() + of_percent.end()
            found.append(NumberMention(value, "percent", start, end, end))
            continue
        found.append(NumberMention(value, unit, start, end, num_end, attached, plus, fraction))
    return found


_PATTERN_UNITS = frozenset(name for name, _ in _UNIT_PATTERNS)


def find_numbers(text: str) -> list[NumberMention]:
    """Find the numbers in a text, with their units.

    Handles "$1.5M", "$250,000", "$6 million", "0.25%", "50,000 square feet", "200ft",
    "six stories", "a quarter mile", "a million and a quarter", "ten-plus years" and
    "two-year-old".

    Args:
        text: The text to scan.

    Returns:
        The mentions in text order.
    """
    mentions = _digit_mentions(text) + _word_mentions(text) + _roman_mentions(text)
    mentions.sort(key=lambda m: m.start)
    kept: list[NumberMention] = []
    for mention in mentions:
        if kept and mention.start < kept[-1].num_end:
            continue
        whole = kept[-1] if kept else None
        if whole is not None and _MIXED.fullmatch(text, whole.start, mention.num_end):
            # "4 1/2 h": a whole number and a fraction, one figure
            kept[-1] = replace(mention, value=whole.value + mention.value, start=whole.start)
            continue
        if kept and mention.start < kept[-1].end and _BARE_A.match(text, mention.start):
            continue  # "twenty miles an hour": the "an hour" of a rate is no number
        share = kept[-1] if kept else None
        if (
            share is not None
            and share.fraction
            and mention.value in _SCALE_VALUES
            and _OF_A.match(text[share.num_end : mention.start])
        ):  # "a quarter of a million dollars" is one number
            kept[-1] = replace(mention, value=share.value * mention.value, start=share.start)
            continue
        if (
            share is not None
            and not share.fraction
            and 0 < share.value < mention.value
            and (
                (share.unit is None and _OF_EVERY.fullmatch(text[share.num_end : mention.start]))
                # "one sale in ten", "one barber in four": a ratio said with its noun
                or (
                    share.unit not in KNOWN_UNITS
                    and mention.unit is None
                    and share.value < _RATIO_TOP
                    and _ONE_IN.fullmatch(text[share.num_end : mention.start])
                )
            )
        ):  # "three of every ten dollars of sales" is a share, 0.3
            kept[-1] = replace(
                mention,
                value=round(share.value / mention.value, 9),
                start=share.start,
                fraction=True,
                unit=None,
            )
            continue
        if (
            share is not None
            and share.unit is not None
            and mention.value == 0.5
            and mention.fraction
            and _AND_A.fullmatch(text[share.end : mention.start])
        ):  # "an hour and a half", "a mile and a half": one number, in the unit before
            kept[-1] = replace(share, value=share.value + 0.5, end=mention.end)
            continue
        if (
            share is not None
            and share.unit == "ft"
            and mention.unit == "inch"
            and mention.value < _INCHES_A_FOOT
            and _FEET_AND_INCHES.fullmatch(text[share.end : mention.start])
        ):  # "two feet six inches", "5 ft 10 in": one length, in inches
            kept[-1] = replace(
                mention, value=share.value * _INCHES_A_FOOT + mention.value, start=share.start
            )
            continue
        if (
            share is not None
            and share.unit == "hour"
            and (mention.unit or "").startswith("minut")
            and mention.value < _MINUTES_AN_HOUR
            and _FEET_AND_INCHES.fullmatch(text[share.end : mention.start])
        ):  # "an hour and forty-five minutes", "2 hours 10 minutes": one time, in minutes
            kept[-1] = replace(
                mention, value=share.value * _MINUTES_AN_HOUR + mention.value, start=share.start
            )
            continue
        kept.append(mention)
    return kept


_MINUTES_AN_HOUR = 60
_INCHES_A_FOOT = 12
#: What joins the feet and the inches of one length: "two feet six inches", "5 ft, 10 in".
_FEET_AND_INCHES = re.compile(r"\s*(?:,|and)?\s*", re.I)


_BARE_A = re.compile(r"an?\b", re.I)
#: "an hour and a half": "and" between a unit and the half that adds to it.
_AND_A = re.compile(r"\s+and\s+", re.I)


#: "a quarter of a million": a share of a scale word.
_OF_A = re.compile(r"^\s+of\s+(?:an?\s+)?$", re.I)
#: Units a share of one may be counted in: "a quarter of an inch", not "half of a building".
_SHARE_OF_UNITS = frozenset(
    {"inch", "second", "minute", "minut", "hour", "gallon", "acre", "mile", "percent"}
)
_OF_AN = re.compile(r"\s+of\s+an?\s+(?=[a-z])", re.I)
_SCALE_VALUES = frozenset({1_000.0, 1_000_000.0, 1_000_000_000.0})
