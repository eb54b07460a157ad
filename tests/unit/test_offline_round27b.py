"""Round 27, extraction (second part): ranges said plainly, the next one on, energy units.

Every field and sentence below is made up for these tests (a bell-foundry dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from memory.underwriting.fieldlink.numbers import canonical_unit, find_numbers
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'bell foundry')",
    },
    "crucible_count": {
        "type": "int",
        "unit": "crucibles",
        "synonyms": ["crucibles", "melting crucibles"],
        "description": "Number of melting crucibles on site",
    },
    "hoist_chain_length_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["hoist chain", "chain length"],
        "description": "Longest hoist chain a bell is lifted on, in feet",
    },
    "drop_hammer_energy_ftlbs": {
        "type": "float",
        "unit": "ft-lbs",
        "synonyms": ["drop hammer energy", "hammer energy"],
        "description": "Rated energy of the largest drop hammer, in foot-pounds",
    },
    "school_near_pour_floor": {
        "type": "bool",
        "synonyms": ["school nearby", "school next to the pour floor"],
        "description": "A school is within 300 feet of the pour floor",
    },
}


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS)


def _summary(extractor, text: str, kind: str = "manual"):  # type: ignore[no-untyped-def]
    rules = extractor.extract(text, source="Foundry Guide", source_type=kind)
    return [(r.action, condition_set(r)) for r in rules]


def test_a_range_said_to_be_ordinary_business_is_accepted(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "A hoist chain of forty feet or less is ordinary program business; an operation that "
        "lifts bells on a longer chain than that is referred.",
    )
    assert said == [("refer", {("hoist_chain_length_ft", "gt", 40)})]


def test_the_next_one_on_past_a_range_said_is_its_complement(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "Count the melting crucibles. Up to four is a working foundry; a fifth crucible or "
        "more is flagged for an engineering review.",
    )
    assert said == [("flag_for_review", {("crucible_count", "gt", 4)})]


def test_a_limit_said_as_a_limit_is_not_turned_around(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor, "The printed limit is four crucibles; anything over that is referred."
    )
    assert said == [("refer", {("crucible_count", "gt", 4)})]


def test_written_without_a_second_look_is_no_conditional_approval(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "Forty thousand foot-pounds and below is ordinary work and I'll write it without a "
        "second look. Anything heavier comes to me as a referral.",
        kind="sme",
    )
    assert said == [("refer", {("drop_hammer_energy_ftlbs", "gt", 40_000)})]


def test_foot_pounds_are_energy_not_length() -> None:
    [said] = find_numbers("hammers rated over sixty thousand foot-pounds")
    assert (said.value, said.unit) == (60_000, "ft-lb")
    assert canonical_unit("ft-lbs") == canonical_unit("foot-pounds") == "ft-lb"
    [length] = find_numbers("a 40 ft chain")
    assert length.unit == "ft"


def test_a_figure_a_flags_description_holds_bounds_nothing(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "Where a school stands within three hundred feet of the pour floor, decline.",
    )
    assert said == [("decline", {("school_near_pour_floor", "eq", True)})]


MORE = {
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "inspection_by_video": {
        "type": "bool",
        "synonyms": ["inspection done over a video call", "video-call inspection"],
        "description": "The only loss-control inspection on file was done over a video call",
    },
}


@pytest.fixture(scope="module")
def wider():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS, MORE)


def test_until_further_notice_is_how_long_not_a_mitigant(wider) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        wider,
        "Effective immediately and until further notice, no new General Liability business "
        "is to be written for bell foundries located in Ohio.",
        kind="compliance",
    )
    assert said == [("decline", {("occupancy", "eq", "bell foundry"), ("state", "eq", "OH")})]


def test_the_only_survey_being_remote_is_a_shortfall_not_a_protection(wider) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        wider,
        "Where the only inspection on file was done over a video call, the underwriter must "
        "verify the exits independently before binding.",
    )
    assert said == [("verify", {("inspection_by_video", "eq", True)})]


def test_a_speed_written_with_hyphens_is_one_rate() -> None:
    [said] = find_numbers("the eighteen-mile-an-hour line")
    assert (said.value, said.unit, said.attached) == (18, "mile per hour", False)


#: "a foundry" in a dictionary that lists the bell foundry is one.
BELLS = ("occupancy", "eq", "bell foundry")
LIFTS = {
    "two_person_lift": {
        "type": "bool",
        "synonyms": ["two-person lift rule", "two-person lifting"],
        "description": "Every bell is lifted under a documented two-person rule",
    },
    "open_sand_casting": {
        "type": "bool",
        "synonyms": ["open sand moulds", "casting in open sand"],
        "description": "Bells are cast in open sand moulds",
    },
}


@pytest.fixture(scope="module")
def lifting():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS, LIFTS)


def test_an_order_to_count_names_the_field_of_the_bare_figures_after_it(lifting) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        lifting,
        "A hoist chain longer than 40 feet is referred. Count the melting crucibles. Up to "
        "four is a working foundry; a fifth crucible or more is flagged for review.",
    )
    assert said == [
        ("refer", {("hoist_chain_length_ft", "gt", 40)}),
        ("flag_for_review", {("crucible_count", "gt", 4)}),
    ]


def test_the_control_we_expect_is_the_mitigant_of_the_rule_before(lifting) -> None:  # type: ignore[no-untyped-def]
    rules = lifting.extract(
        "A foundry with more than 4 crucibles is referred. A documented two-person lift rule "
        "is the control we expect at that size; with it in place the risk may be written "
        "subject to a sublimit.",
        source="Foundry Guide",
        source_type="manual",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("crucible_count", "gt", 4)}, ["two_person_lift"])
    ]


def test_every_such_one_takes_the_description_before_it(lifting) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        lifting,
        "Foundries that cast in open sand moulds breathe silica dust; every such foundry is "
        "referred, whatever its size.",
    )
    assert said == [("refer", {BELLS, ("open_sand_casting", "eq", True)})]


def test_a_value_that_is_a_state_after_a_place_says_where_the_place_is() -> None:
    towns = {
        "foundry_town": {
            "type": "str",
            "synonyms": ["town"],
            "description": "Town of the foundry, lower case: spokane, tacoma, washington, yakima",
        },
    }
    said = _summary(
        extractor_over(FIELDS, towns),
        "Bell foundries in the town of Spokane, Washington are declined.",
    )
    assert said == [("decline", {BELLS, ("foundry_town", "eq", "spokane")})]


def test_a_class_a_rule_is_scoped_to_keeps_words_other_fields_use(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor, "For a hoist chain maker, if more than four crucibles are in use, refer it."
    )
    assert said == [
        ("refer", {("occupancy", "eq", "hoist chain maker"), ("crucible_count", "gt", 4)})
    ]
