"""Nouns that point back at a flag the sentence before named.

"A forwarder that tenders air cargo must hold TSA approval. One that tenders air cargo
without that approval is declined": "that approval" is the "TSA approval" just named, so
the clause reads "without TSA approval" and keeps the flag's denial.
"""

from __future__ import annotations

import re

from agents.offline.textproc import content_tokens
from agents.offline.vocab import FieldVocabulary

#: "without that approval", "lacks this certificate", "no such licence": a pointing word
#: and one noun after a word of having or lacking, or opening the clause ("That unit is
#: not our insured's"); "a warranty that cameras go on" points at nothing.
_POINTED = re.compile(
    r"(?:^\W*|\b(?:without|with|lacks|lacking|lack|has|have|holds|hold|holding|no|missing)\s+)"
    r"(?P<pointer>that|this|such an?|such|the same)\s+(?P<noun>[a-z][a-z-]+)\b(?!\s+of\b)",
    re.I,
)
_LAST_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: "... lock the gold in a tool-resistant strongbox; refer any workshop without one": "one"
#: is the flag the words before named.
_ONE = re.compile(
    r"\b(?P<lead>without|lacking|lacks|with|has|have|holds|holding)\s+one\b"
    r"(?!\s+(?:of|or|in|per|more|less|fewer)\b|-)",
    re.I,
)


def resolve_pointed_flags(text: str, context: str, vocab: FieldVocabulary) -> str:
    """The text with "that <noun>" replaced by the flag phrase the sentence before names.

    Only a flag synonym of several words that ends in the noun, found in the last sentence
    of the context (the longest such), and only when one flag's phrases are found there.

    Args:
        text: The clause.
        context: The sentences before it.
        vocab: The field vocabulary.

    Returns:
        The clause, its pointing nouns replaced when each points at one flag phrase.
    """
    if not context or not (_POINTED.search(text) or _ONE.search(text)):
        return text
    before = _LAST_SENTENCE.split(context.strip())[-1].lower()
    text = _ONE.sub(lambda m: _one_named(m, before, vocab), text)

    def named(match: re.Match[str]) -> str:
        noun = match.group("noun").lower()
        said: dict[str, str] = {}  # field -> its longest phrase named before
        for info in vocab.of_kind("bool"):
            for phrase in info.spec.synonyms:
                low = phrase.lower()
                if (
                    " " in low
                    and low.rsplit(" ", 1)[-1] == noun
                    and re.search(rf"\b{re.escape(low)}\b", before)
                    and len(low) > len(said.get(info.name, ""))
                ):
                    said[info.name] = low
        if len(said) != 1:
            return match.group(0)
        return match.group(0)[: match.start("pointer") - match.start()] + said.popitem()[1]

    return _POINTED.sub(named, text)


def _one_named(match: re.Match[str], before: str, vocab: FieldVocabulary) -> str:
    """Read "without one" as "without <flag>", when the words before name one flag.

    Only inside a clause with words of its own before it ("refer any workshop without
    one"); a clause that opens on it ("without one, refer") says again what the rule
    before it says.
    """
    if not re.search(r"\w", match.string[: match.start()]):
        return match.group(0)
    fields = {m.field for m in vocab.named_flags(content_tokens(before))}
    if len(fields) != 1:
        return match.group(0)
    info = vocab.fields[fields.pop()]
    phrase = max(info.spec.synonyms, key=len) if info.spec.synonyms else info.name
    return f"{match.group('lead')} {phrase.replace('_', ' ')}"
