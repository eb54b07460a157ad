"""Condition semantics, and every condition on one field arranged for lookup.

`holds` is the one definition of a rule condition (the decision policy and the
condition index use it). `FieldConditions` keeps one field's conditions so that the
rules a value satisfies are found without checking each: equality by value, numeric
thresholds by bisection over sorted limits, and only the rare rest (``neq``,
``not_in``, mismatched types) one by one.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeGuard

import numpy as np

_NUMERIC = ("gt", "gte", "lt", "lte")

__all__ = ["Cond", "FieldConditions", "equal", "holds", "is_number"]


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


class Cond(NamedTuple):
    """What the index keeps of a condition (a `schemas.rules.Condition`, lighter)."""

    field: str
    operator: str
    value: Any


@dataclass
class _Thresholds:
    """Numeric limits of one operator on one field, sorted, with their rules.

    Added limits wait in `pending` and are sorted in on the next lookup: one sort
    for a bulk load, a few insertions for a rule changed in place.
    """

    limits: list[float] = field(default_factory=list)
    rules: list[int] = field(default_factory=list)
    pending: list[tuple[float, int]] = field(default_factory=list)
    _array: np.ndarray | None = None  # `rules` as an array, made on the first lookup

    def add(self, limit: float, rule: int) -> None:
        self.pending.append((limit, rule))
        self._array = None

    def _settle(self) -> None:
        if len(self.pending) <= 8:
            for limit, rule in self.pending:
                at = bisect_right(self.limits, limit)
                self.limits.insert(at, limit)
                self.rules.insert(at, rule)
        else:
            pairs = sorted([*zip(self.limits, self.rules, strict=True), *self.pending])
            self.limits = [limit for limit, _ in pairs]
            self.rules = [rule for _, rule in pairs]
        self.pending.clear()

    def holding(self, operator: str, value: float) -> np.ndarray:
        if self.pending:
            self._settle()
        if self._array is None:
            self._array = np.asarray(self.rules, dtype=np.int64)
        rules = self._array
        if operator == "gt":  # value > limit
            return rules[: bisect_left(self.limits, value)]
        if operator == "gte":
            return rules[: bisect_right(self.limits, value)]
        if operator == "lt":  # value < limit
            return rules[bisect_right(self.limits, value) :]
        return rules[bisect_left(self.limits, value) :]  # lte


@dataclass
class FieldConditions:
    """Every condition on one field, arranged for lookup."""

    equals: dict[tuple[str, Any], list[int]] = field(default_factory=lambda: defaultdict(list))
    numeric: dict[str, _Thresholds] = field(default_factory=dict)
    rest: list[tuple[int, Cond]] = field(default_factory=list)

    def add(self, rule: int, condition: Cond) -> None:
        """Index one condition of rule number `rule` (one that can never hold is dropped)."""
        op, value = condition.operator, condition.value
        if op == "eq" and not isinstance(value, list) and (key := _key(value)) is not None:
            self.equals[key].append(rule)
        elif op == "in":
            members = value if isinstance(value, list) else [value]
            for key in dict.fromkeys(k for k in map(_key, members) if k is not None):
                self.equals[key].append(rule)
        elif op in _NUMERIC and is_number(value):
            if op not in self.numeric:
                self.numeric[op] = _Thresholds()
            self.numeric[op].add(float(value), rule)
        elif op in ("eq", *_NUMERIC):
            return  # can never hold (e.g. a list for eq, a string for gt): the rule never fires
        else:
            self.rest.append((rule, condition))

    def holding(self, value: Any) -> list[Sequence[int] | np.ndarray]:
        """The rules with a condition on this field that `value` satisfies, in parts.

        A rule is listed once per condition that holds (two on one field, twice).
        """
        parts: list[Sequence[int] | np.ndarray] = []
        key = _key(value)
        if key is not None and key in self.equals:
            parts.append(self.equals[key])
        if is_number(value):
            parts += [t.holding(op, float(value)) for op, t in self.numeric.items()]
        rest = [r for r, c in self.rest if holds(c.operator, value, c.value)]
        if rest:
            parts.append(rest)
        return parts
