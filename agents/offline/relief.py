"""Relief read from practice: a protection that makes a stated rule give way.

An SME rarely restates the rule they bend: "when the building is fully sprinklered I
let the desk write it with conditions" names the protection (a boolean field of the
data dictionary) and what it earns, not the rule. Such a sentence is read here as a
*relief*: a rule with no conditions of its own whose `mitigant_fields` are the
protections named. `agents.ingestion.practice` binds it to the stated rule the text
speaks of (or drops it); it is never a rule by itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.offline.clauses import ClauseAnalyzer
from agents.offline.lexicon_discourse import ASKS_MITIGANT, NAMED_MITIGANT
from agents.offline.textproc import Sentence, answers_to
from schemas.rules import Condition, ExtractedRule

#: Kinds of text that describe practice (a relief there bends a stated rule).
PRACTICE_KINDS = frozenset({"sme", "production", "training"})
#: A protection named as a condition of what follows.
_CONDITIONAL = re.compile(
    r"\b(?:if|when|whenever|where|once|as long as|provided(?: that)?|so long as)\b|"
    r"^\W*with\b",  # "With telemetry like that I'll go down to a day and a half"
    re.I,
)
#: A decline the speaker will not let stand: what a protection earns besides approvals.
_DECLINE_BENT = (
    r"(?:do not|don't|does not|doesn't|will not|won't|would not|wouldn't)\s+"
    r"(?:let|want|have|need)\s+(?:\w+\s+){0,3}?declin\w*|(?:instead of|rather than) declin\w*"
)
_BENDS_DECLINE = re.compile(rf"\b(?:{_DECLINE_BENT})", re.I)
#: What the protection earns: an approval, or a decline the speaker will not let stand.
_RELIEF = re.compile(
    r"\b(?:approv(?:e|es|ed|ing)|accept(?:s|ed|ing)?|writ(?:e|es|ing|ten)|wrote|bind|bound|"
    r"quote|sign(?:ed|s)? off|go(?:ne|es)? through|"
    r"(?:i'?m|i am|we'?re|we are) (?:comfortable|relaxed|not worried|happy)|"
    r"cleared with conditions|"
    # "where every piece is scheduled, the total matters far less to me"
    r"matters? (?:far |much |a lot |a good deal )?less|"
    # "if the owner has a recent appraisal, I will take a building down to 72 per cent"
    r"(?:i'?ll|i will|i'?d|i would|we'?ll|we will) (?:still )?take|"
    # "with telemetry like that I'll go down to about a day and a half"
    r"(?:i'?ll|i will|i'?d|i would|we'?ll|we will) go (?:down|up|as (?:low|high|far))|"
    # "an inventory statement from their CPA: that is the verification; I clear those"
    r"(?:that|this|it) (?:is|counts as|serves as) the (?:verification|check)|"
    r"clear(?:s|ed)? (?:those|them|it|the file)|"
    rf"(?:referral|decline) (?:is |was |can be |gets )?cleared|{_DECLINE_BENT})\b",
    re.I,
)
#: An approval that is refused or still under the rule ("it stays a decline").
_NOT_RELIEF = re.compile(
    r"\b(?:not (?:approv|accept|writ|bound|bind)\w*|never|no exceptions?|stays? (?:a )?"
    r"(?:decline|referral))\b",
    re.I,
)
#: A protection credited with approvals: "the written agreements carried both approvals".
_CREDITED = re.compile(
    r"\b(?:carried|earned|won|secured|justified|supported|got)\s+(?:\w+\s+){0,2}?"
    r"(?:approvals?|acceptances?)\b",
    re.I,
)
#: What the rule asks is waived when a protection holds: "you do not need to run the
#: tool if the file holds an appraisal" (the rule itself may be read from the sentence).
_WAIVED = re.compile(
    r"\b(?:(?:do|does|did) not|don't|doesn't|no) need to\b[^.;]*?\b(?:if|when|where|as long as)\b",
    re.I,
)
#: "What makes me comfortable is X", "what I want to see is X": X is what earns relief.
_WHAT_EARNS = re.compile(
    r"\bwhat (?:makes (?:me|us|her|him) comfortable|(?:i|we) (?:want|need|like) to see|"
    r"(?:i|we) look for|changes (?:my|her|his) (?:answer|mind)|gets? (?:it|them) (?:through|"
    r"over|past)|gets? (?:me|us|her|him) there|(?:matters|counts|moves (?:me|us|her|him))"
    r"(?: most)?)\b|"
    r"\b(?:the ones|those) (?:i'?m|we'?re) comfortable with\b",
    re.I,
)
#: "Shut-off stands are accepted as an alternative to a separate room": a protection
#: that stands in for one the rule already takes (what follows is the one it replaces).
_ALTERNATIVE = re.compile(
    r"\b(?:accepted|acceptable|allowed|recogni[sz]ed|taken)\s+(?:(?:as\s+)?an?\s+"
    r"(?:alternative|substitute)\s+(?:to|for)|in (?:place|lieu) of|instead of)\b",
    re.I,
)
RELIEF_FACTOR = "Practice relief"


def is_relief(rule: ExtractedRule) -> bool:
    """True for a relief read from practice: mitigants and no conditions of its own."""
    return not rule.conditions and bool(rule.mitigant_fields)


def grants(rule: ExtractedRule) -> bool:
    """True for "where X is present, approve with conditions": protections alone.

    Also a referral whose own sentence says the protection bends a decline: "if the file
    has X, I don't let the desk decline it - it comes to me on referral" names what bends
    the decline, not a referral of every risk that has X.
    """
    flags = [c for c in rule.conditions if c.operator == "eq" and c.value is True]
    if not flags:
        return False
    if rule.action == "approve_with_conditions":
        # "When the birds are only ever handled by trained staff, I tell the desk to write
        # it with conditions", of a class's rule: the class is the rule's, the flag relief
        return all(c in flags or _categorical(c) for c in rule.conditions)
    if len(flags) != len(rule.conditions):
        return False
    said = rule.outcome_description or ""
    return rule.action in {"refer", "flag_for_review"} and bool(
        _CONDITIONAL.search(said) and _BENDS_DECLINE.search(said)
    )


def _categorical(condition: Condition) -> bool:
    """A condition on named values ("occupancy is falconry center"), not a measure or flag."""
    values = condition.value if isinstance(condition.value, list) else [condition.value]
    return condition.operator in ("eq", "in") and all(isinstance(v, str) for v in values)


def relief_of(rule: ExtractedRule) -> ExtractedRule:
    """A rule that `grants` as a relief: its protections become its mitigants."""
    fields = [c.field for c in rule.conditions if c.value is True]
    return rule.model_copy(
        update={
            "conditions": [],
            "threshold": None,
            "mitigant_fields": list(dict.fromkeys([*fields, *rule.mitigant_fields])),
            "mitigants": rule.mitigants or [rule.outcome_description],
            "historical_exceptions": rule.historical_exceptions or rule.outcome_description,
        }
    )


def with_mitigants(rule: ExtractedRule, fields: list[str], notes: list[str]) -> ExtractedRule:
    """The rule with more mitigants (fields and their words), without duplicates."""
    return rule.model_copy(
        update={
            "mitigant_fields": list(dict.fromkeys([*rule.mitigant_fields, *fields])),
            "mitigants": list(dict.fromkeys([*rule.mitigants, *notes])),
        }
    )


def read_reliefs(
    analyzer: ClauseAnalyzer,
    sentences: Sequence[Sentence],
    used: set[int],
    meta: dict[str, str | None],
    product: str,
) -> list[ExtractedRule]:
    """The reliefs of a practice text: sentences that yielded no rule, or waive one.

    Args:
        analyzer: The clause analyzer (its vocabulary names the protections).
        sentences: The sentences of the text.
        used: Indexes of the sentences that made or changed a rule.
        meta: source, source_type, text_id of the text.
        product: The product the text names ("ALL" when none).

    Returns:
        One relief per sentence naming a protection as the condition of an approval
        ("if ..., I approve"), crediting approvals to it ("... carried the approvals") or
        taking it in place of another ("accepted as an alternative to ...").
    """
    found: list[ExtractedRule] = []
    answers = answers_to(sentences, ASKS_MITIGANT)  # "What do you need to see?" "X."
    for sentence in sentences:
        text = sentence.text
        if sentence.is_question:
            continue
        waived = _WAIVED.search(text)
        if sentence.index in used and waived is None:
            continue
        alternative = _ALTERNATIVE.search(text)
        relieves = bool(_CONDITIONAL.search(text) and _RELIEF.search(text))
        named = sentence.index in answers or bool(
            NAMED_MITIGANT.search(text) or _WHAT_EARNS.search(text)
        )
        if not (relieves or named or waived or alternative or _CREDITED.search(text)):
            continue
        if _NOT_RELIEF.search(text):
            continue
        said = text[waived.end() :] if waived else text
        fields = analyzer.mitigant_fields(text[: alternative.start()] if alternative else said)
        if not fields:
            continue
        found.append(
            ExtractedRule(
                rule_name=f"{RELIEF_FACTOR} {len(found) + 1}: {', '.join(fields)}",
                risk_factor=RELIEF_FACTOR,
                risk_category="eligibility",
                product_type=product,  # type: ignore[arg-type]
                action="approve_with_conditions",
                outcome_description=text,
                mitigants=[text.strip(" .")],
                mitigant_fields=fields,
                source=meta.get("source") or "unknown",
                source_type=meta.get("source_type") or "sme",  # type: ignore[arg-type]
                confidence="low",
                threshold_type="soft",
                historical_exceptions=text.strip(),
                text_id=meta.get("text_id"),
            )
        )
    return found


__all__ = [
    "PRACTICE_KINDS",
    "RELIEF_FACTOR",
    "grants",
    "is_relief",
    "read_reliefs",
    "relief_of",
    "with_mitigants",
]
