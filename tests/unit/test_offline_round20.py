"""Round 20: subjects that name no class, speeds in words, figures below a reference.

Every field and sentence below is made up for these tests (a drone-delivery dictionary no
dataset has). Its business classes are a few examples, not a closed list, so a subject
may name a class the dictionary does not list.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import condition_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'drone courier', 'kayak outfitter')",
    },
    "drone_cruise_speed_mph": {
        "type": "float",
        "unit": "mph",
        "synonyms": ["cruise speed", "speed limiter setting"],
        "description": "Cruise speed the fleet's drones are limited to, in miles per hour",
    },
    "rate_vs_filed_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["rate versus filed", "discount off the filed rate"],
        "description": "Quoted rate relative to the filed rate, in percent (-15 = 15% below).",
    },
    "rig_count": {
        "type": "int",
        "unit": "drones",
        "synonyms": ["drones in the fleet", "fleet size"],
        "description": "Number of delivery drones in the fleet",
    },
    "flight_logs_kept": {
        "type": "bool",
        "synonyms": ["flight logs", "telemetry records"],
        "description": "Every flight is logged with telemetry records",
    },
    "part_107_certified": {
        "type": "bool",
        "synonyms": ["remote pilot certified", "Part 107 certification"],
        "description": "Every pilot holds a remote pilot certificate",
    },
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["square footage", "floor area", "building area"],
        "description": "Total building floor area in square feet",
    },
    "hangar_deck_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["hangar deck area", "launch platform area"],
        "description": "Total walkable area of rooftop launch platforms",
    },
    "geofencing": {
        "type": "bool",
        "synonyms": ["geofenced flight paths", "geofencing"],
        "description": "Drones cannot leave geofenced flight corridors",
    },
    "geofence_breaches": {
        "type": "int",
        "unit": "breaches",
        "synonyms": ["geofence breaches", "corridor breaches"],
        "description": "Breaches of the geofenced corridors logged in the last year",
    },
    "night_flights_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["night flights", "after-dark deliveries"],
        "description": "Share of deliveries flown after dark",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _mitigated(extractor: OfflineExtractor, text: str, source_type: str = "manual") -> list[tuple]:
    found = extractor.extract(text, source_type=source_type)
    return [(r.action, condition_set(r), r.mitigant_fields) for r in found]


def _rules(extractor: OfflineExtractor, text: str, source_type: str = "manual") -> list[tuple]:
    found = extractor.extract(text, source_type=source_type)
    return [(r.action, condition_set(r), r.soft_limit) for r in found]


def test_a_speed_in_miles_per_hour_is_read_on_a_field_in_mph(
    extractor: OfflineExtractor,
) -> None:
    text = "Where the cruise speed is set above 40 miles per hour, the account is referred."
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("refer", {("drone_cruise_speed_mph", "gt", 40.0)}), rule


def test_a_subject_that_is_a_fields_synonym_names_no_class(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The speed limiter setting of the fleet comes first: where drones fly above 40 "
        "miles per hour, the account is referred."
    )
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("refer", {("drone_cruise_speed_mph", "gt", 40.0)}), rule


def test_people_and_verbs_in_a_subject_name_no_class(extractor: OfflineExtractor) -> None:
    text = (
        "Night flights over 30% are referred. Hangar managers will confirm the log in the "
        "yearly audit. Over 50%? The account goes to the aviation desk as a decline."
    )
    classes = [
        c.value
        for r in extractor.extract(text, source_type="training")
        for c in r.conditions
        if c.field == "occupancy"
    ]
    assert classes == [], classes


def test_a_lone_singular_noun_points_back_at_the_texts_business(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Rooftop hubs. Couriers launching from rooftops need a landing survey. A hub with "
        "night flights above 30% is referred."
    )
    rules = _rules(extractor, text)
    assert ("refer", {("night_flights_pct", "gt", 30.0)}, None) in rules, rules


def test_a_class_named_in_the_plural_stays_a_class(extractor: OfflineExtractor) -> None:
    [rule] = _rules(extractor, "Kayak outfitters with night flights above 30% are declined.")
    assert rule[:2] == (
        "decline",
        {("occupancy", "eq", "kayak outfitter"), ("night_flights_pct", "gt", 30.0)},
    ), rule


@pytest.mark.parametrize(
    "text",
    [
        "Rating: the floor is fifteen percent below the filed rate; quotes deeper than that "
        "are referred.",
        "Quotes more than 15% below the filed rate are referred.",
    ],
)
def test_a_figure_below_a_reference_is_negative_on_a_signed_field(
    extractor: OfflineExtractor, text: str
) -> None:
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("refer", {("rate_vs_filed_pct", "lt", -15.0)}), rule


def test_practice_below_a_reference_sets_a_negative_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Quotes more than 15% below the filed rate are referred. In practice we have "
        "approved quotes down to 18% below when credits were documented."
    )
    rules = _rules(extractor, text, source_type="sme")
    assert ("refer", {("rate_vs_filed_pct", "lt", -15.0)}, -18.0) in rules, rules


def test_or_more_before_below_keeps_its_comparison(extractor: OfflineExtractor) -> None:
    [rule] = _rules(extractor, "A quote 40% or more below the filed rate is declined.")
    assert rule[:2] == ("decline", {("rate_vs_filed_pct", "lte", -40.0)}), rule


def test_a_table_written_on_one_line_is_read_row_by_row(extractor: OfflineExtractor) -> None:
    text = (
        "Appendix D. Drone couriers. | Trigger | Action | | --- | --- | | Fleet size over 12 "
        "| Refer to aviation | | Night flights above 40% | Decline | Notes: nothing else."
    )
    rules = {(a, frozenset(c)) for a, c, _ in _rules(extractor, text)}
    assert ("refer", frozenset({("rig_count", "gt", 12)})) in rules, rules
    assert ("decline", frozenset({("night_flights_pct", "gt", 40.0)})) in rules, rules


def test_what_an_order_verifies_clears_the_trigger_before_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "More than 12 drones in the fleet: verify telemetry records before binding. Where "
        "the application already shows flight logs, the check is satisfied."
    )
    found = _mitigated(extractor, text)
    assert found == [("verify", {("rig_count", "gt", 12)}, ["flight_logs_kept"])], found


def test_an_order_to_verify_a_plain_object_alone_is_the_rule_on_it_missing(
    extractor: OfflineExtractor,
) -> None:
    [rule] = _rules(extractor, "Verify telemetry records before binding.")
    assert rule[:2] == ("verify", {("flight_logs_kept", "eq", False)}), rule


def test_a_participle_alone_names_no_protection(extractor: OfflineExtractor) -> None:
    text = (
        "Fleets of more than 12 drones are referred. The underwriter approved one anyway, "
        "citing a certified mechanic on retainer."
    )
    found = extractor.extract(text, source_type="production")
    assert [r.mitigant_fields for r in found] == [[]], found


def test_a_speed_said_an_hour_is_a_speed(extractor: OfflineExtractor) -> None:
    [rule] = _rules(extractor, "Fleets cruising above forty miles an hour are declined.")
    assert rule[:2] == ("decline", {("drone_cruise_speed_mph", "gt", 40.0)}), rule


def test_the_noun_after_of_names_what_a_unit_measures(extractor: OfflineExtractor) -> None:
    text = "Section 8.5 declines anything over five thousand square feet of platform."
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("decline", {("hangar_deck_sqft", "gt", 5000)}), rule


def test_practice_taking_a_referral_instead_of_a_decline_names_a_mitigant(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Since the bulletin, fleets above forty miles an hour are declined.\n"
        "A: Where the operator runs geofenced flight paths, I'll take a referral instead "
        "of a decline. The fastest fleet I've approved cruised at 48 miles an hour."
    )
    found = _rules(extractor, text, source_type="sme")
    assert found == [("decline", {("drone_cruise_speed_mph", "gt", 40.0)}, 48.0)], found
    [rule] = extractor.extract(text, source_type="sme")
    assert rule.mitigant_fields == ["geofencing"], rule


def test_signed_up_to_is_practice_past_the_limit(extractor: OfflineExtractor) -> None:
    text = (
        "The guide says refer fleets of more than 12 drones. I've signed them up to 15 "
        "when the pilots were experienced."
    )
    rules = _rules(extractor, text, source_type="sme")
    assert rules == [("refer", {("rig_count", "gt", 12)}, 15.0)], rules


def test_a_mitigant_that_clears_the_referral_leaves_the_rule(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Where night flights are more than 30 percent, refer the account, unless every "
        "flight keeps telemetry records, which clears the referral."
    )
    found = _mitigated(extractor, text)
    assert found == [("refer", {("night_flights_pct", "gt", 30.0)}, ["flight_logs_kept"])], found


def test_a_protection_that_satisfies_the_verification_mitigates_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Fleets of more than 12 drones: verify remote pilot certificates before binding. "
        "A courier that keeps telemetry records for every flight satisfies the verification."
    )
    found = extractor.extract(text, source_type="manual")
    assert [(r.action, condition_set(r)) for r in found] == [
        ("verify", {("rig_count", "gt", 12)})
    ], found
    assert set(found[0].mitigant_fields) == {"part_107_certified", "flight_logs_kept"}, found


# --- round 21 (read on blind21 after its first score) ---------------------------------------


def test_a_generic_noun_after_of_names_no_field(extractor: OfflineExtractor) -> None:
    text = (
        "When launch platforms take up more than 6,000 square feet of the building, refer "
        "the account."
    )
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("refer", {("hangar_deck_sqft", "gt", 6000)}), rule


def test_what_got_the_account_over_the_line_is_a_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "Q: The guide refers fleets of more than 12 drones. Is that firm?\n"
        "A: I've approved up to 15. What got it over the line was telemetry records on "
        "every flight."
    )
    found = extractor.extract(text, source_type="sme")
    mitigants = {f for r in found for f in r.mitigant_fields}
    assert mitigants == {"flight_logs_kept"}, found


def test_an_ordinal_step_opens_no_subject(extractor: OfflineExtractor) -> None:
    text = "Second, know where the referral line sits: fleets of more than 12 drones are referred."
    classes = [
        c.value
        for r in extractor.extract(text, source_type="training")
        for c in r.conditions
        if c.field == "occupancy"
    ]
    assert classes == [], classes


def test_one_business_measured_by_a_figure_is_not_a_class(extractor: OfflineExtractor) -> None:
    [rule] = _rules(extractor, "A rooftop courier hub flying more than 12 drones is referred.")
    assert rule[:2] == ("refer", {("rig_count", "gt", 12)}), rule


def test_one_business_named_without_a_figure_stays_the_class(
    extractor: OfflineExtractor,
) -> None:
    [rule] = _rules(extractor, "A kayak outfitter is declined on every product.")
    assert rule[:2] == ("decline", {("occupancy", "eq", "kayak outfitter")}), rule


def test_a_flag_word_that_modifies_the_measured_noun_is_no_flag(
    extractor: OfflineExtractor,
) -> None:
    text = "Refer any fleet with more than 3 geofencing breaches in a year."
    found = _mitigated(extractor, text)
    assert found == [("refer", {("geofence_breaches", "gt", 3)}, [])], found


# --- after blind22 ------------------------------------------------------------------------


def test_must_include_at_least_is_a_requirement_that_fires_below(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Fleets must include at least twelve drones in the fleet; fleets with fewer are referred."
    )
    [rule] = _rules(extractor, text)
    assert rule[:2] == ("refer", {("rig_count", "lt", 12)}), rule
