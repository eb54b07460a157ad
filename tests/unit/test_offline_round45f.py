"""Offline extraction round 45, sixth part: ceilings in a table, waivers a subject grants.

Every field and sentence below is made up for these tests (a tannery dictionary no dataset
has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case. Classes: 'bark tannery', 'glue works'",
    },
    "tan_pit_capacity_gal": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["tan pit capacity"],
        "description": "Combined capacity of the tanning pits, in gallons",
    },
    "tiv_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["TIV", "total insured value"],
        "description": "Total insured value in USD",
    },
    "discharge_consent_held": {
        "type": "bool",
        "synonyms": ["discharge consent", "effluent consent"],
        "description": "A current effluent discharge consent from the river board is on file",
    },
    "hide_safe_fitted": {
        "type": "bool",
        "synonyms": ["hide safe", "locked hide store"],
        "description": "Finished hides are locked in a fire-rated hide safe overnight",
    },
    "quicklime_stored_lbs": {
        "type": "float",
        "unit": "lbs",
        "synonyms": ["quicklime on premises"],
        "description": "Pounds of quicklime stored on premises",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_table_s_column_above_the_ceiling_makes_each_figure_a_limit() -> None:
    text = (
        "| Class | TIV ceiling | Above the ceiling |\n| --- | --- | --- |\n"
        "| Bark tannery | $4M | Refer to a senior property underwriter |\n"
        "| Glue works | $1.5M | Decline |"
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("occupancy", "eq", "bark tannery"), ("tiv_usd", "gt", 4000000)]),
        ("ALL", "decline", [("occupancy", "eq", "glue works"), ("tiv_usd", "gt", 1500000)]),
    ]


def test_what_lets_the_underwriter_waive_the_review_is_its_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "Tan pits holding two thousand gallons or more are referred for environmental "
        "review; a current discharge consent on file lets the underwriter waive the review "
        "and write the risk with the effluent condition.",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("refer", ["discharge_consent_held"])]


def test_holding_more_than_the_figure_just_said_is_past_it() -> None:
    text = (
        "Quicklime is kept to no more than 500 lb on premises. A bark tannery holding more "
        "is declined."
    )
    assert rule_triples(EXTRACTOR, text) == [
        (
            "ALL",
            "decline",
            [("occupancy", "eq", "bark tannery"), ("quicklime_stored_lbs", "gt", 500)],
        )
    ]


def test_without_one_in_a_clause_of_its_own_is_the_flag_named_before() -> None:
    text = (
        "Bark tanneries must lock finished hides in a fire-rated hide safe overnight; refer "
        "any bark tannery without one."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("hide_safe_fitted", "eq", False), ("occupancy", "eq", "bark tannery")])
    ]
