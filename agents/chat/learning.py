"""What a conversation teaches: rules and revisions of existing rules, for the worker.

`SessionLearningExtractor` wraps the mode's rule extractor (offline or LLM) for
session transcripts. Besides whole rules it reads *revisions*: statements that
change an existing rule's limit without restating the rule ("the 20 employee
limit for BOP is really a guideline; we have approved up to 23"). Both are then
mapped onto the namespace's current rules by `LearningPlanner` (same product,
field and direction -> same rule), so a learning supersedes the rule it is about
instead of duplicating it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agents.ingestion.matching import LearningPlan, LearningPlanner, RuleRevision
from agents.offline import lexicon as lx
from agents.offline.pipeline import find_product
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
    )


class SessionLearningExtractor:
    """A `RuleExtractor` for transcripts: rules and revisions planned against current rules.

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
        self.plans: list[LearningPlan] = []

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return the rules to write for one transcript (new rules and new versions)."""
        from memory.underwriting import GraphAnalytics

        learned = [r.model_copy(update={"text_id": text.id}) for r in await self.base.extract(text)]
        planner = LearningPlanner(await GraphAnalytics(self.memory, self.namespace).rules())
        for revision in read_revisions(text):
            planner.add_revision(revision)
        for rule in learned:
            planner.add_rule(rule)
        self.plans.append(planner.plan)
        return planner.plan.rules

    @property
    def supersede(self) -> list[tuple[str, str]]:
        """Every ``(old, new)`` rule pair the planned versions retire."""
        return [pair for plan in self.plans for pair in plan.supersede]
