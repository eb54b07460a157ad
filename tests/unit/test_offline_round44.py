"""Offline extraction round 44: terse notes' maxima and credentials said to have ended.

Every field and sentence below is made up for these tests (a fireworks-retail dictionary
no dataset has).
"""

from __future__ import annotations

from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import BASE_FIELDS, extractor_over, practice_claims, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'fireworks stand', 'pyrotechnic shop')",
    },
    "powder_stored_lbs": {
        "type": "float",
        "unit": "lbs",
        "synonyms": ["powder on hand", "black powder stored"],
        "description": "Pounds of black powder stored on the premises",
    },
    "seller_permit_active": {
        "type": "bool",
        "synonyms": ["seller permit", "fireworks permit"],
        "description": "The state fireworks seller permit is active",
    },
    "registration_lapsed": {
        "type": "bool",
        "synonyms": ["lapsed registration", "administratively dissolved"],
        "description": "The business registration is lapsed or dissolved",
    },
    "heated_racks_used": {
        "type": "bool",
        "synonyms": ["heated drying racks", "heated rack"],
        "description": "The shop dries product on heated racks",
    },
    "rack_cutout_timer": {
        "type": "bool",
        "synonyms": ["cut-out timer", "automatic cut-out"],
        "description": "Every heated rack has an automatic cut-out timer",
    },
    "protected_species_stock": {
        "type": "bool",
        "synonyms": ["protected wildlife", "CITES material"],
        "description": "The shop sells protected wildlife or CITES-listed material",
    },
    "import_papers_verified": {
        "type": "bool",
        "synonyms": ["import papers verified"],
        "description": "The import papers of the stock have been verified",
    },
    "shop_photo_dated": {
        "type": "bool",
        "synonyms": ["dated shop photo"],
        "description": "The agent supplied a dated photo of the shop",
    },
    "address_drift_ft": {
        "type": "int",
        "unit": "ft",
        "synonyms": ["geocoded point drift"],
        "description": "Distance between the geocoded point and the named parcel, in feet",
    },
    "magazine_alarm": {
        "type": "bool",
        "synonyms": ["magazine alarm"],
        "description": "The powder magazine has an intrusion alarm",
    },
    "vent_fans_sensor_started": {
        "type": "bool",
        "synonyms": ["vent fans triggered by a gas sensor"],
        "description": "Vent fans start automatically on a gas sensor",
    },
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business"],
        "description": "Years the business has operated",
    },
    "years_licensed": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years licensed", "years holding a seller permit"],
        "description": "Years the shop has held its seller permit",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "built"],
        "description": "Year the building was constructed",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklers", "sprinkler system"],
        "description": "The building is fully sprinklered",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_note_s_bare_maximum_that_practice_bends_is_a_soft_referral() -> None:
    text = (
        "Pyrotechnic shops, BOP - call notes\n"
        "- powder on hand: book says 50 lbs max. have gone to 65 for shops with a magazine. "
        "never past 65"
    )
    rules = EXTRACTOR.extract(text, source_type="sme")
    assert [(r.action, r.soft_limit) for r in rules] == [("refer", 65)]
    assert [(c.field, c.operator, c.value) for c in rules[0].conditions] == [
        ("powder_stored_lbs", "gt", 50)
    ]


def test_a_figure_labelled_max_is_the_most_allowed() -> None:
    for said in ("powder on hand: max 50 lbs -> refer", "powder on hand: 50 lbs max -> refer"):
        assert rule_triples(EXTRACTOR, f"Notes:\n- {said}", "sme") == [
            ("ALL", "refer", [("powder_stored_lbs", "gt", 50)])
        ], said


def test_a_lower_case_note_sentence_is_not_a_condition_of_the_one_before() -> None:
    rules = EXTRACTOR.extract(
        "Notes:\n- powder on hand over 50 lbs -> refer. never past 65", source_type="sme"
    )
    assert [[(c.field, c.operator, c.value) for c in r.conditions] for r in rules] == [
        [("powder_stored_lbs", "gt", 50)]
    ]


def test_an_ended_credential_named_by_its_head_noun_is_the_requirement_missing() -> None:
    text = (
        "Bulletin FW-3. Every fireworks stand must hold an active seller permit. An expired, "
        "suspended or revoked permit is a decline on every product."
    )
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        (
            "ALL",
            "decline",
            [("occupancy", "eq", "fireworks stand"), ("seller_permit_active", "eq", False)],
        )
    ]


def test_an_ended_word_before_a_flag_denies_it_unless_the_flag_names_the_ending() -> None:
    assert rule_triples(EXTRACTOR, "A suspended seller permit is declined.") == [
        ("ALL", "decline", [("seller_permit_active", "eq", False)])
    ]
    text = "If the state filing is revoked or administratively dissolved, verify."
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "verify", [("registration_lapsed", "eq", True)])
    ]


def test_a_decline_reconsidered_by_referral_where_protected_is_mitigated_by_the_protection() -> (
    None
):
    rules = EXTRACTOR.extract(
        "A shop that uses heated drying racks is declined. The declination may be "
        "reconsidered by referral where every heated rack is fitted with an automatic "
        "cut-out timer.",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("decline", ["rack_cutout_timer"])]
    assert [(c.field, c.value) for c in rules[0].conditions] == [("heated_racks_used", True)]


def test_the_classes_a_desk_writes_are_named_without_its_verb() -> None:
    rules = EXTRACTOR.extract(
        "On General Liability the desk writes rocket hobbyists and model makers whose "
        "powder on hand tops out at 50 lbs. Anything more than that is referred.",
        source_type="manual",
    )
    classes = [c.value for r in rules for c in r.conditions if c.field == "occupancy"]
    assert classes == [["rocket hobbyist", "model maker"]]


def test_practice_past_a_limit_named_by_its_figure_makes_it_soft() -> None:
    def text(body: str, kind: str, tid: str, date: str) -> KnowledgeText:
        return KnowledgeText(id=tid, text=body, source="Desk", source_type=kind, date=date)  # type: ignore[arg-type]

    claims = practice_claims(
        EXTRACTOR,
        DataDictionary.model_validate({"fields": FIELDS}),
        text("Property: powder on hand over 50 lbs is referred.", "manual", "k1", "2024-01-02"),
        text(
            "The 50-lb line came out of one bad storeroom fire. In practice I have gone as "
            "high as 65 lbs for shops with a steel magazine.",
            "sme",
            "k2",
            "2024-06-01",
        ),
    )
    assert [(c.text_id, c.action, c.soft_limit) for c in claims] == [
        ("k1", "refer", None),
        ("k2", "refer", 65),
    ]


def test_protected_wildlife_is_a_hazard_of_the_stock_not_a_protection() -> None:
    rules = EXTRACTOR.extract(
        "On any product, a pyrotechnic shop that sells protected wildlife must have its "
        "import papers verified.",
        source_type="training",
    )
    assert [(c.field, c.value) for r in rules for c in r.conditions] == [
        ("occupancy", "pyrotechnic shop"),
        ("protected_species_stock", True),
    ]


def test_an_answer_that_has_gone_past_the_limit_says_how_far() -> None:
    text = (
        "Q: Is there a powder limit? A: Anything over 50 lbs of powder on hand is referred.\n"
        "Q: Do you ever go over fifty? A: I have, up to sixty-five, for shops with a magazine."
    )
    assert [r.soft_limit for r in EXTRACTOR.extract(text, source_type="sme")] == [65]


def test_what_resolves_the_check_in_its_own_sentence_is_its_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "When the geocoded point drift is more than 500 feet, verify the location; a dated "
        "shop photo resolves it.",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("verify", ["shop_photo_dated"])]


def test_a_flag_said_the_other_way_round_with_un_is_denied() -> None:
    assert rule_triples(EXTRACTOR, "An unalarmed magazine at a fireworks stand is referred.") == [
        ("ALL", "refer", [("magazine_alarm", "eq", False), ("occupancy", "eq", "fireworks stand")])
    ]


def test_a_log_s_remedy_of_a_missing_protection_is_no_mitigant_of_its_rule() -> None:
    text = (
        "Case file CF-9 - fireworks stand.\n"
        "- 2024-02-06: Over 50 lbs of powder on hand is referred unless the building has "
        "sprinklers. Referred.\n"
        "- 2024-02-09: Per the guide, a magazine without a magazine alarm is a referral.\n"
        "- 2024-03-04: Insured installed a magazine alarm and sprinklers; re-quoted. Bound."
    )
    rules = EXTRACTOR.extract(text, source_type="production")
    assert [(r.action, r.mitigant_fields) for r in rules] == [
        ("refer", ["sprinklered"]),
        ("refer", []),
    ]
    assert [(c.field, c.value) for c in rules[1].conditions] == [("magazine_alarm", False)]


def test_clearing_it_after_a_referral_clears_the_referral() -> None:
    rules = EXTRACTOR.extract(
        "A fireworks stand with more than 50 lbs of powder on hand is a referral. Powder "
        "burns hot. If the vent fans are triggered by a gas sensor, I clear it and we write "
        "it with a monitoring condition.",
        source_type="sme",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [
        ("refer", ["vent_fans_sensor_started"])
    ]


def test_a_report_needed_before_we_quote_is_a_verification() -> None:
    said = (
        "On LRO, a building built before 1975 needs an engineer's report on the roof trusses "
        "before we quote."
    )
    assert rule_triples(EXTRACTOR, said, "sme") == [("LRO", "verify", [("year_built", "lt", 1975)])]


def test_a_note_s_next_sentence_that_okays_the_risk_names_its_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "Notes:\n- pyrotechnic shops with powder on hand over 50 lbs -> refer (GL). vent fans "
        "triggered by a gas sensor -> ok, write w/ conditions.",
        source_type="sme",
    )
    assert [(r.product_type, r.action, r.mitigant_fields) for r in rules] == [
        ("GL", "refer", ["vent_fans_sensor_started"])
    ]


def test_a_note_s_biz_is_business() -> None:
    assert rule_triples(EXTRACTOR, "Notes:\n- < 3 yrs in biz -> refer.", "sme") == [
        ("ALL", "refer", [("years_in_business", "lt", 3)])
    ]
