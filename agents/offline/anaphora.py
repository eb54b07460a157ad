"""Sentences that act on the conditions of the sentence before them.

"Bulk silos mean combustible dust. I refer those." / "A clinic holding drugs must keep a
log. Verify both." / "... is out on the BOP. That's a decline." / "I want a written plan.
No plan, I refer it." / "A generator protects the stock. If they don't have one, ...":
the first sentence states conditions and no action; the second names the action and
points back by a pronoun. Only general English (pronouns, negation) is used here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents.offline import lexicon as lx
from agents.offline import lexicon_comparators as lxc
from agents.offline import lexicon_discourse as lxd
from agents.offline.clauses import CONDITIONAL_MARK, detect_action, split_mitigant
from agents.offline.textproc import content_tokens, strip_connectors
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition

if TYPE_CHECKING:
    from agents.offline.clauses import ClauseAnalyzer
    from agents.offline.vocab import FieldVocabulary

#: A pronoun that points back at what the sentence before described.
_ANAPHOR = re.compile(
    r"\b(?:that|that's|those|these|this|both|them|it|such)\b|"
    # "They are referred": "they" as the subject of a passive action is the risk before
    r"^\W*they\s+(?:are|get|will be|must be|should be|shall be)\s+(?:\w+ly\s+)?\w+ed\b",
    re.I,
)
#: "On any product, verify the principals' experience": an order with no subject of its
#: own acts on the risk the sentence before described.
_IMPERATIVE = re.compile(
    r"^\W*(?:(?:on|for) (?:any|every|all|each) (?:products?|lines?|forms?),\s*)?" + lx.ORDER_VERB,
    re.I,
)
#: A condition clause of the sentence's own: the pronoun is then the risk, not a pointer.
_OWN_CONDITION = re.compile(r"\b(?:if|when|whenever|where|once)\b", re.I)
#: "No plan, I refer it": an answer opening on the missing thing.
_NO_NOUN = re.compile(r"^\W*(?:no|without)\s+(?:an?\s+|the\s+)?([a-z][\w-]*)\b", re.I)
#: "... without a launch is a referral": the missing thing inside the subject.
#: "... under a lapsed licence is declined": a credential named as no longer held.
_WITHOUT_NOUN = re.compile(
    r"\b(?:without|lapsed|expired|suspended|revoked)\s+(?:an?\s+|the\s+)?([a-z][\w-]*)\b", re.I
)


#: A comparator right before / right after a number.
_PRE_COMPARED = re.compile(
    r"\b(?:" + "|".join(p for p, _ in lxc.PRE_COMPARATORS) + r")\s*\$?$", re.I
)
_POST_COMPARED = re.compile(
    r"^\s*(?:" + "|".join(p for p, _ in lxc.POST_COMPARATORS) + r")(?!\w)", re.I
)


#: A clause stating what a risk must have ("the innkeeper must live on site").
_MUST = re.compile(r"\b(?:must|shall|has to|have to|is required to|are required to)\b", re.I)


def required_of(trigger: str, flags: list[str], vocab: FieldVocabulary) -> bool:
    """True when a clause states what a risk must have, and its one flag is what is required.

    "Staff must have documented training": the training is required. "An agency that sells
    travel insurance must hold a license": the flag is the subject's, the license (no flag)
    is what is required.
    """
    must = _MUST.search(trigger)
    if must is None:
        return False
    before = {m.field for m in vocab.named_flags(content_tokens(trigger[: must.start()]))}
    if not before & set(flags):
        return True
    after = {m.field for m in vocab.named_flags(content_tokens(trigger[must.end() :]))}
    return all(f in after for f in before & set(flags))


@dataclass
class Pending:
    """Conditions of a clause without action, waiting for the clause that acts on them."""

    conditions: list[Condition] = field(default_factory=list)
    protective_neg: list[str] = field(default_factory=list)
    protective_pos: list[str] = field(default_factory=list)
    accepted: bool = False  # "at least 500 feet away is acceptable": the safe side
    required: bool = False  # "the innkeeper must live on site": what the risk must have
    lacked: bool = False  # its one flag was already made absent ("without one")
    carried: bool = False  # said in a sentence before the one that acts


def antecedent(
    text: str, pending: Pending, analyzer: ClauseAnalyzer, vocab: FieldVocabulary
) -> Pending | None:
    """The previous sentence's conditions, when this sentence only names their action.

    Args:
        text: The sentence that may act on the sentence before.
        pending: The conditions the sentence before left without an action.
        analyzer: The clause analyzer (to see whether the sentence names fields itself).
        vocab: The field vocabulary.

    Returns:
        The conditions to act on (a denied flag made false), or None when the sentence
        names its own fields or numbers, has no action or no pronoun outside a reason
        clause, or the conditions before are only a business class read from a phrase.
    """
    # "Seven and up is flagged, since at that size it is ...": a pronoun in a reason
    # points nowhere, and a number of the sentence's own states its own threshold
    said = lx.REASON_SPAN.sub(" ", text)
    # "They are referred; the referral may be cleared when ...": the clause after the
    # semicolon speaks of the rule just made, not of the risk before
    said = said.split(";", 1)[0]
    # "... no more than 30% of the job count. A higher share is referred.": a bare
    # comparative subject points back at the bound before, like a pronoun
    stripped = strip_connectors(said)
    compared = lxc.BARE_COMPARATIVE.match(stripped.strip())
    pro_verb = bool(lxd.PRO_VERB.match(stripped))  # "When they do, X is excluded"
    imperative = bool(_IMPERATIVE.match(stripped))  # "... has no track record. Verify X."
    ended = _ended_head(said, pending, vocab)  # "A lapsed permit is a decline"
    if (
        not (_ANAPHOR.search(said) or lxd.LACKS_ONE.search(said) or compared or pro_verb)
        and not imperative
        and not ended
    ) or detect_action(text) is None:
        return None
    trigger, provisos = split_mitigant(stripped)  # "I refer those, unless Y"
    if _compared_number(trigger):
        return None
    lacks_one = bool(lxd.LACKS_ONE.search(trigger))
    own = _OWN_CONDITION.search(trigger)
    if (
        own
        and trigger.endswith(CONDITIONAL_MARK)
        and not any(analyzer.mitigant_fields(p) for p in provisos)
    ):  # "This may be written provided that the pot is thermostatic": terms, no trigger
        own = None
    if own and not (lacks_one or pro_verb):
        return None  # "If someone is at the desk all night, I approve it": its own trigger
    found = analyzer.reader.read(trigger)
    if found.conditions or found.protective_pos or found.protective_neg:
        return None  # the sentence names its own fields: not an anaphor
    if analyzer.subjects.read(trigger):
        return None
    examples = analyzer.subjects.example_set
    if not (ended or (pending.protective_pos and not pending.conditions)) and all(
        c.field == vocab.occupancy and not (isinstance(c.value, str) and c.value in examples)
        for c in pending.conditions
    ):
        return None  # only a business class read from a phrase: too weak to act on
    if lacks_one or (ended and pending.protective_pos):
        return _lacking(pending)
    return _denied(trigger, pending, vocab)


def _ended_head(text: str, pending: Pending, vocab: FieldVocabulary) -> bool:
    """True when the text names a flag before it by its head noun, ended or lacking.

    "Every embalming service must hold an active state establishment permit. A lapsed,
    suspended or revoked permit is a decline": "permit" points back at the flag.
    """
    heads = {stem(m.group(1)) for m in _WITHOUT_NOUN.finditer(text)}
    flags = [c.field for c in pending.conditions if c.value is True] + pending.protective_pos
    return any(_headed(f, heads, vocab) for f in flags)


def _headed(field: str, heads: set[str], vocab: FieldVocabulary) -> bool:
    """True when one of a flag's phrases ends in one of the head nouns ("plan", "permit")."""
    return field in vocab.fields and any(p[-1] in heads for p in vocab.fields[field].phrases)


def _compared_number(text: str) -> bool:
    """True when the text bounds a number of its own ("Seven and up", "over 40").

    A date or a count in passing ("From 3 March ...", "if they don't have one") bounds
    nothing and leaves the sentence free to act on the one before.
    """
    for mention in find_numbers(text):
        if _PRE_COMPARED.search(text[: mention.start]) or _POST_COMPARED.match(text[mention.end :]):
            return True
    return False


def _denied(trigger: str, pending: Pending, vocab: FieldVocabulary) -> Pending:
    """The conditions before, with the flag a "No <noun>" answer denies.

    "I want a written plan. No plan, I refer it.": a sentence opening on "No <noun>"
    whose noun ends a flag of the conditions before acts on that flag's absence.
    """
    # "No plan, I refer it"; "a club that sends boats out without a launch is a referral"
    opening = _NO_NOUN.match(trigger)
    heads = {stem(m.group(1)) for m in ([opening] if opening else _WITHOUT_NOUN.finditer(trigger))}
    if not heads:
        return pending
    conditions = [
        Condition(field=c.field, operator="eq", value=False)
        if c.value is True and _headed(c.field, heads, vocab)
        else c
        for c in pending.conditions
    ]
    return Pending(conditions, pending.protective_neg, pending.protective_pos)


def _lacking(pending: Pending) -> Pending:
    """The conditions before, with their one flag absent.

    "A generator protects the stock. If they don't have one, ...". Only when the
    sentence before names exactly one flag (the "one" it stands for).
    """
    flags = [c for c in pending.conditions if isinstance(c.value, bool)]
    if len(flags) + len(pending.protective_pos) != 1:
        return pending
    conditions = [
        Condition(field=c.field, operator="eq", value=not c.value) if c in flags else c
        for c in pending.conditions
    ]
    return Pending(conditions, pending.protective_neg + pending.protective_pos, [], lacked=True)


#: "with it, they may be written ...": the outcome once the missing protection is there.
_WITH_IT = re.compile(r"^\W*(?:but\s+|and\s+)?with\s+(?:it|them|one|that|those|this)\b", re.I)


def protected_outcome(clause: str) -> bool:
    """True for a clause that says what the risk gets once its protection is there.

    "Cooking risks without hood suppression are referred; with it, they may be written
    subject to a service contract": the missing protection of the rule just made is its
    mitigant, not its condition.
    """
    return bool(_WITH_IT.match(clause))


def lacking_in_clause(clause: str, pending: Pending) -> Pending:
    """The clause before's conditions, their one flag absent when the clause says so.

    "A written lockout program is expected; if the application doesn't confirm one,
    verify it": within one sentence, as `antecedent` does across two. "The innkeeper must
    live on site; an absentee-owned inn is declined": the action of a clause after a
    requirement is what the risk gets without it.
    """
    if pending.lacked:  # the sentence before's flag is already made absent: once only
        return pending
    if lxd.LACKS_ONE.search(clause):
        return _lacking(pending)
    # "...must show how codes are secured; where codes are retained, verify": a clause
    # with a condition of its own does not act on the requirement's absence
    return _lacking(pending) if pending.required and not _OWN_CONDITION.search(clause) else pending


#: "a washout station without a permit": the head noun of what the risk goes without.
_WITHOUT_HEAD = re.compile(r"\bwithout\s+(?:a|an|the|its|their)\s+([a-z][\w-]*)\b", re.I)


def lacked_by_head(trigger: str, pending: Pending | None, vocab: FieldVocabulary) -> list[str]:
    """The protection the clause before named, said again by its head noun, as lacking.

    "Carriers with a washout station must hold a wastewater discharge permit, and a washout
    station without a permit is referred": the permit the clause before requires.
    """
    said = _WITHOUT_HEAD.search(trigger)
    if pending is None or said is None:
        return []
    head = stem(said.group(1).lower())
    return [
        name
        for name in pending.protective_pos
        if name in vocab.fields and any(p and p[-1] == head for p in vocab.fields[name].phrases)
    ]
