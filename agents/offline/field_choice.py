"""Which numeric field a number refers to: its unit, the words near it, the topic.

"over 40 feet" on a dictionary with a building height, a setback and a bowl depth goes to
the field whose words stand closest; a bare figure continues the field last compared; a
unit converts ("six months" for a field in years).
"""

from __future__ import annotations

import re
from dataclasses import replace

from agents.offline.textproc import Token, content_tokens, find_phrase
from agents.offline.units import synonyms_of, unit_fits
from agents.offline.vocab import FieldInfo, FieldVocabulary
from memory.underwriting.fieldlink.numbers import (
    KNOWN_UNITS,
    TIME_UNITS,
    NumberMention,
    canonical_unit,
    find_numbers,
)
from memory.underwriting.fieldlink.stems import stem

#: Words after a fraction that are no unit of it: "a quarter off the usual price".
_NOT_A_UNIT = frozenset({"off", "of", "on", "more", "less", "over", "under", "above", "below"})
_TIME_WORDS = frozenset({"night", "hour", "minute", "second", "weekend", "shift", "season"})
_CONVERSIONS: dict[tuple[str | None, str | None], float] = {
    ("ft", "miles"): 1 / 5280,
    ("miles", "ft"): 5280.0,
    # "within one hundred yards of a dwelling" in a field counted in feet
    ("yard", "ft"): 3.0,
    ("yd", "ft"): 3.0,
    # "a trough holding more than a foot of water" in a field counted in inches
    ("ft", "inch"): 12.0,
    ("ft", "in"): 12.0,
    ("yard", "inch"): 36.0,
    ("months", "years"): 1 / 12,
    ("years", "months"): 12.0,
    ("weeks", "days"): 7.0,
    # "a breakdown response longer than two days" in a field counted in hours
    ("days", "hour"): 24.0,
    ("months", "days"): 30.0,
    ("years", "days"): 365.0,
    ("usd", "usd_per_sqft"): 1.0,
    # SI prefixes of power: "one megawatt (1,000 kW)"
    ("mw", "kw"): 1000.0,
    ("kw", "mw"): 0.001,
    # "above half a watt (500 mW)" in a field counted in milliwatts ("mw" is also how a
    # field's "mW" unit reads: watts to it are thousands)
    ("watt", "mw"): 1000.0,
    # "more than six tons of powder" in a field counted in pounds (US short tons)
    ("ton", "lbs"): 2000.0,
    ("ton", "lb"): 2000.0,
    ("ton", "pound"): 2000.0,
    # "more than forty thousand pounds of seasoning timber" in a field counted in tons
    ("pound", "ton"): 1 / 2000,
    ("lbs", "ton"): 1 / 2000,
    ("lb", "ton"): 1 / 2000,
    # "when that time exceeds two hours" in a field counted in minutes
    ("hour", "minut"): 60.0,
    # "longer than three-quarters of a minute" in a field counted in seconds
    ("minut", "second"): 60.0,
    ("hour", "second"): 3600.0,
}


def unit_factor(unit: str | None, field_unit: str | None) -> float | None:
    """The factor from a figure's unit to a field's ("yard" to "ft" is 3), if known."""
    return _CONVERSIONS.get((unit, field_unit))


_LAST_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: The years a written year may name.
_CALENDAR_YEARS = (1800, 2100)
_DISTANCE_WORDS = frozenset({"distanc", "separat", "clearanc", "setback", "away", "from"})
_SHARE_UNITS = frozenset({"percent", "rate"})


def choose_field(
    vocab: FieldVocabulary,
    topic_field: tuple[str | None, float | None],
    mention: NumberMention,
    tokens: list[Token],
    pos: int,
    context: str,
    hint: str | None = None,
) -> tuple[FieldInfo, float] | None:
    """Pick the numeric field a number refers to, from its unit and nearby words.

    A field counted in millions (its unit "million bricks") takes "one hundred million"
    as 100. The arguments and the result are those of `_choose`.
    """
    chosen = _choose(vocab, topic_field, mention, tokens, pos, context, hint)
    if chosen is None:
        return None
    info, factor = chosen
    scale = _SCALE_WORDS.get((info.spec.unit or "").split(" ", 1)[0].lower())
    if scale and mention.value * factor >= scale:
        return info, factor / scale
    return chosen


#: Naming evidence that places a figure in another unit's field ("two years" in months).
_CLEARLY_NAMED = 0.5
#: How many times another candidate's score the clause's own naming must be to stand alone,
#: and the score above which it does ("patients under 18", not one word like "above").
_FAR_ABOVE = 4.0
_NAMED_ALONE = 1.0

#: A field's unit that counts in a scale word: "million bricks", "thousand gallons".
_SCALE_WORDS = {"thousand": 1e3, "thousands": 1e3, "million": 1e6, "millions": 1e6}


def _outnamed(
    measured: list[FieldInfo],
    candidates: list[FieldInfo],
    vocab: FieldVocabulary,
    tokens: list[Token],
    pos: int,
) -> list[FieldInfo]:
    """The one candidate the clause names far better than every field its unit word counts.

    "two or more claims in the last three years": the loss count ("claims in three
    years") over irrigation leak claims, whose unit "claims" is all the clause says of it.
    """
    if not measured:
        return []
    score = {i.name: vocab.score_numeric(i, tokens, pos) for i in candidates}
    others = [i for i in candidates if i not in measured and score[i.name] > _NAMED_ALONE]
    top = max(score[i.name] for i in measured)
    if len(others) == 1 and top <= _CLEARLY_NAMED and score[others[0].name] >= _FAR_ABOVE * top:
        return others
    return []


def _choose(
    vocab: FieldVocabulary,
    topic_field: tuple[str | None, float | None],
    mention: NumberMention,
    tokens: list[Token],
    pos: int,
    context: str,
    hint: str | None = None,
) -> tuple[FieldInfo, float] | None:
    """Pick the numeric field a number refers to, from its unit and nearby words.

    Args:
        vocab: The field vocabulary.
        topic_field: The field last compared and its value (None, None before any).
        mention: The number.
        tokens: Content tokens of the clause.
        pos: Token index of the number.
        context: Preceding sentences (weaker evidence).
        hint: "age" after "younger / older than" (a field counted in years);
            "per month" (or day, week, year) after "times in a month";
            "pointed" after "that time", "this figure" (the field the sentence before names);
            "distance" before "... from X" (a field of distance or separation).

    Returns:
        The field and the factor converting the number to the field's unit, or None
        when the evidence is absent or ambiguous.
    """
    topic_name, topic_value = topic_field
    if mention.fraction and mention.unit in _NOT_A_UNIT:
        mention = replace(mention, unit=None)  # "a quarter off the usual drinks price"
    numeric = vocab.of_kind("numeric")
    unit = mention.unit
    if unit is not None and unit != "percent":
        # "stays of under 30 nights": a number with a unit word is no share
        numeric = [i for i in numeric if i.unit not in {"percent", "rate"}]
    floor = 0.15
    if (
        unit is not None
        and unit not in KNOWN_UNITS
        and not mention.attached
        and not any(unit_fits(unit, i) or (unit, i.unit) in _CONVERSIONS for i in numeric)
    ):
        # "100 seats" with no field counting seats: a word after the number that no
        # field uses needs clear naming words before the number is placed anywhere.
        if unit in _TIME_WORDS:
            return None  # "stays of under 30 nights": a duration no field measures
        unit, floor = None, 0.6
    if mention.fraction and mention.unit is None:
        # "more than half the revenue": a fraction is a share, never an amount (with
        # no share field it is no threshold at all, not revenue over 0.5)
        numeric = [i for i in numeric if i.unit in _SHARE_UNITS]
    exact = [i for i in numeric if unit_fits(unit, i)]
    converted = {
        i.name: _CONVERSIONS[(unit, i.unit)] for i in numeric if (unit, i.unit) in _CONVERSIONS
    }
    candidates = [
        i
        for i in exact + [i for i in numeric if i.name in converted]
        if i.in_scale(mention.value * converted.get(i.name, 1.0))
        # "nine hundred thousand" is no year a building was put up in
        and (i.unit != "year" or _CALENDAR_YEARS[0] <= mention.value <= _CALENDAR_YEARS[1])
    ]
    if hint == "pointed" and context:
        pointed = _pointed(vocab, candidates, context)
        if pointed is not None:
            return pointed, converted.get(pointed.name, 1.0)
    if unit == "year" and _CALENDAR_YEARS[0] <= mention.value <= _CALENDAR_YEARS[1]:
        # "a building put up before 1960": a calendar year is a field of years, never
        # a duration counted in years; the one such field any word speaks of
        candidates = [i for i in candidates if i.unit == "year"] or candidates
        spoken = [i for i in candidates if vocab.score_numeric(i, tokens, pos) > 0]
        if len(candidates) > 1 and len(spoken) == 1:
            return spoken[0], 1.0
    # "two losses": the field measured in losses, not one whose name says "loss";
    # "younger than sixteen": a field counted in years
    age = hint == "age"
    if hint == "distance":
        apart = [i for i in candidates if (i.desc_tokens | i.tokens) & _DISTANCE_WORDS]
        candidates = apart or candidates
    if hint is not None and hint.startswith("per "):
        # "twenty times in a month": a field counted per month ("hauls per month")
        period = hint.split()[1]
        per = [i for i in numeric if period in (i.spec.unit or "").lower() or period in i.name]
        candidates = per if len(per) == 1 else candidates
    wanted = "years" if age and unit is None else unit
    if wanted in KNOWN_UNITS and not age:
        wanted = None  # "0.25%" fits a rate field as well as a percent one
    measured = [
        i
        for i in candidates  # a unit of one word: "residents per caregiver" is a rate
        if wanted is not None and i.unit == wanted and " " not in (i.spec.unit or "").strip()
    ]
    named = [  # "an arborist's inspection no older than two years": a field in months
        i
        for i in candidates
        if i.name in converted and vocab.score_numeric(i, tokens, pos) > _CLEARLY_NAMED
    ]
    if measured and named and all(vocab.score_numeric(i, tokens, pos) <= floor for i in measured):
        candidates = named
    else:
        candidates = _outnamed(measured, candidates, vocab, tokens, pos) or measured or candidates
    if not candidates:
        return None
    if len(candidates) == 1 and unit is not None:
        only = candidates[0]
        if (
            only.name not in converted
            or vocab.score_numeric(only, tokens, pos) > 0.5
            # "Ask for the egress drill. Anything longer than three-quarters of a minute"
            or (context and _pointed(vocab, [only], context) is not None)
        ):
            return only, converted.get(only.name, 1.0)
        return None  # "four feet high" is no road distance in miles
    # the unit every candidate shares names none of them ("Four stories" before)
    shared = unit if unit is not None and all(i.unit == unit for i in candidates) else None

    def naming(text: str) -> list[Token]:
        return [
            t for t in content_tokens(text) if shared is None or canonical_unit(t.text) != shared
        ]

    ctx = naming(context) if context else []
    here = {i.name: vocab.score_numeric(i, tokens, pos) for i in candidates}  # the clause's own
    topic = next((i for i in candidates if i.name == topic_name), None)
    if topic is not None and _is_time(mention.unit) and not _is_time(topic.spec.unit):
        topic = None  # "more than two days a year" after a crowd limit: no crowd of two
    said = _LAST_SENTENCE.split(context.strip())[-1] if context else ""
    recent = naming(said) if said else []
    if (
        topic is not None
        and not find_numbers(said)
        and _turned_away(vocab, candidates, topic, recent, floor)
    ):
        topic = None  # "What matters is how many cylinders they keep. More than twelve"
    if topic is not None and (
        all(here[i.name] <= floor for i in candidates)
        # "Forty is a guideline ... approve well beyond forty": the limit said again
        or (
            mention.unit is None
            and _continues(mention.value, topic_value, tokens, pos)
            and not _named_after(tokens, pos, candidates)
        )
    ):
        # No word of the clause names a field: the number continues the topic.
        return topic, converted.get(topic.name, 1.0)

    def score(info: FieldInfo) -> float:
        local = here[info.name]
        if ctx:
            local += 0.1 * vocab.score_numeric(info, ctx, None)
            # the sentence right before counts more: "Anything automatic? Losses. Three ..."
            local += 0.3 * vocab.score_numeric(info, recent, None)
        return local + (0.2 if converted and info.name not in converted else 0.0)

    best = _named_here(candidates, here)
    if best is None and recent and all(v <= floor for v in here.values()):
        # "What matters is how many cylinders they keep. More than twelve ...": with no
        # word of its own, the sentence right before outranks what the wider context said
        # (the number's own unit word names none of them: "ten percent of receipts")
        words = [t for t in recent if unit is None or canonical_unit(t.text) != unit]
        best = _best(candidates, lambda i: vocab.score_numeric(i, words, None), floor)
    best = best or _best(candidates, score, floor)
    if best is None and ctx:
        best = _best(candidates, lambda i: vocab.score_numeric(i, ctx, None), floor)
    if best is None and len(exact) == 1 and unit is not None:
        best = exact[0]
    if best is None and unit is not None and len(exact) > 1:
        # "taller than eight stories", no other word: the field that is the unit itself
        # ("8,000 sq ft" of the field whose synonym is "sq ft", beside a store's area)
        plain = [
            i
            for i in exact
            if i.name == unit or unit in {canonical_unit(s) for s in synonyms_of(i)}
        ]
        best = plain[0] if len(plain) == 1 else None
    return (best, converted.get(best.name, 1.0)) if best else None


def _turned_away(
    vocab: FieldVocabulary,
    candidates: list[FieldInfo],
    topic: FieldInfo,
    recent: list[Token],
    floor: float,
) -> bool:
    """True when the sentence right before names another field and not the topic.

    After a limit on inventory, "What matters is how many cylinders they keep. More
    than twelve ...": the speaker has turned to the cylinders; twelve is no inventory.
    """
    if not recent or vocab.score_numeric(topic, recent, None) > 0:
        return False
    return any(vocab.score_numeric(i, recent, None) > floor for i in candidates if i is not topic)


def _named_here(candidates: list[FieldInfo], here: dict[str, float]) -> FieldInfo | None:
    """The candidate the clause itself clearly names, far above any other, or None.

    "Where patients under 18 make up more than 70%" after a sentence on clear aligner
    patients: the clause's own words name the field; the sentence before does not outvote
    them.
    """
    scored = sorted((here[i.name], i.name, i) for i in candidates)
    if not scored or scored[-1][0] <= _NAMED_ALONE:
        return None
    if len(scored) > 1 and scored[-1][0] < _FAR_ABOVE * scored[-2][0]:
        return None
    return scored[-1][2]


def _pointed(vocab: FieldVocabulary, candidates: list[FieldInfo], context: str) -> FieldInfo | None:
    """The candidate the sentence before clearly names, for a figure of "that time"."""
    said = content_tokens(_LAST_SENTENCE.split(context.strip())[-1])
    scored = sorted(
        ((vocab.score_numeric(i, said, None), i) for i in candidates), key=lambda t: -t[0]
    )
    if not scored or scored[0][0] <= _CLEARLY_NAMED:
        return None
    if len(scored) > 1 and scored[0][0] < 2 * scored[1][0]:
        return None
    return scored[0][1]


def _best(candidates: list[FieldInfo], score: object, floor: float = 0.15) -> FieldInfo | None:
    scored = sorted(((score(i), i.name, i) for i in candidates), key=lambda t: -t[0])  # type: ignore[operator]
    if not scored or scored[0][0] <= floor:
        return None
    if len(scored) > 1 and abs(scored[0][0] - scored[1][0]) < 1e-9:
        return None
    return scored[0][2]


#: Stems of units of time, as a number's unit or a field's.
_TIME_STEMS = frozenset(stem(w) for w in (*_TIME_WORDS, *TIME_UNITS))


def _is_time(unit: str | None) -> bool:
    """True when a unit counts time ("day per year", "days", "hours")."""
    words = (unit or "").lower().split(" per ", 1)[0].split()
    return len(words) == 1 and stem(words[0]) in _TIME_STEMS


def _continues(value: float, topic_value: float | None, tokens: list[Token], pos: int) -> bool:
    """A bare figure that restates the limit or reach just compared.

    "well beyond forty" or "any boat carrying more than six" after a limit of forty or six
    (the same figure, with no unit of its own); "eleven or more is referred" after a limit
    of eight (up to twice the limit, "or more" after it).
    """
    if topic_value is None:
        return False
    after = tokens[pos + 1].text.lower() if pos + 1 < len(tokens) else ""
    if value == topic_value:
        return True
    return topic_value < value <= 2 * topic_value and after in {"more", "higher", "above"}


def _named_after(tokens: list[Token], pos: int, candidates: list[FieldInfo]) -> bool:
    """True when a word of a candidate field follows "N or more" ("12 or more employees")."""
    return any(t.stem in i.tokens for t in tokens[pos + 2 : pos + 4] for i in candidates)


#: "Count the induction melting units.": an order to count names the field the figures
#: after it measure.
_COUNT_ORDER = re.compile(
    r"^\W*(?:count|measure|record|tally|note|check)\s+(?:the|every|each|all)\b", re.I
)


#: "For studios that teach on their own premises, count the bench places": after a lead.
_LED_COUNT_ORDER = re.compile(
    r"^\W*(?:for|in|on|at|with)\b[^,;]{3,80},\s*(?=(?:count|measure|tally)\s+(?:the|every|each|all)\b)",
    re.I,
)


def counted_field(sentence: str, vocab: FieldVocabulary) -> str | None:
    """The one numeric field an order to count names ("Count the melting units."), else None.

    A bare figure after it ("Up to six is a commercial refiner") continues that field. The
    order may follow a lead and come before the clause of the figure: "For studios that
    teach, count the bench places offered; where there are more than twelve, refer".
    """
    first = sentence.split(";", 1)[0]
    order = _COUNT_ORDER.match(first) or _LED_COUNT_ORDER.match(first)
    if order is None or find_numbers(first):
        return None
    return _one_numeric_named(first[order.end() :], vocab)


def asked_field(question: str, vocab: FieldVocabulary) -> str | None:
    """The one numeric field a question names with no figure ("Form blowouts?"), else None.

    The answer's bare figures ("Two or more and I want to see the file") count it.
    """
    if find_numbers(question):
        return None
    return _one_numeric_named(question, vocab)


def _one_numeric_named(words: str, vocab: FieldVocabulary) -> str | None:
    tokens = content_tokens(words)
    named = [
        info.name
        for info in vocab.of_kind("numeric")
        if any(find_phrase(tokens, phrase, max_gap=1) for phrase in info.phrases if phrase)
    ]
    return named[0] if len(named) == 1 else None
