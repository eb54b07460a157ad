"""Entity disambiguation: match the entities rules mention to existing graph nodes.

Order: entity key (label + normalised name), then canonical name (punctuation,
plurals and spacing folded), then name-embedding similarity above a threshold
(only for the labels where near-synonyms are the same thing, by default
RiskFactor and Mitigant: two rules or sources with similar names are not the same;
names that mention different numbers never match: "Tier 1" is not "Tier 2").
Matched mentions are rewritten to the existing node's name, so the writes land on it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from agents.offline.field_choice import unit_factor
from memory import GraphMemory, Namespace
from memory.graph.names import canonical_name, label_names
from memory.model import as_namespace
from memory.underwriting import OUTCOME_NAMES
from memory.underwriting.fieldlink.numbers import canonical_unit
from schemas.ingestion import EntityMatch, KnowledgeText, MatchMethod
from schemas.rules import ExtractedRule

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
NAME_MATCH_CONFIDENCE = 0.95


def same_numbers(a: str, b: str) -> bool:
    """True when two names mention the same numbers (embeddings barely see digits)."""
    return sorted(_NUMBER.findall(a)) == sorted(_NUMBER.findall(b))


@dataclass
class _Known:
    """Names of one label: existing in the graph, and new ones seen in this run."""

    by_key: dict[str, str] = field(default_factory=dict)
    by_canonical: dict[str, str] = field(default_factory=dict)
    rule_text: dict[str, str | None] = field(default_factory=dict)


class EntityMatcher:
    """Matches the mentions of a batch of rules against one namespace.

    Args:
        memory: Connected graph memory.
        namespace: Where to look.
        threshold: Minimum name-embedding similarity of a vector match.
        vector_labels: Labels that may match by similarity.
    """

    def __init__(
        self,
        memory: GraphMemory,
        namespace: Namespace | str,
        *,
        threshold: float,
        vector_labels: tuple[str, ...],
    ) -> None:
        self.memory, self.namespace = memory, namespace
        self.threshold, self.vector_labels = threshold, vector_labels
        self.matches: dict[tuple[str, str, str | None], EntityMatch] = {}
        self._known: dict[str, _Known] = {}
        self._vectors: dict[str, list[float]] = {}

    async def prefetch(self, rules: list[ExtractedRule]) -> None:
        """Embed every name that may be matched by similarity, in one call."""
        names: list[str] = []
        for rule in rules:
            by_label = {
                "RiskFactor": [rule.risk_factor],
                "Mitigant": rule.mitigants,
                "Rule": [rule.rule_name],
                "Source": [rule.source],
            }
            for label in self.vector_labels:
                names += by_label.get(label, [])
        wanted = [n for n in dict.fromkeys(names) if n not in self._vectors]
        if wanted:
            vectors = await self.memory.embed_names(self.namespace, wanted)
            self._vectors.update(zip(wanted, vectors, strict=True))

    async def _load(self, label: str) -> _Known:
        if label not in self._known:
            # The graph's names, kept current from the change log (no scan per text).
            group_id = as_namespace(self.namespace).group_id
            names = await label_names(self.memory, group_id, label)
            self._known[label] = _Known(
                names.by_key, names.by_canonical, names.text_of if label == "Rule" else {}
            )
        return self._known[label]

    async def match(self, label: str, name: str, text_id: str | None) -> str:
        """Return the name writes should use for this mention, recording the match."""
        known = await self._load(label)
        key = self.memory.entity_key(self.namespace, label, name)
        method: MatchMethod = "new"
        confidence = 1.0
        matched = name
        if key in known.by_key:
            method, matched = "key", known.by_key[key]
        elif canonical_name(name) in known.by_canonical:
            method, confidence = "name", NAME_MATCH_CONFIDENCE
            matched = known.by_canonical[canonical_name(name)]
        elif label in self.vector_labels:
            hits = await self.memory.find_similar_entities(
                self.namespace,
                name,
                label=label,
                min_similarity=self.threshold,
                limit=3,
                vector=self._vectors.get(name),
            )
            hits = [(e, s) for e, s in hits if same_numbers(name, e.name)]
            if hits:
                entity, score = hits[0]
                method, matched, confidence = "vector", entity.name, min(1.0, score)
        if method == "new":
            # Later mentions in the same run match this one by key or name.
            known.by_key[key] = name
            known.by_canonical.setdefault(canonical_name(name), name)
        matched_key = self.memory.entity_key(self.namespace, label, matched)
        self.matches.setdefault(
            (label, matched_key, text_id),
            EntityMatch(
                label=label,
                name=name,
                matched_name=matched,
                matched_entity_key=matched_key,
                method=method,
                confidence=confidence,
                is_new=method == "new",
                text_id=text_id,
            ),
        )
        return matched

    async def rule_name(self, rule: ExtractedRule) -> str:
        """Return the rule's name, made unique when another text already owns it."""
        known = await self._load("Rule")
        name = rule.rule_name
        key = self.memory.entity_key(self.namespace, "Rule", name)
        owner_name = known.by_key.get(key) or known.by_canonical.get(canonical_name(name))
        if owner_name is not None:
            owner = known.rule_text.get(owner_name)
            if owner is not None and rule.text_id is not None and owner != rule.text_id:
                name = f"{name} ({rule.text_id})"
        matched = await self.match("Rule", name, rule.text_id)
        known.rule_text.setdefault(matched, rule.text_id)
        return matched

    async def resolve(self, rule: ExtractedRule) -> ExtractedRule:
        """Return the rule with every entity name replaced by the name writes should use."""
        tid = rule.text_id
        update = {
            "rule_name": await self.rule_name(rule),
            "risk_factor": await self.match("RiskFactor", rule.risk_factor, tid),
            "source": await self.match("Source", rule.source, tid),
            "mitigants": list(
                dict.fromkeys([await self.match("Mitigant", m, tid) for m in rule.mitigants])
            ),
        }
        await self.match("Outcome", OUTCOME_NAMES[rule.action], tid)
        return rule.model_copy(update=update)


# -- learnings: what a conversation says about a stated rule -------------------------------
#
# A learning from a conversation often speaks of an existing rule without restating it
# ("the 20 employee limit is really a guideline"). Such a *revision* is read against the
# current rules (same product and limit value, the field its words name) and becomes a
# claim about that rule: the one consolidation policy (`memory.underwriting.consolidate`)
# folds it in on the commit path like any other text's claim.

_UPPER, _LOWER = frozenset({"gt", "gte"}), frozenset({"lt", "lte"})
LimitSignature = tuple[str, str, str]


@dataclass(frozen=True)
class RuleRevision:
    """A partial statement about an existing rule's limit (no action, no name).

    Attributes:
        product_type: Product the statement names ("" when it names none: any product).
        value: The limit as stated (matches the rule's threshold value).
        threshold_type: `soft` (exceptions are granted) or `hard`.
        soft_limit: Highest value approved in practice, for soft limits.
        note: The sentence, kept as the rule's historical exceptions.
        text: The whole statement (its words pick a field when several rules tie).
        text_id: Id of the text it came from (provenance).
        source: Document / conversation name.
        source_type: Kind of source.
        date: When it was said (ISO), the valid time of what it changes.
        unit: The unit the limit was said in ("yard" for "the hundred-yard setback").
    """

    product_type: str
    value: float
    threshold_type: str
    soft_limit: float | None
    note: str
    text: str
    text_id: str | None = None
    source: str | None = None
    source_type: str | None = None
    date: str | None = None
    unit: str | None = None


def direction_of(operator: str) -> str | None:
    """The direction of an operator: "upper" for gt / gte, "lower" for lt / lte, else None."""
    return "upper" if operator in _UPPER else "lower" if operator in _LOWER else None


def limit_signature(rule: ExtractedRule) -> LimitSignature | None:
    """Return (product, field, direction) of the rule's numeric limit, or None."""
    if rule.threshold is not None:
        direction = direction_of(rule.threshold.operator)
        if direction:
            return (rule.product_type, rule.threshold.field, direction)
    for c in rule.conditions:
        direction = direction_of(c.operator)
        if direction and isinstance(c.value, int | float):
            return (rule.product_type, c.field, direction)
    return None


def limit_value(rule: ExtractedRule) -> float | None:
    """Return the numeric limit of a rule (threshold, else first numeric condition)."""
    if rule.threshold is not None and isinstance(rule.threshold.value, int | float):
        return float(rule.threshold.value)
    for c in rule.conditions:
        if direction_of(c.operator) and isinstance(c.value, int | float):
            return float(c.value)
    return None


def _field_words(field_name: str) -> list[str]:
    return [w[:-1] if w.endswith("s") else w for w in field_name.lower().split("_") if len(w) > 2]


#: Conversions between the unit a practice text says a figure in and its limit's unit
#: ("the hundred-yard setback" of a limit in feet); not miles to feet, which a log uses
#: for other distances.
CASE_CONVERSIONS = frozenset(
    {
        ("pound", "ton"),
        ("ton", "pound"),
        ("ft", "inch"),
        ("yard", "ft"),
        ("days", "hour"),
        ("years", "months"),
        ("months", "years"),
        ("weeks", "days"),
    }
)


def case_factor(unit: str | None, limit_unit: str | None) -> float | None:
    """The factor from a practice text's unit to a limit's, when they differ and convert."""
    target = canonical_unit(limit_unit) if limit_unit else None
    if unit is None or target is None or (unit, target) not in CASE_CONVERSIONS:
        return None
    return unit_factor(unit, target)


def _factor(rule: ExtractedRule, revision: RuleRevision) -> float | None:
    """The factor that puts a revision's figures in the rule's unit (None: no need)."""
    value = limit_value(rule)
    if value is None or value == revision.value or rule.threshold is None:
        return None
    factor = case_factor(revision.unit, rule.threshold.unit)
    return factor if factor and math.isclose(revision.value * factor, value) else None


def revision_targets(current: list[ExtractedRule], revision: RuleRevision) -> list[ExtractedRule]:
    """The current rules a revision speaks of: same product and limit, its words' field.

    A limit said in another unit ("the hundred-yard setback") is the rule's in its own
    (300 feet).
    """
    mine = [h for h in current if revision.product_type in ("", h.product_type)]
    found = [h for h in mine if limit_value(h) == revision.value]
    found = found or [h for h in mine if _factor(h, revision)]
    words = revision.text.lower()
    named = [
        h
        for h in found
        if (sig := limit_signature(h)) and any(w in words for w in _field_words(sig[1]))
    ]
    return named or found


def text_claim(rule: ExtractedRule, text: KnowledgeText, **update: object) -> ExtractedRule:
    """A known rule's terms as a text's own claim: its source, date and words, no links.

    `update` holds what the text changes (a withdrawal, a new limit).
    """
    said: dict[str, object] = {
        "source": text.source,
        "source_type": text.source_type,
        "text_id": text.id,
        "date": text.date,
        "sources": [],
        "conflicts": [],
        "outcome_description": text.text.strip()[:500],
    }
    return rule.model_copy(update={**said, **update})


def revision_claim(rule: ExtractedRule, revision: RuleRevision) -> ExtractedRule:
    """What a revision claims about `rule`: its terms as they are, bent by practice."""
    soft = revision.threshold_type == "soft"
    factor = _factor(rule, revision)
    reach = revision.soft_limit
    if factor is not None and reach is not None:
        reach = round(reach * factor, 9)  # "as close as seventy yards" of a limit in feet
    return rule.model_copy(  # the rule's terms; of the rest only what this text says
        update={
            "threshold_type": revision.threshold_type,
            "soft_limit": reach if soft else None,
            "historical_exceptions": revision.note if soft else None,
            "mitigants": [],
            "mitigant_fields": [],
            "decision_quality": None,
            "text_id": revision.text_id,
            "date": revision.date,
            "source": revision.source or rule.source,
            "source_type": revision.source_type or "sme",
            "sources": [],
            "conflicts": [],
            "valid_from": None,
            "valid_to": None,
        }
    )


def revision_claims(
    current: list[ExtractedRule], revisions: list[RuleRevision]
) -> list[ExtractedRule]:
    """The claims a text's revisions make about the current rules they name."""
    return [
        revision_claim(rule, revision)
        for revision in revisions
        for rule in revision_targets(current, revision)
    ]
