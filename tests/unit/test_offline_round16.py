"""Round 16: polarity of flags said by a negation, requirements read back, more cue words.

Every field and sentence below is made up for these tests (a dog-grooming / boat-storage
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary
from tests.rules import condition_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": (
            "Class of business, lower case (e.g. 'dog groomer', 'boat storage yard', "
            "'kennel', 'pet bakery', 'aquarium store', 'horse stable', 'bird shop', "
            "'reptile dealer')"
        ),
    },
    "pets_left_unattended": {
        "type": "bool",
        "synonyms": ["pets left alone", "dogs without a handler"],
        "description": "Pets are left in the salon without a handler present",
    },
    "groomer_certified": {
        "type": "bool",
        "synonyms": ["groomer certification", "certified groomer"],
        "description": "Every groomer holds a grooming certification",
    },
    "bite_protocol_training": {
        "type": "bool",
        "synonyms": ["bite protocol training", "bite handling course"],
        "description": "Staff have documented bite-handling training",
    },
    "hull_count": {
        "type": "int",
        "unit": "boats",
        "synonyms": ["boats stored", "hulls"],
        "description": "Boats stored on the premises",
    },
    "shrink_wrap_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["shrink-wrapped share", "wrapped boats"],
        "description": "Share of stored boats that are shrink-wrapped, in percent",
    },
    "heating_source": {
        "type": "str",
        "synonyms": ["heat source", "how the building is heated"],
        "description": "Lower case: gas_furnace, heat_pump, space_heater or wood_stove",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "dryer_fluid": {
        "type": "bool",
        "synonyms": ["low-heat dryers"],
        "description": "All cage dryers run on timers (not continuous heat)",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(extractor: OfflineExtractor, text: str, source_type: str = "manual") -> list[tuple]:
    return [
        (r.action, condition_set(r), r.soft_limit, r.mitigant_fields)
        for r in extractor.extract(text, source_type=source_type)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Salons that leave pets without a handler present are referred.",
        "Salons with dogs without a handler are referred.",
    ],
)
def test_a_flag_whose_meaning_is_a_negation_is_set_when_restated(
    extractor: OfflineExtractor, text: str
) -> None:
    [rule] = _rules(extractor, text)
    assert rule[0] == "refer"
    assert ("pets_left_unattended", "eq", True) in rule[1], rule


def test_a_parenthesis_in_the_description_does_not_make_the_flag_negative(
    extractor: OfflineExtractor,
) -> None:
    text = "A groomer whose cage dryers are not on timers is referred."
    assert not any(("dryer_fluid", "eq", True) in r[1] for r in _rules(extractor, text))


@pytest.mark.parametrize(
    "text",
    [
        "Groomer certification: if the application says it isn't held, verify before binding.",
        "Every groomer must hold a grooming certification. Salons without one are verified.",
    ],
)
def test_a_flag_said_missing_by_a_pronoun_is_false(extractor: OfflineExtractor, text: str) -> None:
    [rule] = _rules(extractor, text)
    assert rule[0] == "verify"
    assert ("groomer_certified", "eq", False) in rule[1], rule


def test_a_required_protection_read_back_by_it_is_the_rule_on_its_absence(
    extractor: OfflineExtractor,
) -> None:
    text = "Staff must have bite protocol training; a salon without it is referred."
    [rule] = _rules(extractor, text)
    assert rule[0] == "refer" and ("bite_protocol_training", "eq", False) in rule[1], rule


def test_a_requirement_followed_by_its_own_condition_is_not_read_as_its_absence(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Staff must have bite protocol training; where the salon boards dogs overnight, "
        "verify the kennel plan."
    )
    assert not any(("bite_protocol_training", "eq", False) in r[1] for r in _rules(extractor, text))


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("No new BOP business may be bound in NY or NJ, for any class: decline.", "decline"),
        ("More than 400 boats stored is out.", "decline"),
        ("Reptile dealers are never acceptable.", "decline"),
    ],
)
def test_more_ways_to_say_decline(extractor: OfflineExtractor, text: str, action: str) -> None:
    rules = _rules(extractor, text, "compliance")
    assert rules and all(r[0] == action for r in rules), rules


def test_is_out_of_is_no_decline(extractor: OfflineExtractor) -> None:
    text = "The yard is out of the flood zone, so more than 400 boats stored is referred."
    assert all(r[0] != "decline" for r in _rules(extractor, text))


def test_what_turns_a_decline_into_a_referral_is_a_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "Boat storage yards with more than 400 boats stored are declined. QA finding: heat "
        "pumps turn the decline into a referral."
    )
    rules = _rules(extractor, text, "production")
    assert [r[0] for r in rules] == ["decline"], rules


def test_an_enum_value_written_with_an_underscore_is_read_in_plain_words(
    extractor: OfflineExtractor,
) -> None:
    text = "Where the yard is heated by space heaters, verify the wiring before binding."
    [rule] = _rules(extractor, text)
    assert ("heating_source", "eq", "space_heater") in rule[1], rule


def test_write_the_account_only_with_is_a_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Where more than a fifth of the boats are shrink-wrapped, write the account only "
        "with a wrap warranty."
    )
    [rule] = _rules(extractor, text)
    assert rule[0] == "approve_with_conditions"
    assert ("shrink_wrap_share_pct", "gt", 20.0) in rule[1], rule


@pytest.mark.parametrize(
    ("text", "value"),
    [("a fifth of sales", 0.2), ("two fifths of sales", 0.4), ("a tenth of revenue", 0.1)],
)
def test_fifths_and_tenths_are_shares(text: str, value: float) -> None:
    assert [m.value for m in find_numbers(text)] == [pytest.approx(value)]


@pytest.mark.parametrize("text", ["in the fifth year", "the fifth of May"])
def test_an_ordinal_is_no_share(text: str) -> None:
    assert find_numbers(text) == []


def test_practice_cleared_routinely_is_a_soft_limit(extractor: OfflineExtractor) -> None:
    text = (
        "Yards with more than 400 boats stored are flagged for review. Reviewers noted that "
        "yards with up to 450 boats were cleared routinely; above 450 the flag should stick."
    )
    rules = _rules(extractor, text, "production")
    assert [(r[0], r[2]) for r in rules] == [("flag_for_review", 450.0)], rules


def test_a_printed_figure_is_the_limit_practice_stretches(extractor: OfflineExtractor) -> None:
    text = (
        "Q: Is the storage limit firm? A: It's printed as 400 boats, but I've signed off on "
        "up to 450 boats when the lot is fenced. Past 450 it gets referred, no matter what."
    )
    rules = _rules(extractor, text, "sme")
    assert [(r[0], r[2]) for r in rules] == [("refer", 450.0)], rules
    assert ("hull_count", "gt", 400) in rules[0][1]


@pytest.mark.parametrize(
    ("subject", "value"),
    [("Boat storage outfits", "boat storage yard"), ("Pet outfits", None)],
)
def test_a_trade_word_with_a_business_noun_names_the_listed_class(
    extractor: OfflineExtractor, subject: str, value: str | None
) -> None:
    [rule] = _rules(extractor, f"{subject} with more than 400 boats stored are referred.")
    classes = [c[2] for c in rule[1] if c[0] == "occupancy"]
    assert classes == ([value] if value else []), rule


MORE_FIELDS = {
    **FIELDS,
    "groomer_license_confirmed": {
        "type": "bool",
        "synonyms": ["state groomer license", "licensed groomer"],
        "description": "A current state groomer license has been confirmed",
    },
    "flea_dip_use": {
        "type": "bool",
        "synonyms": ["flea bath tanks"],
        "description": "The salon gives insecticidal flea dips",
    },
    "wash_rack_count": {
        "type": "int",
        "unit": "racks",
        "synonyms": ["wash racks"],
        "description": "Wash racks in the salon",
    },
    "flood_loss_rate": {
        "type": "float",
        "unit": "rate",
        "synonyms": ["modeled flood loss", "flood loss rate"],
        "description": "Modeled annual flood loss as a rate of TIV, decimal (0.50% = 0.005)",
    },
    "sublet_area_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["sublet area", "subtenant floor share"],
        "description": "Share of floor area sublet to subtenants, in percent",
    },
}


@pytest.fixture(scope="module")
def wider() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": MORE_FIELDS}))


def test_no_reason_to_decline_is_no_decline(wider: OfflineExtractor) -> None:
    text = "A flea dip tank isn't a reason to decline, but it should be flagged for review."
    rules = _rules(wider, text, "training")
    assert [r[0] for r in rules] == ["flag_for_review"], rules


@pytest.mark.parametrize(
    "text",
    [
        "Before binding, verify that the groomer holds a current state groomer license.",
        "Verify that a state groomer license is held before quoting.",
    ],
)
def test_an_order_to_verify_one_flag_is_the_rule_on_its_absence(
    wider: OfflineExtractor, text: str
) -> None:
    [rule] = _rules(wider, text)
    assert rule[0] == "verify" and ("groomer_license_confirmed", "eq", False) in rule[1], rule


def test_verifying_inside_another_action_stays_its_mitigant(wider: OfflineExtractor) -> None:
    text = (
        "Salons with more than six wash racks are referred; the referral can be cleared once "
        "you verify that a state groomer license is held."
    )
    rules = _rules(wider, text)
    assert [r[0] for r in rules] == ["refer"], rules


def test_a_field_name_is_read_without_its_conventional_last_word(wider: OfflineExtractor) -> None:
    text = "Bodily injury arising from flea dip treatments is excluded by endorsement."
    [rule] = _rules(wider, text)
    assert rule[0] == "exclude" and ("flea_dip_use", "eq", True) in rule[1], rule


def test_may_be_written_before_an_exclusion_is_the_exclusion_alone(
    wider: OfflineExtractor,
) -> None:
    text = (
        "Flea dips: the salon may be written, but injury arising from flea dips is excluded "
        "by endorsement."
    )
    rules = _rules(wider, text)
    assert [r[0] for r in rules] == ["exclude"], rules


def test_tenths_of_one_percent_on_a_decimal_rate(wider: OfflineExtractor) -> None:
    text = (
        "A location whose modeled flood loss is greater than six-tenths of one percent of "
        "insured value is declined."
    )
    [rule] = _rules(wider, text)
    assert ("flood_loss_rate", "gt", 0.006) in rule[1], rule


def test_the_desk_that_cannot_quote_escalates(wider: OfflineExtractor) -> None:
    text = (
        "If subtenants hold more than three-tenths of the floor area, the file goes to the "
        "team lead - the desk cannot quote it."
    )
    [rule] = _rules(wider, text, "training")
    assert rule[0] == "refer" and ("sublet_area_pct", "gt", 30.0) in rule[1], rule


def test_a_long_name_said_in_another_order_is_read(wider: OfflineExtractor) -> None:
    text = "Salons whose staff have had no course on handling bites are referred."
    rules = _rules(wider, text)
    assert any(("bite_protocol_training", "eq", False) in r[1] for r in rules), rules


def test_a_scrambled_name_needs_every_word_close_together(wider: OfflineExtractor) -> None:
    text = "A bite is rare; handling improves with every grooming course. Salons are referred."
    assert not any("bite_protocol_training" in {c[0] for c in r[1]} for r in _rules(wider, text))


def test_a_flag_no_longer_applied_is_withdrawn_not_a_decline(wider: OfflineExtractor) -> None:
    text = (
        "The booking system now rejects any salon whose record cannot be matched, so the "
        "review flag for salons with more than six wash racks is no longer applied."
    )
    rules = wider.extract(text, source_type="compliance")
    assert [(r.action, r.withdrawn) for r in rules] == [("flag_for_review", True)], rules
