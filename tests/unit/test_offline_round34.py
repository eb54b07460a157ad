"""Offline extraction round 34: figures in feet for a field counted in inches, years a
building "predates", and more ways rules are told.

Every field and sentence below is made up for these tests (a fountain-and-pond builder's
dictionary no dataset has).
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
        "description": "Business class, lower case. Values used: 'koi pond builder', "
        "'fountain restorer', 'water garden nursery', 'aquarium maintenance service'",
    },
    "pond_depth_in": {
        "type": "float",
        "unit": "inches",
        "synonyms": ["pond depth", "water depth of the pond"],
        "description": "Deepest water of a display pond, in inches",
    },
    "pump_house_distance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["pump house distance", "distance to the pump house"],
        "description": "Distance from the shop to the pump house, in feet",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "construction year"],
        "description": "Calendar year the building was put up",
    },
    "tiv_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["TIV", "total insured value"],
        "description": "Total insured value in US dollars",
    },
    "pond_fenced": {
        "type": "bool",
        "synonyms": ["pond fenced", "fenced display pond"],
        "description": "The display pond is fenced and gated",
    },
    "drain_time_minutes": {
        "type": "float",
        "unit": "minutes",
        "synonyms": ["drain time", "time to drain the pond"],
        "description": "Time, per the written drain plan, to empty the display pond, in minutes",
    },
    "open_hours_weekly": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["public viewing time", "open hours per week"],
        "description": "Hours a week the water garden is open to visitors",
    },
    "walkway_width_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["walkway width", "path width around the pond"],
        "description": "Narrowest walkway around the display pond, in feet",
    },
    "curing_hours": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["curing time", "hours of curing"],
        "description": "Hours liner concrete cures before the pond is filled",
    },
    "warranty_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["liner warranty", "warranty term"],
        "description": "Years of the workmanship warranty the builder gives",
    },
    "permit_held": {
        "type": "bool",
        "synonyms": ["water abstraction permit", "abstraction permit"],
        "description": "The builder holds a water abstraction permit",
    },
    "fills_from_rivers": {
        "type": "bool",
        "synonyms": ["fills ponds from rivers", "river filling"],
        "description": "The builder fills ponds with water drawn from rivers",
    },
    "callout_response_hours": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["callout response", "guaranteed response time"],
        "description": "Hours the builder guarantees to answer a pump failure callout",
    },
    "display_days_per_year": {
        "type": "int",
        "unit": "days",
        "synonyms": ["open garden days", "display days"],
        "description": "Days a year the display garden is open",
    },
    "koi_held_for_customers": {
        "type": "bool",
        "synonyms": ["koi boarding", "holds customers' koi"],
        "description": "The builder holds customers' koi over winter",
    },
    "discount_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["customer discount", "price cut"],
        "description": "Largest discount off the list price, in percent (a quarter off = 25)",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _read(extractor: OfflineExtractor, text: str) -> list[tuple[str, str, str, object]]:
    return [
        (rule.action, c.field, c.operator, c.value)
        for rule in extractor.extract(text, source_type="manual")
        for c in rule.conditions
        if c.field != "occupancy"
    ]


def test_a_figure_in_feet_goes_to_the_field_its_words_name_in_inches(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "A display pond holding more than a foot of water is referred. A pond deeper than "
        "two feet is declined."
    )
    assert _read(extractor, said) == [
        ("refer", "pond_depth_in", "gt", 12),
        ("decline", "pond_depth_in", "gt", 24),
    ]


def test_a_building_that_predates_a_year_is_built_before_it(extractor: OfflineExtractor) -> None:
    said = (
        "Where the building predates 1925 and the total insured value exceeds three million "
        "dollars, replacement cost must be verified."
    )
    assert _read(extractor, said) == [
        ("verify", "year_built", "lt", 1925),
        ("verify", "tiv_usd", "gt", 3_000_000),
    ]


def test_that_time_goes_to_the_field_the_sentence_before_names(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "Ask for the written drain plan and the time it shows to drain the pond. When that "
        "time exceeds two hours, the pond is declined."
    )
    assert _read(extractor, said) == [("decline", "drain_time_minutes", "gt", 120)]


@pytest.mark.parametrize("wants", ["wants", "calls for", "expects"])
def test_a_figure_the_guide_wants_is_a_minimum(extractor: OfflineExtractor, wants: str) -> None:
    said = (
        f"The guide {wants} a walkway width of at least four feet; anything narrower is referred."
    )
    assert _read(extractor, said) == [("refer", "walkway_width_ft", "lt", 4)]


def _soft(extractor: OfflineExtractor, text: str) -> list[tuple[str, float | None]]:
    return [
        (rule.action, rule.soft_limit) for rule in extractor.extract(text, source_type="production")
    ]


@pytest.mark.parametrize(
    ("practice", "soft"),
    [
        ("In practice we have signed off on builders curing for sixty hours or more.", 60),
        # two days are 48 hours
        ("In practice we have approved two-day cures on clean accounts.", 48),
    ],
)
def test_practice_for_a_span_is_a_soft_limit(
    extractor: OfflineExtractor, practice: str, soft: float | None
) -> None:
    rule = "The standard is seventy-two hours of curing; anything under 72 hours is referred."
    said = f"{rule} {practice}"
    assert _soft(extractor, said) == [("refer", soft)]


def test_practice_on_a_figure_joined_to_its_noun_is_a_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "The guide allows a one-year warranty only, and any warranty term longer than one year "
        "is referred. In practice we have approved three-year warranties on loss-free accounts."
    )
    assert _soft(extractor, said) == [("refer", 3)]


def test_that_noun_points_at_the_flag_the_sentence_before_names(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "A builder that fills ponds from rivers must hold a water abstraction permit. Builders "
        "that fill ponds from rivers without that permit are declined."
    )
    assert _read(extractor, said) == [
        ("decline", "fills_from_rivers", "eq", True),
        ("decline", "permit_held", "eq", False),
    ]


def test_a_conjunction_that_points_at_nothing(extractor: OfflineExtractor) -> None:
    said = (
        "A builder must hold a water abstraction permit. If it fills ponds from rivers we "
        "still write it, but subject to a warranty that permit checks go on every job."
    )
    assert _read(extractor, said) == [("approve_with_conditions", "fills_from_rivers", "eq", True)]


def test_a_figure_in_days_goes_to_a_field_counted_in_hours(extractor: OfflineExtractor) -> None:
    said = (
        "If the guaranteed callout response is longer than two days, flag the account for review."
    )
    assert _read(extractor, said) == [("flag_for_review", "callout_response_hours", "gt", 48)]


_CHECK_TABLE = """Cheat sheet for the pond desk.
| Class | What to check | Trigger | Action |
| --- | --- | --- | --- |
| water garden nursery | TIV | over $3M | refer |
| koi pond builder | koi boarding | yes | write with a livestock sublimit |
| koi pond builder | pond fenced | no | refer |
| any class | pond depth | pond depth over 30 inches | refer |
"""


def test_a_checked_item_and_its_trigger_read_as_one_condition(
    extractor: OfflineExtractor,
) -> None:
    read = [
        (rule.action, [(c.field, c.operator, c.value) for c in rule.conditions])
        for rule in extractor.extract(_CHECK_TABLE, source_type="training")
    ]
    assert read == [
        ("refer", [("occupancy", "eq", "water garden nursery"), ("tiv_usd", "gt", 3_000_000)]),
        (
            "approve_with_conditions",
            [("occupancy", "eq", "koi pond builder"), ("koi_held_for_customers", "eq", True)],
        ),
        ("refer", [("occupancy", "eq", "koi pond builder"), ("pond_fenced", "eq", False)]),
        ("refer", [("pond_depth_in", "gt", 30)]),
    ]


_LOG = """Decision log, pond desk. All files below are GL.
- Koi pond builder, Tulsa OK, 3.5 ft walkway. Guide: a walkway width under four feet is \
referred. Approved at 3.5 ft - handrails fitted.
- Koi pond builder, Mesa AZ, 3 ft walkway. Approved, same handrails; reviewer agreed.
- Koi pond builder, Boise ID, 2 ft walkway. Referred, then declined by the senior.
- Koi pond builder, Reno NV, 2.5 ft walkway. Referred; not bound.
"""


def test_the_furthest_approved_case_of_a_log_is_the_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(_LOG, source_type="production")
    assert [(r.action, r.soft_limit) for r in rules] == [("refer", 3)]


def test_practice_far_from_the_limit_is_no_reach(extractor: OfflineExtractor) -> None:
    said = (
        "Buildings built before 1925 are referred. In practice we have approved up to three of "
        "them a year."
    )
    assert _soft(extractor, said) == [("refer", None)]


@pytest.mark.parametrize(
    "said",
    [
        "With effect from 1 July 2025, a pond deeper than two feet is declined.",
        "A pond deeper than two feet is declined, effective July 1, 2025.",
    ],
)
def test_a_date_is_no_figure(extractor: OfflineExtractor, said: str) -> None:
    assert _read(extractor, said) == [("decline", "pond_depth_in", "gt", 24)]


def test_a_standards_section_number_is_no_figure(extractor: OfflineExtractor) -> None:
    said = "Under Pond Underwriting Standards 2.7 a pond deeper than two feet is declined."
    assert _read(extractor, said) == [("decline", "pond_depth_in", "gt", 24)]


def test_a_fraction_off_a_price_is_a_share(extractor: OfflineExtractor) -> None:
    said = "If any customer discount takes more than a quarter off the list price, refer it."
    assert _read(extractor, said) == [("refer", "discount_pct", "gt", 25)]
