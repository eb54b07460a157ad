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
    return re.sub(r"[ \t]*\b[A-Z]{2,}-\d{2,4}(?:-\d+)*\b", "", text)


_CASE_LINE = re.compile(
    r"^[ \t]*#?[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*-\d{2,}(?:-\d+)*[ \t]*(?:\([^()\n]*\))?[ \t]*[:|]"
    r"[ \t]*",
    re.M,
)
