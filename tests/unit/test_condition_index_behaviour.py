"""Which rules the condition index returns, and what else it serves, as rules change.

Each test builds an index from a few named rules and checks what a reader of it sees:
the rules returned for a submission (`candidates`), the rules that are the same piece
of knowledge (`same_rule`), the text values the conditions compare with
(`string_values`), rules by name, and how the index counts its changes and compacts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.underwriting import ConditionIndex, holds
from schemas.rules import Condition


def _c(field: str, operator: str, value: Any) -> Condition:
    return Condition(field=field, operator=operator, value=value)


@pytest.mark.parametrize(
    ("operator", "actual", "expected", "result"),
    [
        ("neq", "CA", "TX", True),
        ("neq", " tx ", "TX", False),
        ("neq", 5, 6, True),
        ("neq", 5, 5.0, False),
        ("neq", True, False, True),
        ("eq", True, True, True),
        ("eq", False, False, True),
        ("eq", True, False, False),
        # A boolean is neither a number nor text: a rule comparing one with another
        # kind of value never holds, whichever operator it uses.
        ("eq", True, 1, False),
        ("neq", True, 1, False),
        ("neq", 1, True, False),
        ("not_in", True, [1, 2], False),
        ("not_in", 3, [True], False),
        ("in", True, [True, "yes"], True),
        # Numbers and text do not compare either.
        ("eq", 5, "5", False),
        ("neq", 5, "5", False),
        ("neq", "5", 5, False),
        ("not_in", 5, ["5", "6"], False),
        ("not_in", 5, [6, 7], True),
        ("in", "bar", "BAR", True),
        ("eq", "TX", ["TX"], False),
        ("neq", "TX", ["OK"], False),
        ("gt", 21, 20, True),
        ("gt", 20, 20, False),
        ("gte", 20, 20, True),
        ("lt", 19.5, 20, True),
        ("lt", 20, 20, False),
        ("lte", 20, 20, True),
        ("lte", 20.5, 20, False),
        ("gt", "21", 20, False),
        ("lte", True, 20, False),
        ("between", 5, 5, False),
    ],
)
def test_a_condition_holds_as_the_policy_reads_it(
    operator: str, actual: Any, expected: Any, result: bool
) -> None:
    assert holds(operator, actual, expected) is result


def test_a_rule_that_excludes_a_value_is_returned_for_every_other_value() -> None:
    index = ConditionIndex([("Not Texas", "ALL", [_c("state", "neq", "TX")])])
    assert index.candidates({"state": "CA"}, None) == ["Not Texas"]
    assert index.candidates({"state": " tx"}, None) == []
    assert index.candidates({"state": 5}, None) == []  # not comparable: cannot fire


def test_the_index_returns_rules_of_the_submitted_product_and_of_all_products() -> None:
    index = ConditionIndex(
        [
            ("Bop bakery", "BOP", [_c("occupancy", "eq", "bakery")]),
            ("Any bakery", "All", [_c("occupancy", "in", ["bakery", "cafe"])]),
            ("Gl bakery", "gl", [_c("occupancy", "eq", "Bakery")]),
        ]
    )
    bakery = {"occupancy": "bakery"}
    assert index.candidates(bakery, "bop") == ["Bop bakery", "Any bakery"]
    assert index.candidates(bakery, "GL") == ["Any bakery", "Gl bakery"]
    assert index.candidates(bakery, "LRO") == ["Any bakery"]  # a product no rule names
    assert index.candidates(bakery, None) == ["Bop bakery", "Any bakery", "Gl bakery"]


def test_limits_added_in_bulk_after_a_lookup_are_all_found() -> None:
    index = ConditionIndex([(f"Over {n}", "ALL", [_c("tiv", "gt", n)]) for n in (30, 10, 20)])
    assert index.candidates({"tiv": 25}, None) == ["Over 10", "Over 20"]
    for n in range(1, 13):  # more than a few: sorted in together with the three
        index.add(f"Under {n}", f"Under {n}", "ALL", [_c("tiv", "lt", n)])
        index.add(f"Over {n}.5", f"Over {n}.5", "ALL", [_c("tiv", "gt", n + 0.5)])
    assert index.candidates({"tiv": 25}, None) == ["Over 10", "Over 20"] + [
        f"Over {n}.5" for n in range(1, 13)
    ]
    assert index.candidates({"tiv": 11}, None) == (
        ["Over 10"] + [f"Over {n}.5" for n in range(1, 11)] + ["Under 12"]
    )


def test_rules_that_are_the_same_knowledge_are_found_whatever_their_names_and_limits() -> None:
    index = ConditionIndex()
    index.add("k1", "Large TIV", "BOP", [_c("tiv", "gt", 5_000_000)])
    index.add("k2", "Huge TIV", "BOP", [_c("tiv", "gt", 20_000_000)])
    index.add("k3", "Large TIV GL", "GL", [_c("tiv", "gt", 5_000_000)])
    index.add("k4", "Small TIV", "BOP", [_c("tiv", "lt", 100_000)])
    shape = [_c("tiv", "gte", 1_000_000)]
    assert [e.name for e in index.same_rule("bop", shape)] == ["Large TIV", "Huge TIV"]
    # Once built, the lookup follows additions, replacements and removals.
    index.add("k5", "Big TIV", "BOP", [_c("tiv", "gt", 9_000_000)])
    index.add("k1", "Large TIV", "BOP", [_c("tiv", "lt", 50_000)])  # now another shape
    index.discard("k2")
    assert [e.name for e in index.same_rule("BOP", shape)] == ["Big TIV"]
    assert [e.name for e in index.same_rule("BOP", [_c("tiv", "lt", 1)])] == [
        "Large TIV",
        "Small TIV",
    ]
    assert [e.name for e in index.same_rule("GL", shape)] == ["Large TIV GL"]
    index.add("k6", "Many employees", "BOP", [_c("employees", "gt", 50)])  # a new shape
    assert [e.name for e in index.same_rule("BOP", [_c("employees", "gte", 9)])] == [
        "Many employees"
    ]
    assert index.same_rule("LRO", shape) == []


def test_a_removed_rule_is_no_longer_the_same_knowledge_as_anything() -> None:
    index = ConditionIndex([("A", "ALL", [_c("employees", "gt", 10)])])
    assert [e.name for e in index.same_rule("ALL", [_c("employees", "gt", 3)])] == ["A"]
    index.discard("A")
    index.add("B", "B", "ALL", [_c("employees", "gt", 50)])
    assert [e.name for e in index.same_rule("ALL", [_c("employees", "gt", 3)])] == ["B"]


def test_the_text_values_conditions_compare_with_are_listed_per_field() -> None:
    index = ConditionIndex(
        [
            ("Bakery", "ALL", [_c("occupancy", "eq", " Bakery ")]),
            ("Bars", "ALL", [_c("occupancy", "in", ["BAR", "tavern", 3, True])]),
            ("Texas", "ALL", [_c("state", "eq", "TX"), _c("employees", "gt", 5)]),
            ("Sprinklered", "ALL", [_c("sprinklered", "eq", True)]),
        ]
    )
    expected = {
        "occupancy": ["bakery", "bar", "tavern"],
        "state": ["tx"],
        "employees": [],
        "sprinklered": [],
    }
    assert index.string_values() == expected
    version = index.values_version
    # Looking up a value no condition names changes neither.
    assert index.candidates({"occupancy": "casino", "state": "NM", "employees": 2}, None) == []
    assert index.string_values() == expected
    assert index.values_version == version


def test_every_version_of_a_name_is_served_until_it_is_removed() -> None:
    first = _document("Large TIV", "refer")
    second = _document("Large TIV", "decline")
    index = ConditionIndex()
    index.add("v1", "Large TIV", "ALL", [], json.dumps(first))
    index.add("v2", "Large TIV", "ALL", [], json.dumps(second))
    assert [r.action for r in index.rules_named(["Large TIV"])["Large TIV"]] == [
        "refer",
        "decline",
    ]
    index.discard("v1")
    assert [r.action for r in index.rules_named(["Large TIV"])["Large TIV"]] == ["decline"]
    index.discard("v2")
    index.discard("v2")  # an unknown key is ignored
    assert index.rules_named(["Large TIV"]) == {"Large TIV": ()}
    assert len(index) == 0


def test_a_key_twice_in_a_snapshot_serves_the_later_document() -> None:
    data = json.dumps(
        [
            ["k", "Large TIV", "ALL", [], json.dumps(_document("Large TIV", "refer")), None, None],
            [
                "k", "Large TIV", "ALL", [], json.dumps(_document("Large TIV", "decline")), None,
                json.dumps({"versions": [{"action": "decline"}]}),
            ],
        ]
    ).encode()  # fmt: skip
    loaded = ConditionIndex.from_bytes(data)
    assert [r.action for r in loaded.rules_named(["Large TIV"])["Large TIV"]] == ["decline"]
    whole = loaded.rules[loaded.slot["k"]].whole_document()  # type: ignore[union-attr]
    assert whole is not None
    assert (whole["action"], whole["versions"]) == ("decline", [{"action": "decline"}])


def test_routes_are_served_by_name_and_survive_a_snapshot() -> None:
    index = ConditionIndex()
    index.add("a", "Hot Work", "BOP", [_c("tiv", "gt", 1)], None, (("TRIGGERS", "Welding"),))
    index.add(
        "b", "Hot Work", "GL", [_c("tiv", "gt", 2)], None,
        (("DERIVED_FROM", "Manual"), ("RESULTS_IN", "Refer")),
    )  # fmt: skip
    index.add("c", "Unread", "ALL", [_c("tiv", "gt", 3)])  # built without its route
    index.add("d", "Bare", "ALL", [_c("tiv", "gt", 4)], None, ())
    for served in (index, ConditionIndex.from_bytes(index.to_bytes())):
        routes = served.routes_named(["Hot Work", "Unread", "Bare", "Nobody"])
        assert routes == {
            "Hot Work": (
                ("TRIGGERS", "Welding"),
                ("DERIVED_FROM", "Manual"),
                ("RESULTS_IN", "Refer"),
            ),
            "Bare": (),
        }
    index.discard("a")
    assert index.routes_named(["Hot Work"])["Hot Work"] == (
        ("DERIVED_FROM", "Manual"), ("RESULTS_IN", "Refer"),
    )  # fmt: skip


def test_the_index_counts_each_change_and_no_lookup() -> None:
    index = ConditionIndex()
    assert (index.generation, index.compactions) == (0, 0)
    index.add("a", "A", "ALL", [_c("tiv", "gt", 1)])
    index.add("b", "B", "ALL", [_c("tiv", "gt", 2)])
    assert index.generation == 2
    index.candidates({"tiv": 5}, None)
    index.discard("nope")
    assert index.generation == 2
    index.discard("a")
    assert index.generation == 3


@pytest.mark.parametrize(
    ("rules", "removed_before", "compacted_at"),
    [(100, 50, 51), (64, 64, None), (65, 32, 33)],
)
def test_the_index_compacts_once_dead_slots_outnumber_live_ones_past_64(
    rules: int, removed_before: int, compacted_at: int | None
) -> None:
    index = ConditionIndex([(f"R{n}", "ALL", [_c("tiv", "gt", n)]) for n in range(rules)])
    for n in range(removed_before):
        index.discard(f"R{n}")
    assert index.compactions == 0
    if compacted_at is not None:
        index.discard(f"R{compacted_at - 1}")
        assert index.compactions == 1
    live = list(range(compacted_at or removed_before, rules))
    assert index.candidates({"tiv": rules}, None) == [f"R{n}" for n in live]
    # Filled with 200 more and emptied of them again, it compacts each time fewer than
    # half its slots (past 64) are live: 100 -> 49 + 200 slots, compacted at 124 live
    # and 61 live; 64 -> 64 + 200 slots, compacted at 131, 65 and 32 live.
    for n in range(rules, rules + 200):
        index.add(f"R{n}", f"R{n}", "ALL", [_c("tiv", "gt", n)])
    for n in range(rules, rules + 200):
        index.discard(f"R{n}")
    assert index.compactions == 3


def _document(name: str, action: str) -> dict[str, Any]:
    return {
        "rule_name": name,
        "risk_factor": "Factor",
        "risk_category": "operations",
        "product_type": "ALL",
        "action": action,
        "outcome_description": "An outcome.",
        "source": "Test",
        "source_type": "manual",
        "conditions": [],
    }


def test_routes_are_served_the_same_after_the_index_compacts() -> None:
    index = ConditionIndex()
    for n in range(100):
        index.add(f"R{n}", f"Rule {n}", "ALL", [_c("tiv", "gt", n)], None, (("TRIGGERS", f"F{n}"),))
    index.add("u", "Unread", "ALL", [_c("tiv", "gt", 1)])  # built without its route
    index.add("b", "Bare", "ALL", [_c("tiv", "gt", 2)], None, ())
    index.add("m1", "Mixed", "ALL", [_c("tiv", "gt", 3)], None, (("TRIGGERS", "Welding"),))
    index.add("m2", "Mixed", "ALL", [_c("tiv", "gt", 4)])  # one of its rules was not read
    # 104 slots: removing the 53rd rule leaves 51 live, fewer than half, and compacts.
    for n in range(52):
        index.discard(f"R{n}")
    assert index.compactions == 0
    index.discard("R52")
    assert index.compactions == 1
    names = ["Rule 52", "Rule 53", "Rule 99", "Unread", "Bare", "Mixed"]
    for served in (index, ConditionIndex.from_bytes(index.to_bytes())):
        assert served.routes_named(names) == {
            "Rule 53": (("TRIGGERS", "F53"),),
            "Rule 99": (("TRIGGERS", "F99"),),
            "Bare": (),
        }
    index.discard("m2")
    assert index.routes_named(["Mixed"]) == {"Mixed": (("TRIGGERS", "Welding"),)}
    index.add("R99", "Rule 99", "ALL", [_c("tiv", "gt", 99)], None, (("RESULTS_IN", "Decline"),))
    assert index.routes_named(["Rule 99"]) == {"Rule 99": (("RESULTS_IN", "Decline"),)}


def test_a_key_twice_in_a_snapshot_serves_the_later_route() -> None:
    data = json.dumps(
        [
            ["k", "Large TIV", "ALL", [], None, [["TRIGGERS", "Welding"]], None],
            ["k", "Large TIV", "ALL", [], None, [["RESULTS_IN", "Decline"]], None],
            ["j", "Small TIV", "ALL", [], None, [["TRIGGERS", "Welding"]], None],
            ["j", "Small TIV", "ALL", [], None, None, None],
        ]
    ).encode()
    loaded = ConditionIndex.from_bytes(data)
    assert loaded.routes_named(["Large TIV", "Small TIV"]) == {
        "Large TIV": (("RESULTS_IN", "Decline"),),
    }
    assert len(loaded) == 2


def test_a_rules_history_survives_compaction_and_a_snapshot() -> None:
    """The claims planner reads a rule's whole document: its history must not be lost."""
    index = ConditionIndex()
    for i in range(100):
        history = json.dumps({"versions": [{"action": "refer", "n": i}]})
        document = json.dumps(_document(f"Rule {i}", "refer"))
        index.add(f"k{i}", f"Rule {i}", "ALL", [_c("tiv", "gt", i)], document, (), history)
    index.add("bare", "Bare", "ALL", [_c("tiv", "gt", 500)], json.dumps(_document("Bare", "refer")))
    for i in range(60):  # most of the slots dead: the index compacts itself
        index.discard(f"k{i}")
    assert index.compactions == 1
    for served in (index, ConditionIndex.from_bytes(index.to_bytes())):
        whole = served.rules[served.slot["k77"]].whole_document()  # type: ignore[union-attr]
        assert whole is not None
        assert whole["rule_name"] == "Rule 77"
        assert whole["versions"] == [{"action": "refer", "n": 77}]
        bare = served.rules[served.slot["bare"]].whole_document()  # type: ignore[union-attr]
        assert bare is not None and "versions" not in bare
