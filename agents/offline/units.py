"""Units of numbers and fields: which field a number's unit can measure.

A unit read after a number fits a field measured in it ("30 feet" a field in ft, "150
pounds per square foot" a field in psf), and a bare number takes the unit its context gave
the same value.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from agents.offline.vocab import FieldInfo
from memory.underwriting.fieldlink.numbers import (
    KNOWN_UNITS,
    TIME_UNITS,
    NumberMention,
    find_numbers,
    rate_fits,
)
from memory.underwriting.fieldlink.stems import stem

__all__ = ["TIME_UNITS", "synonyms_of", "unit_fits", "unit_from_context"]


def unit_from_context(mention: NumberMention, context: str) -> NumberMention:
    """A bare number takes the unit the context gave it: "Four stories. Above four": stories."""
    if mention.unit is not None or not context:
        return mention
    said = [
        n
        for n in _numbers_of(context)
        if n.value == mention.value and n.unit and n.unit not in TIME_UNITS
    ]
    return replace(mention, unit=said[-1].unit) if said and not said[-1].attached else mention


@lru_cache(maxsize=64)
def _numbers_of(context: str) -> tuple[NumberMention, ...]:
    """The numbers of a context, read once for every bare number a clause holds."""
    return tuple(find_numbers(context))


def synonyms_of(info: FieldInfo) -> set[str]:
    """A field's synonyms, lower case."""
    return {s.lower() for s in info.spec.synonyms}


def unit_fits(unit: str | None, info: FieldInfo) -> bool:
    """True when a number's unit word can measure the field ("barrels" for barrels/year)."""
    if unit is None:
        return True
    if unit == "percent":
        return info.unit in {"percent", "rate"}
    if " per " in unit:  # "pounds per square foot" measures a field in psf, never in lb
        return rate_fits(unit, info.spec.unit or "") or _counted_per(unit, info)
    if SPELLED_UNITS.get(unit, unit) == SPELLED_UNITS.get(info.unit or "", info.unit):
        return True  # "five thousand pounds" in a field counted in "lbs"
    return unit not in KNOWN_UNITS and unit in info.tokens


def _counted_per(unit: str, info: FieldInfo) -> bool:
    """True when "two days a year" counts a field in days that its words say is per year.

    The field's unit is the rate's counted thing ("days") and its name or description
    names the period ("Number of games days held per year").
    """
    head, _, period = unit.partition(" per ")
    field_unit = (info.spec.unit or "").strip().lower()
    if " " in head or " " in period or " " in field_unit or not field_unit:
        return False
    return stem(head) == stem(field_unit) and stem(period) in info.tokens | info.desc_tokens


#: One unit written several ways, after stemming: "pound", "lbs" and "lb" are one.
SPELLED_UNITS = {"pound": "lb", "lbs": "lb"}
