"""Text-level reading: case ids and case records, the header's product, decision quality."""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.textproc import Sentence


def single_product(text: str | None) -> str | None:
    """The product of a text that names exactly one product (source titles, headers)."""
    if not text:
        return None
    names = {name for name, pattern in lxs.PRODUCT_PATTERNS if pattern.search(text)}
    return names.pop() if len(names) == 1 else None


def decision_quality(text: str, source_type: str | None, sentences: list[Sentence]) -> str | None:
    """Aligned / divergent for production case reviews, else None."""
    if source_type != "production" and not any(s.is_case_label for s in sentences):
        return None
    if lx.DIVERGENT_CUE.search(text):
        return "divergent"
    if lx.ALIGNED_CUE.search(text):
        return "aligned"
    return None


def header_product(sentences: list[Sentence]) -> str | None:
    """The single product named by the first sentence of a text (a case header)."""
    return single_product(sentences[0].raw) if sentences else None


def strip_case_ids(text: str) -> str:
    """Remove reference ids like "PCR-2024-117" that look like numbers.

    A line that opens on a case id ("GL-24-2210 | framing contractor | ... | approved",
    "#LRO-24-4102: 7-story office - referred; declined") records one case: it is
    labelled a case record, read for evidence (soft limits, mitigants), never for a rule.
    """
    text = _CASE_LINE.sub(f"{lx.CASE_RECORD}: ", text)
    # the blanks before an id go with it: "Case PR-2291 (..." must not read as table cells
    # "since CB-2025-06 an LRO landlord ... is a declination": the time of a document,
    # not "since" opening a clause of its own
    text = without_case_numbers(text)
    return re.sub(r"[ \t]*\b(?:since[ \t]+)?[A-Z]{2,}-\d{2,4}(?:-\d+)*\b", "", text)


#: "Refer to a senior underwriter if any of the following apply:" over "- x;" lines: one
#: lead, a rule per line (or one rule of every line, for "all of the following").
#: A list item's mark: "- ", "* ", "(a) ", "2. ".
_ITEM = r"[ \t]*(?:[-*\u2022]|\(?[a-z0-9]\)|\d+\.)[ \t]+"
_LISTED_CONDITIONS = re.compile(
    r"(?P<lead>[^\n.:;]*?)\b(?P<link>if|where|when)\s+(?P<which>any(?:\s+one)?|one\s+or\s+more|"
    r"either|all|both)\s+of\s+(?:the\s+following|these)(?:\s+(?:conditions?|circumstances|"
    r"applies|apply|is|are|true|holds?|met))*\s*:[ \t]*\n"
    rf"(?P<items>(?:{_ITEM}[^\n]+(?:\n|$))+)",
    re.I,
)
_ITEM_MARK = re.compile(rf"^{_ITEM}")
_ITEM_END = re.compile(r"(?:[;,.]|\s+(?:and|or))*\s*$", re.I)


def listed_conditions(text: str) -> str:
    """Say a lead's list of conditions as sentences, one a line.

    "Decline if any of the following:" over "- the facade exceeds 120 ft;" and "- acid
    cleaning is performed." reads "Decline if the facade exceeds 120 ft. Decline if acid
    cleaning is performed."; "all of the following" joins the lines with "and" in one.
    """

    def said(match: re.Match[str]) -> str:
        lead = f"{match.group('lead').strip()} {match.group('link')}"
        items = [
            _ITEM_END.sub("", _ITEM_MARK.sub("", line)).strip()
            for line in match.group("items").splitlines()
        ]
        items = [item for item in items if item]
        if match.group("which").lower() in {"all", "both"}:
            return f" {lead} {' and '.join(items)}.\n"
        return " " + " ".join(f"{lead} {item}." for item in items) + "\n"

    if "following" not in text and "these" not in text:
        return text
    return _LISTED_CONDITIONS.sub(said, text)


def without_case_numbers(text: str) -> str:
    """The text with cases' numbers blanked: "Case 23-411 (GL, ...)" is "Case        (GL, ...)".

    Blanks keep every other word where it was (offsets into the text still hold).
    """
    return _NUMBERED_CASE.sub(
        lambda m: m.group("word") + " " * (len(m.group(0)) - len(m.group("word"))), text
    )


#: "Case 23-411 (GL, ...)", "File #2207", "Ref. 4471": a case's number, no figure of it.
_NUMBERED_CASE = re.compile(
    r"\b(?P<word>(?:Case|File|Ref|Reference|Account|Submission|Renewal|Claim|Risk)\.?)"
    r"(?:\s+(?:no\.?|number))?\s*(?:#\s*\d+(?:[-/]\d+)*|\d+(?:[-/]\d+)+|\d{3,})\b"
)


_CASE_LINE = re.compile(
    r"^[ \t]*#?[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*-\d{2,}(?:-\d+)*[ \t]*(?:\([^()\n]*\))?[ \t]*[:|]"
    r"[ \t]*",
    re.M,
)


#: A short name in a parenthesis, as a class's definition writes it: "(ASC)".
_SHORT_NAME = re.compile(r"\(([A-Z]{2,6})\)", re.I)
#: Capitals that are no class's short name: products, the quoting desk's own words.
_NOT_ACRONYMS = frozenset({"ALL", "BOP", "LRO", "SME", "TIV", "USD", "QA", "GL"})


def expand_class_acronyms(text: str, classes: list[str]) -> str:
    """Write a business class's initials out: "ASCs are referred" -> the class's name.

    A short name is a class's initials in capitals ("ASC" for three words), at least
    three letters, or any capitals a text defines in a parenthesis right after the
    class's name ("boarding kennel (BK)"); the definition itself is dropped. A plural
    "s" stays plural.
    """
    names: dict[str, str] = {}
    defines = _SHORT_NAME.search(text) is not None  # most texts define none: no search a class
    for value in classes:
        words = value.split()
        if len(words) >= 3:
            names["".join(w[0] for w in words).upper()] = value
        if not defines:
            continue
        spelled = r"\s+".join(re.escape(w) for w in words)
        defined = re.search(rf"\b{spelled}(?:e?s)?\s*\(([A-Z]{{2,6}})\)", text, re.I)
        if defined:
            names[defined.group(1)] = value
    names = {k: v for k, v in names.items() if k not in _NOT_ACRONYMS}
    if not names:
        return text
    text = re.sub(rf"\s*\((?:{'|'.join(names)})\)", "", text)
    short = re.compile(rf"(?<![\w-])({'|'.join(names)})(s?)(?![\w-])")
    return short.sub(lambda m: names[m.group(1)] + m.group(2), text)
