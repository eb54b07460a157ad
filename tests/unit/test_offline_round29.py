"""Offline extraction round 29: quantifiers and asides that state no condition.

Every field and sentence below is made up for these tests (a ferry-operator dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'ferry operator')",
    },
    "least_deckhand_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["newest deckhand's years at sea", "deckhand seasoning"],
        "description": "Years at sea of the least experienced deckhand",
    },
    "vessel_year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "model year"],
        "description": "Year the oldest vessel was built",
    },
    "paper_crew_logs": {
        "type": "bool",
        "synonyms": ["paper crew log", "handwritten crew log"],
        "description": "At least one deckhand's hours are kept in a paper log",
    },
    "unlit_gangways": {
        "type": "int",
        "unit": "gangways",
        "synonyms": ["gangways without lighting", "unlit gangways"],
        "description": "Number of gangways without lighting",
    },
    "bilge_alarm_installed": {
        "type": "bool",
        "synonyms": ["bilge alarm", "high-water bilge alarm"],
        "description": "A high-water bilge alarm is installed on every vessel",
    },
    "frayed_mooring_lines": {
        "type": "bool",
        "synonyms": ["frayed mooring lines", "chafed lines"],
        "description": "The dock inspection recorded frayed or chafed mooring lines",
    },
    "months_since_last_grounding": {
        "type": "int",
        "unit": "months",
        "synonyms": ["months since the most recent grounding", "grounding recency"],
        "description": "Months since the operator's most recent grounding",
    },
    "ticket_office_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["ticket office area", "ticket office"],
        "description": "Floor area of the ticket office, in square feet",
    },
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["floor area", "square footage"],
        "description": "Total floor area of the insured building",
    },
    "hull_surveyed_each_season": {
        "type": "bool",
        "synonyms": ["seasonal hull survey", "hull surveys"],
        "description": "The hull is surveyed by a marine surveyor at the start of each season",
    },
    "party_barge_count": {
        "type": "int",
        "unit": "vessels",
        "synonyms": ["party barges", "floating bars"],
        "description": "Number of party barges in the fleet",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _read(extractor: OfflineExtractor, text: str) -> list[tuple[str, str, object]]:
    rules = extractor.extract(text, source="Ferry manual", source_type="manual")
    return [(c.field, c.operator, c.value) for r in rules for c in r.conditions]


def test_even_one_of_another_thing_is_no_count_of_the_field(
    extractor: OfflineExtractor,
) -> None:
    said = _read(
        extractor,
        "Where even one deckhand still fills in a paper crew log, the underwriter verifies "
        "the hours before the account is bound.",
    )
    assert said == [("paper_crew_logs", "eq", True)]


def test_even_one_of_what_the_field_counts_is_one_or_more(extractor: OfflineExtractor) -> None:
    said = _read(extractor, "Any ferry with even one unlit gangway is declined.")
    assert ("unlit_gangways", "gte", 1) in said


def test_a_parenthesis_of_usual_cases_states_no_condition(extractor: OfflineExtractor) -> None:
    said = _read(
        extractor,
        "Where a deckhand still fills in a paper crew log (older boats built before model "
        "year 1990 are the usual cases), the underwriter verifies the hours.",
    )
    assert said == [("paper_crew_logs", "eq", True)]


def test_even_one_of_what_the_field_names_is_one_or_more_whatever_its_unit(
    extractor: OfflineExtractor,
) -> None:
    said = _read(
        extractor,
        "Under the GL program, a ferry operator that runs even one party barge (a deck "
        "barge with a bar, often sold as a floating bar) is referred.",
    )
    assert ("party_barge_count", "gte", 1) in said


LISTED = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "occupancy": {
                "type": "str",
                "synonyms": ["class of business"],
                "description": "Business class, lower case. Values used in this set: "
                "'ferry operator', 'harbour tour boat operator', 'river taxi service', "
                "'floating restaurant', 'marina'",
            },
            "bareboat_rentals": {
                "type": "bool",
                "synonyms": ["bareboat rental", "boats rented bareboat"],
                "description": "Boats are rented bareboat (no captain or crew aboard)",
            },
            "late_boardings_per_year": {
                "type": "int",
                "unit": "boardings",
                "synonyms": ["late boardings", "boardings after dark"],
                "description": "Boardings after dark in a year",
            },
        }
    }
)


@pytest.fixture(scope="module")
def listed() -> OfflineExtractor:
    return OfflineExtractor(LISTED)


def test_quoted_values_after_a_colon_list_the_classes_whatever_their_length(
    listed: OfflineExtractor,
) -> None:
    rules = listed.extract(
        "Harbour tour boat operators are declined.", source="Manual", source_type="manual"
    )
    assert [c.value for r in rules for c in r.conditions] == ["harbour tour boat operator"]


def test_either_points_back_at_the_two_classes_named_before(listed: OfflineExtractor) -> None:
    rules = listed.extract(
        "River taxi services and floating restaurants are the two passenger classes here. On "
        "the GL, either may be written only with a signed passenger-conduct warranty.",
        source="Manual",
        source_type="manual",
    )
    assert [(r.action, r.conditions[0].operator, r.conditions[0].value) for r in rules] == [
        ("approve_with_conditions", "in", ["river taxi service", "floating restaurant"])
    ]


def test_an_aside_restating_a_flag_description_does_not_deny_it(
    listed: OfflineExtractor,
) -> None:
    rules = listed.extract(
        "A marina that lets members take its boats out bareboat - no captain or crew aboard - "
        "is declined.",
        source="Manual",
        source_type="manual",
    )
    flags = [(c.field, c.value) for r in rules for c in r.conditions if c.field != "occupancy"]
    assert flags == [("bareboat_rentals", True)]


def test_a_column_acting_when_outside_the_acceptable_refuses_what_falls_outside(
    listed: OfflineExtractor,
) -> None:
    table = (
        "| Exposure | Acceptable | Action when outside |\n"
        "| --- | --- | --- |\n"
        "| Late boardings | Thirty or fewer a year | Refer to the marine desk |"
    )
    rules = listed.extract(table, source="Manual", source_type="manual")
    assert [(r.action, [(c.field, c.operator, c.value) for c in r.conditions]) for r in rules] == [
        ("refer", [("late_boardings_per_year", "gt", 30)])
    ]


SHARES = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "under_five_passengers_pct": {
                "type": "float",
                "unit": "percent",
                "synonyms": ["passengers under five", "share of riders younger than five"],
                "description": "Share of passengers who are children under five",
            },
            "annual_revenue_usd": {
                "type": "float",
                "unit": "USD",
                "synonyms": ["revenue", "sales"],
                "description": "Annual revenue",
            },
            "dock_condition_index": {
                "type": "int",
                "unit": "index",
                "synonyms": ["dock condition index", "DCI"],
                "description": "Dock survey score, 0-100 (higher is better)",
            },
            "fare_disputes_12mo": {
                "type": "int",
                "unit": "disputes",
                "synonyms": ["fare disputes"],
                "description": "Fare disputes reported in the last 12 months",
            },
        }
    }
)


@pytest.fixture(scope="module")
def shares() -> OfflineExtractor:
    return OfflineExtractor(SHARES)


def _conditions(extractor: OfflineExtractor, text: str) -> list[tuple[str, str, object]]:
    rules = extractor.extract(text, source="Bulletin", source_type="compliance")
    return [(c.field, c.operator, c.value) for r in rules for c in r.conditions]


def test_a_figure_inside_a_measure_s_own_synonym_bounds_nothing(shares: OfflineExtractor) -> None:
    said = _conditions(
        shares,
        "An operator whose sales of tickets to passengers under five exceed 25 per cent of "
        "its fares is declined.",
    )
    assert said == [("under_five_passengers_pct", "gt", 25)]


def test_a_limit_moved_from_one_figure_to_another_is_no_range(shares: OfflineExtractor) -> None:
    said = _conditions(
        shares,
        "Effective 1 March the dock referral point moves from a dock condition index of 60 to "
        "70. Docks surveyed below 70 are referred to the marine desk.",
    )
    assert said == [("dock_condition_index", "lt", 70)]


def test_a_sector_s_businesses_are_no_class(shares: OfflineExtractor) -> None:
    said = _conditions(
        shares, "Retailers reporting more than 24 fare disputes in 12 months are referred."
    )
    assert said == [("fare_disputes_12mo", "gt", 24)]


def test_a_protection_said_missing_by_its_head_word_is_the_one_named_before(
    extractor: OfflineExtractor,
) -> None:
    said = _read(
        extractor,
        "Coast guard rules say every vessel must carry a bilge alarm. On the BOP, a ferry "
        "operator without an alarm is referred.",
    )
    assert ("bilge_alarm_installed", "eq", False) in said


def test_a_hazard_an_inspection_recorded_is_no_protection(extractor: OfflineExtractor) -> None:
    said = _read(
        extractor,
        "When the dock report records frayed mooring lines, the underwriter must verify that "
        "the lines have been replaced before the policy is bound.",
    )
    assert said == [("frayed_mooring_lines", "eq", True)]


def test_since_after_a_time_is_no_reason(extractor: OfflineExtractor) -> None:
    said = _read(
        extractor,
        "When fewer than twelve months have gone by since that grounding, the submission is "
        "referred to a senior underwriter.",
    )
    assert said == [("months_since_last_grounding", "lt", 12)]
    table = (
        "| Applies to | Months since the most recent grounding | Desk action |\n"
        "|---|---|---|\n"
        "| Every product | fewer than 12 | refer |\n"
        "| Commercial Property | fewer than 6 | decline |"
    )
    assert _read(extractor, table) == [
        ("months_since_last_grounding", "lt", 12),
        ("months_since_last_grounding", "lt", 6),
    ]


def test_a_number_in_words_keeps_its_unit_words_from_naming_a_field(
    extractor: OfflineExtractor,
) -> None:
    said = _read(
        extractor,
        "Q: Where is the fire load? A: In the ticket office. Once more than ten thousand "
        "square feet is given over to it, I refer.",
    )
    assert said == [("ticket_office_sqft", "gt", 10000)]


def test_a_lone_head_noun_is_the_text_s_business_not_the_example_it_ends() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "occupancy": {
                    "type": "str",
                    "synonyms": ["class of business"],
                    "description": "Business class (e.g. 'bait shop', 'ferry operator')",
                },
                "theft_reports_12mo": {
                    "type": "int",
                    "unit": "reports",
                    "synonyms": ["theft reports"],
                    "description": "Theft reports made to police in the last 12 months",
                },
            }
        }
    )
    said = _read(
        OfflineExtractor(fields),
        "A shop with more than twelve theft reports in that period is referred.",
    )
    assert said == [("theft_reports_12mo", "gt", 12)]


def test_that_requirement_is_met_waives_the_check_before_it(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Where a deckhand fills in a paper crew log, verify the hours. If the operator has "
        "the hull surveyed by a marine surveyor at the start of each season, that requirement "
        "is met and the account proceeds with the survey program as a condition of the policy.",
        source="Ferry manual",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [
        ("verify", ["hull_surveyed_each_season"])
    ]


def test_approving_with_a_named_condition_is_a_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "If the newest deckhand has fewer than 2 years at sea, I approve it with a "
        "buddy-watch condition.",
        source="Interview",
        source_type="sme",
    )
    assert [(r.action, [(c.field, c.operator, c.value) for c in r.conditions]) for r in rules] == [
        ("approve_with_conditions", [("least_deckhand_years", "lt", 2)])
    ]


def test_what_has_a_peril_excluded_by_endorsement_is_an_exclusion(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "On the Property form, a ferry operator with more than 3 unlit gangways has storm "
        "damage to the gangways excluded by endorsement FP-12; the vessels are unaffected.",
        source="Manual",
        source_type="manual",
    )
    assert [(r.action, r.product_type) for r in rules] == [("exclude", "Property")]


ENUMERATED = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "occupancy": {
                "type": "str",
                "synonyms": ["class of business"],
                "description": "Business class, lower case; one of: ferry operator, marina, "
                "houseboat rental, harbour tour operator, private moorage association, "
                "river sand dredging contractor, boat wrap shop, floating sauna",
            },
        }
    }
)


def test_a_long_list_after_one_of_names_classes_of_four_words() -> None:
    reader = OfflineExtractor(ENUMERATED)
    rules = reader.extract(
        "River sand dredging contractors are declined.", source="Manual", source_type="manual"
    )
    assert [c.value for r in rules for c in r.conditions] == ["river sand dredging contractor"]
    # the list is the whole set of classes: a business it does not list is none of them
    assert (
        reader.extract("Kayak rental kiosks are declined.", source="M", source_type="manual") == []
    )


def test_a_subject_saying_every_word_of_a_class_in_other_forms_names_it() -> None:
    rules = OfflineExtractor(ENUMERATED).extract(
        "We do not write privately run moorage associations in Florida; submissions from "
        "that state are declined.",
        source="Bulletin",
        source_type="compliance",
    )
    said = {(c.field, str(c.value)) for r in rules for c in r.conditions}
    assert ("occupancy", "private moorage association") in said


def test_a_letter_before_a_sentence_s_first_word_ends_the_sentence(
    extractor: OfflineExtractor,
) -> None:
    said = _read(
        extractor,
        "Since 2022 ferries of 26 feet or more need a high-water bilge alarm under Subchapter "
        "T. A ferry operator that cannot show a current bilge alarm is declined.",
    )
    assert said == [("occupancy", "eq", "ferry operator"), ("bilge_alarm_installed", "eq", False)]


def test_a_reflector_in_metres_fits_a_field_counted_in_m() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "largest_dish_m": {
                    "type": "float",
                    "unit": "m",
                    "synonyms": ["dish size", "reflector diameter"],
                    "description": "Diameter of the largest antenna reflector, in metres",
                },
                "square_feet": {
                    "type": "int",
                    "unit": "sq ft",
                    "synonyms": ["floor area"],
                    "description": "Total floor area",
                },
            }
        }
    )
    said = _read(OfflineExtractor(fields), "Anything more than 13 metres across is verified.")
    assert said == [("largest_dish_m", "gt", 13)]


def test_a_form_completed_by_hand_is_no_protection() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "handwritten_manifest": {
                    "type": "bool",
                    "synonyms": ["handwritten manifest", "hand-completed manifest"],
                    "description": "The passenger manifest was completed by hand rather than "
                    "printed from the booking system",
                },
            }
        }
    )
    said = _read(OfflineExtractor(fields), "A handwritten manifest must be verified.")
    assert said == [("handwritten_manifest", "eq", True)]


def test_a_column_acting_when_exceeded_makes_each_row_a_limit(extractor: OfflineExtractor) -> None:
    table = (
        "Line | Party barges in the fleet | Action when exceeded\n"
        "Property | above 5 | refer to a senior property underwriter\n"
        "General Liability | above 2 | refer to the GL product underwriter"
    )
    rules = extractor.extract(table, source="Quick reference", source_type="training")
    assert [
        (r.product_type, [(c.field, c.operator, c.value) for c in r.conditions]) for r in rules
    ] == [
        ("Property", [("party_barge_count", "gt", 5)]),
        ("GL", [("party_barge_count", "gt", 2)]),
    ]


def test_millimetres_are_no_millions() -> None:
    [said] = find_numbers("modules rated below 35 mm hail")
    assert (said.value, said.unit) == (35, "mm")
    [money] = find_numbers("stock over $35mm")
    assert (money.value, money.unit) == (35_000_000, "usd")


def test_tons_fit_a_field_counted_in_pounds() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "rope_stock_lbs": {
                    "type": "float",
                    "unit": "lbs",
                    "synonyms": ["rope stock", "mooring rope on hand"],
                    "description": "Mooring rope stored on premises, in pounds",
                },
                "roof_age_years": {
                    "type": "int",
                    "unit": "years",
                    "synonyms": ["roof age"],
                    "description": "Age of the roof",
                },
            }
        }
    )
    said = _read(
        OfflineExtractor(fields),
        "A ferry operator holding more than six tons of rope stock is referred.",
    )
    assert ("rope_stock_lbs", "gt", 12000) in said
