"""Offline extraction round 45, third part: codes by example, classes pointed back at, notes.

Every field and sentence below is made up for these tests (a kelp-farm dictionary no
dataset has).
"""

from __future__ import annotations

from memory.underwriting.fieldlink.numbers import find_numbers
from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": (
            "Business class, lower case. Classes: 'kelp farm', 'mussel raft', 'seaweed dryer'"
        ),
    },
    "flood_zone": {
        "type": "str",
        "synonyms": ["flood zone", "FEMA zone"],
        "description": "FEMA flood zone of the location, upper case (e.g. X, A, AE, V, VE)",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Construction class, lower case: frame, joisted masonry, masonry",
    },
    "direct_kelp_sales": {
        "type": "bool",
        "synonyms": ["fresh kelp sales", "direct sales of kelp"],
        "description": "Fresh kelp is sold directly to the public",
    },
    "drying_rack_material": {
        "type": "str",
        "synonyms": ["rack material", "drying racks"],
        "description": "Material of the drying racks: wood, steel, aluminum, plastic",
    },
    "mast_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["mast height"],
        "description": "Height of the tallest mooring mast, in feet",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_codes_given_by_example_are_values_a_text_names() -> None:
    assert rule_triples(EXTRACTOR, "Kelp farms with a shore shed in zone VE are declined.") == [
        ("ALL", "decline", [("flood_zone", "eq", "VE"), ("occupancy", "eq", "kelp farm")])
    ]


def test_selling_is_said_by_sold_and_by_sales() -> None:
    text = (
        "Kelp farms that sell fresh kelp directly to the public take the raw seafood "
        "exclusion on their GL policy."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("GL", "exclude", [("direct_kelp_sales", "eq", True), ("occupancy", "eq", "kelp farm")])
    ]


def test_either_class_is_the_classes_the_sentence_before_named() -> None:
    text = (
        "Kelp farms and mussel rafts in zone V are declined on Property. A drying shed of "
        "frame construction at either class is referred."
    )
    assert rule_triples(EXTRACTOR, text)[1] == (
        "Property",
        "refer",
        [("construction_type", "eq", "frame"), ("occupancy", "in", ["kelp farm", "mussel raft"])],
    )


def test_a_note_s_next_label_opens_a_sentence_in_lower_case() -> None:
    text = "- wood racks: refer, dried or not. steel, aluminum: no issue."
    assert rule_triples(EXTRACTOR, text, "sme") == [
        ("ALL", "refer", [("drying_rack_material", "eq", "wood")])
    ]


def test_a_foot_mark_is_feet() -> None:
    assert [(n.value, n.unit) for n in find_numbers("200' is the book number")] == [(200.0, "ft")]
    assert rule_triples(EXTRACTOR, "A mast height over 60' is referred.") == [
        ("ALL", "refer", [("mast_height_ft", "gt", 60)])
    ]
