"""Offline extraction round 33: approvals whose terms follow the product they name, terms
stated as an instrument the policy is issued with, a spared risk that keeps its flag, and a
class named by its own last words.

Every field and sentence below is made up for these tests (a glass-bending dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case. Values used: 'neon sign bender', "
        "'stained glass studio', 'glass float works', 'lens grinder', 'bottle recycler', "
        "'mirror silvering shop', 'kiln builder', 'glass etcher'",
    },
    "annealing_ovens": {
        "type": "int",
        "unit": "ovens",
        "synonyms": ["annealing ovens", "lehrs"],
        "description": "Annealing ovens on the premises",
    },
    "mercury_filled_tubes": {
        "type": "bool",
        "synonyms": ["mercury-filled tubes", "mercury tube filling"],
        "description": "The shop fills tubes with mercury",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Building construction: frame, joisted masonry, noncombustible",
    },
    "months_since_kiln_survey": {
        "type": "int",
        "unit": "months",
        "synonyms": ["kiln survey age", "months since the kiln survey"],
        "description": "Months since the last kiln safety survey by a certified inspector",
    },
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business", "operating history"],
        "description": "Whole years the insured has operated",
    },
    "mercury_free_process": {
        "type": "bool",
        "synonyms": ["mercury-free process", "argon-only filling"],
        "description": "The shop fills tubes without mercury",
    },
    "rooftop_sign_installs": {
        "type": "int",
        "unit": "installs",
        "synonyms": ["rooftop sign installs", "roof-mounted sign jobs"],
        "description": "Rooftop sign installations a year",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _read(extractor: OfflineExtractor, sentence: str) -> list[tuple[str, str, object]]:
    return [
        (rule.action, c.field, c.value)
        for rule in extractor.extract(sentence, source_type="manual")
        for c in rule.conditions
        if c.field != "occupancy"
    ]


def test_terms_after_the_product_make_a_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "A shop with more than four annealing ovens may be written on Property subject to "
        "a current oven inspection certificate."
    )
    assert _read(extractor, said) == [("approve_with_conditions", "annealing_ovens", 4)]


def test_a_product_named_with_no_terms_is_a_placement(extractor: OfflineExtractor) -> None:
    said = "A shop with more than four annealing ovens may be written on the BOP."
    assert extractor.extract(said, source_type="manual") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Where the shop fills mercury-filled tubes, the BOP is issued with the hazardous "
        "materials endorsement.",
        "Where the shop fills mercury-filled tubes, issue the policy with the hazardous "
        "materials endorsement.",
        "Where the shop fills mercury-filled tubes, the BOP goes out with the hazardous "
        "materials endorsement.",
        "Where the shop fills mercury-filled tubes, I attach the spill-kit condition.",
    ],
)
def test_an_instrument_the_policy_is_issued_with_is_a_condition(
    extractor: OfflineExtractor, sentence: str
) -> None:
    assert _read(extractor, sentence) == [("approve_with_conditions", "mercury_filled_tubes", True)]


def test_issuing_a_certificate_is_no_condition(extractor: OfflineExtractor) -> None:
    said = "The shop fills mercury-filled tubes and issues a certificate with each sign."
    assert extractor.extract(said, source_type="manual") == []


def test_a_risk_not_referred_keeps_its_flag(extractor: OfflineExtractor) -> None:
    said = (
        "A bender that does mercury tube filling is not referred for it; the BOP is issued "
        "with the hazardous materials endorsement."
    )
    assert _read(extractor, said) == [("approve_with_conditions", "mercury_filled_tubes", True)]


_SIGN_BENDER = (
    "A sign bender in a frame building is written on Property only with the safeguards endorsement."
)


def test_a_class_named_by_its_last_words(extractor: OfflineExtractor) -> None:
    said = _SIGN_BENDER
    (rule,) = extractor.extract(said, source_type="manual")
    assert rule.action == "approve_with_conditions"
    assert {(c.field, c.value) for c in rule.conditions} == {
        ("occupancy", "neon sign bender"),
        ("construction_type", "frame"),
    }


def test_last_words_two_classes_share_name_neither() -> None:
    fields = {**FIELDS, "occupancy": dict(FIELDS["occupancy"])}
    fields["occupancy"]["description"] += ", 'channel sign bender'"
    two = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    said = _SIGN_BENDER
    (rule,) = two.extract(said, source_type="manual")
    assert "occupancy" not in {c.field for c in rule.conditions}


def test_terms_that_attach_an_exclusion_make_an_exclusion(extractor: OfflineExtractor) -> None:
    said = (
        "Mercury tube filling may be written, provided that the mercury spill exclusion "
        "endorsement is attached."
    )
    assert _read(extractor, said) == [("exclude", "mercury_filled_tubes", True)]


def test_a_past_condition_before_a_present_rule_states_the_rule(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "Where more than six rooftop sign installs were made in the last year, the rigging "
        "exclusion is attached to the GL."
    )
    assert _read(extractor, said) == [("exclude", "rooftop_sign_installs", 6)]


def test_a_past_account_of_a_case_is_no_rule(extractor: OfflineExtractor) -> None:
    said = "Last spring the shop made more than six rooftop sign installs, and the GL was renewed."
    assert extractor.extract(said, source_type="manual") == []


def _soft(extractor: OfflineExtractor, text: str) -> list[tuple[str, object, float | None]]:
    return [
        (rule.action, rule.conditions[-1].value, rule.soft_limit)
        for rule in extractor.extract(text, source_type="sme")
    ]


@pytest.mark.parametrize(
    "practice",
    [
        "In practice we approve up to six pretty routinely.",
        "Underwriters have nonetheless renewed several shops at up to 6 a year after a survey; "
        "every shop above 6 went to referral.",
        "Honestly, we routinely write six ovens without sending it up. Seven or more, refer it.",
    ],
)
def test_practice_past_the_limit_is_its_soft_limit(
    extractor: OfflineExtractor, practice: str
) -> None:
    text = f"The guide refers any shop with more than four annealing ovens. {practice}"
    assert _soft(extractor, text) == [("refer", 4, 6.0)]


def test_a_figure_a_period_follows_is_one_figure() -> None:
    from agents.offline.softlimits import run_end
    from memory.underwriting.fieldlink.numbers import find_numbers

    window = "180 a month after the survey"
    assert run_end(window, find_numbers(window)).value == 180


def test_a_figure_in_years_goes_to_the_field_named_in_months(
    extractor: OfflineExtractor,
) -> None:
    said = "The guide wants a kiln survey no older than two years, and past that it's a referral."
    assert _read(extractor, said) == [("refer", "months_since_kiln_survey", 24)]


def test_an_order_to_check_what_a_confirmed_state_clears(extractor: OfflineExtractor) -> None:
    text = (
        "For every GL policy on a neon sign bender, verify before binding that the shop runs "
        "a mercury-free process. Where a mercury-free process is confirmed, write the policy "
        "with the standard products condition."
    )
    (rule,) = extractor.extract(text, source_type="compliance")
    assert rule.action == "verify"
    assert [(c.field, c.value) for c in rule.conditions] == [("occupancy", "neon sign bender")]
    assert rule.mitigant_fields == ["mercury_free_process"]


def test_cases_signed_one_after_another_reach_the_last(extractor: OfflineExtractor) -> None:
    text = (
        "The guide says four annealing ovens is the ceiling, and above that we decline. I have "
        "signed one at five and another at six because they had vented lehrs, but never past six."
    )
    assert _soft(extractor, text) == [("decline", 4, 6.0)]


@pytest.mark.parametrize(
    ("said", "value"),
    [("four dozen", 48), ("two dozen", 24), ("a dozen", 12), ("half a dozen", 6)],
)
def test_dozens_multiply(said: str, value: int) -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    assert [n.value for n in find_numbers(f"{said} ovens")] == [value]


def test_but_a_holder_may_be_written_is_what_clears_the_referral(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "Shops with more than four annealing ovens are referred, but a shop with a "
        "mercury-free process may be written subject to a yearly oven survey."
    )
    (rule,) = extractor.extract(said, source_type="manual")
    assert (rule.action, rule.mitigant_fields) == ("refer", ["mercury_free_process"])


def test_a_hazard_written_with_an_exclusion_is_its_condition() -> None:
    fields = {
        **FIELDS,
        "kiln_course_on_site": {
            "type": "bool",
            "synonyms": ["CDL course", "truck driving course", "commercial driver training"],
            "description": "The school also runs a commercial driver's licence (CDL) course on "
            "site",
        },
    }
    school = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    said = "Schools that also run a CDL course on site are written with the auto exclusion."
    (rule,) = school.extract(said, source_type="manual")
    assert (rule.action, [(c.field, c.value) for c in rule.conditions]) == (
        "exclude",
        [("kiln_course_on_site", True)],
    )


def test_cases_taken_as_referrals_are_practice(extractor: OfflineExtractor) -> None:
    text = (
        "A shop with more than four annealing ovens is declined. In practice seniors have "
        "taken five or six as referrals; at seven and up, nobody has signed."
    )
    assert _soft(extractor, text) == [("decline", 4, 6.0)]
