"""The offline extractor reads rules on fields no dataset has, from the dictionary alone.

Every field below is invented for these tests: the extractor must place numbers, units,
actions and directions with what the data dictionary says (names, synonyms, units,
descriptions, scales), never with wording learned from a particular dataset.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.stems import stem
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'bakery', 'arena')",
    },
    "hydrant_distance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["hydrant distance", "distance to a hydrant"],
        "description": "Road distance from the building to the nearest fire hydrant",
    },
    "tower_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["tower height", "mast height"],
        "description": "Height of the tallest antenna tower on the premises",
    },
    "ember_station_distance_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["distance to the ember station"],
        "description": "Road miles to the nearest ember-watch station",
    },
    "delivery_revenue_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["delivery revenue", "delivery sales"],
        "description": "Share of revenue from deliveries, in percent",
    },
    "kiln_count": {
        "type": "int",
        "unit": "kilns",
        "synonyms": ["kilns", "number of kilns"],
        "description": "Number of firing kilns on site",
    },
    "crowd_score": {
        "type": "int",
        "unit": "score",
        "synonyms": ["crowd score", "crowd risk score"],
        "description": "Vendor crowd-crush model score, 0 (calm) to 100 (severe)",
    },
    "noise_score": {
        "type": "int",
        "unit": "score",
        "synonyms": ["noise score"],
        "description": "Neighbour noise complaint score, 1 (quiet) to 10 (loud)",
    },
    "venue_count": {
        "type": "int",
        "unit": "venues",
        "synonyms": ["venues", "number of venues"],
        "description": "Number of venues on the schedule",
    },
    "drone_fleet": {
        "type": "bool",
        "synonyms": ["drone fleet", "drones"],
        "description": "The insured operates drones",
    },
    "pilots_certified": {
        "type": "bool",
        "synonyms": ["certified drone pilots", "pilots are certified"],
        "description": "Every drone pilot holds a current certificate",
    },
    "kiln_certificate": {
        "type": "bool",
        "synonyms": ["kiln inspection certificate"],
        "description": "A current kiln inspection certificate is on file",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(extractor: OfflineExtractor, text: str) -> list[tuple[str, set[tuple]]]:
    rules: list[ExtractedRule] = extractor.extract(text, source_type="manual")
    return [(r.action, {(c.field, c.operator, c.value) for c in r.conditions}) for r in rules]


def test_stem_folds_a_final_silent_e() -> None:
    assert stem("score") == stem("scored") == stem("scoring") == stem("scores")
    assert stem("decline") == stem("declined")
    assert stem("type") == "type"


def test_farther_than_reads_as_above(extractor: OfflineExtractor) -> None:
    text = "Where the nearest hydrant is farther than 1,000 feet, refer the submission."
    assert _rules(extractor, text) == [("refer", {("hydrant_distance_ft", "gt", 1000)})]


def test_accepted_range_inverts_to_the_rule(extractor: OfflineExtractor) -> None:
    text = "A hydrant at least 500 feet away is acceptable; anything closer is declined."
    assert _rules(extractor, text) == [("decline", {("hydrant_distance_ft", "lt", 500)})]
    text = "Hydrants within 600 feet are acceptable. Otherwise refer the risk."
    assert _rules(extractor, text) == [("refer", {("hydrant_distance_ft", "gte", 600)})]


def test_acceptance_alone_is_no_rule(extractor: OfflineExtractor) -> None:
    assert _rules(extractor, "A hydrant within 600 feet is acceptable.") == []


def test_exclusion_carried_reads_as_exclude(extractor: OfflineExtractor) -> None:
    text = "Accounts whose delivery revenue exceeds 30 percent carry the delivery exclusion."
    assert _rules(extractor, text) == [("exclude", {("delivery_revenue_pct", "gt", 30)})]


def test_written_subject_to_a_warranty_is_a_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    text = "Bakeries with more than two kilns are written subject to the kiln warranty."
    [(action, conditions)] = _rules(extractor, text)
    assert action == "approve_with_conditions"
    assert ("kiln_count", "gt", 2) in conditions


def test_proviso_becomes_the_approvals_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "Risks with more than 4 kilns may be written provided that a kiln inspection "
        "certificate is on file."
    )
    [rule] = extractor.extract(text)
    assert rule.action == "approve_with_conditions"
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [("kiln_count", "gt", 4)]
    assert rule.mitigant_fields == ["kiln_certificate"]


def test_unit_word_and_description_scale_place_the_number(
    extractor: OfflineExtractor,
) -> None:
    # "scoring" names a field whose unit is "score"; 80 is outside the 1-10 noise scale.
    text = (
        "Every venue is scored with the crowd model at intake. "
        "A venue scoring above 80 is declined."
    )
    assert _rules(extractor, text) == [("decline", {("crowd_score", "gt", 80)})]


def test_suspension_reads_as_decline(extractor: OfflineExtractor) -> None:
    text = "New business is suspended for venues with a crowd score of 90 or higher."
    assert _rules(extractor, text) == [("decline", {("crowd_score", "gte", 90)})]


def test_report_before_binding_reads_as_verify(extractor: OfflineExtractor) -> None:
    text = "Where the tower height exceeds 150 feet, request an engineer's report before binding."
    assert _rules(extractor, text) == [("verify", {("tower_height_ft", "gt", 150)})]


def test_a_fence_height_is_no_road_distance(extractor: OfflineExtractor) -> None:
    text = "Pools fenced no less than four feet high may be written."
    assert all(
        c[0] != "ember_station_distance_miles"
        for _, conds in _rules(extractor, text)
        for c in conds
    )


def test_unknown_unit_word_needs_naming_words(extractor: OfflineExtractor) -> None:
    # No field counts seats: the number is not placed on a scored field by default.
    text = "Arenas with more than 100 seats are referred."
    for _, conditions in _rules(extractor, text):
        assert all(c[0] not in {"crowd_score", "kiln_count", "venue_count"} for c in conditions)


def test_conditional_approval_of_the_same_subject_is_a_mitigant(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Risks with a drone fleet are referred to the aviation desk. Where the pilots are "
        "certified, the desk may write the risk subject to the aviation endorsement."
    )
    [rule] = extractor.extract(text)
    assert rule.action == "refer"
    assert ("drone_fleet", "eq", True) in {(c.field, c.operator, c.value) for c in rule.conditions}
    assert rule.mitigant_fields == ["pilots_certified"]


def test_parenthesised_history_does_not_block_the_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Buildings more than 1,000 feet from a fire hydrant are now declined "
        "(previously they were referred above 600 feet)."
    )
    assert _rules(extractor, text) == [("decline", {("hydrant_distance_ft", "gt", 1000)})]
