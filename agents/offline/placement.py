"""Which product a rule is placed on: named in its sentence, its question, or the text.

A rule takes the product its clause or sentence names; else the one the interview
question before it names; else the product of the rule just before (unless a question
opened a new topic in between); else the one product named since the last question;
else "ALL" when the text places its business on several products.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.offline import lexicon_subjects as lxs
from agents.offline.assemble import RuleDraft
from agents.offline.clauses import detect_action
from agents.offline.textproc import Sentence
from agents.offline.texts import single_product

#: "Regardless of product, ...": a rule that holds on every product.
_WHATEVER_PRODUCT = re.compile(
    r"\b(?:regardless of|irrespective of|whatever(?: the)?|no matter (?:the|which|what))\s+"
    # "whatever the class or product": the class named first
    r"(?:the\s+)?(?:(?:class|occupancy|trade|state)\s+(?:or|and)\s+(?:the\s+)?)?"
    r"(?:products?|lines?(?: of business)?|programs?)\b",
    re.I,
)


def find_product(text: str) -> str | None:
    """The product a text names: "ALL" for "every product", else the first product name."""
    if lxs.ALL_PRODUCTS.search(text) or _WHATEVER_PRODUCT.search(text):
        return "ALL"
    hits = sorted(
        (m.start(), m.end(), name)
        for name, pattern in lxs.PRODUCT_PATTERNS
        for m in pattern.finditer(text)
    )
    if not hits:
        return None
    # "This applies to BOP, LRO, Property and GL alike": a list of every product
    for i in range(len(hits) - len(lxs.PRODUCT_PATTERNS) + 1):
        run = hits[i : i + len(lxs.PRODUCT_PATTERNS)]
        joined = all(
            _LIST_JOINT.fullmatch(text[a[1] : b[0]]) for a, b in zip(run, run[1:], strict=False)
        )
        if joined and len({name for _, _, name in run}) == len(lxs.PRODUCT_PATTERNS):
            return "ALL"
    return hits[0][2]


#: What joins the names of a list: "BOP, LRO, Property and GL", "BOP / GL".
_LIST_JOINT = re.compile(r"\s*(?:,|/|,?\s*(?:and|or|&))?\s*(?:the\s+)?", re.I)


def question_between(sentences: Sequence[Sentence], first: int, last: int) -> bool:
    """True when a question opens a new topic between two sentences (an interview)."""
    return any(s.is_question for s in sentences[first + 1 : last])


#: "... is a referral - it's really a BOP or Property account": where the risk belongs
#: instead, not the product of the rule.
_BELONGS_ELSEWHERE = re.compile(
    r"\b(?:it'?s|it is|they'?re|they are|that'?s|that is)\s+(?:really|actually|more like)\s+"
    r"[^.;]*|"
    # "... we decline the package and pass the risk to Property": where it goes instead
    r"\b(?:pass(?:es|ed)?|offer(?:s|ed)?|send(?:s)?|sent|move(?:s|d)?|place(?:s|d)?)\s+"
    r"(?:the\s+)?(?:risk|account|submission|business)\s+to\s+(?:the\s+)?[\w-]+"
    r"(?:\s+(?:desk|team|program|market))?(?:\s+instead)?",
    re.I,
)
#: A sentence that opens on a product: "On Property, ...", "For the GL, ...".
_OPENS_ON = re.compile(
    r"^\W*(?:on|for|under)\s+(?:the\s+)?[\w-]+(?:\s+(?:side|form|policy))?,", re.I
)


#: A sentence that opens on every product: "On every product, compare ...".
_OPENS_ON_ALL = re.compile(
    r"^\W*(?:on|for|across|under|in)\s+(?:every|all|each|any)\s+(?:products?|lines?"
    r"(?: of business)?|programs?)\s*,",
    re.I,
)
#: What may follow "every product" that names lines, not goods: an end, a pronoun.
_LINES_END = re.compile(r"\s*(?:[,.;:)]|$|(?:we|you|alike|and|or)\b)", re.I)


def _scopes_all(sentence: str) -> bool:
    """True for a sentence that sets every product as the scope of what follows.

    "On every product, compare the acreage with the FSA report" (no rule of its own); not
    "Nitrate film is a decline on every product" (its own rule's product).
    """
    if _OPENS_ON_ALL.match(sentence):
        return True
    # "This applies to every class and every product"; not "Ask for every product recall"
    # (goods, not lines)
    lines = [
        m for m in lxs.ALL_PRODUCTS.finditer(sentence) if _LINES_END.match(sentence[m.end() :])
    ]
    return bool(lines) and detect_action(sentence) is None


#: A sentence that opens a numbered section: "11.5 Bulk oil.", "4.3 Ladders.".
_SECTION_START = re.compile(r"^\s*(?:\d{1,2}\.\d{1,2}(?:\.\d{1,2})?|§\s*\d[\d.]*)\s+[A-Z]")


def _new_section(sentences: Sequence[Sentence], since: int, at: int) -> bool:
    """True when a numbered section opens after the rule at `since`, up to `at`.

    "11.4 BOP. A mill that runs its own dryer is declined on that program. 11.5 Bulk oil.
    Finished oil ... is written with the exclusion": a section's product ends with it.
    """
    return any(_SECTION_START.match(s.raw) for s in sentences[since + 1 : at + 1])


#: A heading that opens on a product: "2. General Liability - portable ride showmen."
_PRODUCT_HEADING = re.compile(r"^\s*(?:\d{1,2}[.)]\s+)?([A-Z][\w' ]{1,30}?)\s+[-\u2013\u2014:]\s")
#: A heading is short.
_HEADING_WORDS = 10


def _heading_product(sentences: Sequence[Sentence], since: int, sentence: Sentence) -> str | None:
    """The product a heading after the rule at `since` opens on, up to `sentence`."""
    for between in reversed(sentences[since + 1 : sentence.index + 1]):
        opening = _PRODUCT_HEADING.match(between.raw)
        if (
            opening
            and len(between.raw.split()) <= _HEADING_WORDS
            and detect_action(between.raw) is None
            and (product := find_product(opening.group(1))) is not None
        ):
            return product
    return None


def rule_product(
    clause: str, sentence: Sentence, sentences: Sequence[Sentence], drafts: list[RuleDraft]
) -> tuple[str | None, bool]:
    """The product of a rule read from a clause, and whether the text names it for it.

    Args:
        clause: The clause that states the rule.
        sentence: Its sentence.
        sentences: All sentences of the text.
        drafts: The rules read before it.

    Returns:
        The product (None when nothing places it) and whether it is explicit.
    """
    product = (
        find_product(_BELONGS_ELSEWHERE.sub(" ", clause))
        or find_product(_BELONGS_ELSEWHERE.sub(" ", sentence.raw))
        or _question_product(sentences, sentence)
    )
    if product is not None:
        return product, True
    # "On Property, the applicant reported $80K of converters. Converter stock worth more
    # than $50,000 is verified": the product the sentence before opened on
    before = sentences[sentence.index - 1].raw if sentence.index > 0 else ""
    opened = _OPENS_ON.match(before)
    if opened and (product := find_product(opened.group(0))) is not None:
        return product, False
    if drafts and (heading := _heading_product(sentences, drafts[-1].sentence_index, sentence)):
        return heading, True  # "1. Property - ... 2. General Liability - portable rides."
    if (
        drafts
        and drafts[-1].product_explicit
        and not question_between(sentences, drafts[-1].sentence_index, sentence.index)
        and not _new_section(sentences, drafts[-1].sentence_index, sentence.index)
    ):
        # "Sawmills are declined on the BOP; they are written on monoline Property. Mills
        # cutting more than ...": the product the business was placed on since
        since = sentences[drafts[-1].sentence_index : sentence.index]
        return _placed_on(since) or drafts[-1].product, True
    # "Section 8.5 of the Property manual is amended: ... Any building more than 4 miles
    # ... is referred": the one product named before the rule; in an interview, in the
    # answer since the last question.
    start = max((s.index for s in sentences[: sentence.index] if s.is_question), default=0)
    said = " ".join(s.raw for s in sentences[start : sentence.index])
    if any(_scopes_all(s.raw) for s in sentences[start : sentence.index]):
        return "ALL", False  # "On every product, compare the acreage ...": then the table
    product = single_product(said)
    if product is None and _placed_on_several_products(sentences):
        product = "ALL"  # "gyms may be written on the GL or the BOP": not the title's only
    return product, False


def _placed_on_several_products(sentences: Sequence[Sentence]) -> bool:
    """True when the text places its business on more than one product."""
    for sentence in sentences:
        match = lxs.PRODUCT_PLACEMENT.search(sentence.text)
        if match is None:
            continue
        rest = sentence.text[match.start() :]
        if sum(1 for _, pattern in lxs.PRODUCT_PATTERNS if pattern.search(rest)) > 1:
            return True
    return False


#: "they are written on monoline Property": where the business is placed.
_WRITTEN_ON = re.compile(
    r"\b(?:are|is)\s+(?:instead\s+)?(?:written|placed|rated)\s+(?:on|under|in)\s+(?=\S)", re.I
)


def _placed_on(sentences: Sequence[Sentence]) -> str | None:
    """The product the latest "are written on <product>" of some sentences names."""
    placed = None
    for sentence in sentences:
        for match in _WRITTEN_ON.finditer(sentence.text):
            product = find_product(sentence.text[match.end() : match.end() + 40])
            placed = product if product not in (None, "ALL") else placed
    return placed


def _question_product(sentences: Sequence[Sentence], sentence: Sentence) -> str | None:
    for prev in reversed(sentences[max(0, sentence.index - 3) : sentence.index]):
        if prev.is_question:
            return find_product(prev.text)
    return None
