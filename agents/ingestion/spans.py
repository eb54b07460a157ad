"""Where a text's sentences and clauses run, for reading the cases a log tells.

"On the package I'll go to 300,000 if the pieces are in locked cases; on Property I've
signed 900,000": a figure is read with its sentence, or with its clause (up to a
semicolon) when the sentence holds two figures in the same unit. Split from
`agents.ingestion.approvals`.
"""

from __future__ import annotations

import re

from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers

#: Where a sentence ends (the sentences of an answer, a log line or a paragraph).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_span(text: str, at: int) -> tuple[int, int]:
    """Where the sentence of a text holding the character at `at` starts and ends."""
    start = max((m.end() for m in SENTENCE_END.finditer(text, 0, at)), default=0)
    end = SENTENCE_END.search(text, at)
    return start, end.start() if end else len(text)


def sentence_at(text: str, at: int) -> str:
    """The sentence of a text holding the character at `at`."""
    start, end = sentence_span(text, at)
    return text[start:end]


def clause_span(text: str, at: int) -> tuple[int, int]:
    """Where the clause (up to a semicolon) of the sentence holding `at` starts and ends."""
    start, end = sentence_span(text, at)
    semicolon = text.find(";", at, end)
    return max(start, text.rfind(";", start, at) + 1), semicolon if semicolon >= 0 else end


def figures_apart(text: str, number: NumberMention) -> bool:
    """True when the number's sentence has clauses (by semicolons) with figures like it.

    "On the package I'll go to three hundred thousand ...; on Property I've signed as high
    as nine hundred thousand": two figures in the same unit, a clause each.
    """
    clauses = sentence_at(text, number.start).split(";")
    alike = [
        c for c in clauses if any(n.unit == number.unit and a_figure(c, n) for n in find_numbers(c))
    ]
    return len(alike) > 1


def a_figure(text: str, number: NumberMention) -> bool:
    """True for a figure of a risk, not a count of cases ("two of the approvals")."""
    return not _OF_CASES.match(text[number.num_end :])


#: A count of cases after a number: "two of the approvals", "three of them".
_OF_CASES = re.compile(r"\s+of (?:the|them|those|these)\b", re.I)


def clause_at(text: str, at: int) -> str:
    """The clause (up to a semicolon) of a text's sentence holding the character at `at`.

    "On the package I'll go to 300,000 if the pieces are in locked cases; on Property I've
    signed 900,000": each product's extent with its own protection.
    """
    start, end = clause_span(text, at)
    return text[start:end]


def narrowed_to_clause(text: str, at: int) -> str:
    """The text with the sentence holding `at` cut down to that clause (the rest kept)."""
    sentence_start, sentence_end = sentence_span(text, at)
    start, end = clause_span(text, at)
    return text[:sentence_start] + text[start:end] + text[sentence_end:]


__all__ = [
    "SENTENCE_END",
    "a_figure",
    "clause_at",
    "clause_span",
    "figures_apart",
    "narrowed_to_clause",
    "sentence_at",
    "sentence_span",
]
