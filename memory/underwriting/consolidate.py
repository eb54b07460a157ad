"""The consolidation policy: the claims texts make about one rule -> the rule's versions.

A *claim* is a rule as one text states it alone (an `ExtractedRule` with its
text's `date` and, for a text that lifts it, `withdrawn`). Claims about the same
piece of knowledge share a `signature` (product, condition fields, the direction
of each numeric condition, categorical values), whatever their names, wording,
thresholds or actions. `consolidate` folds the claims of one signature, in date
order, into *lineages*: each a rule with its versions in valid time. The policy
(shared/datasets/consolidation/README.md):

* statements (manual, compliance, a training note that states the rule) set the
  threshold and action; a changed one is an amendment, a new version from its
  date; an unchanged one is a restatement (its text joins the sources);
* practice (SME, production, a training note on practice) never changes them: it
  makes the rule soft, raises its soft limit, adds exceptions and mitigants;
* a withdrawal ends the current version with no successor;
* equal-standing statements of one date that disagree stay current side by side
  (one lineage each) and open a conflict.

Pure: no store, no clock. `memory.underwriting.claims` reads and writes lineages.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from schemas.rules import ExtractedRule, RuleConflict, RuleSource

STATEMENT_TYPES = frozenset({"manual", "compliance", "review"})
PRACTICE_TYPES = frozenset({"sme", "production"})
_STANDING = {"review": 3, "compliance": 2, "manual": 1, "training": 1}
_UP, _DOWN = frozenset({"gt", "gte"}), frozenset({"lt", "lte"})


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.casefold().split())
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def condition_shape(field_name: str, operator: str, value: Any) -> tuple[str, str, Any]:
    """What a condition contributes to its rule's identity (a threshold's value does not)."""
    if operator in _UP:
        return field_name, "up", None
    if operator in _DOWN:
        return field_name, "down", None
    values = value if isinstance(value, list) else [value]
    kind = "not" if operator in ("neq", "not_in") else "is"
    return field_name, kind, tuple(sorted({json.dumps(_norm(v)) for v in values}))


def condition_key(condition: Any) -> tuple[str, str, str]:
    """A condition's exact identity: field, operator and value (25 and 25.0 are one)."""
    value = condition.value
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = float(value)
    return condition.field, condition.operator, repr(value)


def signature(product_type: str, conditions: Iterable[Any]) -> str:
    """The identity of a piece of knowledge: product and the shape of its conditions.

    Conditions may be `Condition`s or (field, operator, value) tuples. Two rules with
    the same signature are the same rule whatever their names, thresholds or actions.
    """
    shapes = []
    for c in conditions:
        f, op, v = (c.field, c.operator, c.value) if hasattr(c, "field") else c
        shapes.append(condition_shape(f, op, v))
    return json.dumps([str(product_type).casefold(), sorted(set(shapes))], default=str)


def is_statement(claim: ExtractedRule) -> bool:
    """True for a claim that states the rule; False for one that describes practice."""
    if claim.source_type in STATEMENT_TYPES:
        return True
    if claim.source_type in PRACTICE_TYPES:
        return False
    return not (  # a training note: practice when it speaks of flexibility
        claim.threshold_type == "soft" or claim.soft_limit is not None
    )


def _content(rule: ExtractedRule) -> tuple[str, str]:
    """What a statement sets: its action and its conditions' values."""
    values = sorted(
        json.dumps(_whole_bound(c.field, c.operator, _norm(c.value))) for c in rule.conditions
    )
    return rule.action, json.dumps(values)


def _whole_bound(field_name: str, operator: str, value: Any) -> list[Any]:
    """A bound on a whole number in one form: "11 or more" (gte 11) is "more than 10"."""
    if isinstance(value, int) and not isinstance(value, bool):
        if operator == "gte":
            return [field_name, "gt", value - 1]
        if operator == "lte":
            return [field_name, "lt", value + 1]
    return [field_name, operator, value]


def source_of(claim: ExtractedRule) -> RuleSource:
    """The source a claim's text gives the rule versions it joins."""
    return RuleSource(
        source=claim.source,
        source_type=claim.source_type,
        text_id=claim.text_id,
        date=claim.date,
    )


def _union(*lists: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(x for items in lists for x in items))


def _further(operator: str | None, old: float | None, new: float | None) -> float | None:
    """The furthest soft limit practice accepted (a lower new one does not replace it)."""
    if old is None or new is None:
        return new if old is None else old
    return min(old, new) if operator in _DOWN else max(old, new)


@dataclass
class Lineage:
    """One piece of knowledge: its versions, oldest first (the last may be current)."""

    name: str
    versions: list[ExtractedRule] = field(default_factory=list)
    claims: list[ExtractedRule] = field(default_factory=list)
    """The claims that made, bent or ended it, in the order they were applied."""

    @property
    def current(self) -> ExtractedRule | None:
        """The version in force now, None once retired."""
        last = self.versions[-1] if self.versions else None
        return last if last is not None and last.valid_to is None else None

    def add(self, version: ExtractedRule, day: str) -> None:
        """Start a version on `day`, ending the current one then."""
        self.end(day)
        self.versions.append(
            version.model_copy(
                update={"rule_name": self.name, "valid_from": day, "valid_to": None, "date": day}
            )
        )

    def end(self, day: str) -> None:
        """End the current version on `day` (a version that starts that day is replaced)."""
        current = self.current
        if current is None:
            return
        if current.valid_from == day:
            self.versions.pop()
            return
        self.versions[-1] = current.model_copy(update={"valid_to": day})


def _with_source(rule: ExtractedRule, claim: ExtractedRule) -> list[RuleSource]:
    sources = list(rule.sources)
    mine = source_of(claim)
    if all((s.text_id, s.source) != (mine.text_id, mine.source) for s in sources):
        sources.append(mine)
    return sources


def _first_version(claim: ExtractedRule) -> ExtractedRule:
    return claim.model_copy(update={"sources": [source_of(claim)], "withdrawn": False})


def _restate(current: ExtractedRule, claim: ExtractedRule) -> ExtractedRule:
    return current.model_copy(
        update={
            "sources": _with_source(current, claim),
            "mitigants": _union(current.mitigants, claim.mitigants),
            "mitigant_fields": _union(current.mitigant_fields, claim.mitigant_fields),
            "conflicts": [],
        }
    )


def _amend(current: ExtractedRule, claim: ExtractedRule) -> ExtractedRule:
    """A statement that changes threshold or action.

    Mitigants carry over; practice (soft limit, exceptions) only when the threshold
    is unchanged.
    """
    same_threshold = _content(current)[1] == _content(claim)[1]
    update: dict[str, Any] = {
        "sources": _with_source(current, claim),
        "mitigants": _union(current.mitigants, claim.mitigants),
        "mitigant_fields": _union(current.mitigant_fields, claim.mitigant_fields),
        "data_fields": _union(current.data_fields, claim.data_fields),
        "risk_factor": current.risk_factor,
        "text_id": current.text_id,
        "conflicts": [],
    }
    if same_threshold:
        update |= {
            "threshold_type": current.threshold_type,
            "soft_limit": current.soft_limit,
            "historical_exceptions": current.historical_exceptions,
        }
    return claim.model_copy(update=update)


def _flex(current: ExtractedRule, claim: ExtractedRule) -> ExtractedRule:
    """Practice: soft, the furthest soft limit, exceptions and mitigants added."""
    operator = current.threshold.operator if current.threshold else None
    if operator is None and current.conditions:
        operator = current.conditions[0].operator
    exceptions = _union([current.historical_exceptions or ""], [claim.historical_exceptions or ""])
    bends = (
        claim.threshold_type == "soft"
        or claim.soft_limit is not None
        or bool(claim.historical_exceptions)
    )
    soft = bends and (current.threshold is not None or claim.threshold_type == "soft")
    return current.model_copy(
        update={
            "threshold_type": "soft" if soft else current.threshold_type,
            "soft_limit": _further(operator, current.soft_limit, claim.soft_limit),
            "historical_exceptions": "; ".join(e for e in exceptions if e) or None,
            "mitigants": _union(current.mitigants, claim.mitigants),
            "mitigant_fields": _union(current.mitigant_fields, claim.mitigant_fields),
            "data_fields": _union(current.data_fields, claim.data_fields),
            "decision_quality": claim.decision_quality or current.decision_quality,
            "sources": _with_source(current, claim),
        }
    )


def _differing_fields(a: ExtractedRule, b: ExtractedRule) -> list[str]:
    mine = {(c.field, json.dumps(_norm(c.value))) for c in a.conditions}
    theirs = {(c.field, json.dumps(_norm(c.value))) for c in b.conditions}
    fields = sorted({f for f, _ in mine ^ theirs})
    return fields or sorted({c.field for c in a.conditions})


def _numbers(rule: ExtractedRule) -> list[float]:
    return [
        float(c.value)
        for c in rule.conditions
        if isinstance(c.value, int | float) and not isinstance(c.value, bool)
    ]


def _match(claim: ExtractedRule, rule: ExtractedRule) -> tuple[int, float]:
    """How well a claim fits a rule of its signature, best first.

    The score is 3 for the same content, 2 for the same threshold, 1 for the same
    action and 0 for neither; then the closeness of the thresholds. A score of 0 fits
    only a rule stated on an earlier day (`_best(..., earlier=...)`): the policy's "same
    rule" ignores thresholds and actions, so a later statement that changes both amends
    the nearest rule. Limits of one day that share neither are tiers (a text's "refer
    over 20, decline over 50", or undated texts ingested together), and practice about
    neither the limit nor the action of any rule is about a rule of its own.
    """
    action, values = _content(claim)
    same_action, same_values = action == rule.action, values == _content(rule)[1]
    score = 3 if same_action and same_values else 2 if same_values else 1 if same_action else 0
    pairs = zip(_numbers(claim), _numbers(rule), strict=False)
    gap = sum(abs(a - b) / (abs(a) + abs(b) or 1) for a, b in pairs)
    return score, -gap


def _best(
    claim: ExtractedRule,
    options: Iterable[tuple[Lineage, ExtractedRule]],
    *,
    earlier: Collection[int] = (),
) -> list[Lineage]:
    """The lineages a claim is about among (lineage, its rule) options: the best fits.

    A claim fits a rule whose limit or action it shares, and a statement also any rule
    stated on an earlier day (the ids of those lineages: `earlier`).
    """
    scored = [(_match(claim, rule), lin) for lin, rule in options]
    scored = [item for item in scored if item[0][0] > 0 or id(item[1]) in earlier]
    if not scored:
        return []
    top = max(score for score, _ in scored)
    return [lin for score, lin in scored if score == top]


def _new_lineage(lineages: list[Lineage], claim: ExtractedRule) -> Lineage:
    """A lineage started by `claim`, under its name or, when taken, the name and its text."""
    taken = {lin.name.casefold() for lin in lineages}
    name = claim.rule_name
    if name.casefold() in taken:
        name = f"{name} ({claim.text_id or claim.date})"
    lineage = Lineage(name)
    lineages.append(lineage)
    return lineage


def _live(lineages: Iterable[Lineage]) -> list[tuple[Lineage, ExtractedRule]]:
    return [(lin, lin.current) for lin in lineages if lin.current is not None]


@dataclass
class _Day:
    """What one day's statements did to one lineage."""

    lineage: Lineage
    claims: list[ExtractedRule]


def _apply_statements(lineages: list[Lineage], day: str, claims: list[ExtractedRule]) -> None:
    """Statements of one day: restate or amend the rule each is about, or start a tier.

    A text's claims never amend each other (two limits in one text are two tiers);
    a higher standing (compliance) settles a disagreement of its day; equals that
    disagree stay current side by side and open a conflict.
    """
    live_now = _live(lineages)

    def fit(claim: ExtractedRule) -> int:
        return max((_match(claim, rule)[0] for _, rule in live_now), default=-1)

    # Higher standing first; then a claim that restates a rule before one that would
    # amend it, whatever order the claims came in ("refer over 180" keeps its rule when
    # the same text's "verify under 90" is read beside it).
    ordered = sorted(claims, key=lambda c: (-_STANDING.get(c.source_type, 1), -fit(c)))
    touched: list[_Day] = []
    conflicts: list[tuple[_Day, _Day]] = []
    for claim in ordered:
        day_of = {id(t.lineage): t for t in touched}
        mine = {id(t.lineage) for t in touched if any(c.text_id == claim.text_id for c in t.claims)}
        options = [
            (lin, day_of[id(lin)].claims[0] if id(lin) in day_of else lin.current)
            for lin in lineages
            if id(lin) not in mine and (id(lin) in day_of or lin.current is not None)
        ]
        live = [(lin, rule) for lin, rule in options if rule is not None]
        earlier = {  # by calendar day: the undated claims of one day's writes are tiers
            id(lin)
            for lin, rule in live
            if id(lin) not in day_of and rule.valid_from and rule.valid_from[:10] < day[:10]
        }
        fits = _best(claim, live, earlier=earlier)
        target = fits[0] if fits else None
        entry = day_of.get(id(target)) if target is not None else None
        if entry is not None and _content(entry.claims[0]) != _content(claim):
            if _STANDING.get(claim.source_type, 1) < _STANDING.get(entry.claims[0].source_type, 1):
                continue  # a higher standing statement of the same day settles it
            fresh = _Day(_new_lineage(lineages, claim), [claim])
            touched.append(fresh)
            conflicts.append((entry, fresh))
        elif entry is not None:
            entry.claims.append(claim)
        elif target is not None:
            touched.append(_Day(target, [claim]))
        else:
            fresh = _Day(_new_lineage(lineages, claim), [claim])
            touched.append(fresh)
    settled = {
        note.rule_name
        for entry in touched
        if entry.lineage.current is not None
        for note in entry.lineage.current.conflicts
    }
    for entry in touched:
        current = entry.lineage.current
        version = _first_version(entry.claims[0]) if current is None else None
        for claim in entry.claims:
            if version is None:
                assert current is not None
                same = _content(current) == _content(claim)
                version = (_restate if same else _amend)(current, claim)
            else:
                version = _restate(version, claim)
        assert version is not None
        entry.lineage.add(version, day)
        entry.lineage.claims += entry.claims
    # A later statement of a rule in conflict settles it: the other side ends.
    mine = {id(t.lineage) for t in touched}
    for lineage in lineages:
        if lineage.name in settled and id(lineage) not in mine:
            lineage.end(day)
    for first, second in conflicts:
        _open_conflict(first, second, day)


def _open_conflict(first: _Day, second: _Day, day: str) -> None:
    """Record on both current versions that they disagree."""
    for one, other in ((first, second), (second, first)):
        current = one.lineage.current
        assert current is not None
        note = RuleConflict(
            rule_name=other.lineage.name,
            text_ids=[t for t in (one.claims[0].text_id, other.claims[0].text_id) if t],
            fields=_differing_fields(one.claims[0], other.claims[0]),
            date=day,
        )
        one.lineage.versions[-1] = current.model_copy(
            update={"conflicts": [*current.conflicts, note]}
        )


def _apply_practice(lineages: list[Lineage], day: str, claims: list[ExtractedRule]) -> None:
    """Practice of one day: the rule it bends becomes soft (a new version from `day`).

    Practice that fits no current rule of its signature (another threshold and
    another action, or nothing stated yet) is a rule of its own.
    """
    bent: dict[int, tuple[Lineage, ExtractedRule]] = {}
    for claim in claims:
        fits = _best(claim, _live(lineages))
        if not fits:
            own = _new_lineage(lineages, claim)
            own.claims.append(claim)
            own.add(_first_version(claim), day)
            continue
        for lineage in fits:
            lineage.claims.append(claim)
            version = bent[id(lineage)][1] if id(lineage) in bent else lineage.current
            assert version is not None
            bent[id(lineage)] = (lineage, _flex(version, claim))
    for lineage, version in bent.values():
        lineage.add(version, day)


def _withdraw(lineages: list[Lineage], day: str, claims: list[ExtractedRule]) -> None:
    """Withdrawals: end the rules they name (all current ones when they fit none)."""
    for claim in claims:
        fits = _best(claim, _live(lineages)) or [lin for lin in lineages if lin.current]
        for lineage in fits:
            lineage.claims.append(claim)
            lineage.end(day)


def consolidate(claims: Sequence[ExtractedRule]) -> list[Lineage]:
    """Fold the claims of one signature into lineages of versions in valid time.

    Args:
        claims: Claims of one rule signature, each with its `date` (ISO day); ties
            keep the given order (the order texts were ingested).

    Returns:
        The lineages, in the order they started: usually one; more when equal
        statements disagree (an open conflict) or a rule is stated again after
        it was withdrawn.

    Raises:
        ValueError: A claim without a date.
    """
    for claim in claims:
        if claim.date is None:
            raise ValueError(
                f"claim {claim.rule_name!r} has no date: stamp one before consolidating"
            )
    ordered = sorted(claims, key=lambda c: str(c.date))
    lineages: list[Lineage] = []
    for day, same_day in groupby(ordered, key=lambda c: str(c.date)):
        todays = list(same_day)
        statements = [c for c in todays if not c.withdrawn and is_statement(c)]
        practice = [c for c in todays if not c.withdrawn and not is_statement(c)]
        if statements:
            _apply_statements(lineages, day, statements)
        if practice:
            _apply_practice(lineages, day, practice)
        withdrawals = [c for c in todays if c.withdrawn]
        if withdrawals:
            _withdraw(lineages, day, withdrawals)
    return [lin for lin in lineages if lin.versions]


__all__ = [
    "Lineage",
    "condition_key",
    "condition_shape",
    "consolidate",
    "is_statement",
    "signature",
    "source_of",
]
