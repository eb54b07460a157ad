"""Condition semantics and an in-process index of which rules can fire on a submission.

`holds` is the one definition of a rule condition (the decision policy uses it
too). `ConditionIndex` answers "which rules have every condition on a submitted
field holding?" without reading every rule: equality conditions are looked up
by value, numeric thresholds by bisection over sorted limits, and only the rare
rest (``neq``, ``not_in``, mismatched types) are checked one by one. At 10k
rules a lookup takes well under a millisecond where loading every rule reading
a submitted field took seconds.

`condition_index(memory, namespace)` builds the index from the namespace's Rule
nodes and keeps it until the namespace's write generation changes (a token
every write replaces on the server, so writes by other processes are seen too;
see `Database.derived`).
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

from schemas.rules import Condition

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

ALL_PRODUCTS = "all"  # casefolded
CURRENT_EDGE = "e.invalid_at IS NULL AND e.expired_at IS NULL"
# The current Rule nodes `n`: a rule is current unless every edge it has was invalidated.
RULE_NODES = (
    "OPTIONAL MATCH (n)-[e:RELATES_TO]-() WITH n, count(e) AS total, "
    f"sum(CASE WHEN {CURRENT_EDGE} THEN 1 ELSE 0 END) AS live WHERE total = 0 OR live > 0 "
)
_NUMERIC = ("gt", "gte", "lt", "lte")


def is_number(value: Any) -> TypeGuard[int | float]:
    """Return whether `value` is an int or float (booleans are not numbers)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def equal(actual: Any, expected: Any) -> bool | None:
    """Compare two scalars; None when their types are not comparable.

    Strings compare trimmed and case-insensitively; booleans only equal booleans.
    """
    if isinstance(actual, bool) or isinstance(expected, bool):
        if isinstance(actual, bool) and isinstance(expected, bool):
            return actual is expected
        return None
    if is_number(actual) and is_number(expected):
        return bool(actual == expected)
    if isinstance(actual, str) and isinstance(expected, str):
        return actual.strip().casefold() == expected.strip().casefold()
    return None


def holds(operator: str, actual: Any, expected: Any) -> bool:
    """Return whether ``actual <operator> expected`` holds; False on a type mismatch."""
    if operator in ("in", "not_in"):
        members = expected if isinstance(expected, list) else [expected]
        matches = [equal(actual, member) for member in members]
        if operator == "in":
            return any(m is True for m in matches)
        return all(m is False for m in matches)
    if operator in ("eq", "neq"):
        if isinstance(expected, list):
            return False
        same = equal(actual, expected)
        return same is not None and same is (operator == "eq")
    if not (is_number(actual) and is_number(expected)):
        return False
    left, right = float(actual), float(expected)
    if operator == "gt":
        return left > right
    if operator == "gte":
        return left >= right
    if operator == "lt":
        return left < right
    return operator == "lte" and left <= right


def _key(value: Any) -> tuple[str, Any] | None:
    """A hashable key under which `equal` values meet (None: equals nothing)."""
    if isinstance(value, bool):
        return ("b", value)
    if is_number(value):
        return ("n", float(value))
    if isinstance(value, str):
        return ("s", value.strip().casefold())
    return None


@dataclass
class _Thresholds:
    """Numeric limits of one operator on one field, sorted, with their rules."""

    pairs: list[tuple[float, int]] = field(default_factory=list)
    limits: list[float] = field(default_factory=list)
    rules: list[int] = field(default_factory=list)

    def freeze(self) -> None:
        self.pairs.sort()
        self.limits = [p[0] for p in self.pairs]
        self.rules = [p[1] for p in self.pairs]

    def holding(self, operator: str, value: float) -> list[int]:
        if operator == "gt":  # value > limit
            return self.rules[: bisect_left(self.limits, value)]
        if operator == "gte":
            return self.rules[: bisect_right(self.limits, value)]
        if operator == "lt":  # value < limit
            return self.rules[bisect_right(self.limits, value) :]
        return self.rules[bisect_left(self.limits, value) :]  # lte


@dataclass
class _Field:
    """Every condition on one field, arranged for lookup."""

    equals: dict[tuple[str, Any], list[int]] = field(default_factory=lambda: defaultdict(list))
    numeric: dict[str, _Thresholds] = field(default_factory=dict)
    rest: list[tuple[int, Condition]] = field(default_factory=list)

    def add(self, rule: int, condition: Condition) -> None:
        op, value = condition.operator, condition.value
        if op == "eq" and not isinstance(value, list) and _key(value) is not None:
            self.equals[_key(value)].append(rule)  # type: ignore[index]
        elif op == "in":
            members = value if isinstance(value, list) else [value]
            for key in dict.fromkeys(k for k in map(_key, members) if k is not None):
                self.equals[key].append(rule)
        elif op in _NUMERIC and is_number(value):
            self.numeric.setdefault(op, _Thresholds()).pairs.append((float(value), rule))
        elif op in ("eq", *_NUMERIC):
            return  # can never hold (e.g. a list for eq, a string for gt): the rule never fires
        else:
            self.rest.append((rule, condition))

    def holding(self, value: Any) -> Iterable[int]:
        key = _key(value)
        if key is not None:
            yield from self.equals.get(key, ())
        if is_number(value):
            for op, thresholds in self.numeric.items():
                yield from thresholds.holding(op, float(value))
        for rule, condition in self.rest:
            if holds(condition.operator, value, condition.value):
                yield rule


@dataclass(frozen=True)
class IndexedRule:
    """What the index keeps of a rule: its name, product and conditions per field."""

    name: str
    product_type: str
    per_field: Mapping[str, int]


class ConditionIndex:
    """Which rules can fire on a submission, found by value instead of by scanning."""

    def __init__(self, rules: Iterable[tuple[str, str, list[Condition]]]) -> None:
        """Index (rule name, product type, conditions) triples."""
        self.rules: list[IndexedRule] = []
        self.fields: dict[str, _Field] = {}
        for index, (name, product, conditions) in enumerate(rules):
            per_field: dict[str, int] = {}
            for condition in conditions:
                per_field[condition.field] = per_field.get(condition.field, 0) + 1
                self.fields.setdefault(condition.field, _Field()).add(index, condition)
            self.rules.append(IndexedRule(name, product.casefold(), per_field))
        for entry in self.fields.values():
            for thresholds in entry.numeric.values():
                thresholds.freeze()

    def __len__(self) -> int:
        return len(self.rules)

    def candidates(self, values: Mapping[str, Any], product_type: str | None) -> list[str]:
        """Names of the rules worth evaluating on `values`, in index order.

        A rule is returned when it applies to `product_type` (None: every product),
        has a condition on at least one submitted field, and every condition on a
        submitted field holds. Conditions on absent fields are left to the policy
        (they make the rule undecided, not fired). Other rules cannot fire.
        """
        present = {f: v for f, v in values.items() if v is not None and f in self.fields}
        held: dict[int, int] = defaultdict(int)
        for name, value in present.items():
            for rule in self.fields[name].holding(value):
                held[rule] += 1
        wanted = product_type.casefold() if product_type else None
        names = []
        for rule in sorted(held):
            entry = self.rules[rule]
            if held[rule] != sum(n for f, n in entry.per_field.items() if f in present):
                continue
            if wanted is None or entry.product_type in (ALL_PRODUCTS, wanted):
                names.append(entry.name)
        return names


def _triple(name: str, props_json: str | None) -> tuple[str, str, list[Condition]]:
    try:
        props = json.loads(props_json or "{}")
        conditions = [Condition.model_validate(c) for c in props.get("conditions") or []]
    except (ValueError, TypeError):  # not a structured rule: nothing to index
        return name, "", []
    return name, str(props.get("product_type") or ""), conditions


async def condition_index(memory: GraphMemory, namespace: Namespace) -> ConditionIndex:
    """The namespace's condition index, rebuilt only after a write to the namespace."""
    group_id = namespace.group_id

    async def build() -> ConditionIndex:
        rows = await memory.db.query(
            group_id,
            f"MATCH (n:Entity) WHERE n.label = 'Rule' {RULE_NODES}"
            "RETURN n.name AS name, n.props_json AS props ORDER BY n.name",
            read_only=True,
        )
        return ConditionIndex(_triple(r["name"], r["props"]) for r in rows)

    index: ConditionIndex = await memory.db.derived(group_id, "conditions", build)
    return index


__all__ = ["RULE_NODES", "ConditionIndex", "condition_index", "equal", "holds", "is_number"]
