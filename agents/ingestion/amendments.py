"""A statement that moves a known limit from one figure to another, as a claim.

"The gap between audited and estimated exposure that triggers referral moves from 30% to
20%", "the senior-referral threshold for reserves is lowered from $150,000 to $100,000":
the text names the limit by its field and its old figure, not by a rule of its own (read
alone it says no direction, so the extractor reads no rule). Bound to the one known rule
whose field the text names and whose limit is the old figure, it claims that rule's terms
at the new figure, from the text's date. Split from `agents.ingestion.conform`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.ingestion.evidence import best_spoken, evidenced, field_share, unit_fits
from agents.ingestion.matching import limit_signature, limit_value, text_claim
from agents.offline.field_choice import unit_factor
from agents.offline.pipeline import find_product, single_product
from agents.offline.practice_text import SQFT
from memory.underwriting.fieldlink.numbers import NumberMention, canonical_unit, find_numbers
from schemas.ingestion import KnowledgeText
from schemas.rules import Condition, ExtractedRule, Threshold

#: "from 30% to 20%", "from $150,000 to $100,000": an old figure, then the new one.
_TO = re.compile(r"^\s*(?:%|percent|per cent)?\s*to\s*\$?\s*$", re.I)
#: "moves from", "lowered from a Pavement Condition Index of": the old figure follows.
_FROM = re.compile(r"\bfrom\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,5}?(?:of\s+)?\$?\s*$", re.I)
#: How far before the old figure "from" may stand.
_FROM_REACH = 60


def amendments_of(
    text: KnowledgeText, claims: Sequence[ExtractedRule], known: Sequence[ExtractedRule]
) -> list[ExtractedRule]:
    """The known limits a statement moves from one figure to another, at the new figure.

    Args:
        text: A statement (a manual, a bulletin).
        claims: What the text was read to say (a limit it states itself is not moved).
        known: Rules stored or stated by earlier texts.

    Returns:
        One claim for each move the text makes of exactly one known rule.
    """
    words = SQFT.sub("sqft", text.text).lower()
    numbers = find_numbers(words)
    product = find_product(text.text) or single_product(text.source)
    stated = {(c.product_type, c.threshold.field) for c in claims if c.threshold is not None}
    out: list[ExtractedRule] = []
    # (old limit, new limit, the old figure as said: "from 30% to 20%"; None for a move
    # the text states by a share or by the new figure alone)
    moves: list[tuple[float, float, NumberMention | None]] = [
        (old.value, new.value, old)
        for old, new in zip(numbers, numbers[1:], strict=False)
        if _moved(words, old, new)
    ]
    moves += [
        (old, new, None)
        for old, new in _shares_moved(words, numbers, known, product)
        + _raised_to(words, numbers, known)
    ]
    for old_value, new, said in moves:
        rules = [
            k
            for k in known
            if limit_value(k) == old_value
            and (product in (None, "ALL") or k.product_type == product)
            and (said is None or unit_fits(k, said))
            and evidenced(k, words)
            and field_share(k, words) >= _NAMED
        ]
        rules = best_spoken(rules, words)
        if len({limit_signature(k) for k in rules}) != 1:
            continue
        rule = rules[-1]
        if rule.threshold is None or (rule.product_type, rule.threshold.field) in stated:
            continue
        out.append(_at(rule, new, text))
    return out


#: "is raised by twenty-five per cent", "lowered by 10%": a limit moved by a share of it.
_BY_SHARE = re.compile(
    r"\b(?P<verb>raised|increased|lifted|raises|increases|lowered|reduced|decreased|cut|"
    r"lowers|reduces|decreases)\s+by\s+$",
    re.I,
)


#: "amended by raising the minimum sill height ... to four feet": the new figure alone.
_RAISED_TO = re.compile(
    r"\b(?:rais(?:e|es|ed|ing)|lower(?:s|ed|ing)?|increas(?:e|es|ed|ing)|"
    r"reduc(?:e|es|ed|ing)|tighten(?:s|ed|ing)?|relax(?:es|ed|ing)?)\b[^.;]{0,90}?\bto\s+$",
    re.I,
)


def _raised_to(
    words: str, numbers: Sequence[NumberMention], known: Sequence[ExtractedRule]
) -> list[tuple[float, float]]:
    """(old limit, new limit) for a limit "raised to" a figure, with no old figure said.

    The figure is read in the limit's unit ("four feet" is 48 for a limit in inches); only
    the limits of rules whose field the text names (the caller keeps the best named).
    """
    moved: list[tuple[float, float]] = []
    for number in numbers:
        if not _RAISED_TO.search(words[max(0, number.start - 120) : number.start]):
            continue
        if _FROM.search(words[max(0, number.start - _FROM_REACH) : number.start]):
            continue  # "from 30% to 20%": a move from a figure said (read elsewhere)
        for rule in known:
            limit = limit_value(rule)
            if limit is None or rule.threshold is None or field_share(rule, words) < _NAMED:
                continue
            factor = 1.0
            unit = canonical_unit(rule.threshold.unit)
            if number.unit is not None and number.unit != unit:
                factor = unit_factor(number.unit, unit) or 0.0
            new = round(number.value * factor, 6)
            if factor and new != limit and (limit, new) not in moved:
                moved.append((limit, new))
    return moved


_PERCENT_AFTER = re.compile(r"^\s*(?:%|per\s?cent)\b", re.I)


def _shares_moved(
    words: str,
    numbers: Sequence[NumberMention],
    known: Sequence[ExtractedRule],
    product: str | None,
) -> list[tuple[float, float]]:
    """(old limit, new limit) for each known limit the text moves by a share of it.

    Only for a share the text states once, and only the limits of rules whose field the
    text names (the caller keeps the one rule it names best).
    """
    moved: list[tuple[float, float]] = []
    for number in numbers:
        by = _BY_SHARE.search(words[max(0, number.start - 30) : number.start])
        share = number.unit == "percent" or _PERCENT_AFTER.match(words[number.num_end :])
        if by is None or not share:
            continue
        sign = 1 if by.group("verb").lower().startswith(("rai", "inc", "lif")) else -1
        for rule in known:
            limit = limit_value(rule)
            if limit is None or field_share(rule, words) < _NAMED:
                continue
            if product not in (None, "ALL") and rule.product_type != product:
                continue
            new = round(limit * (1 + sign * number.value / 100), 6)
            if (limit, new) not in moved:
                moved.append((limit, new))
    return moved


#: The share of a limit field's words a text must say to name it.
_NAMED = 0.5


def moves_a_figure(text: str) -> bool:
    """True when a text says a figure moves to another ("from 30% to 20%")."""
    numbers = find_numbers(text)
    return any(_moved(text, a, b) for a, b in zip(numbers, numbers[1:], strict=False))


def _moved(words: str, old: NumberMention, new: NumberMention) -> bool:
    """True for "from <old> to <new>" with "from" shortly before the old figure."""
    between = words[old.end : new.start]
    if not _TO.match(between) or old.value == new.value:
        return False
    return _FROM.search(words[max(0, old.start - _FROM_REACH) : old.start]) is not None


def _at(rule: ExtractedRule, value: float, text: KnowledgeText) -> ExtractedRule:
    """The rule's terms with its limit at `value`, as the text's claim (no practice kept)."""
    assert rule.threshold is not None  # checked by the caller
    field = rule.threshold.field
    number: float | int = int(value) if float(value).is_integer() else value
    threshold = Threshold(
        field=field, operator=rule.threshold.operator, value=number, unit=rule.threshold.unit
    )
    conditions = [
        Condition(field=c.field, operator=c.operator, value=number)
        if c.field == field and isinstance(c.value, int | float) and not isinstance(c.value, bool)
        else c
        for c in rule.conditions
    ]
    return text_claim(
        rule,
        text,
        threshold=threshold,
        conditions=conditions,
        threshold_type="hard",
        soft_limit=None,
        historical_exceptions=None,
        mitigants=[],
        mitigant_fields=[],
        decision_quality=None,
        valid_from=None,
        valid_to=None,
    )


__all__ = ["amendments_of", "moves_a_figure"]
