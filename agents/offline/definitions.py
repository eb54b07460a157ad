"""Terms a text defines, read as their definitions where a later rule uses them.

"For the purposes of this manual an applicant with less than three years of operating
history is a new venture. New ventures in any specialty class are referred." states one
rule: the referral acts on the definition's conditions, which the rule's own sentence only
names by the term.
"""

from __future__ import annotations

import re

#: "..., an applicant with less than three years of history is a new venture.": a subject
#: that states conditions, then the term it is called.
_DEFINITION = re.compile(
    r"(?P<subject>\b(?:an?|any)\s+[^.!?\n]{5,160}?)\s+(?:is|are)\s+(?:(?:then\s+)?"
    r"(?:considered|treated as|deemed|defined as|classed as|counted as|called)\s+(?:an?\s+)?|"
    r"an?\s+)(?P<term>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s*[.!?]",
    re.I,
)
#: A subject that states a condition: a figure, a comparison, having or lacking something.
_CONDITIONAL = re.compile(
    r"\d|\b(?:with|without|more|less|fewer|over|under|above|below|lacking|no|that|whose|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred)\b",
    re.I,
)
#: Words a definition's term may not be: what a rule does, or a judgment.
_NOT_TERMS = frozenset(
    """
    referral decline declination exclusion verification review refer exception problem
    concern issue risk exposure priority must requirement condition rule limit threshold
    good bad fine acceptable unacceptable ok okay eligible ineligible
    """.split()
)
_ACTION = re.compile(
    r"\b(?:refer\w*|declin\w*|exclu\w*|verif\w*|flag\w*|approv\w*|writ\w*|wrote|bound)\b", re.I
)


def with_definitions(body: str) -> str:
    """The text with each defined term, where a later sentence acts on it, spelled out.

    Only a term of one to three words, defined once by a subject that states a condition,
    and used again after the definition in a sentence that states an action.

    Args:
        body: The text of a knowledge source.

    Returns:
        The text, later uses of its defined terms replaced by their definitions.
    """
    pos = 0
    while (match := _DEFINITION.search(body, pos)) is not None:
        pos = match.end()
        term, subject = match.group("term").lower(), match.group("subject")
        words = term.split()
        if words[-1].rstrip("s") in _NOT_TERMS or words[0] in _NOT_TERMS or _ACTION.search(term):
            continue
        said = re.sub(r"^.*,\s*", "", subject)  # "For the purposes of this manual, an ..."
        said = re.sub(r"^for the purposes? of .*?\s(?=an?\s)", "", said, flags=re.I)
        if not _CONDITIONAL.search(said):
            continue
        phrase = re.sub(r"^(?:an?|any)\s+", "", said, flags=re.I)
        use = re.compile(rf"\b{re.escape(term)}(?:s|es)?\b", re.I)
        after = body[pos:]
        if not any(use.search(s) and _ACTION.search(s) for s in re.split(r"(?<=[.!?])\s+", after)):
            continue

        def spelled(used: re.Match[str], phrase: str = phrase) -> str:
            return phrase[0].upper() + phrase[1:] if used.group(0)[0].isupper() else phrase

        body = body[:pos] + use.sub(spelled, after)
    return body
