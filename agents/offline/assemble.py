"""Turning rule drafts into `ExtractedRule`s: names, categories, thresholds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agents.offline import lexicon_subjects as lxs
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.states import US_STATES
from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition, ExtractedRule, Threshold

_ACTION_NOUN = {
    "decline": "Decline",
    "refer": "Referral",
    "verify": "Verification",
    "flag_for_review": "Review Flag",
    "exclude": "Exclusion",
    "approve_with_conditions": "Conditions",
}
_OP_WORD = {"gt": "Over", "gte": "At Least", "lt": "Under", "lte": "Up To"}
_OP_SLUG = {"gt": "over", "gte": "at_least", "lt": "under", "lte": "up_to", "neq": "not"}
_UNIT_NAME_WORDS = frozenset({"usd", "pct", "3yr", "5yr", "ft", "miles", "days"})
_STATE_NAMES = {code: name.title() for name, code in US_STATES.items()}


@dataclass
class RuleDraft:
    """A rule under construction while a text is read."""

    action: str
    conditions: list[Condition]
    sentence: str
    sentence_index: int
    mitigant_fields: list[str] = field(default_factory=list)
    mitigants: list[str] = field(default_factory=list)
    product: str | None = None
    product_explicit: bool = False
    hedged: bool = False
    soft_limit: float | None = None
    historical: list[str] = field(default_factory=list)
    withdrawn: bool = False

    def add_mitigants(self, fields: list[str], texts: list[str]) -> None:
        """Record mitigant fields and texts, without duplicates.

        A protection whose absence the rule was conditioned on ("unsprinklered mills
        ... are referred; a sprinklered one is written with conditions") stops being a
        condition: the rule holds either way and the protection mitigates it.
        """
        absent = [c for c in self.conditions if c.value is False and c.field in fields]
        if absent and len(absent) < len(self.conditions):
            self.conditions = [c for c in self.conditions if c not in absent]
        # "where every heated dryer has a cut-out": the rule's one trigger, named again
        # beside its mitigant, is no mitigant of it
        only = [c.field for c in self.conditions]
        trigger = set(only) if len(only) == 1 and self.conditions[0].value is True else set()
        for name in fields:
            if name not in self.mitigant_fields and name not in trigger:
                self.mitigant_fields.append(name)
        for text in texts:
            text = text.strip(" ,.;")
            if text and text not in self.mitigants:
                self.mitigants.append(text)

    def key(self) -> tuple[str, tuple[str, ...]]:
        """Identity of a rule inside one text: action and conditions."""
        withdrawn = ("withdrawn",) if self.withdrawn else ()
        return self.action, (*sorted(repr(c) for c in self.conditions), *withdrawn)


class RuleAssembler:
    """Builds the descriptive fields of a rule from its draft."""

    def __init__(self, vocab: FieldVocabulary) -> None:
        """Keep the vocabulary.

        Args:
            vocab: The field vocabulary of the dataset.
        """
        self.vocab = vocab

    def label(self, name: str) -> str:
        """A readable label for a field name ("roof_age_years" -> "Roof Age")."""
        words = [w for w in name.split("_") if w not in _UNIT_NAME_WORDS]
        if len(words) > 1 and words[-1] in {"years", "count"} and words[0] != "years":
            words = words[:-1] if words[-1] == "years" else words
        info = self.vocab.fields.get(name)
        upper = {s for s in (info.spec.synonyms if info else []) if s.isupper()}
        return " ".join(w.upper() if w.upper() in upper else w.capitalize() for w in words)

    def risk_factor(self, conditions: list[Condition]) -> str:
        """Describe what a rule reacts to, from its conditions."""
        parts = [self._describe(c) for c in conditions[:3]]
        return " + ".join(p for p in parts if p) or "General"

    def _describe(self, cond: Condition) -> str:
        info = self.vocab.fields.get(cond.field)
        kind = info.kind if info else "text"
        values = cond.value if isinstance(cond.value, list) else [cond.value]
        if kind == "occupancy":
            return " / ".join(str(v).title() for v in values[:3])
        if kind == "state":
            return " / ".join(_STATE_NAMES.get(str(v), str(v)) for v in values[:3])
        if kind == "bool":
            prefix = "" if cond.value is True else "No "
            return prefix + self.label(cond.field)
        if kind == "enum":
            return f"{self.label(cond.field)} {'/'.join(str(v) for v in values)}"
        if cond.operator == "eq":
            return f"{self.label(cond.field)} {values[0]}"
        return self.label(cond.field)

    def rule_name(self, draft: RuleDraft, risk_factor: str, taken: set[str]) -> str:
        """A readable rule name, unique among `taken` (which it extends)."""
        product = "" if draft.product in (None, "ALL") else f"{draft.product} "
        threshold = self.threshold(draft.conditions)
        bound = ""
        if threshold is not None and threshold.operator in _OP_WORD:
            bound = f" {_OP_WORD[threshold.operator]} {self.format_value(threshold)}"
        base = f"{product}{risk_factor}{bound} {_ACTION_NOUN[draft.action]}"
        name, n = base, 2
        while name.lower() in taken:
            name, n = f"{base} ({n})", n + 1
        taken.add(name.lower())
        return name

    def format_value(self, threshold: Threshold) -> str:
        """Format a threshold value with its unit ("$1.5M", "25%", "0.25%", "20")."""
        value = threshold.value
        if not isinstance(value, int | float) or isinstance(value, bool):
            return str(value)
        unit = (threshold.unit or "").lower()
        if unit == "rate":
            return f"{value * 100:g}%"
        if unit == "percent":
            return f"{value:g}%"
        if unit.startswith("usd"):
            for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
                if abs(value) >= div:
                    return f"${value / div:g}{suffix}"
            return f"${value:g}"
        return f"{value:g}"

    def threshold(self, conditions: list[Condition]) -> Threshold | None:
        """The numeric boundary of a rule: its first inequality, else a numeric equality."""
        numeric = [
            c
            for c in conditions
            if c.field in self.vocab.fields
            and self.vocab.fields[c.field].kind == "numeric"
            and not isinstance(c.value, list)
        ]
        numeric.sort(key=lambda c: c.operator == "eq")
        if not numeric:
            return None
        cond = numeric[0]
        unit = self.vocab.fields[cond.field].spec.unit
        return Threshold(field=cond.field, operator=cond.operator, value=cond.value, unit=unit)

    def _distinct(self, conditions: list[Condition]) -> list[Condition]:
        """Each condition once: "two or more - that is, more than one -" on a whole count.

        On a field of whole numbers "gte 2" is "gt 1"; the strict form said stays.
        """
        seen: dict[str, Condition] = {}
        for cond in conditions:
            key = repr(cond)
            info = self.vocab.fields.get(cond.field)
            value = cond.value
            if (
                info is not None
                and info.spec.type == "int"
                and isinstance(value, int | float)
                and not isinstance(value, bool)
                and cond.operator in ("gt", "gte", "lt", "lte")
            ):
                shift = {"gte": -1, "lte": 1}.get(cond.operator, 0)
                key = f"{cond.field} {cond.operator[:2]} {float(value + shift)}"
            if key not in seen or cond.operator in ("gt", "lt"):
                seen[key] = cond
        return list(seen.values())

    def _without_implied_class(self, conditions: list[Condition]) -> list[Condition]:
        """The conditions without a class another condition's field name already says.

        "Camel ride operators keeping more than eight camels" is "camels on site > 8": a
        count of the class's own animals holds only for that class, and the class said
        again is no second condition. Only the field's name counts ("hull count" of a
        boat storage yard does not: any yard may store boats).
        """
        classes = [
            c
            for c in conditions
            if c.operator == "eq"
            and isinstance(c.value, str)
            and (info := self.vocab.fields.get(c.field)) is not None
            and info.kind == "occupancy"
        ]
        if len(classes) != 1 or len(conditions) < 2:
            return conditions
        said = {
            stem(w)
            for w in re.findall(r"[a-z]+", str(classes[0].value).lower())
            if w not in lxs.GENERIC_HEADS and len(w) > 3
        }
        for cond in conditions:
            info = self.vocab.fields.get(cond.field)
            if cond is classes[0] or info is None or info.kind != "numeric":
                continue
            if said & {stem(w) for w in cond.field.split("_")}:
                return [c for c in conditions if c is not classes[0]]
        return conditions

    def compound_trigger(self, conditions: list[Condition]) -> str | None:
        """Return "a AND b AND c" for rules whose trigger combines several conditions."""
        if len(conditions) < 2:
            return None
        return " AND ".join(self._slug(c) for c in conditions)

    def _slug(self, cond: Condition) -> str:
        info = self.vocab.fields.get(cond.field)
        if isinstance(cond.value, bool):
            return cond.field if cond.value else f"no_{cond.field}"
        if isinstance(cond.value, list):
            vals = "_".join(_slugify(str(v)) for v in cond.value)
            return f"{cond.field}_{'not_' if cond.operator == 'not_in' else ''}in_{vals}"
        if info and info.kind in {"occupancy", "enum", "state"} and cond.operator == "eq":
            return _slugify(str(cond.value))
        op = _OP_SLUG.get(cond.operator, "")
        return "_".join(
            p
            for p in (
                cond.field,
                op,
                _slugify(f"{cond.value:g}" if isinstance(cond.value, float) else str(cond.value)),
            )
            if p
        )

    def category(self, draft: RuleDraft) -> str:
        """Pick a risk category from the rule's fields and wording."""
        text = draft.sentence
        if lxs.PROCESS_CUE.search(text):
            return "process"
        if lxs.DATA_QUALITY_CUE.search(text) or any(
            "discrepancy" in c.field or "range" in c.field for c in draft.conditions
        ):
            return "data_quality"
        kinds = {
            self.vocab.fields[c.field].kind
            for c in draft.conditions
            if c.field in self.vocab.fields
        }
        if "state" in kinds:
            return "geographic_appetite"
        words = self._field_words(draft.conditions)
        for category, keywords in lxs.CATEGORY_KEYWORDS[:2]:
            if words & keywords:
                return category
        if kinds == {"occupancy"}:
            return "eligibility" if lxs.ELIGIBILITY_CUE.search(text) else "occupancy"
        for category, keywords in lxs.CATEGORY_KEYWORDS[2:]:
            if words & keywords:
                return category
        return "eligibility"

    def _field_words(self, conditions: list[Condition]) -> set[str]:
        words: set[str] = set()
        for cond in conditions:
            info = self.vocab.fields.get(cond.field)
            if info is None:
                continue
            text = " ".join([cond.field, *info.spec.synonyms]).lower().replace("_", " ")
            words.update(re.findall(r"[a-z]+", text))
            if info.kind == "enum":
                values = cond.value if isinstance(cond.value, list) else [cond.value]
                words.update(str(v).lower() for v in values)
        return words

    def build(
        self, draft: RuleDraft, meta: dict[str, str | None], taken: set[str]
    ) -> ExtractedRule:
        """Assemble the final rule.

        Args:
            draft: The rule draft.
            meta: source, source_type, text_id, decision_quality.
            taken: Lower-case rule names already used (extended).

        Returns:
            The rule.
        """
        # "more than a quarter - over 25 percent": one condition said twice is one condition
        draft.conditions = self._without_implied_class(self._distinct(draft.conditions))
        risk_factor = self.risk_factor(draft.conditions)
        soft = draft.soft_limit is not None or (draft.hedged and bool(draft.historical))
        fields = [c.field for c in draft.conditions] + draft.mitigant_fields
        source_type = meta.get("source_type") or "manual"
        return ExtractedRule(
            rule_name=self.rule_name(draft, risk_factor, taken),
            risk_factor=risk_factor,
            risk_category=self.category(draft),  # type: ignore[arg-type]
            product_type=draft.product or "ALL",  # type: ignore[arg-type]
            action=draft.action,  # type: ignore[arg-type]
            outcome_description=draft.sentence,
            mitigants=draft.mitigants,
            mitigant_fields=draft.mitigant_fields,
            source=meta.get("source") or "unknown",
            source_type=source_type,  # type: ignore[arg-type]
            confidence="high" if source_type in {"manual", "compliance"} else "medium",
            threshold=self.threshold(draft.conditions),
            threshold_type="soft" if soft else "hard",
            soft_limit=draft.soft_limit,
            historical_exceptions=" ".join(draft.historical) or None,
            decision_quality=meta.get("decision_quality"),  # type: ignore[arg-type]
            compound_trigger=self.compound_trigger(draft.conditions),
            conditions=draft.conditions,
            data_fields=list(dict.fromkeys(fields)),
            text_id=meta.get("text_id"),
            withdrawn=draft.withdrawn,
        )


def _slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
