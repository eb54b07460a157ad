"""Classes named again as a pair: "at either class", "for both tower classes".

A manual's next clause often scopes its rule by pointing back at the classes the clause
before it named ("Abalone farms and sea urchin ranches ... are declined. A pump house at
either class is referred where ..."). The rule then holds for those classes.
"""

from __future__ import annotations

import re

from agents.offline.assemble import RuleDraft
from schemas.rules import Condition

#: "at either class", "both classes", "these two classes", "for both tower trades".
_BOTH_CLASSES = re.compile(
    r"\b(?:either|both|each|these two|those two|the two)\s+(?:of\s+(?:the|these|those)\s+)?"
    r"(?:[a-z-]+\s+)?(?:class(?:es)?|trades?|operations?|business(?:es)?)\b",
    re.I,
)


def pointed_classes(drafts: list[RuleDraft], occupancy: str | None, listed: list[str]) -> None:
    """Give a rule that points back at "either class" the classes last named together.

    The classes are those of the latest earlier sentence whose rules name two or more
    (in one list or across its rules). A class the rule read from its own subject ("a
    drying shed ... at either class") gives way unless the dictionary lists it. Drafts are
    changed in place.

    Args:
        drafts: The rules of one text, in text order.
        occupancy: The dictionary's business-class field, if any.
        listed: The classes the dictionary lists (lower case), if any.
    """
    if occupancy is None:
        return
    known = {v.lower() for v in listed}
    for at, draft in enumerate(drafts):
        own = [c for c in draft.conditions if c.field == occupancy]
        if any(set(_values(c)) <= known for c in own) or not _BOTH_CLASSES.search(draft.sentence):
            continue
        named = _last_named_together(drafts[:at], draft.sentence_index, occupancy)
        if named:
            kept = [c for c in draft.conditions if c not in own]
            draft.conditions = [Condition(field=occupancy, operator="in", value=[*named]), *kept]


def _values(condition: Condition) -> list[str]:
    """A class condition's values, lower case, in its order."""
    values = condition.value if isinstance(condition.value, list) else [condition.value]
    return [str(v).lower() for v in values]


def _last_named_together(before: list[RuleDraft], index: int, occupancy: str) -> list[str]:
    """The classes of the latest earlier sentence whose rules name two or more."""
    by_sentence: dict[int, list[str]] = {}
    for draft in before:
        if draft.sentence_index >= index:
            continue
        for c in draft.conditions:
            if c.field != occupancy or c.operator not in ("eq", "in"):
                continue
            said = by_sentence.setdefault(draft.sentence_index, [])
            said += [v for v in _values(c) if v not in said]
    for sentence in sorted(by_sentence, reverse=True):
        if len(by_sentence[sentence]) >= 2:
            return by_sentence[sentence]
    return []


__all__ = ["pointed_classes"]
