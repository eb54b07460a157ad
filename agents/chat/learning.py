"""What a conversation teaches: rules and revisions of existing rules, for the worker.

`SessionLearningExtractor` wraps the mode's rule extractor (offline or LLM) for
session transcripts. Besides whole rules it reads *revisions*: statements that
change an existing rule's limit without restating the rule ("the 20 employee
limit for BOP is really a guideline; we have approved up to 23"). Both are then
claims: a revision becomes a claim about the current rule it names, and the commit
path's one consolidation policy folds every claim into the rule it is about (a new
version from the message's time), instead of duplicating it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agents.ingestion.matching import RuleRevision, revision_claims
from agents.offline import lexicon as lx
from agents.offline.pipeline import find_product
from memory.underwriting.consolidate import signature
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from agents.models import RuleExtractor
    from memory import GraphMemory, Namespace

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_GUIDELINE = re.compile(r"\b(?:guidelines?|soft (?:limit|cap|threshold)|not a hard)\b", re.I)
_HARD = re.compile(r"\b(?:hard (?:limit|cap|line|stop)|no exceptions?)\b", re.I)


def read_revisions(text: KnowledgeText) -> list[RuleRevision]:
    """Read the limit revisions of a text, sentence by sentence.

    A sentence revises a limit when it names a product and a number, and either calls
    the limit a guideline and says how far approvals went (soft, with the historical
    limit), or calls it a hard limit (hard).
    """
    found = []
    product_of_text = find_product(text.text)
    for sentence in (s.strip() for s in _SENTENCES.split(text.text)):
        product = find_product(sentence) or product_of_text
        numbers = find_numbers(sentence)
        if not product or product == "ALL" or not numbers:
            continue
        cue = lx.SOFT_LIMIT_CUE.search(sentence)
        soft = bool(_GUIDELINE.search(sentence) or lx.SOFT_HEDGE.search(sentence))
        if soft and cue is not None:
            limits = [n for n in numbers if n.end <= cue.start()]
            approved = [n for n in numbers if n.start >= cue.end()]
            if limits and approved:
                found.append(_revision(text, sentence, product, limits[0].value, approved[0].value))
        elif _HARD.search(sentence) and len(numbers) == 1:
            found.append(_revision(text, sentence, product, numbers[0].value, None))
    return found


def _revision(
    text: KnowledgeText, sentence: str, product: str, value: float, soft_limit: float | None
) -> RuleRevision:
    return RuleRevision(
        product_type=product,
        value=value,
        threshold_type="soft" if soft_limit is not None else "hard",
        soft_limit=soft_limit,
        note=sentence,
        text=sentence,
        text_id=text.id,
        source=text.source,
        source_type=text.source_type,
        date=text.date,
    )


class SessionLearningExtractor:
    """A `RuleExtractor` for transcripts: rules, and revisions as claims about current rules.

    Args:
        base: The mode's extractor (offline or LLM).
        memory: Connected graph memory.
        namespace: The agent namespace the learnings go to.
    """

    def __init__(self, base: RuleExtractor, memory: GraphMemory, namespace: Namespace) -> None:
        self.base = base
        self.mode = base.mode
        self.memory = memory
        self.namespace = namespace

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return the claims of one transcript: its rules and its revisions of current rules."""
        from memory.underwriting import GraphAnalytics

        stamp = {"text_id": text.id, "date": text.date}
        learned = [r.model_copy(update=stamp) for r in await self.base.extract(text)]
        current = await GraphAnalytics(self.memory, self.namespace).rules()
        revised = revision_claims(current, read_revisions(text))
        about = {signature(r.product_type, r.conditions) for r in revised}
        # A rule read whole from the words of a revision is that revision's claim.
        return revised + [
            r for r in learned if signature(r.product_type, r.conditions) not in about
        ]
