"""Whether a text speaks of a known rule: its field's words, its limit, its values.

Practice and amendments are bound to the rules they are about by what the text says
of them, never by guess: the words of a rule's limit field next to a number, every
other condition's value or field words somewhere in the text, the limit's value.
Generic: the words come from the rules' field names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from agents.ingestion.matching import limit_signature, limit_value
from agents.offline.noun_phrases import singular
from agents.offline.practice_text import SQFT, field_words, says, unit_words
from memory.underwriting.fieldlink.numbers import (
    KNOWN_UNITS,
    NumberMention,
    canonical_unit,
    rate_fits,
)
from schemas.fields import DataDictionary, FieldSpec
from schemas.rules import ORDERING_OPERATORS, ExtractedRule

_NEAR = 40  # characters around a number in which its field's words must appear
#: Where one sentence ends and the next begins.
_SENTENCE_BREAK = re.compile(r"[.!?;]\s+(?=[A-Z\d])")


def _own_sentence(sentence: str, number: NumberMention) -> str:
    """The `_NEAR` characters around a number, inside its own sentence.

    "... one kid, one coach. Twelve is as young as I've gone on the age alone": the coach
    of the sentence before is no word of the twelve's.
    """
    start, end = max(0, number.start - _NEAR), number.end + _NEAR
    breaks = [m.end() for m in _SENTENCE_BREAK.finditer(sentence, start, number.start + 1)]
    after = _SENTENCE_BREAK.search(sentence, number.end, end)
    return sentence[breaks[-1] if breaks else start : after.start() + 1 if after else end]


def _starts_word(word: str, words: str) -> bool:
    """True when a word opens a word of the text: "sprinkler" in "sprinklered", not "point"."""
    return word in words and re.search(rf"(?<![a-z0-9]){re.escape(word)}", words) is not None


#: A unit's spellings, one way: "pounds of type" and "lb of type" say one thing.
_UNIT_SPELLINGS = {
    "pounds": "lb", "pound": "lb", "lbs": "lb", "feet": "ft", "foot": "ft",
    "gallons": "gal", "gallon": "gal", "miles": "mi", "mile": "mi", "inches": "in",
}  # fmt: skip


def _units_alike(text: str) -> str:
    """The text lower-cased, each unit word spelled one way."""
    return re.sub(r"[a-z]+", lambda m: _UNIT_SPELLINGS.get(m.group(0), m.group(0)), text.lower())


def _said_alike(words: str, around: str, alike: str) -> bool:
    """True when the text says a field's words, its unit words however spelled.

    Words as written may open a longer word ("sprinkler" in "sprinklered"); words with a
    unit respelled ("pounds of type" as "lb of type") must stand as words of their own.
    """
    if words in around.lower():
        return True
    respelled = _units_alike(words)
    return respelled != words.lower() and (
        re.search(rf"(?<![a-z0-9]){re.escape(respelled)}(?![a-z0-9])", alike) is not None
    )


def field_near(
    rule: ExtractedRule,
    sentence: str,
    number: NumberMention,
    fields: DataDictionary | None = None,
) -> bool:
    """True when the words of the rule's limit field sit next to the number.

    The words are those of the field's name and, with the data dictionary, its synonyms
    ("deepest cut 17 ft" for the maximum excavation depth).
    """
    signature = limit_signature(rule)
    if signature is None:
        return False
    words = field_words(signature[1])
    spec = limit_spec(rule, fields)
    if spec is not None:
        words += [s.lower() for s in spec.synonyms if len(s) > 3]
        unit = (spec.unit or "").lower()
        unusual = unit.isalpha() and canonical_unit(unit) not in KNOWN_UNITS
        if unusual and canonical_unit(number.unit) == canonical_unit(unit):
            # "4.2 MW", "640 kW" of a field in "kilowatts": the field's own unusual unit
            return unit_fits(rule, number)
        if unusual and len(unit) > 3:
            # "Lowest ratio you've approved? 0.95": an unusual unit names the field (not
            # "years" or "feet", which any number of a text may carry)
            words.append(unit)
    if spec is not None and _synonym_head(spec, number):
        return True  # "a building with five filings": the head of "eviction filings"
    if spec is not None and _labelled_by_head(spec, sentence, number):
        return unit_fits(rule, number)  # "mismatch 14%": the head of "entrant count mismatch"
    around = SQFT.sub("sqft", _own_sentence(sentence, number))
    # "Surveyed PCI 44": a short synonym (an acronym) names the field as a word of its own
    short = [s for s in (spec.synonyms if spec is not None else []) if 1 < len(s) <= 3]
    # "9,500 lb of type" says the synonym "pounds of type": units alike however spelled
    said = _units_alike(around)
    if not any(_said_alike(w, around, said) for w in words) and not any(
        re.search(rf"\b{re.escape(s)}\b", around, re.I) for s in short
    ):
        return False
    return (
        unit_fits(rule, number)
        or _head_fits(rule, sentence, number)
        or said_as_synonym(spec, sentence, number)
    )


#: Words that end a synonym's head noun: a preposition, or "a" / "each" of a rate ("chimney
#: jobs a week" counts jobs).
_PREPOSITIONS = frozenset("in of from for per on at with by over under to a an each every".split())


def _synonym_head(spec: FieldSpec, number: NumberMention) -> bool:
    """True when the number counts the head noun of one of a count field's longer synonyms.

    The head is the last word before a preposition ("water claims in five years" is
    counted in claims, not years; "share of base rent from credit tenants" in no tenants).
    """
    if spec.type != "int":
        return False  # a count of "armed officers" is no share of them
    unit = (number.unit or "").lower().rstrip("s")
    return len(unit) > 3 and unit in {head.rstrip("s") for head in _synonym_heads(spec)}


def _synonym_heads(spec: FieldSpec) -> set[str]:
    """The head nouns of a field's synonyms of two words or more, lower case.

    The head is the last word before a preposition ("water claims in five years": claims).
    """
    heads = set()
    for synonym in spec.synonyms:
        words = synonym.lower().split()
        before = next((at for at, w in enumerate(words) if w in _PREPOSITIONS), len(words))
        if before > 1:
            heads.add(words[before - 1])
    return heads


def _labelled_by_head(spec: FieldSpec, sentence: str, number: NumberMention) -> bool:
    """True when the word right before the number is the head noun of a longer synonym.

    A log labels each case's figure ("SE-25-033, mismatch 14%, approved"): the label is
    the last word of "entrant count mismatch".
    """
    label = _LABEL_BEFORE.search(sentence[max(0, number.start - 30) : number.start])
    if label is None or not number.unit:  # "Class 1-90": a designation, no figure told
        return False
    return len(label.group(1)) > 3 and label.group(1).lower() in _synonym_heads(spec)


#: The word a figure is labelled with, right before it: "mismatch 14%", "mismatch: 14%".
_LABEL_BEFORE = re.compile(r"(?<![\w-])([A-Za-z]+)\s*[:=]?\s*\$?$")


def limit_spec(rule: ExtractedRule, fields: DataDictionary | None) -> FieldSpec | None:
    """The dictionary's entry for a rule's limit field, if any."""
    signature = limit_signature(rule)
    return fields.fields.get(signature[1]) if fields is not None and signature else None


_LINKS = frozenset("of from for per in on with by to at".split())


#: Words that say "how many" of the noun they go with ("number of buggies", "buggy count").
_COUNT_WORDS = frozenset("number count total".split())


def _counted_noun(synonym: str) -> str | None:
    """The noun a counting synonym counts, singular: "number of buggies" -> "buggy"."""
    words = re.findall(r"[a-z]+", synonym.lower())
    if len(words) == 3 and words[0] in _COUNT_WORDS and words[1] == "of":
        noun = words[2]
    elif len(words) == 2 and words[1] in _COUNT_WORDS:
        noun = words[0]
    else:
        return None
    return singular(noun) if len(noun) > 3 else None


def said_as_synonym(spec: FieldSpec | None, sentence: str, number: NumberMention) -> bool:
    """True when the words after a number end one of the field's synonyms.

    "7 wok rings", "Eight rings" for a field counted in burners whose synonyms include
    "wok rings": the text counts what the dictionary says the field counts.
    """
    if spec is None or canonical_unit(spec.unit) in KNOWN_UNITS:
        return False  # "48 officers" is no share: a percent or money field needs its unit
    after = re.findall(r"[a-z]+", sentence[number.num_end : number.num_end + 30].lower())[:3]
    if not after:
        return False
    for synonym in spec.synonyms:
        counted = _counted_noun(synonym)
        if counted and singular(after[0]) == counted:
            return True  # "fifteen buggies for hire" of "number of buggies", "buggy count"
        said = re.findall(r"[a-z]+", synonym.lower())
        # "distress signals on hand": the counted thing comes before the link word
        said = said[: next((i for i, w in enumerate(said) if w in _LINKS), len(said))]
        if len(said) == 1 and after[0] == said[0] and len(said[0]) > 4:
            return True  # "sixteen machines" where the dictionary says "machines"
        if len(said) < 2 or len(said) > 3:
            continue  # "share of base rent from credit tenants" has no head noun before it
        if after[: len(said)] == said or (after[0] == said[-1] and len(after[0]) > 3):
            return True
    return False


#: The plural noun right after a number's unit word: "7 carrier leases" counts leases.
_HEAD = re.compile(r"\s+([a-z]{3,}(?<!ss)(?<!us)(?<!is)s)\b(?!-)", re.I)


def _head_fits(rule: ExtractedRule, sentence: str, number: NumberMention) -> bool:
    """True when the plural noun after a number's modifier is the limit's unit.

    "7 carrier leases" reads "carrier" as the number's unit; the leases are what it counts.
    """
    head = _HEAD.match(sentence, number.end)
    if head is None or not number.unit:
        return False
    return unit_fits(rule, replace(number, unit=head.group(1)))


def unit_fits(rule: ExtractedRule, number: NumberMention) -> bool:
    """A number with a unit fits a limit with a unit only when the units agree.

    One unit may say less than the other ("$" against "USD per sq ft"), not otherwise.
    """
    limit_unit = rule.threshold.unit if rule.threshold is not None else None
    if not limit_unit or not number.unit:
        return True
    if canonical_unit(number.unit) == canonical_unit(limit_unit):
        return True  # "640 kW" of a limit in "kilowatts"
    if " per " in number.unit and rate_fits(number.unit, limit_unit):
        return True  # "eighteen miles an hour" fits a limit in "mph"
    mine, theirs = unit_words(number.unit), unit_words(limit_unit)
    if not mine or not theirs:
        return True
    pairs = zip(mine, theirs, strict=False)  # the shorter unit's words
    return all(a.startswith(b) or b.startswith(a) for a, b in pairs)


def evidenced(rule: ExtractedRule, text: str) -> bool:
    """True when the text speaks of every condition of the rule but its numeric limit.

    A categorical condition needs its value in the text ("jewelry store"), a yes / no
    one its field's words: practice binds to the rule it is about, not to every rule
    with a limit on the same field.
    """
    lowered = text if text.islower() else SQFT.sub("sqft", text).lower()
    signature = limit_signature(rule)
    for c in rule.conditions:
        if signature is not None and c.field == signature[1] and c.operator in ORDERING_OPERATORS:
            continue
        values = c.value if isinstance(c.value, list) else [c.value]
        if all(isinstance(v, bool) for v in values):
            words = field_words(c.field)
            if words and not any(w in lowered for w in words):
                return False
        elif not any(mentions(lowered, str(v).lower()) for v in values):
            return False
    return True


def spoken_of(rule: ExtractedRule, words: str, numbers: Sequence[NumberMention]) -> bool:
    """True when a text speaks of a rule: its limit (field words or value) or its values."""
    signature = limit_signature(rule)
    if signature is None:
        return any(not isinstance(c.value, bool) for c in rule.conditions) or any(
            _starts_word(w, words) for c in rule.conditions for w in field_words(c.field)
        )
    return any(_starts_word(w, words) for w in field_words(signature[1])) or limit_said(
        rule, numbers
    )


def limit_said(rule: ExtractedRule, numbers: Sequence[NumberMention]) -> bool:
    """True when one of the numbers is the rule's limit, in a unit that fits it."""
    limit = limit_value(rule)
    return any(n.value == limit and unit_fits(rule, n) for n in numbers)


#: The head of a class that names only the kind of business it is: a text speaking of
#: "swan boats" speaks of a "swan boat rental" (never of a class of one word before it).
_BUSINESS_HEADS = frozenset(
    "rental rentals operator operators company companies service services business "
    "businesses firm firms outfitter outfitters organizer organizers provider providers "
    "contractor contractors".split()
)


def mentions(text: str, value: str) -> bool:
    """True when a text says a value, or every word of a value of several words.

    "the contractor ... the excavation" speaks of an "excavation contractor": a later
    text rarely repeats a class in the manual's exact words. A class of three words or
    more may lose one modifier, not its head.
    """
    if says(text, value):
        return True
    words = [w for w in value.split() if len(w) > 2]
    if len(words) > 2 and words[-1] in _BUSINESS_HEADS and says(text, " ".join(words[:-1])):
        return True  # "every swan boat carries lights" speaks of a "swan boat rental"
    if len(words) < 2 or not says(text, words[-1]):
        return False
    # "mining facility" speaks of a "cryptocurrency mining facility": one modifier may go
    spared = 1 if len(words) > 2 else 0
    return sum(says(text, w) for w in words) >= len(words) - spared


def field_share(rule: ExtractedRule, words: str) -> float:
    """The share of the words of a rule's limit field (or its flags) that a text uses.

    The text is lower case.
    """
    signature = limit_signature(rule)
    if signature is not None:
        names = field_words(signature[1])
    else:  # a flag's rule: the words of the fields it is on
        names = [
            w for c in rule.conditions if isinstance(c.value, bool) for w in field_words(c.field)
        ]
    return sum(_starts_word(w, words) for w in names) / len(names) if names else 0.0


def best_spoken(rules: Sequence[ExtractedRule], words: str) -> list[ExtractedRule]:
    """Of several rules a text may speak of, those whose limit field it names most fully."""
    if len(rules) < 2:
        return list(rules)
    top = max(field_share(r, words) for r in rules)
    return [r for r in rules if field_share(r, words) == top]


__all__ = [
    "best_spoken",
    "evidenced",
    "field_near",
    "field_share",
    "limit_said",
    "limit_spec",
    "mentions",
    "said_as_synonym",
    "spoken_of",
    "unit_fits",
]
