"""Approved cases of a flag's rule, and the protection they had, as practice claims.

"A wedding marquee supplier with a fire-breathing act on the bill was referred under the
open-flame rule, and approved with conditions because a fire safety officer was posted":
the rule on the flag has no limit to bend; the protection the approved case had is what
practice accepted (a mitigant of that rule). Split from `agents.ingestion.approvals`,
which reads approvals past a limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.ingestion.approvals import practice_revision, present_flags
from agents.ingestion.matching import revision_claim
from agents.ingestion.named_mitigants import vocabulary_of
from agents.ingestion.spans import sentence_at
from agents.offline.practice_text import APPROVED, approval_units, approved_outcome
from agents.offline.relief import with_mitigants
from agents.offline.textproc import content_tokens
from agents.offline.texts import without_case_numbers
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

__all__ = ["flag_case_claims"]

#: Actions a protection can earn an approval past.
_BENT_ACTIONS = frozenset({"refer", "decline"})


def flag_case_claims(
    text: KnowledgeText, known: Sequence[ExtractedRule], fields: DataDictionary | None
) -> list[ExtractedRule]:
    """Claims that a flag's rule accepts the protections its approved cases had.

    A case names the flag (its words, or the rule it was referred under: "the open-flame
    rule"), ends approved, and names a protection the dictionary holds as such.

    Args:
        text: A log or an interview.
        known: The rules stated by the text's day.
        fields: The data dictionary (without it, no flag is known).

    Returns:
        One claim per flag rule, with the protections of its approved cases.
    """
    flagged = [k for k in known if k.action in _BENT_ACTIONS and _flag_fields(k)]
    if fields is None or not flagged:
        return []
    vocab = vocabulary_of(fields)
    claims: dict[str, ExtractedRule] = {}
    for unit, _ in approval_units(text.text):
        sentence = without_case_numbers(unit)
        if not approved_outcome(sentence):
            continue
        said = _said_flags(vocab, sentence) | present_flags(vocab, sentence)
        # the protections of the approval's own sentences, not a remark after the case
        approval = " ".join(
            dict.fromkeys(sentence_at(sentence, m.start()) for m in APPROVED.finditer(sentence))
        )
        present = present_flags(vocab, approval)
        for rule in flagged:
            flags = _flag_fields(rule)
            if not flags <= said:
                continue
            kept = claims.get(rule.rule_name)
            protections = sorted(f for f in present - flags if vocab.fields[f].protective)
            if not protections:
                continue
            if kept is None:
                revision = practice_revision(text, sentence, rule.product_type, 0.0, None)
                kept = revision_claim(rule, revision)
            claims[rule.rule_name] = with_mitigants(kept, protections, [])
    return list(claims.values())


def _flag_fields(rule: ExtractedRule) -> set[str]:
    """The flags a rule fires on, when every condition is a flag set (none otherwise)."""
    if not rule.conditions or any(c.value is not True for c in rule.conditions):
        return set()
    return {c.field for c in rule.conditions}


def _said_flags(vocab: FieldVocabulary, sentence: str) -> set[str]:
    """Flags a sentence names by most words of a synonym ("the open-flame rule").

    Every word but one of a synonym of two words or more ("open-flame acts"), at least two.
    """
    stems = {t.stem for t in content_tokens(sentence)}
    found = set()
    for info in vocab.fields.values():
        if info.kind != "bool" or info.protective:
            continue
        for phrase in info.phrases:
            hits = sum(word in stems for word in phrase)
            if len(phrase) >= 2 and hits >= max(2, len(phrase) - 1):
                found.add(info.name)
    return found
