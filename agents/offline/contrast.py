"""Clauses that qualify the rule just read instead of stating one of their own.

"... is declined; where Y, refer it instead" (an alternative), "... must be verified:
values are confirmed by an inspection" (how the rule is met), "a sprinklered building
may be written" after "unsprinklered buildings are referred" (a contrast): each gives
the rule before its mitigants, and makes no rule.
"""

from __future__ import annotations

import re

from agents.offline import lexicon_discourse as lxd
from agents.offline.assemble import RuleDraft
from agents.offline.clauses import ClauseAnalysis, ClauseAnalyzer, action_from_word
from agents.offline.textproc import Sentence
from schemas.rules import Condition

_INSTEAD = re.compile(r"\binstead\b", re.I)
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than)\s+(?:being\s+)?(\w+)", re.I)


def contrast(
    drafts: list[RuleDraft],
    a: ClauseAnalysis,
    conditions: list[Condition],
    occupancy: str | None,
) -> bool:
    """True for "a sprinklered building may be written" after "unsprinklered ... referred".

    Args:
        drafts: The rules read so far.
        a: The clause.
        conditions: Its conditions.
        occupancy: The business-class field of the dictionary.

    Returns:
        Whether the clause names a protection of the rule before rather than a rule.
    """
    protective = a.protective_pos + a.mitigant_fields
    if not protective or not drafts:
        return False
    last = drafts[-1]
    if _other_subject(conditions, last.conditions, occupancy):
        return False  # another business class: a rule of its own, not a contrast
    known = {occupancy, *protective, *(c.field for c in last.conditions)}
    if a.action and any(c.field not in known for c in conditions):
        # "For accredited schools, chemical services over 40% are referred": a rule of
        # its own on something the rule before did not measure, for the protected ones
        return False
    negatives = {c.field for c in last.conditions if c.value is False}
    if any(f in last.mitigant_fields or f in negatives for f in a.protective_pos):
        return True
    # "Apartments with a pool are referred. Where the pool is fenced, the desk may
    # write it subject to ...": a conditional approval of the same subject, once a
    # protection is present, is the earlier rule's mitigant, not a rule of its own.
    return (
        a.action == "approve_with_conditions"
        and last.action != a.action
        and all(any(c == o for o in last.conditions) for c in conditions)
    )


def elaboration(
    drafts: list[RuleDraft],
    a: ClauseAnalysis,
    conditions: list[Condition],
    sentence: Sentence,
    analyzer: ClauseAnalyzer,
) -> bool:
    """True for how the rule before a colon is met, not a rule of its own.

    "... must be verified before binding: values and yard layout are confirmed by an
    inspection": the same action after a colon, on nothing but a phrase no dictionary
    lists as a business class.

    Args:
        drafts: The rules read so far.
        a: The clause.
        conditions: Its conditions.
        sentence: Its sentence.
        analyzer: The clause analyzer (its subject reader knows the listed classes).

    Returns:
        Whether the clause only says how the rule before is met.
    """
    if not drafts or not conditions:
        return False
    last = drafts[-1]
    if last.sentence_index != sentence.index or last.action != a.action:
        return False
    start = sentence.text.find(a.text[:20])
    if start <= 0 or ":" not in sentence.text[:start]:
        return False
    examples = analyzer.subjects.example_set
    return all(
        c.field == analyzer.vocab.occupancy
        and not (isinstance(c.value, str) and c.value in examples)
        for c in conditions
    )


def instead(
    drafts: list[RuleDraft], a: ClauseAnalysis, conditions: list[Condition], index: int
) -> list[str]:
    """Flags that soften the rule just read: "... is declined; where Y, refer it instead".

    Args:
        drafts: The rules read so far.
        a: The clause.
        conditions: Its conditions.
        index: Index of the clause's sentence.

    Returns:
        The boolean fields of a clause that says "instead" right after a rule of the
        same sentence and names nothing but flags that rule lacks ([] otherwise).
    """
    okay = bool(_OKAYED.search(a.text))  # "combos kept offline -> ok, write w/ conditions"
    said_instead = bool(_INSTEAD.search(a.text) or _INSTEAD_OF.search(a.text))  # "rather than"
    said_instead = said_instead or (a.action == "approve_with_conditions" and okay)
    stepped = _STEPPED_DOWN.search(a.text)  # "We've gone to referral only where ..."
    said_instead = said_instead or stepped is not None
    if not drafts or not (said_instead or _written_if(a, drafts[-1], index)):
        return []
    last = drafts[-1]
    if last.action == a.action:
        return []
    replaced = _INSTEAD_OF.search(a.text)  # "... is referred instead of declined"
    names_last = replaced is not None and action_from_word(replaced.group(1)) == last.action
    # "-> refer (GL). combos kept offline + encrypted -> ok, write w/ conditions": a note's
    # next sentence that okays the risk on a protection
    okayed = last.sentence_index == index - 1 and okay
    # "... it's a decline. We've gone to referral only where ...": the decline just stated
    names_last = names_last or (stepped is not None and last.action == "decline")
    if not (
        last.sentence_index == index or okayed or (names_last and last.sentence_index == index - 1)
    ):
        return []
    known = {c.field for c in last.conditions}
    said = [c for c in conditions if c not in last.conditions]  # the class both name stays
    flags = [c.field for c in said if c.value is True and c.field not in known]
    return flags if said and len(flags) == len(said) else []


#: A decline practice stepped down from: "we've gone to referral only where ...".
_STEPPED_DOWN = re.compile(
    r"\b(?:gone|went|dropped|stepped|come|moved)\s+(?:down\s+)?to\s+(?:a\s+)?referral\b", re.I
)
#: A note's "X -> ok, write w/ conditions": the risk is fine on that protection.
_OKAYED = re.compile(r"->\s*(?:ok|okay|fine|acceptable)\b", re.I)
#: The condition word of a conditional approval ("written with conditions if ...").
_IF = re.compile(r"\b(?:if|provided|where|when|once)\b", re.I)


def _written_if(a: ClauseAnalysis, last: RuleDraft, index: int) -> bool:
    """True for a conditional approval that names the way out of the rule before it.

    "Refer; written with conditions if a lead test is required": in the sentence of a
    rule that stops a risk, it names what clears it, as "instead" does.
    """
    return (
        a.action == "approve_with_conditions"
        and last.sentence_index == index
        and last.action in ("refer", "decline")
        and bool(_IF.search(a.text))
    )


def _other_subject(
    conditions: list[Condition], before: list[Condition], occupancy: str | None
) -> bool:
    """True when a clause names a business class the earlier rule does not."""

    def heads(conds: list[Condition]) -> set[str]:
        values = [
            v
            for c in conds
            if c.field == occupancy
            for v in (c.value if isinstance(c.value, list) else [c.value])
        ]
        return {str(v).split()[-1] for v in values if str(v).split()}

    mine = heads(conditions)
    return bool(mine) and not mine & heads(before)


def complement(
    conditions: list[Condition], state: str | None, occupancy: str | None
) -> list[Condition]:
    """The conditions before, read as "anything but": "... any other lining is referred".

    "Only X and Y absorb the load; a rink using any other lining is referred" acts on the
    values the clause before listed, negated (`eq` -> `neq`, `in` -> `not_in`). The
    business class is who the clause speaks of and stays; flags and numbers have no
    "other" and stay as they are.

    Args:
        conditions: The conditions the clause acts on (from the clause before).
        state: The dictionary's state field.
        occupancy: The dictionary's business-class field.

    Returns:
        The negated conditions, or [] when no listed value was negated, or when what is
        left names only states outside a list and no business class (it would reach every
        risk): an unsure reading makes no rule.
    """
    out: list[Condition] = []
    negated = False
    for c in conditions:
        if c.field != occupancy and c.operator in {"eq", "in"} and isinstance(c.value, (str, list)):
            op = "neq" if c.operator == "eq" else "not_in"
            out.append(Condition(field=c.field, operator=op, value=c.value))  # type: ignore[arg-type]
            negated = True
        else:
            out.append(c)
    if not negated:
        return []
    if (
        state
        and all(c.field == state for c in out if c.field != occupancy)
        and not any(c.field == occupancy and c.operator in {"eq", "in"} for c in out)
    ):
        return []
    return out


def spared(drafts: list[RuleDraft], a: ClauseAnalysis) -> bool:
    """True when a clause spares what it names from the last rule's referral.

    "Moxibustion is referred. Clinics that use only smokeless rolls may be written without
    referral": the smokeless rolls mitigate the referral.
    """
    if drafts and lxd.CHECKED_STATE.match(a.trigger):
        # "Verify that the pans are lead-safe. Where lead-safe pans are confirmed, write it
        # with the products condition": what the check confirmed clears it
        lacked = {c.field for c in drafts[-1].conditions if c.value is False}
        held = {c.field for c in a.conditions if c.value is True}
        if drafts[-1].action in {"refer", "flag_for_review", "verify"} and held and held <= lacked:
            return True
    return (
        bool(drafts)
        and drafts[-1].action in {"refer", "flag_for_review"}
        and bool(lxd.SPARED.search(a.trigger))
    )


def spared_when_held(
    drafts: list[RuleDraft], a: ClauseAnalysis, clause: str, before: list[Condition]
) -> list[str]:
    """The protections the last rule lacked that a clause says spare it.

    "Any kennel without an airlock is referred, and a kennel that has one needs no
    referral": the airlock mitigates the referral (named, or "one" for the only
    protection the rule lacked). A table row "Legs fitted with monitors: Standard terms,
    no referral" names it in the clause `before` the colon. An exclusion or decline is
    not spared this way.
    """
    if not drafts or drafts[-1].action not in {"refer", "flag_for_review", "verify"}:
        return []
    if a.action or not lxd.SPARED_WHEN_HELD.search(a.trigger):
        return []
    lacked = [c.field for c in drafts[-1].conditions if c.value is False]
    held = [c.field for c in (a.conditions or before) if c.value is True]
    if held:
        return held if set(held) <= set(lacked) else []
    return lacked if len(lacked) == 1 and lxd.HAS_ONE.search(clause) else []


#: "I'll still take an oversized bike, though, provided that ...": the risk just refused,
#: taken after all on a condition.
_STILL_TAKEN = re.compile(
    r"\bstill\s+(?:\w+\s+){0,2}?(?:take|write|bind|accept|quote|approve)\b", re.I
)


def still_taken(drafts: list[RuleDraft]) -> list[RuleDraft]:
    """A conditional approval of the risk the rule before stops is that rule's mitigant.

    "More than fifteen riders goes to referral. I'll still take an oversized bike, though,
    provided that the company puts its own sober employee on the brakes": the sober
    operator mitigates the referral; it is no approval of every bike with one.
    """
    kept: list[RuleDraft] = []
    for draft in drafts:
        before = kept[-1] if kept else None
        if (
            before is not None
            and draft.action == "approve_with_conditions"
            and draft.conditions
            and all(c.value is True for c in draft.conditions)
            and before.action in {"refer", "decline", "flag_for_review", "verify"}
            and draft.sentence_index - before.sentence_index <= 1
            and (_STILL_TAKEN.search(draft.sentence) or _counterpart(before, draft))
        ):
            # "... and there's no engineer's stamp, refer it. With a stamped design I'll write
            # it": the stamp is the referral's mitigant (`add_mitigants` drops its absence)
            before.add_mitigants([c.field for c in draft.conditions], [draft.sentence])
            continue
        kept.append(draft)
    return kept


def _counterpart(before: RuleDraft, draft: RuleDraft) -> bool:
    """True when a conditional approval's flags are those the rule before needs missing."""
    missing = {c.field for c in before.conditions if c.value is False}
    return bool(missing) and {c.field for c in draft.conditions} <= missing
