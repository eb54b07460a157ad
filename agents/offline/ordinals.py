"""Counts said by an ordinal: "A third caster means the account goes to the team lead".

"A third caster" is the count reaching three; said as "more than 2 casters" the condition
reader reads it as any other count. Only before a word that is the unit of a numeric
field of the data dictionary (a share, "a third of the floor", stays a share).
"""

from __future__ import annotations

import re

from memory.underwriting.fieldlink.stems import stem

_ORDINALS = {
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
#: "a third caster", "any fifth truck" (not "the seventh inning": a place in an order).
_ORDINAL_THING = re.compile(
    r"\b(?:a|an|any)\s+(" + "|".join(_ORDINALS) + r")\s+([a-z][a-z-]*)\b"
    # (not "a third of the floor", nor "a fifth crucible or more", which says its own bound)
    r"(?!\s+of\b)(?!\s+or\s+(?:more|above|over|beyond)\b)",
    re.I,
)


def ordinal_counts(body: str, units: set[str]) -> str:
    """The body with "a third caster" said as "more than 2 casters".

    Args:
        body: A knowledge text.
        units: Stems of the units of the dictionary's numeric fields ("caster").

    Returns:
        The body, with each ordinal count before a field's unit written as a count.
    """

    def said(match: re.Match[str]) -> str:
        noun = match.group(2)
        if stem(noun) not in units:
            return match.group(0)
        more = "More" if match.group(0)[0].isupper() else "more"  # a sentence's opening
        return f"{more} than {_ORDINALS[match.group(1).lower()] - 1} {noun}s"

    return _ORDINAL_THING.sub(said, body)


__all__ = ["ordinal_counts"]
