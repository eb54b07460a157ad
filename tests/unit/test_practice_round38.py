"""Practice round 38: the furthest of a run of approved figures an interview tells ("three at
around twelve hundred and one at thirteen hundred"), a case measured at "a high point of"
a figure (no limit cited), a count said per period ("two walk-rounds a year") that is
no year of anything, a rule "on paper ... or nothing" that practice still bent, and a log
of numbered cases whose cases name different products.

Every field and sentence below is made up for these tests (a hill-fort trekking and
mill-house dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'hill trek', 'mill house')",
    },
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business", "years trading"],
        "description": "Whole years the business has operated",
    },
    "diesel_stored_gal": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["diesel stored", "fuel on site"],
        "description": "Diesel stored on site, in gallons",
    },
    "route_summit_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["summit height", "highest point of the route"],
        "description": "Highest point the route climbs to, in feet",
    },
    "certified_leaders_only": {
        "type": "bool",
        "synonyms": ["certified leaders only", "every leader certified"],
        "description": "Every trek leader holds a mountain leader certificate",
    },
    "mill_inspections_per_year": {
        "type": "int",
        "unit": "inspections per year",
        "synonyms": ["mill inspections", "walk-rounds"],
        "description": "Owner walk-round inspections of the mill each year",
    },
    "generator_fuel_hours": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["generator fuel", "hours of standby fuel"],
        "description": "Hours the standby generator can run on the fuel held",
    },
    "second_generator": {
        "type": "bool",
        "synonyms": ["second generator", "backup generator on site"],
        "description": "A second generator stands by on site",
    },
    "resident_miller": {
        "type": "bool",
        "synonyms": ["resident miller", "miller living on site"],
        "description": "A miller lives on site",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)
MANUAL = KnowledgeText(
    id="m1",
    text="Where more than a thousand gallons of diesel are stored, refer the Property. Where "
    "a trek's summit height is higher than 9,000 ft, refer the GL. A mill house with fewer "
    "than four mill inspections a year is referred on the Property. Businesses with under "
    "two years in business are referred. A trek base with less than forty-eight hours of "
    "generator fuel is declined.",
    source="Doc m1",
    source_type="manual",
    date="2024-01-10",
)


def _soft(*texts: KnowledgeText) -> list[tuple[str, float | None, list[str]]]:
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, *texts)
    return sorted(
        (c.conditions[-1].field, c.soft_limit, c.mitigant_fields)
        for c in claims
        if c.text_id == texts[-1].id
    )


def test_the_furthest_figure_of_a_run_of_approvals_is_practices_reach() -> None:
    sme = KnowledgeText(
        id="s1",
        text="The thousand-gallon diesel line is a trigger, not a wall. I have written three at "
        "around twelve hundred and one at thirteen hundred gallons, and they were approved.",
        source="Doc s1",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("diesel_stored_gal", 1300.0, [])]


def test_a_case_at_a_high_point_of_a_figure_reaches_past_the_limit() -> None:
    sme = KnowledgeText(
        id="s2",
        text="The nine-thousand-foot line catches a lot of treks. I have approved itineraries "
        "with a high point of 9,600 ft, and every one of them had certified leaders only.",
        source="Doc s2",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("route_summit_ft", 9600.0, ["certified_leaders_only"])]


def test_a_count_per_year_is_no_year_of_trading() -> None:
    sme = KnowledgeText(
        id="s3",
        text="Quarterly mill inspections are the standard. Where there is a resident miller, "
        "though, I have accepted owners who only do two formal walk-rounds a year.",
        source="Doc s3",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("mill_inspections_per_year", 2.0, ["resident_miller"])]


def test_on_paper_or_nothing_is_no_refusal_of_the_cases_told() -> None:
    sme = KnowledgeText(
        id="s4",
        text="On paper it is forty-eight hours of generator fuel or nothing. In practice I have "
        "bound two trek bases whose tanks held thirty hours, because each had a second "
        "generator on site.",
        source="Doc s4",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("generator_fuel_hours", 30.0, ["second_generator"])]


def test_a_case_naming_no_product_in_a_log_of_cases_may_be_any_products() -> None:
    log = KnowledgeText(
        id="p1",
        text="Case PR-25-2210: mill house holding 1,150 gallons of diesel stored in an outdoor "
        "tank; referred under the 1,000-gallon line and approved with conditions. Case "
        "LR-25-1984: LRO building let to a trek base; referred, and the referral underwriter "
        "declined to quote.",
        source="Doc p1",
        source_type="production",
        date="2024-05-01",
    )
    assert ("diesel_stored_gal", 1150.0, []) in _soft(log)
