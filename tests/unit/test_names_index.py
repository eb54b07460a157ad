"""The entity-name index entity matching reads: kept as entities come, change and go."""

from __future__ import annotations

from memory.graph.names import NAMES, NameIndex, canonical_name


def test_names_follow_puts_renames_and_drops() -> None:
    index = NameIndex()
    index.put("u1", "Rule", "k1", "Gas Stations Referral", "t1")
    index.put("u2", "RiskFactor", "k2", "Gas Station", None)
    rules = index.label("Rule")
    assert rules.by_key == {"k1": "Gas Stations Referral"}
    assert rules.by_canonical == {canonical_name("gas station referral"): "Gas Stations Referral"}
    assert rules.text_of == {"Gas Stations Referral": "t1"}
    # A node renamed in place (same uuid) leaves no trace of its old name.
    index.put("u1", "Rule", "k9", "Fuel Pump Referral", "t2")
    assert index.label("Rule").by_key == {"k9": "Fuel Pump Referral"}
    assert "Gas Stations Referral" not in index.label("Rule").by_canonical.values()
    index.drop("u2")
    assert index.label("RiskFactor").by_key == {}
    # A copy is the caller's to add to; the index is untouched.
    mine = index.label("Rule").copy()
    mine.by_key["new"] = "New"
    assert "new" not in index.label("Rule").by_key


def test_a_snapshot_loads_the_same_names() -> None:
    index = NameIndex()
    index.put("u1", "Rule", "k1", "Roof Age Decline", "t1")
    index.put("u2", "Source", "k2", "Property Manual", None)
    loaded = NAMES.load(NAMES.dump(index))
    assert loaded.entries == index.entries
    assert loaded.label("Source").by_key == {"k2": "Property Manual"}
