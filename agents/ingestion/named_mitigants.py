"""The protections a text names as what practice accepted: its mitigants.

"Q: What makes you say yes? A: A line-supervised vault alarm." and "Remote temperature
telemetry remains a recognised mitigant" name flags of the data dictionary as mitigants.
Split from `agents.ingestion.approvals`.
"""

from __future__ import annotations

import re

from agents.ingestion.spans import SENTENCE_END
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary

#: An interviewer asking what made practice say yes: its answer names what was accepted.
_WHAT_HELPED = re.compile(
    r"\bwhat (?:makes|made|gets|got|earns|earned|was different|is different|changes|"
    r"changed|lets|tips|helps|helped|would you need|do you need|do you want|do you look for|"
    r"reassures|reassured|persuades|persuaded|convinces|convinced|would it take|"
    r"(?:has|have|needs?) to be (?:in place|on file|in the file|there))\b|"
    r"\bon what basis\b|\bwhy (?:did|do|would) you (?:approve|accept|write|say yes)\b",
    re.I,
)
#: One question and its answer, on a line or across lines.
_QUESTION_ANSWER = re.compile(r"\bQ\s*:\s*(.+?)\s*\bA\s*:\s*(.+?)(?=\s*\bQ\s*:|\Z)", re.S)
#: The last data dictionary read, with its vocabulary (a batch of texts shares one).
_LAST_VOCABULARY: list[tuple[DataDictionary, FieldVocabulary]] = []


def vocabulary_of(fields: DataDictionary) -> FieldVocabulary:
    """The vocabulary of a data dictionary, built once for the texts that share it."""
    if not _LAST_VOCABULARY or _LAST_VOCABULARY[0][0] is not fields:
        _LAST_VOCABULARY[:] = [(fields, FieldVocabulary(fields))]
    return _LAST_VOCABULARY[0][1]


def asked_mitigants(text: str, fields: DataDictionary | None) -> list[str]:
    """The protections an interview names when asked what made practice say yes.

    "Q: What makes you say yes? A: A line-supervised vault alarm." and "Q: On what
    basis? A: A separate slow system for lessons, and a certified operator" name the
    mitigants of the limit the interview bends. Only with the data dictionary (it names
    the flags); flags said as missing are not mitigants.
    """
    pairs = [(q, a) for q, a in _QUESTION_ANSWER.findall(text) if _WHAT_HELPED.search(q)]
    if fields is None or not pairs:
        return []
    vocab = vocabulary_of(fields)
    named: list[str] = []
    for _, answer in pairs:
        # the first sentence names it; "A service contract. If a licensed company services
        # the panel every year under contract, ...": else the sentence that explains it
        for said in SENTENCE_END.split(answer.strip(), maxsplit=2)[:2]:
            flags = vocab.flags_present(said)
            named += [f for f in flags if f not in named]
            if flags:
                break
    return named


#: "Remote temperature telemetry remains a recognised mitigant": a protection named as one.
_NAMED_A_MITIGANT = re.compile(
    r"\b(?:remains?|is|are|stays?|counts? as|continues? to be)\s+(?:an?\s+|the\s+)?"
    r"(?:(?:recogni[sz]ed|accepted|acceptable|valid|standing)\s+)?mitigants?\b|"
    # "A workshop where the last person out makes a fire round ... is to be treated as
    # mitigated"
    r"\b(?:is|are)\s+(?:to be\s+)?(?:treated|regarded|counted)\s+as\s+(?:mitigated|an?\s+"
    r"mitigant)\b",
    re.I,
)


def stated_mitigants(text: str, fields: DataDictionary | None) -> list[str]:
    """The protections a statement names as mitigants: "X remains a recognised mitigant".

    Only with the data dictionary (it names the flags); flags said as missing are not.
    """
    if fields is None:
        return []
    vocab = vocabulary_of(fields)
    named: list[str] = []
    for said in SENTENCE_END.split(text):
        if _NAMED_A_MITIGANT.search(said):
            named += [f for f in vocab.flags_present(said) if f not in named]
    return named


#: "We go up to twenty-six ... when the owner lives on the farm": the terms practice went on.
_GONE_WHEN = re.compile(
    r"\b(?:up|down) to\b[^.;]{0,60}?\b(?:when|where|if|provided|as long as|so long as)\b", re.I
)


def conditional_mitigants(note: str, fields: DataDictionary | None, own: set[str]) -> list[str]:
    """The protections practice went past a limit on, in the sentence that says how far.

    "We go up to twenty-six sleeping guests when the owner or a resident innkeeper lives
    on the farm": the flags after "when" (not the rule's own condition fields `own`).
    """
    if fields is None:
        return []
    vocab = vocabulary_of(fields)
    named: list[str] = []
    for said in SENTENCE_END.split(note):
        went = _GONE_WHEN.search(said)
        if went:
            flags = vocab.flags_present(said[went.end() :])
            named += [f for f in flags if f not in named and f not in own]
    return named


__all__ = ["asked_mitigants", "conditional_mitigants", "stated_mitigants", "vocabulary_of"]
