"""Flags a clause names by its subject or by an order to verify them.

"Repair shops whose technicians convert gas appliances are referred": the relative clause
restates a flag's description, the flag is the condition. "Motion seats are excluded": what
a decline or an exclusion is predicated of is a hazard. "Before binding, verify that the
driller holds a license": the rule fires when the flag is not shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.analysis import ClauseAnalysis
from agents.offline.conditions import ConditionReader
from agents.offline.textproc import Token, content_tokens
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.rules import Condition

_ADVERSE = frozenset({"decline", "exclude"})
_ADVERSE_PREDICATE = re.compile(
    r"\b(?:is|are|be|been)\s+(?:\w+\s+)?(?:declin|exclud)\w*|"
    # "Manufacturers that build their own axles receive the products exclusion"
    r"\b(?:receives?|gets?|carr(?:y|ies))\s+(?:an?|the)\s+[\w\s-]{0,40}?exclusion\b",
    re.I,
)
#: The verb of a rule after its subject: "are referred", "is usually declined".
_RULE_VERB = (
    r"\b(?:is|are)\s+(?:\w+\s+)?"
    r"(?:referred|declined|excluded|flagged|verified|written|accepted|approved)\b"
)
#: A subject qualified by a relative clause, up to the verb of the rule.
_RELATIVE_SUBJECT = re.compile(
    r"^[\w\s,'’&-]{2,60}?\b(?:whose|that|which|who)\b(.{8,200}?)" + _RULE_VERB, re.I
)
#: "Where ... , the exclusion"; "attach the exclusion whenever a warranty is offered".
_CONDITION_WORD = re.compile(r"\b(?:where|if|when|whenever)\b", re.I)
#: "Couriers carrying clinical laboratory specimens are written with ...": a participle.
_PARTICIPLE_SUBJECT = re.compile(
    r"^\W*(?:[\w'’-]+\s+){0,2}?[\w-]+s\s+(\w+ing\s.{6,200}?)" + _RULE_VERB, re.I
)
_DENIED = re.compile(r"\b(?:not|no|never|without|outside|lacks?|lacking|fails?)\b|n't\b", re.I)
#: "Verify that ...", "Before binding, confirm that ...": an order opening the clause.
_VERIFY_ORDER = re.compile(
    r"^\W*(?:(?:before (?:binding|quoting)|at submission|in every case),?\s+)?(?:please\s+)?"
    r"(?:(?:verify|confirm|check|make sure)\s+(?:that|whether)\b|(?:verify|confirm)\s+(?!if\b)\w)",
    re.I,
)


#: "verify GPS or time-stamped service logs before binding": an order with a plain object.
_VERIFY_PLAIN = re.compile(
    r"^\W*(?:(?:before (?:binding|quoting)|at submission),?\s+)?(?:please\s+)?"
    r"(?:verify|confirm)\s+(?!that\b|whether\b|if\b)"
    r"(?P<object>[a-z][\w'’/-]*(?:\s+[a-z][\w'’/-]*){0,6}?)"
    r"(?=\s+(?:before|prior to|at (?:binding|quote|submission))\b|\s*[.;]|\s*$)",
    re.I,
)


def verified_objects(trigger: str) -> tuple[list[str], str]:
    """What a clause orders verified, and the clause without it.

    "verify that an SPCC plan is in place" and "verify GPS service logs before binding"
    name what is checked, not what triggers the check. A plain object with a figure in it
    ("verify five years of loss runs") stays in the clause.

    Returns:
        The verified texts, and the trigger with them blanked.
    """
    verified = [m.group(0) for m in lx.VERIFY_OBJECT.finditer(trigger)]
    rest = lx.VERIFY_OBJECT.sub(" ", trigger)
    plain = _VERIFY_PLAIN.match(rest.strip())  # an order opens its clause: one at most
    if plain is not None and not find_numbers(plain.group("object")):
        verified.append(plain.group(0))
        rest = rest.replace(plain.group(0), " ", 1)
    return verified, rest


def verified_flag(
    result: ClauseAnalysis, trigger: str, verified: list[str], reader: ConditionReader
) -> None:
    """An order to verify one flag ("verify that the driller holds a license"): the rule.

    With no trigger of its own, it fires when the flag is not shown: the flag false.
    Verifying inside another action's clause stays what clears that action.
    """
    if not (
        result.action == "verify"
        and len(verified) == 1
        and _VERIFY_ORDER.match(trigger)
        and not (result.conditions or result.protective_pos or result.protective_neg)
    ):
        return
    found = reader.read(verified[0])
    flags = [c.field for c in found.conditions if c.value is True] + found.protective_pos
    if len(flags) == 1 and not found.protective_neg and len(found.conditions) <= 1:
        result.conditions = [Condition(field=flags[0], operator="eq", value=False)]
        result.mitigant_fields = [f for f in result.mitigant_fields if f != flags[0]]
        result.verified = flags[0]


def subject_flags(
    result: ClauseAnalysis, trigger: str, mitigated: bool, vocab: FieldVocabulary
) -> None:
    """The flags a rule's subject names as its condition, in the subject's own words.

    "Repair shops whose technicians convert gas appliances are referred": a relative
    clause restating a flag's description is the condition. "Motion seats are
    excluded": what a decline or exclusion is predicated of is a hazard, not a
    protection (whatever protective word its description holds).
    """
    relative = _RELATIVE_SUBJECT.search(trigger) or _PARTICIPLE_SUBJECT.search(trigger)
    if (
        result.action
        and relative
        and not (result.conditions or result.protective_neg or result.protective_pos)
        and not _DENIED.search(relative.group(1))
    ):
        result.conditions = [
            Condition(field=f, operator="eq", value=True)
            for f in described_protection(content_tokens(relative.group(1)), vocab)
        ]
    if result.action == "exclude" and result.protective_pos and not mitigated:
        if _CONDITION_WORD.search(trigger) and not lx.MITIGANT_CUE.search(trigger):
            # "Where the insured does its own sprinkler design, ... the exclusion": what
            # an exclusion is conditioned on is the exposure it removes
            result.conditions = result.conditions + [
                Condition(field=f, operator="eq", value=True) for f in result.protective_pos
            ]
            result.protective_pos = []
    if result.action in _ADVERSE and result.protective_pos and not mitigated:
        hazards = _subject_hazards(trigger, result.protective_pos, vocab)
        result.conditions = result.conditions + [
            Condition(field=f, operator="eq", value=True) for f in hazards
        ]
        result.protective_pos = [f for f in result.protective_pos if f not in hazards]


def _subject_hazards(trigger: str, flags: list[str], vocab: FieldVocabulary) -> list[str]:
    """The flags named in the subject of "X is declined / excluded"."""
    predicate = _ADVERSE_PREDICATE.search(trigger)
    if predicate is None or lx.MITIGANT_CUE.search(trigger):
        return []
    named = vocab.bool_mentions(content_tokens(trigger[: predicate.start()]))
    return [m.field for m in named if not m.negated and m.field in flags]


_DESCRIBED_SHARE = 0.5
_DESCRIBED_WORDS = 3
#: Auxiliaries and quantifiers a description shares with any sentence.
_FUNCTION_WORDS = frozenset("been have were with from that this every each some their they".split())


@lru_cache(maxsize=4096)
def _description_words(description: str) -> frozenset[str]:
    """The content words of a flag's description (stems longer than three letters)."""
    stems = {t.stem for t in content_tokens(description) if len(t.stem) > 3}
    return frozenset(stems - lxs.STOPWORDS - _FUNCTION_WORDS)


def described_protection(tokens: list[Token], vocab: FieldVocabulary) -> list[str]:
    """The one flag a mitigant text describes in the dictionary's own words.

    "If the oxidizers sit in a dedicated, separated area with no pool acids stored
    alongside them" restates "Oxidizers are kept in a dedicated, separated area with no
    pool acids stored alongside". Only for a text already known to state a mitigant: half
    the description's words and at least three, and no other flag as close.
    """
    said = {t.stem for t in tokens}
    scored: list[tuple[float, str]] = []
    for info in vocab.of_kind("bool"):
        words = _description_words(info.spec.description)
        shared = said & words
        if len(shared) >= _DESCRIBED_WORDS and len(shared) >= _DESCRIBED_SHARE * len(words):
            scored.append((len(shared) / len(words), info.name))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return []
    return [scored[0][1]]
