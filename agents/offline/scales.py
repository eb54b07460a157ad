"""Range algebra: scale ends, listed numbers, complements of accepted ranges.

A description may state a field's scale ("1 (best) to 10"): a list or range that runs
to an end of it is open-ended ("class 9 or 10" -> `gte 9`). An accepted range ("at
least 500 feet is acceptable") is inverted into the rule's trigger, and a bare
comparative ("larger operations are referred") picks the side it points to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from agents.offline import lexicon_comparators as lxc
from agents.offline.vocab import FieldVocabulary
from schemas.rules import Condition


class _Hit(Protocol):
    """What a number tied to a field carries (`conditions.NumericHit`)."""

    field: str
    value: float
    operator: str | None
    soft_evidence: bool
    start: int
    end: int


def scale_ends(conditions: list[Condition], vocab: FieldVocabulary) -> list[Condition]:
    """Ranges that reach an end of the field's stated scale are open-ended.

    On a 1-10 scale "class 9 or 10" and "9 to 10" are `gte 9`, "1 or 2" is `lte 2`.

    Args:
        conditions: Conditions read from one clause.
        vocab: The field vocabulary (its fields' stated scales).

    Returns:
        The conditions, ranges at a scale end made open-ended.
    """
    out: list[Condition] = []
    for cond in conditions:
        info = vocab.fields.get(cond.field)
        scale = info.scale if info else None
        if scale is None:
            out.append(cond)
            continue
        low, high = scale
        if cond.operator == "in" and isinstance(cond.value, list):
            nums = sorted(v for v in cond.value if isinstance(v, int | float))
            steps = len(nums) == len(cond.value) > 1 and all(
                b - a == 1 for a, b in zip(nums, nums[1:], strict=False)
            )
            if steps and nums[-1] == high:
                cond = Condition(field=cond.field, operator="gte", value=nums[0])
            elif steps and nums[0] == low:
                cond = Condition(field=cond.field, operator="lte", value=nums[-1])
        elif _bounded(conditions, cond, "lte", "gte", high) or _bounded(
            conditions, cond, "gte", "lte", low
        ):
            continue  # "9 to 10": the upper bound is the scale's own end
        out.append(cond)
    return out


def listed_values(text: str, hits: Sequence[_Hit]) -> list[Condition]:
    """Uncompared numbers of one field listed with "or": "class 9 or 10" -> in [9, 10]."""
    plain = [h for h in hits if h.operator is None and not h.soft_evidence]
    if len(plain) < 2 or len({h.field for h in plain}) != 1:
        return []
    joined = all(
        re.fullmatch(r"\s*(?:,\s*)?(?:or\s+)?", text[a.end : b.start], re.I)
        for a, b in zip(plain, plain[1:], strict=False)
    )
    if not joined or "or" not in text[plain[0].end : plain[-1].start].lower().split():
        return []
    values = list(dict.fromkeys(h.value for h in plain))
    return [Condition(field=plain[0].field, operator="in", value=values)]  # type: ignore[arg-type]


def _bounded(conditions: list[Condition], cond: Condition, op: str, other: str, end: float) -> bool:
    """True for the `op` bound of a two-sided range that sits on a scale end."""
    return (
        cond.operator == op
        and isinstance(cond.value, int | float)
        and float(cond.value) == end
        and any(c.field == cond.field and c.operator == other for c in conditions)
    )


_INVERSE = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}


def inverted(conditions: list[Condition]) -> list[Condition]:
    """The complement of an accepted range: "at least 500 ft is acceptable" -> lt 500.

    Only numeric bounds are inverted (categorical values stay as the subject); [] when
    there is no bound to invert.
    """
    if not any(c.operator in _INVERSE for c in conditions):
        return []
    return [
        Condition(field=c.field, operator=_INVERSE[c.operator], value=c.value)  # type: ignore[arg-type]
        if c.operator in _INVERSE
        else c
        for c in conditions
    ]


def directed(conditions: list[Condition], comparative: str, accepted: bool) -> list[Condition]:
    """The stated range or its complement, whichever points the way a comparative does.

    "up to 2,000 acres; larger operations are referred" -> gt 2000; "over 10 stories;
    taller ones are declined" -> gt 10. [] when neither agrees (an interval "every six
    months or more often" against "a longer interval": the words disagree, no rule).
    An accepted range ("... is acceptable") is never the trigger itself: only its
    complement may be.
    """
    greater = comparative.lower() in lxc.GREATER_WORDS
    wanted = {"gt", "gte"} if greater else {"lt", "lte"}
    options = [inverted(conditions)] if accepted else [conditions, inverted(conditions)]
    for option in options:
        bounds = [c.operator for c in option if c.operator in _INVERSE]
        if bounds and all(op in wanted for op in bounds):
            return option
    return []
