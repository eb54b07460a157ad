"""Soft limits read from practice evidence, and restatements of them dropped.

"I've signed off on stores up to about $900,000" after a rule on the same numeric field
is that rule's soft limit; "past 900,000 we decline" afterwards restates the boundary
rather than stating a rule of its own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agents.offline import lexicon as lx
from agents.offline.assemble import RuleDraft
from agents.offline.conditions import NumericHit, blank_parentheses, in_flag_name
from agents.offline.field_choice import unit_factor
from agents.offline.units import unit_fits
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers
from schemas.rules import Condition

#: A denial right before a practice cue: "nobody has", "we have never".
_DENIED_BEFORE = re.compile(r"\b(?:nobody|no one|never|not|n['\u2019]t)\b(?:\s+\w+)?\s*$", re.I)


#: "up to about a third", "up to roughly 30": a hedge between the cue and its figure.
_HEDGE = re.compile(r"\s*(?:about|roughly|around|approximately|some|nearly|almost)\s+", re.I)


def soft_limit(text: str, drafts: list[RuleDraft], vocab: FieldVocabulary) -> RuleDraft | None:
    """Read "we've gone up to 23" / "written two-year-old businesses" evidence.

    Args:
        text: An evidence sentence.
        drafts: The drafts read so far (the latest is tried first).
        vocab: The field vocabulary.

    Returns:
        The draft that received a soft limit, or None.
    """
    mentions: list[tuple[NumberMention, bool]] = []  # a figure, and "below" after it
    for match in lx.SOFT_LIMIT_CUE.finditer(text):
        if _DENIED_BEFORE.search(text[max(0, match.start() - 30) : match.start()]):
            continue  # "nobody has approved a six-boat fleet": how far practice did not go
        if _OTHER_MARKETS.search(re.split(r"[.;]\s", text[: match.start()])[-1]):
            continue  # "Some specialty markets will write chutes clocking up to fifty"
        # "at $54,500 (PR-25-0107) and at $58,000": a case's reference is no joint's word
        window = blank_parentheses(text[match.end() : match.end() + 60])
        found = find_numbers(window)
        if found and (found[0].start <= 2 or _HEDGE.fullmatch(window[: found[0].start])):
            for end in run_of(window, found):  # the furthest case of the run counts
                if (end.unit or "").lower() in _NO_UNITS:  # "past thirty-six nobody has ..."
                    end = replace(end, unit=None)
                mentions.append((end, bool(_BELOW_AFTER.match(window[end.end :]))))
    after = [*lx.PRACTICE_AFTER.finditer(text), *lx.PRACTICE_CEILING.finditer(text)]
    for match in after:  # "nine or ten fields can go through", "six is the ceiling"
        before = text[max(0, match.start() - 40) : match.start()]
        found = find_numbers(before)
        ceiling = match.re is lx.PRACTICE_CEILING
        if found and ceiling and _restates_last(found[-1].value, drafts):
            continue  # "four or more losses are declined; three is the most we accept"
        if found and in_flag_name(before, found[-1], vocab):
            continue  # "helmets for riders under eighteen may be written": a flag's words
        if found and _CONDITIONAL.match(text[match.end() :]):
            continue  # "more than a quarter of sales, the GL may be written provided that"
        if found and not re.search(r"[.;:]", before[found[-1].end :]):
            mentions.append((found[-1], bool(_BELOW_AFTER.match(before[found[-1].end :]))))
    for match in _FURTHEST_TOLD.finditer(text):  # "cap of 180, approved ... - the highest
        before = re.split(r"\.\s", text[: match.start()])[-1]  # we have accepted"; "12
        # machines against the guideline of ten; approved because two are backups, and
        # that is the most we have approved": a figure of the sentence past the limit
        for n in find_numbers(before):
            if n.unit not in _NO_UNITS:
                mentions.append((n, bool(_BELOW_AFTER.match(before[n.end :]))))
    for match in _CASES_APPROVED.finditer(text):  # "Hollis Mint (430 acres) and Dry Creek
        clause = re.split(r"[.;:]\s", text[: match.start() + 1])[-1]  # (450 acres) were approved"
        for told in re.finditer(r"\(([^()]{1,40})\)", clause):
            if vocab.flags_present(told.group(1)):
                continue  # "WD-330 ($7.2M of copper, sensors in place)": the protection at work
            for n in find_numbers(told.group(1)):
                if n.unit not in _NO_UNITS:
                    mentions.append((n, bool(_BELOW_AFTER.match(told.group(1)[n.end :]))))
    for match in lx.AGE_EXCEPTION.finditer(text):
        found = find_numbers(match.group(0)[match.start(1) - match.start() :])
        if found:
            mentions.append((NumberMention(found[0].value, "years", 0, 0, 0), False))
    found_target = None
    for mention, below in mentions:  # "OK'd at 110k; ... passed at 125k": each case told
        found_target = _soft_target(mention, drafts, vocab, below) or found_target
    return found_target


#: "- the highest we have accepted", "that is the most we have approved": the case's figure
#: told before it is how far practice went.
_FURTHEST_TOLD = re.compile(
    r"\bthe "
    + lx.SUPERLATIVE
    + r" (?:we|I)(?:['\u2019]ve| have)? (?:ever )?(?:accepted|approved|written|bound|signed)\b",
    re.I,
)


#: Other insurers' practice, no reach of ours: "Some specialty markets will write ...".
_OTHER_MARKETS = re.compile(
    r"\b(?:some|other|specialty|specialist|competing|rival|surplus)\s+(?:\w+\s+)?"
    r"(?:markets?|carriers?|insurers?|writers?|companies|competitors)\b|\bcompetitors?\b",
    re.I,
)
#: Cases told with their figures in parentheses, then approved together.
_CASES_APPROVED = re.compile(
    r"\)\s+(?:were|was)\s+(?:both\s+|all\s+)?(?:approved|written|bound|accepted|signed off)\b",
    re.I,
)


def _restates_last(value: float, drafts: list[RuleDraft]) -> bool:
    """True when a figure is the most the latest ordering rule lets pass (no reach past it)."""
    for draft in reversed(drafts):
        for c in draft.conditions:
            if (
                c.operator in ("gt", "gte")
                and isinstance(c.value, int | float)
                and not isinstance(c.value, bool)
            ):
                passing = float(c.value) - (1 if c.operator == "gte" else 0)
                return abs(passing - value) < 1e-9
    return False


#: A proviso after "may be written": a conditional approval, not practice's reach.
_CONDITIONAL = re.compile(
    r"^\W*(?:only\s+)?(?:provided|providing|if|when|where|subject to|so long as|as long as|"
    r"on condition|with (?:the|a|an)\b)",
    re.I,
)
#: Words after a figure that are no unit of it: who did (or did not) approve.
_NO_UNITS = frozenset({"nobody", "none", "no", "i", "we", "they", "you", "anyone"})
#: "25% below (minimum)": the figure lies under a reference.
_BELOW_AFTER = re.compile(r"^\s*(?:%|percent|per cent)?\s*(?:below|under|short of)\b", re.I)
#: What joins the numbers of one run: "at 550 and 600 lbs", "at 180 and another at 200",
#: "on three and on four filings".
_RUN_JOINT = re.compile(
    r"^\s*(?:,\s*)?(?:and|to|or|through|-|–)?(?:\s+(?:another|one more|a second))?"
    r"(?:\s+(?:on|at|with))?\s*$",
    re.I,
)


def run_of(window: str, found: list[NumberMention]) -> list[NumberMention]:
    """The numbers of the run the first one opens, each a case practice reached.

    The run's unit is the first number's ("seven and eight plenty of times" is no count
    of "plenty"; "550 and 600 lbs" keeps no unit of its own, which fits any field). A
    case named between two figures joins them: "at 45%, Clear Heads at 48% and Comb
    Clinic at 50%".
    """
    run = [found[0]]
    for mention in found[1:]:
        joint = window[run[-1].end : mention.start]
        if not joint.strip() or not (_RUN_JOINT.match(joint) or _NAMED_JOINT.match(joint)):
            break  # "180 a month": the figure's period, no second figure
        if re.match(r"an?\s", window[mention.start : mention.num_end], re.I):
            break  # "OK'd at 35 on a five-year clean loss run": the case's reason
        if found[0].unit and mention.unit and mention.unit != found[0].unit:
            break  # "sixteen feet on two similar clubs": a count of cases, no second figure
        run.append(replace(mention, unit=found[0].unit))
    return run


def run_end(window: str, found: list[NumberMention]) -> NumberMention:
    """The last number of the run the first one opens: practice reached that far."""
    return run_of(window, found)[-1]


#: A case named between two figures of one run: ", Clear Heads at", " and Comb Clinic at".
_NAMED_JOINT = re.compile(r"^\s*,?\s*(?:and\s+)?(?:[A-Z][\w'&.-]*\s+){1,4}(?:at|on|with)\s*$")


def _soft_target(
    mention: NumberMention, drafts: list[RuleDraft], vocab: FieldVocabulary, below: bool
) -> RuleDraft | None:
    """The latest draft whose numeric threshold (and soft limit) the mentioned value lies beyond.

    "OK'd at 30 ... OK'd at 32 ... OK'd at 35": practice reached the furthest case told.

    `below`: "below" follows the figure ("down to 25% below minimum"), which is negative on
    a field whose values below a reference are ("-22 = 22% below").
    """
    for draft in reversed(drafts):
        for cond in draft.conditions:
            info = vocab.fields.get(cond.field)
            if info is None or info.kind != "numeric" or isinstance(cond.value, bool):
                continue
            if not isinstance(cond.value, int | float) or cond.operator in {"eq", "in"}:
                continue
            value = -mention.value if below and info.negative_below else mention.value
            if mention.fraction and mention.unit is None and info.unit == "percent":
                value = round(value * 100.0, 9)  # "I've let it run to half" of a share
            if info.unit == "rate" and mention.unit == "percent":
                value = round(value / 100.0, 12)  # 0.35% is 0.0035, not 0.0034999...
            factor = unit_factor(mention.unit, info.unit)
            if factor is not None:  # "as close as seventy yards" on a field in feet
                value = round(value * factor, 9)
            elif mention.unit not in (None, info.unit) and not unit_fits(mention.unit, info):
                continue
            beyond = value > cond.value if cond.operator in {"gt", "gte"} else value < cond.value
            reach = draft.soft_limit
            further = reach is None or (
                value > reach if cond.operator in {"gt", "gte"} else value < reach
            )
            if beyond and further and near_limit(value, float(cond.value)):
                draft.soft_limit = float(value)
                return draft
    return None


#: How many times over (or under) its limit practice may reach: "approved at three" is no
#: reach of a limit of 1945 (a year built).
_REACH_RATIO = 10.0
#: How far practice may reach past a limit of none ("any loss"): a few, not thousands.
_FROM_NONE = 20


def near_limit(value: float, limit: float) -> bool:
    """True when a practice figure lies within reach of a positive limit."""
    if limit == 0 and value > 0:
        return value <= _FROM_NONE  # "any death" bent to one or two, never to 3,000
    if value <= 0 or limit < 0:
        return True
    return 1 / _REACH_RATIO <= value / limit <= _REACH_RATIO


_CITED_REACH = 25  # characters between a number and a word citing it


def cited_limits(drafts: list[RuleDraft], heard: list[tuple[NumericHit, str]]) -> list[RuleDraft]:
    """A rule stated at practice's reach takes the written limit the text cites.

    "Athena referred a cabin rental with 23 cabins because the guideline caps the class at
    twenty ... up to twenty-four cabins is accepted practice, while 25 or more is still
    referred": the rule is "more than 20", soft to 24; "25 or more" only restates where
    practice stops. Only for a draft with one ordering condition on the field and no soft
    limit yet, practice's reach read as such, and a cited limit below it.
    """
    for draft in drafts:
        bounds = [c for c in draft.conditions if c.operator in ("gt", "gte")]
        if draft.soft_limit is not None or len(bounds) != 1:
            continue
        bound = bounds[0]
        if isinstance(bound.value, bool) or not isinstance(bound.value, int | float):
            continue
        reach = [h.value for h, _ in heard if h.field == bound.field and h.soft_evidence]
        soft = float(max(reach)) if reach else None
        if soft is None or not _at_soft_limit(bound.operator, float(bound.value), soft):
            continue
        cited = sorted(
            (distance, -h.value, h.value)
            for h, clause in heard
            if h.field == bound.field and not h.soft_evidence and h.value < soft
            for distance in [_citing_distance(clause, h)]
            if distance is not None
        )
        if cited:
            limit = cited[0][2]
            value: int | float = int(limit) if isinstance(bound.value, int) else limit
            draft.conditions = [
                Condition(field=c.field, operator="gt", value=value) if c is bound else c
                for c in draft.conditions
            ]
            draft.soft_limit = soft
    return drafts


def _citing_distance(clause: str, hit: NumericHit) -> int | None:
    """How far the nearest citing word stands from a number, when near enough."""
    distances = [
        max(m.start() - hit.end, hit.start - m.end(), 0) for m in lx.CITED_LIMIT.finditer(clause)
    ]
    near = [d for d in distances if d <= _CITED_REACH]
    return min(near) if near else None


def drop_restatements(drafts: list[RuleDraft]) -> list[RuleDraft]:
    """Drop "past 45 we decline" when 45 is an earlier rule's soft limit.

    A withdrawal of a rule the same text states anew on the same fields ("referral
    ... is discontinued; ... is declined") is dropped too: the new statement replaces
    it, and a withdrawal of the same day would end the new rule as well.

    Args:
        drafts: The drafts of one text, in text order.

    Returns:
        The drafts kept.
    """
    stated = [(d.product, {c.field for c in d.conditions}) for d in drafts if not d.withdrawn]
    kept: list[RuleDraft] = []
    for draft in drafts:
        if draft.withdrawn and (draft.product, {c.field for c in draft.conditions}) in stated:
            continue
        zone = _soft_zone_below(draft, kept)
        if zone is not None:
            # "accounts up to forty-five percent are referred, and above that the decline
            # stands": the decline over 40 is soft to 45, the referral its soft zone
            zone[0].soft_limit = zone[1]
            continue
        restated = next(
            (
                old
                for old in kept
                if old.soft_limit is not None
                and old.action == draft.action
                and any(
                    c.field == o.field
                    and isinstance(c.value, int | float)
                    and _at_soft_limit(c.operator, float(c.value), old.soft_limit)
                    for c in draft.conditions
                    for o in old.conditions
                )
            ),
            None,
        )
        if restated is not None:
            # "nine or more is a referral ... a lifeguard on deck clears it": what clears
            # the restated boundary clears the rule it restates
            restated.add_mitigants(draft.mitigant_fields, draft.mitigants)
        elif not (_summary_of(draft, kept) or _soft_zone_of(draft, kept)):
            kept.append(draft)
    return kept


_MILDER = {"refer", "flag_for_review", "verify", "approve_with_conditions"}


def _soft_zone_below(draft: RuleDraft, kept: list[RuleDraft]) -> tuple[RuleDraft, float] | None:
    """(the decline, its soft limit) when a milder rule "up to S" covers its soft zone.

    The milder rule has one condition, at most S on the field a decline bounds above L
    (S > L), in a later sentence; the decline has no soft limit yet.
    """
    if draft.action not in _MILDER or len(draft.conditions) != 1:
        return None
    cap = draft.conditions[0]
    if (
        cap.operator != "lte"
        or isinstance(cap.value, bool)
        or not isinstance(cap.value, int | float)
    ):
        return None
    for old in kept:
        if old.action != "decline" or old.soft_limit is not None or old.withdrawn:
            continue
        if old.sentence_index >= draft.sentence_index:
            continue
        for c in old.conditions:
            if (
                c.field == cap.field
                and c.operator in ("gt", "gte")
                and isinstance(c.value, int | float)
                and not isinstance(c.value, bool)
                and float(c.value) < float(cap.value)
            ):
                return old, float(cap.value)
    return None


def _soft_zone_of(draft: RuleDraft, kept: list[RuleDraft]) -> bool:
    """True for a band that restates a rule's soft zone: "treat 31 to 36 as approvable"."""
    band = {c.operator: c for c in draft.conditions if c.operator in ("gte", "lte")}
    if set(band) != {"gte", "lte"} or band["gte"].field != band["lte"].field:
        return False
    low, high = band["gte"].value, band["lte"].value
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return False
    return any(
        old.soft_limit is not None
        and abs(float(high) - old.soft_limit) < 1e-9
        and any(
            c.field == band["gte"].field
            and c.operator == "gt"
            and isinstance(c.value, int | float)
            and float(c.value) <= float(low) <= float(c.value) + 1
            for c in old.conditions
        )
        for old in kept
    )


def _at_soft_limit(operator: str, value: float, soft: float) -> bool:
    """True for a limit at a soft limit: "past 45", or "seven or more" after "up to six"."""
    if abs(value - soft) < 1e-9:
        return True
    return operator == "gte" and soft.is_integer() and abs(value - soft - 1) < 1e-9


def _summary_of(draft: RuleDraft, kept: list[RuleDraft]) -> bool:
    """True for a clause that sums up the rule of its own sentence with fewer conditions.

    "... of frame construction with more than three stories are declined; we don't write
    tall frame habitational": the second reading keeps only "frame", a broader rule the
    text never states.
    """
    mine = {(c.field, c.operator, str(c.value)) for c in draft.conditions}
    return any(
        old.sentence_index == draft.sentence_index
        and old.action == draft.action
        and not old.withdrawn
        and mine < {(c.field, c.operator, str(c.value)) for c in old.conditions}
        for old in kept
    )


def practice_ceilings(drafts: list[RuleDraft]) -> list[RuleDraft]:
    """In a practice log, a later, higher limit of the same rule is its soft limit.

    "More than three losses is referred ... four sit within the exceptions we have
    granted, but five or more must always go to referral": practice bends the rule to
    four, and the second statement is where the bending stops, not a second rule.

    Args:
        drafts: The drafts of one production text, in text order.

    Returns:
        The drafts kept; an earlier rule whose higher restatement was dropped carries
        the last value practice accepts as its soft limit.
    """
    kept: list[RuleDraft] = []
    for draft in drafts:
        ceiling = _ceiling(draft)
        earlier = next((old for old in kept if _bent_to(old, draft, ceiling)), None)
        if earlier is None or ceiling is None:
            kept.append(draft)
            continue
        earlier.soft_limit = ceiling[1]
        earlier.historical.append(draft.sentence)
    return kept


def _bent_to(old: RuleDraft, draft: RuleDraft, ceiling: tuple[str, float] | None) -> bool:
    """True when `draft` restates `old`'s limit higher: same action and field, no soft limit yet."""
    limit = _ceiling(old)
    return (
        ceiling is not None
        and limit is not None
        and old.action == draft.action
        and old.soft_limit is None
        and limit[0] == ceiling[0]
        and limit[1] < ceiling[1]
    )


def _ceiling(draft: RuleDraft) -> tuple[str, float] | None:
    """(field, the highest value the rule lets pass) for a one-condition upper limit."""
    if draft.withdrawn or len(draft.conditions) != 1:
        return None
    c = draft.conditions[0]
    if c.operator not in ("gt", "gte") or isinstance(c.value, bool):
        return None
    if not isinstance(c.value, int | float):  # a number, not a flag or a class
        return None
    value = float(c.value)
    if c.operator == "gte":
        if not value.is_integer():
            return None
        value -= 1  # "five or more" lets four pass
    return c.field, value
