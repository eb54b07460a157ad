"""A clause's conditions completed from the clauses before it.

"operations of up to 2,000 acres; larger operations are referred", "... at least 500 feet
away is acceptable; anything closer is declined", "no more than four a month; above that,
refer": a clause that acts names its conditions through the one before.
"""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_comparators as lxc
from agents.offline import lexicon_discourse as lxd
from agents.offline.analysis import ClauseAnalysis
from agents.offline.anaphora import Pending, lacking_in_clause
from agents.offline.conditions import NumericHit
from agents.offline.contrast import complement
from agents.offline.scales import directed, inverted
from agents.offline.vocab import FieldVocabulary
from schemas.rules import ORDERING_OPERATORS, Condition

#: "every such refinery": the ones the clause before describes.
_SUCH = re.compile(r"\b(?:every|each|any|all|an?|no)\s+such\b", re.I)
#: "a hop farm that does so", "an insured who does this": a pro-verb for the clause before.
_DOES_SO = re.compile(
    r"\b(?:that|which|who)\s+(?:does|do|did)\s+(?:so|this|that|it)\b|\bdoing so\b", re.I
)


#: "those three states", "these zones": the items a list before named.
_THOSE_LISTED = re.compile(
    r"\bth(?:ose|ese)\s+(?:\w+\s+)?(?:states|classes|zones|counties|territories)\b", re.I
)


def completed_conditions(
    a: ClauseAnalysis,
    pending: Pending | None,
    vocab: FieldVocabulary,
    earlier: tuple[list[NumericHit], list[Condition]],
) -> list[Condition]:
    """The clause's conditions, completed from pending clauses and anaphora.

    Args:
        a: The clause's analysis (its protections take the pending clause's).
        pending: Conditions an earlier clause left without an action, if any.
        vocab: The field vocabulary.
        earlier: The numbers and the conditions the text compared last.

    Returns:
        The conditions of the clause's rule.
    """
    last_numbers, last_conditions = earlier
    conditions = list(a.conditions)
    occupancy = vocab.occupancy
    if (
        a.occupancy
        and occupancy
        and not any(c.field == occupancy for c in conditions)
        and not (pending is not None and pending.accepted and _otherwise_subject(a))
    ):
        conditions.insert(0, _classes(occupancy, a.occupancy, excepted=False))
    if a.excluded and occupancy and not any(c.field == occupancy for c in conditions):
        # "except for santa grottos, ...": every class but the ones excepted
        conditions.insert(0, _classes(occupancy, a.excluded, excepted=True))
    if (
        a.action
        and pending is not None
        and not pending.accepted
        and any(c.field != occupancy for c in pending.conditions)
        and conditions
        and all(c.field == occupancy for c in conditions)
    ):
        # the clause before says which ones: "Hops must never be stored over the kiln; a
        # hop farm that does so is declined", "Refiners that dissolve scrap in aqua regia
        # ...; every such refinery is referred" (its own class words, if it has them)
        named = any(c.field == occupancy for c in pending.conditions)
        if _SUCH.search(a.trigger) or (_DOES_SO.search(a.trigger) and not named):
            conditions = [*([] if named else conditions), *pending.conditions]
    if a.verified and pending is not None and pending.conditions and not pending.accepted:
        # "More than 5 plow trucks: verify GPS logs": the clause before is the trigger and
        # what is verified clears the check
        conditions = [c for c in conditions if c.field != a.verified]
        a.mitigant_fields = [*a.mitigant_fields, a.verified]
    if a.action and not conditions and pending is not None and a.comparative:
        # "operations of up to 2,000 acres; larger operations are referred"
        conditions = directed(pending.conditions, a.comparative, pending.accepted)
    elif a.action and not conditions and pending is not None and pending.accepted:
        # "... at least 500 feet away is acceptable; anything closer is declined"
        if a.otherwise:
            conditions = inverted(pending.conditions)
    elif (
        a.action
        and not conditions
        and pending is not None
        and a.otherwise
        and [c.operator for c in pending.conditions if c.operator in ORDERING_OPERATORS]
        in (["lte"], ["gte"])
    ):
        # "Up to six is a commercial refiner; a seventh unit or more is flagged": past
        # the one range said (its end included), though no word accepted it
        conditions = inverted(pending.conditions)
    elif a.action and not conditions and pending is not None:
        pending = lacking_in_clause(a.trigger, pending)
        conditions = list(pending.conditions)
        if _THOSE_LISTED.search(a.trigger):
            # "approved in every state other than LA, AK and HI; submissions from those
            # three states are declined": the states listed, not every other one
            conditions = [
                Condition(field=c.field, operator="in", value=c.value)
                if c.operator == "not_in"
                else c
                for c in conditions
            ]
        bounds = [c for c in conditions if c.operator in ORDERING_OPERATORS]
        if a.anaphor_op and len(bounds) == 1:
            # "no more than four a month; above that, refer": past the bound said
            conditions = [
                Condition(field=c.field, operator=a.anaphor_op, value=c.value)  # type: ignore[arg-type]
                if c is bounds[0]
                else c
                for c in conditions
            ]
        if lxd.ANY_OTHER.search(a.trigger):  # "a rink using any other lining is referred"
            conditions = complement(conditions, vocab.state, occupancy)
        a.protective_neg = a.protective_neg + pending.protective_neg
        a.protective_pos = a.protective_pos + pending.protective_pos
    elif a.action and pending is not None and lxd.ANY_OTHER.search(a.trigger):
        conditions = _other_than(conditions, pending, vocab)
    elif a.action and pending is not None:
        conditions = _bound_class(conditions, pending, vocab)
    own = [h for h in a.numbers if h.field and not h.operator]
    if a.anaphor_op and (own or last_numbers):
        # "anything with more seat positions than that": the field named with "more" is
        # the one the anaphor compares, not "any seat positions at all"
        said = (own[-1] if own else last_numbers[-1]).field
        conditions = [c for c in conditions if not (c.field == said and c.value == 0)]
    numeric = {n for n, i in vocab.fields.items() if i.kind == "numeric"}
    has_numeric = any(c.field in numeric for c in conditions)
    # "the guideline says 15,000 barrels, and a brewery above that is referred": the
    # anaphor points at the clause's own uncompared number first, else the last one.
    if a.anaphor_op and not has_numeric and (own or last_numbers):
        hit = own[-1] if own else last_numbers[-1]
        conditions.append(
            Condition(
                field=hit.field,
                operator=a.anaphor_op,  # type: ignore[arg-type]
                value=hit.value,
            )
        )
    elif a.comparative and a.action and not has_numeric and (own or last_numbers):
        # "the guide says twelve feet; anything higher is referred": past the bare figure
        hit = own[-1] if own else last_numbers[-1]
        if not hit.operator:
            greater = a.comparative.lower() in lxc.GREATER_WORDS
            conditions.append(
                Condition(field=hit.field, operator="gt" if greater else "lt", value=hit.value)  # type: ignore[arg-type]
            )
    elif a.anaphor_size and a.action and not has_numeric:
        fields = {c.field for c in conditions}
        conditions += [c for c in last_conditions if c.field not in fields]
    return conditions


def _classes(field: str, values: list[str], excepted: bool) -> Condition:
    """The business classes a clause names (`eq` / `in`) or excepts (`neq` / `not_in`)."""
    if len(values) == 1:
        return Condition(field=field, operator="neq" if excepted else "eq", value=values[0])
    return Condition(field=field, operator="not_in" if excepted else "in", value=list(values))


def _bound_class(
    conditions: list[Condition], pending: Pending, vocab: FieldVocabulary
) -> list[Condition]:
    """The classes of an accepted bound, for the clause past the same bound.

    "Test prep centers may be written with no more than 25 employees; over 25 is
    referred": the referral is the test prep centers' (or every class but those
    excepted), not every risk's.
    """
    occupancy = vocab.occupancy
    if (
        pending.carried
        or not occupancy
        or not conditions
        or any(c.field == occupancy for c in conditions)
    ):
        return conditions
    classes = [c for c in pending.conditions if c.field == occupancy]
    bounds = {
        (c.field, c.operator, c.value)
        for c in pending.conditions
        if c.operator in ORDERING_OPERATORS and isinstance(c.value, int | float)
    }
    past = [
        c
        for c in conditions
        if isinstance(c.value, int | float)
        and (c.field, _PAST.get(c.operator), c.value) in bounds
        or (pending.accepted and any(b[0] == c.field and b[1] in _PAST for b in bounds))
    ]
    if len(past) != len(conditions):
        return conditions
    # "a wood-frame studio may fire no more than two glory holes; over two is a decline":
    # the kind of building the bound was said of holds past it too
    kinds = [
        c
        for c in pending.conditions
        if c.field not in (occupancy, vocab.state)
        and c.operator == "eq"
        and isinstance(c.value, str)
    ]
    listed = {v.lower() for v in vocab.fields[occupancy].values}
    said = [v for c in classes for v in (c.value if isinstance(c.value, list) else [c.value])]
    if not classes or not all(str(v) in listed for v in said):
        classes = []  # (only classes the dictionary lists: "Our audit of 40 files")
    return [*classes, *conditions, *kinds]


#: The bound a comparison lies past: "over 25" past "no more than 25".
_PAST = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}


def _other_than(
    conditions: list[Condition], pending: Pending, vocab: FieldVocabulary
) -> list[Condition]:
    """A class "using any other X" after a list of X: the class and the list negated.

    Only when the clause names nothing but its business class; otherwise its own
    conditions stand.
    """
    occupancy = vocab.occupancy
    if not conditions or any(c.field != occupancy for c in conditions):
        return conditions
    listed = [c for c in pending.conditions if c.field != occupancy]
    negated = complement(listed, None, occupancy)
    return conditions + negated if negated else []


def _otherwise_subject(a: ClauseAnalysis) -> bool:
    """True when the clause's "class" is only the words of "anything tighter" / "otherwise"."""
    other = lx.OTHERWISE.search(a.trigger)
    return other is not None and all(v in other.group(0).lower() for v in a.occupancy)
