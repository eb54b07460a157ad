"""A business class said again in other words by a later text.

"Balloon ride outfits - the hot-air tour companies - are a flat no on the businessowners
form" speaks of the known rule that declines 'hot-air balloon tour company' on the BOP:
every word of that class is in the text, though never in that order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition, ExtractedRule

_WORD = re.compile(r"[a-z]+")


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower())}


def _class_only(rule: ExtractedRule, cls: str) -> str | None:
    """The one class a rule is about when a class is its only condition, else None."""
    if len(rule.conditions) != 1:
        return None
    [c] = rule.conditions
    return c.value if c.field == cls and c.operator == "eq" and isinstance(c.value, str) else None


def class_said_again(
    claim: ExtractedRule, known: Sequence[ExtractedRule], text: str, cls: str
) -> ExtractedRule:
    """A claim on a class alone, in the words of the one known class rule the text names.

    Only when the claim's class is no known rule's class, and exactly one known rule of
    its product (or of any, for a claim that names none) is about a class alone whose
    every word the text says and which shares a word with the claim's class.
    """
    value = _class_only(claim, cls)
    if value is None:
        return claim
    said, mine = _stems(text), _stems(value)
    targets = set()
    for rule in known:
        theirs = _class_only(rule, cls)
        if theirs is None or claim.product_type not in ("ALL", rule.product_type):
            continue
        if theirs == value:
            return claim  # a known class already
        words = _stems(theirs)
        if words <= said and words & mine:
            targets.add(theirs)
    if len(targets) != 1:
        return claim
    [theirs] = targets
    return claim.model_copy(
        update={"conditions": [Condition(field=cls, operator="eq", value=theirs)]}
    )


__all__ = ["class_said_again"]
