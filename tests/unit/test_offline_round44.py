"""Offline extraction round 44: terse notes' maxima and credentials said to have ended.

Every field and sentence below is made up for these tests (a fireworks-retail dictionary
no dataset has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over, rule_triples

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
