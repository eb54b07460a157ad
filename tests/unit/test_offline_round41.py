"""Offline extraction round 41: action tables that set no figure, waivers of every rule a
table lists, terse comparison signs, ranges and figures practice approved, hedged
outcomes, roman grades and gaps "or worse".

Every field and sentence below is made up for these tests (a canyoning-outfitter and
candle-workshop dictionary no dataset has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'candle workshop', 'soap workshop', "
        "'canyoning outfitter')",
    },
    "paraffin_on_hand_lbs": {
        "type": "float",
        "unit": "lbs",
        "synonyms": ["paraffin on hand", "wax stock"],
        "description": "Paraffin wax kept on the premises, in pounds",
    },
    "lye_on_hand_lbs": {
        "type": "float",
        "unit": "lbs",
        "synonyms": ["lye on hand", "caustic soda stock"],
        "description": "Sodium hydroxide kept on the premises, in pounds",
    },
    "metal_wax_cabinet": {
        "type": "bool",
        "synonyms": ["metal wax cabinet", "listed flammables cabinet"],
        "description": "All wax and fragrance oil is kept in a listed metal cabinet",
    },
    "canyon_grade": {
        "type": "int",
        "unit": "grade",
        "synonyms": ["canyon grade", "technical grade"],
        "description": "Hardest technical grade of canyon run (I-VI, as 1-6)",
    },
    "clients_per_guide": {
        "type": "float",
        "unit": "clients",
        "synonyms": ["clients per guide", "guide ratio"],
        "description": "Clients per guide on the busiest trip",
    },
    "years_in_business": {
        "type": "float",
        "unit": "years",
        "synonyms": ["years open", "years in business"],
        "description": "Years the business has traded",
    },
    "wax_fire_rating": {
        "type": "int",
        "unit": "rating",
        "synonyms": ["wax fire rating", "fire rating"],
        "description": "Fire rating of the wax room, 1 (low) to 5 (extreme)",
    },
    "unattended_pour_minutes": {
        "type": "int",
        "unit": "minutes",
        "synonyms": ["unattended pour", "pour without an attendant"],
        "description": "Longest wax pour left without an attendant, in minutes",
    },
    "price_departure_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["price departure", "under the filed price"],
        "description": "Quoted price against the filed price, in percent (-20 = 20% under)",
    },
}
EXTRACTOR = extractor_over(FIELDS)

TABLE = (
    "Appendix W - Workshop stock (Property).\n\n"
    "| Class | Material | Referral when on hand exceeds | Decline when on hand exceeds |\n"
    "| --- | --- | --- | --- |\n"
    "| candle workshop | paraffin wax | 400 lb | 2,000 lb |\n"
    "| soap workshop | lye (caustic soda) | 50 lb | none set |\n\n"
    "A referral in this table (not a decline) is cleared when all of the stock is kept in a "
    "listed metal wax cabinet; bind with the cabinet warranty."
)


def test_an_action_column_that_sets_no_figure_makes_no_rule() -> None:
    actions = [(a, [c[0] for c in conds]) for _, a, conds in rule_triples(EXTRACTOR, TABLE)]
    assert ("decline", ["lye_on_hand_lbs", "occupancy"]) not in actions
    assert ("decline", ["occupancy"]) not in actions
    assert ("refer", ["lye_on_hand_lbs", "occupancy"]) in actions


def test_a_waiver_of_a_referral_in_this_table_lifts_every_referral() -> None:
    rules = EXTRACTOR.extract(TABLE, source="Workshop Manual", source_type="manual")
    assert {r.action: r.mitigant_fields for r in rules if r.action == "refer"} == {
        "refer": ["metal_wax_cabinet"]
    }
    assert [r.mitigant_fields for r in rules if r.action == "refer"] == [["metal_wax_cabinet"]] * 2
    assert all(r.mitigant_fields == [] for r in rules if r.action == "decline")


def test_terse_comparison_signs() -> None:
    assert rule_triples(EXTRACTOR, "canyoning outfitter open < 2 yrs -> refer (GL).", "sme") == [
        (
            "GL",
            "refer",
            [("occupancy", "eq", "canyoning outfitter"), ("years_in_business", "lt", 2)],
        )
    ]
    assert rule_triples(EXTRACTOR, "guide ratio >= 9 clients -> decline.", "sme") == [
        ("ALL", "decline", [("clients_per_guide", "gte", 9)])
    ]


def test_practice_signed_off_between_two_figures_reaches_the_far_one() -> None:
    text = (
        "Our guideline is that more than 400 lb of paraffin on hand is referred. In reality "
        "I've signed off on a good number between 400 and 550 when the wax is in a cabinet."
    )
    [rule] = EXTRACTOR.extract(text, source="SME notes", source_type="sme")
    assert rule.soft_limit == 550


def test_figures_approved_with_what_they_count_are_practices_reach() -> None:
    text = (
        "More than eight clients per guide comes to me as a referral. I've approved nine "
        "and ten clients per guide plenty of times for outfits with long records."
    )
    [rule] = EXTRACTOR.extract(text, source="SME notes", source_type="sme")
    assert rule.soft_limit == 10
    counted = "More than eight clients per guide is referred. I've approved two this year."
    [rule] = EXTRACTOR.extract(counted, source="SME notes", source_type="sme")
    assert rule.soft_limit is None


def test_the_end_of_practice_said_with_a_usual_outcome_is_no_second_rule() -> None:
    text = (
        "More than 400 lb of paraffin on hand is referred. I've signed off on a good number "
        "between 400 and 550. Anything north of 550, I refer every time and usually decline."
    )
    rules = EXTRACTOR.extract(text, source="SME notes", source_type="sme")
    assert [(r.action, r.soft_limit) for r in rules] == [("refer", 550)]


def test_a_roman_grade_compared_reads_as_its_number() -> None:
    text = "An outfitter in Utah that runs grade IV canyons or harder is referred."
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("canyon_grade", "gte", 4), ("state", "eq", "UT")])
    ]
    named = "Canyoning outfitters are referred; Class IV rescue kits are standard."
    assert all(c[0] != "canyon_grade" for t in rule_triples(EXTRACTOR, named) for c in t[2])


def test_practice_read_as_soft_or_treated_as_acceptable() -> None:
    soft = (
        "Guide: more than 400 lb of paraffin on hand is referred. Reading: the paraffin line "
        "is soft in practice, up to about 600 lb."
    )
    treating = (
        "Guide: more than 400 lb of paraffin on hand is referred. Underwriters are treating "
        "stocks up to about 500 lb as acceptable with a cabinet."
    )
    for text, reach in ((soft, 600), (treating, 500)):
        [rule] = EXTRACTOR.extract(text, source="Decision log", source_type="production")
        assert rule.soft_limit == reach


def test_a_gap_under_a_reference_or_worse() -> None:
    text = (
        "A quote more than 15% under the filed price is referred; at 30 percent under or "
        "worse it is declined."
    )
    assert rule_triples(EXTRACTOR, text, "training") == [
        ("ALL", "refer", [("price_departure_pct", "lt", -15)]),
        ("ALL", "decline", [("price_departure_pct", "lte", -30)]),
    ]


def test_any_risk_allowing_a_longer_one_is_past_the_limit_said() -> None:
    text = (
        "Pours run without an attendant are limited to twenty minutes, and any workshop "
        "allowing a longer unattended pour is referred."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("unattended_pour_minutes", "gt", 20)])
    ]


def test_a_step_of_a_rating_scale_named_as_rated() -> None:
    text = (
        "The wax fire rating runs from 1 (low) to 5 (extreme). A workshop rated 5 is a "
        "decline. A rating of 4 is referred."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "decline", [("wax_fire_rating", "eq", 5)]),
        ("ALL", "refer", [("wax_fire_rating", "eq", 4)]),
    ]


def test_another_products_figure_told_as_not_governed_here_gives_no_product() -> None:
    text = (
        "A candle workshop holding more than 400 lb of paraffin on hand is referred. (For "
        "orientation only: the BOP program holds gift shops to 100 lb. That is a BOP "
        "eligibility question and is not governed by this manual.)"
    )
    rules = EXTRACTOR.extract(text, source="Property Workshop Manual", source_type="manual")
    assert [(r.product_type, r.action) for r in rules] == [("Property", "refer")]


def test_may_be_written_with_no_more_than_is_an_allowance() -> None:
    text = (
        "A candle workshop may be written with no more than 400 lb of paraffin on hand; over "
        "400 is referred."
    )
    assert [t[1:] for t in rule_triples(EXTRACTOR, text)] == [
        ("refer", [("occupancy", "eq", "candle workshop"), ("paraffin_on_hand_lbs", "gt", 400)])
    ]  # (the referral past the workshop's allowance is the workshop's: round 43c)
