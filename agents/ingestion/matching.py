"""Entity disambiguation: match the entities rules mention to existing graph nodes.

Order: entity key (label + normalised name), then canonical name (punctuation,
plurals and spacing folded), then name-embedding similarity above a threshold
(only for the labels where near-synonyms are the same thing, by default
RiskFactor and Mitigant: two rules or sources with similar names are not the same;
names that mention different numbers never match: "Tier 1" is not "Tier 2").
Matched mentions are rewritten to the existing node's name, so the writes land on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory import Namespace
from memory.keys import normalise_name
from memory.rulebook import OUTCOME_NAMES
from memory.store import GraphMemory
from schemas.ingestion import EntityMatch, MatchMethod
from schemas.rules import ExtractedRule

_NON_WORD = re.compile(r"[^0-9a-z]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
NAME_MATCH_CONFIDENCE = 0.95


def canonical_name(name: str) -> str:
    """Fold a name further than the entity key: punctuation, plurals, word order of spaces."""
    words = _NON_WORD.sub(" ", normalise_name(name)).split()
    return " ".join(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


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

    async def _load(self, label: str) -> _Known:
        if label not in self._known:
            known = _Known()
            for entity in await self.memory.entities(self.namespace, label):
                known.by_key[entity.entity_key] = entity.name
                known.by_canonical.setdefault(canonical_name(entity.name), entity.name)
                if label == "Rule":
                    known.rule_text[entity.name] = entity.properties.get("text_id")
            self._known[label] = known
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
                self.namespace, name, label=label, min_similarity=self.threshold, limit=3
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
