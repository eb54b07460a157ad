"""Offline extraction round 45, fifth part: a heading's product and a tenant's class.

Every field and sentence below is made up for these tests (a pier-and-carousel dictionary
no dataset has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "tenant class"],
        "description": "Business class of the insured or, on LRO, of the tenant (lower case)",
    },
    "pier_deck_clearance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["deck clearance"],
        "description": "Height of the pier deck above high water, in feet",
    },
    "tiv_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["TIV", "total insured value"],
        "description": "Total insured value in USD",
    },
    "tenant_certificate_held": {
        "type": "bool",
        "synonyms": ["tenant liability certificate", "tenant certificate naming the owner"],
        "description": "Tenant's liability certificate names the building owner",
    },
    "carousel_rides_per_day": {
        "type": "int",
        "unit": "rides",
        "synonyms": ["rides a day"],
        "description": "Most carousel rides run in one day",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_numbered_heading_s_product_places_the_rules_after_it() -> None:
    text = (
        "1. Property - pier sheds. Piers with less than 6 ft of deck clearance are declined "
        "from this date. 2. General Liability - carousels. The review point stays at ninety "
        "rides a day, but accounts above it are now declined."
    )
    assert [(p, a) for p, a, _ in rule_triples(EXTRACTOR, text, "compliance")] == [
        ("Property", "decline"),
        ("GL", "decline"),
    ]


def test_a_building_with_a_class_among_its_tenants_is_that_class_s_rule() -> None:
    text = (
        "A lessor's-risk-only building with a candle-pouring studio among its tenants is "
        "referred to the LRO senior underwriter."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("LRO", "refer", [("occupancy", "eq", "candle-pouring studio")])
    ]


def test_what_turns_a_referral_into_a_yes_is_a_protection_and_no_class() -> None:
    text = (
        "What turns that referral into an easy yes is the tenant liability certificate - at "
        "least a million per occurrence - naming our landlord."
    )
    rules = EXTRACTOR.extract(text, source_type="sme")
    assert [(r.action, r.conditions, r.mitigant_fields) for r in rules] == [
        ("approve_with_conditions", [], ["tenant_certificate_held"])
    ]
