"""An in-process index of which rules can fire on a submission.

`holds` (in `field_conditions`, re-exported here) is the one definition of a rule
condition; the decision policy uses it too. `ConditionIndex` answers "which rules
have every condition on a submitted field holding?" without reading every rule:
equality conditions are looked up by value, numeric thresholds by bisection over
sorted limits, and only the rare rest (``neq``, ``not_in``, mismatched types) are
checked one by one. At 10k
rules a lookup takes well under a millisecond where loading every rule reading
a submitted field took seconds.

The index also keeps each rule's stored document and serves the current rules by
name (`rules_named`), and each rule's route in the graph (the names at the other
end of its current edges, `routes_named`), so a decision explains its fired
rules without a round trip. `memory.underwriting.condition_kind` keeps a
namespace's index current from its graph's change log.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
import orjson

from memory.backend.derived import collection_paused
from memory.underwriting.consolidate import signature
from memory.underwriting.documents import parse_document, parsed_more
from memory.underwriting.field_conditions import Cond, FieldConditions, equal, holds, is_number
from schemas.rules import (
    Condition,
    ExtractedRule,
)

ALL_PRODUCTS = "all"  # casefolded


#: A rule's current edges as (relation, name of the node at the other end) pairs.
Route = tuple[tuple[str, str], ...]


class IndexedRule(NamedTuple):
    """What the index keeps of a rule: its key, name, product, conditions and document.

    `document` is the rule's JSON form from its Rule node's stored document, so a
    reader gets its rules without a round trip; it is parsed on first use. `history`
    is the rest of the stored document (its versions and claims, JSON), apart because
    only a writer consolidating claims reads it (`whole_document`).
    `route` is what the rule's current edges connect it to, as read with it (None: not
    read, as for an index built from conditions alone).
    A named tuple: a snapshot load makes one per rule (a third of a frozen
    dataclass's cost).
    """

    key: str
    name: str
    product_type: str
    conditions: tuple[Cond, ...]
    per_field: Mapping[str, int]
    document: str | None = None
    route: Route | None = None
    history: str | None = None

    def whole_document(self) -> dict[str, Any] | None:
        """The Rule node's stored document: the rule's JSON form with its history."""
        if not self.document:
            return None
        whole: dict[str, Any] = orjson.loads(self.document)
        if self.history:
            whole.update(orjson.loads(self.history))
        return whole


class ConditionIndex:
    """Which rules can fire on a submission, found by value instead of by scanning.

    Rules are added and replaced one at a time (`add`, `discard`), so a changed
    rule costs a few list insertions, not a rebuild: a replaced rule's old slot
    is left dead and skipped, and the index compacts itself once dead slots
    outnumber live ones. With their documents (`add(..., document=)`) it also
    serves the current rules by name (`rules_named`), each parsed once.
    """

    def __init__(self, rules: Iterable[tuple[str, str, list[Condition]]] = ()) -> None:
        """Index (rule name, product type, conditions) triples, keyed by rule name."""
        self.rules: list[IndexedRule | None] = []
        self.slot: dict[str, int] = {}
        self.named: dict[str, list[int]] = {}
        self.fields: dict[str, FieldConditions] = {}
        self.compactions = 0
        self.generation = 0  # counts every change: a reader may cache what it derives
        self._parsed: dict[int, ExtractedRule | None] = {}
        self._signatures: dict[str, set[str]] | None = None  # built on first `same_rule`
        self._columns()
        for name, product, conditions in rules:
            self.add(name, name, product, conditions)

    def _columns(self) -> None:
        """Empty per-slot columns: live or not, product, conditions per field."""
        self._alive = array("b")
        self._product = array("i")
        self._products: dict[str, int] = {}
        # field -> conditions each slot has on it (unsigned 16-bit; shorter: zeros follow)
        self._counts: dict[str, array[int]] = {}

    def __len__(self) -> int:
        return len(self.slot)

    def add(
        self,
        key: str,
        name: str,
        product: str,
        conditions: Iterable[Condition | Cond],
        document: str | None = None,
        route: Route | None = None,
        history: str | None = None,
    ) -> None:
        """Index one rule under `key`, replacing what was indexed under it."""
        self.discard(key)
        kept = tuple(
            c if isinstance(c, Cond) else Cond(c.field, c.operator, c.value) for c in conditions
        )
        self._append(key, name, product, kept, document, route, history)

    def _append(
        self,
        key: str,
        name: str,
        product: str,
        kept: tuple[Cond, ...],
        document: str | None,
        route: Route | None = None,
        history: str | None = None,
    ) -> None:
        """Index a rule in a new slot (`key` not indexed yet)."""
        self.generation += 1
        rule = len(self.rules)
        per_field: dict[str, int] = {}
        for condition in kept:
            per_field[condition.field] = per_field.get(condition.field, 0) + 1
            entry = self.fields.get(condition.field)
            if entry is None:  # (not setdefault: that builds a FieldConditions on every call)
                entry = self.fields[condition.field] = FieldConditions()
            entry.add(rule, condition)
        product = product.casefold()
        indexed = IndexedRule(key, name, product, kept, per_field, document, route, history)
        self.rules.append(indexed)
        self.slot[key] = rule
        if self._signatures is not None:
            self._signatures.setdefault(signature(product, kept), set()).add(key)
        self.named.setdefault(name, []).append(rule)
        self._alive.append(1)
        self._product.append(self._products.setdefault(product, len(self._products)))
        for name_of_field, count in per_field.items():
            counts = self._counts.setdefault(name_of_field, array("H"))
            if len(counts) < rule:
                counts.frombytes(bytes(counts.itemsize * (rule - len(counts))))
            counts.append(count)

    def discard(self, key: str) -> None:
        """Forget the rule indexed under `key` (unknown keys are ignored)."""
        rule = self.slot.pop(key, None)
        if rule is None:
            return
        self.generation += 1
        entry = self.rules[rule]
        self.rules[rule] = None
        self._alive[rule] = 0
        if self._signatures is not None and entry is not None:
            self._signatures.get(signature(entry.product_type, entry.conditions), set()).discard(
                key
            )
        self._parsed.pop(rule, None)
        if entry is not None:
            slots = self.named.get(entry.name, [])
            if rule in slots:
                slots.remove(rule)
            if not slots:
                self.named.pop(entry.name, None)
        if len(self.rules) > 64 and len(self.slot) < len(self.rules) / 2:
            self._compact()

    def rules_named(self, names: Iterable[str]) -> dict[str, tuple[ExtractedRule, ...]]:
        """The current structured rules of each name (none for an unknown name).

        Only rules indexed with their document are returned; each is parsed once
        (documents were checked when they were written, so only their types are).
        """
        found: dict[str, tuple[ExtractedRule, ...]] = {}
        parsed_now = 0
        with collection_paused():
            for name in names:
                rules = []
                for slot in self.named.get(name, ()):
                    if slot not in self._parsed:
                        self._parsed[slot] = _parse_entry(self.rules[slot])
                        parsed_now += 1
                    parsed = self._parsed[slot]
                    if parsed is not None:
                        rules.append(parsed)
                found[name] = tuple(rules)
        if parsed_now:
            parsed_more(parsed_now)
        return found

    def routes_named(self, names: Iterable[str]) -> dict[str, Route]:
        """The route of each named current rule (rules of one name: their edges together).

        A name no current rule has, or one whose route was not read, is left out.
        """
        found: dict[str, Route] = {}
        for name in names:
            entries = [self.rules[slot] for slot in self.named.get(name, ())]
            routes = [e.route for e in entries if e is not None]
            if routes and all(r is not None for r in routes):
                found[name] = tuple(pair for route in routes for pair in route or ())
        return found

    def same_rule(
        self, product_type: str, conditions: Iterable[Condition | Cond]
    ) -> list[IndexedRule]:
        """The current rules that are the same piece of knowledge as these conditions.

        Same product and the same condition shape (`memory.underwriting.consolidate.signature`),
        whatever their names, thresholds or actions; a dictionary lookup once built.
        """
        if self._signatures is None:
            self._signatures = {}
            for entry in self.rules:
                if entry is not None:
                    sig = signature(entry.product_type, entry.conditions)
                    self._signatures.setdefault(sig, set()).add(entry.key)
        keys = self._signatures.get(signature(product_type.casefold(), conditions), set())
        found = [self.rules[self.slot[k]] for k in sorted(keys) if k in self.slot]
        return [entry for entry in found if entry is not None]

    @property
    def values_version(self) -> tuple[int, int]:
        """Changes when the values conditions compare with may have (not on every write)."""
        return self.compactions, sum(len(f.equals) for f in self.fields.values())

    def _compact(self) -> None:
        self.compactions += 1
        live = [r for r in self.rules if r is not None]
        self.rules, self.slot, self.fields, self.named, self._parsed = [], {}, {}, {}, {}
        self._signatures = None
        self._columns()
        for entry in live:
            self.add(*entry[:4], entry.document, entry.route, entry.history)

    def string_values(self) -> dict[str, list[str]]:
        """The text values conditions compare each field with (for reading queries)."""
        return {
            name: [key[1] for key in entry.equals if key[0] == "s"]
            for name, entry in self.fields.items()
        }

    def held(
        self, values: Mapping[str, Any], product_type: str | None
    ) -> list[tuple[IndexedRule, list[str]]]:
        """The rules `candidates` returns, each with the submitted fields its conditions read."""
        present, slots = self._holding_slots(values, product_type)
        entries: list[IndexedRule] = [self.rules[slot] for slot in slots]  # type: ignore[misc]
        return [(entry, [f for f in present if f in entry.per_field]) for entry in entries]

    def candidates(self, values: Mapping[str, Any], product_type: str | None) -> list[str]:
        """Names of the rules worth evaluating on `values`, in the order they were indexed.

        A rule is returned when it applies to `product_type` (None: every product),
        has a condition on at least one submitted field, and every condition on a
        submitted field holds. Conditions on absent fields are left to the policy
        (they make the rule undecided, not fired). Other rules cannot fire.
        """
        _, slots = self._holding_slots(values, product_type)
        return [self.rules[slot].name for slot in slots]  # type: ignore[union-attr]

    def _holding_slots(
        self, values: Mapping[str, Any], product_type: str | None
    ) -> tuple[dict[str, Any], np.ndarray]:
        """The submitted fields the index knows, and the live slots `candidates` means."""
        present = {f: v for f, v in values.items() if v is not None and f in self.fields}
        slots = len(self.rules)
        parts = [
            np.asarray(part, dtype=np.int64)
            for name, value in present.items()
            for part in self.fields[name].holding(value)
        ]
        if not slots or not parts:
            return present, np.zeros(0, dtype=np.int64)
        # Conditions that hold per slot, against the conditions it has on submitted fields
        # (a slot lists a field once per holding condition, so equal totals mean every one).
        held = np.bincount(np.concatenate(parts), minlength=slots)
        needed = np.zeros(slots, dtype=np.int64)
        for name in present:
            counts = np.frombuffer(self._counts[name], dtype=np.uint16)
            needed[: counts.size] += counts
        ok = (held > 0) & (held == needed) & np.frombuffer(self._alive, dtype=np.int8).astype(bool)
        if product_type:
            codes = np.frombuffer(self._product, dtype=np.int32)
            wanted = [self._products.get(p, -1) for p in (ALL_PRODUCTS, product_type.casefold())]
            ok &= np.isin(codes, wanted)
        return present, np.flatnonzero(ok)

    def to_bytes(self) -> bytes:
        """Serialise the live rules (JSON)."""
        live = [
            [
                e.key,
                e.name,
                e.product_type,
                [list(c) for c in e.conditions],
                e.document,
                e.route,
                e.history,
            ]  # fmt: skip
            for e in self.rules
            if e is not None
        ]
        return json.dumps(live).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> ConditionIndex:
        """Load an index written by `to_bytes`.

        The snapshot is read with orjson (half the time of `json` on 10k rules'
        documents) and its rules are appended without `add`'s replace check (a fresh
        process's `athena decide` waits for this load).
        """
        try:
            live = orjson.loads(data)
        except orjson.JSONDecodeError:  # what only `json` writes (huge integers, NaN)
            live = json.loads(data)
        index = cls()
        for key, name, product, conditions, document, pairs, history in live:
            route = None if pairs is None else tuple(map(tuple, pairs))
            if key in index.slot:  # not in a snapshot `to_bytes` wrote; `add` replaces it
                index.add(
                    key, name, product, [Cond(*c) for c in conditions], document, route, history
                )
            else:
                index._append(
                    key, name, product, tuple(map(Cond._make, conditions)), document, route,
                    history,
                )  # fmt: skip
        return index


def _parse_entry(entry: IndexedRule | None) -> ExtractedRule | None:
    """The structured rule of an indexed rule's document (None without a whole one)."""
    return None if entry is None else parse_document(entry.document)


__all__ = ["ConditionIndex", "equal", "holds", "is_number"]
