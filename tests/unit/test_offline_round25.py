"""Round 25: shares of one unit, frequencies, measured protections, trades, alternatives.

Every field and sentence below is made up for these tests (a cold-store dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.ingestion.practice import with_practice
from agents.offline.subjects import SubjectReader
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import find_numbers, rate_fits
from memory.underwriting.fieldlink.profile import parse_enum
from schemas.fields import DataDictionary
from tests.rules import condition_set, extractor_over, knowledge_text, limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'blast freezer', 'ice house')",
    },
    "spray_density_gpm_sqft": {
        "type": "float",
        "unit": "gpm/sq ft",
        "synonyms": ["design density", "spray density"],
        "description": "Sprinkler design density over the cold room, gpm per square foot",
    },
    "room_air_changes": {
        "type": "float",
        "unit": "air changes/hour",
        "synonyms": ["air changes per hour", "air-change rate", "air turnover"],
        "description": "Complete air changes an hour in the plant room",
    },
    "defrost_backup_hours": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["defrost backup", "standby defrost time"],
        "description": "Hours the standby defrost can run",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "sprinkler system"],
        "description": "Building is fully sprinklered",
    },
    "ammonia_detector": {
        "type": "bool",
        "synonyms": ["ammonia detector", "leak detector"],
        "description": "A fixed ammonia leak detector is fitted in the plant room",
    },
    "relief_valve_log": {
        "type": "bool",
        "synonyms": ["relief valve log", "valve test log"],
        "description": "Relief valves are tested and logged every quarter",
    },
    "repeat_thaw_losses": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["repeat thaw losses", "losses from one cause"],
        "description": "Thaw losses in five years that share one cause",
    },
    "cause_fixed": {
        "type": "bool",
        "synonyms": ["cause fixed", "cause has been dealt with"],
        "description": "The cause of the repeat losses has been corrected and documented",
    },
    "hygiene_score": {
        "type": "int",
        "unit": "points",
        "synonyms": ["hygiene score", "inspection score", "sanitation score"],
        "description": "Latest routine hygiene inspection score, 0-100",
    },
    "flood_zone": {
        "type": "str",
        "synonyms": ["flood zone", "FEMA zone"],
        "description": "FEMA flood zone: X, AE or VE",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "site_height_ft": {
        "type": "float",
        "unit": "feet",
        "synonyms": ["site height", "ground height"],
        "description": "Site elevation above sea level, in feet",
    },
    "waste_status": {
        "type": "str",
        "synonyms": ["waste generator status", "LQG", "SQG"],
        "description": "Hazardous-waste generator class, lower case: none, sqg, lqg",
    },
    "backup_plan": {
        "type": "bool",
        "synonyms": ["written defrost plan", "defrost plan"],
        "description": "A written defrost plan covers the cold rooms",
    },
    "brine_heaters": {
        "type": "bool",
        "synonyms": ["brine heaters", "oil-fired brine heaters"],
        "description": "Oil-fired brine heaters are used for frost protection of the yard",
    },
    "public_docks": {
        "type": "int",
        "unit": "docks",
        "synonyms": ["public docks", "loading docks"],
        "description": "Public loading docks on the site",
    },
    "docks_gated": {
        "type": "bool",
        "synonyms": ["dock gates", "gated docks"],
        "description": "Every public dock has gates and warning lights",
    },
    "ammonia_work_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["ammonia retrofit work", "ammonia work share"],
        "description": "Share of revenue from ammonia retrofit work, in percent",
    },
    "brine_tank_liters": {
        "type": "int",
        "unit": "liters",
        "synonyms": ["brine tank capacity", "brine tanks"],
        "description": "Combined brine tank capacity, in liters",
    },
    "brine_kept_indoors": {
        "type": "bool",
        "synonyms": ["brine kept indoors", "indoor brine"],
        "description": "Spent brine is kept inside the building",
    },
    "frost_index": {
        "type": "float",
        "unit": "bar-m/s",
        "synonyms": ["frost index", "Kf"],
        "description": "Frost severity index of the coldest room, bar-m/s",
    },
    "rater_upload": {
        "type": "bool",
        "synonyms": ["comparative rater upload", "rater upload"],
        "description": "The application came in through a comparative rater",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS)


def _read(extractor, text: str, kind: str = "manual"):  # type: ignore[no-untyped-def]
    return extractor.extract(text, source="Cold Store Guide", source_type=kind)


# -- numbers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("less than two-tenths of a gallon per minute per square foot", 0.2, "gallon per minut"),
        ("within three-quarters of a mile of the shore", 0.75, "miles"),
        ("a quarter of an inch of ice", 0.25, "inch"),
        ("under two-tenths gpm/sq ft", 0.2, "gpm per square ft"),
    ],
)
def test_a_share_of_one_unit_is_counted_in_that_unit(text: str, value: float, unit: str) -> None:
    [number] = find_numbers(text)
    assert (number.value, number.unit) == (value, unit)


def test_a_share_of_a_thing_is_no_unit_and_an_ordinal_no_number() -> None:
    assert [(n.value, n.unit) for n in find_numbers("half of a building")] == [(0.5, None)]
    assert find_numbers("on the third floor") == []
    assert [n.value for n in find_numbers("a quarter of a million dollars")] == [250000.0]


def test_so_many_an_hour_is_a_frequency_not_a_duration() -> None:
    [plain] = find_numbers("fewer than eight an hour")
    [times] = find_numbers("fewer than eight times an hour")
    assert plain.unit is None
    assert times.unit == "time per hour"
    assert rate_fits("time per hour", "air changes/hour")
    assert not rate_fits("time per day", "air changes/hour")
    assert not rate_fits("time per hour", "hours")


# -- extraction -----------------------------------------------------------------------


def test_times_an_hour_reads_the_rate_field_not_hours(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "If the plant room turns its air over fewer than six times an hour, refer the "
        "account to the engineering desk before quoting.",
    )
    assert condition_set(rule) == {("room_air_changes", "lt", 6.0)}


def test_a_ratio_in_times_is_still_no_threshold(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "Rooms more than one and a half times the design size are referred.")
    assert all(c.value != 1.5 for r in rules for c in r.conditions)


def test_the_protection_a_limit_measures_is_no_mitigant(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "Where the cold rooms are protected by a sprinkler system designed to deliver less "
        "than two-tenths of a gallon per minute per square foot, the risk is referred.",
    )
    assert condition_set(rule) == {("spray_density_gpm_sqft", "lt", 0.2)}
    assert rule.mitigant_fields == []


def test_a_missing_protection_beside_a_measured_one_is_still_a_condition(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "Unsprinklered rooms with a spray density below 0.2 are referred.")
    assert condition_set(rule) == {
        ("spray_density_gpm_sqft", "lt", 0.2),
        ("sprinklered", "eq", False),
    }


def test_a_trade_opened_by_a_participle_is_a_class(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "Smoked fish shops on the BOP are referred to a team lead.")
    assert condition_set(rule) == {("occupancy", "eq", "smoked fish shop")}
    assert rule.product_type == "BOP"


def test_a_state_of_a_risk_is_no_class(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "Renovated warehouses are referred.")
    assert all(c.field != "occupancy" for r in rules for c in r.conditions)


# -- practice -------------------------------------------------------------------------


def _practice(extractor, body: str, known, kind: str = "production"):  # type: ignore[no-untyped-def]
    text = knowledge_text("log", body, kind, "2025-06-01")
    extracted = extractor.extract(
        text.text, source=text.source, source_type=text.source_type, text_id=text.id
    )
    return with_practice([text], extracted, known, DICTIONARY)


def _class_rule():  # type: ignore[no-untyped-def]
    return limit_rule(
        "defrost_backup_hours",
        "lt",
        6,
        rule_name="Blast Freezer Referral",
        conditions=[{"field": "occupancy", "operator": "eq", "value": "blast freezer"}],
        threshold=None,
        mitigant_fields=["ammonia_detector"],
    )


def test_a_protection_taken_in_place_of_another_joins_the_rule(extractor) -> None:  # type: ignore[no-untyped-def]
    known = [_class_rule()]
    claims = _practice(
        extractor,
        "Case CR-25-031, blast freezer, referred under the guidance. There is no ammonia "
        "detector in the plant room. Finding: aligned. A quarterly relief valve log is "
        "accepted as an alternative to an ammonia detector.",
        known,
    )
    assert [(condition_set(c), c.mitigant_fields) for c in claims] == [
        ({("occupancy", "eq", "blast freezer")}, ["relief_valve_log"])
    ]


def test_a_relief_in_a_text_naming_no_product_binds_the_rule_for_every_product(
    extractor,  # type: ignore[no-untyped-def]
) -> None:
    every = limit_rule("repeat_thaw_losses", "gt", 1, product_type="ALL", rule_name="Every")
    one = limit_rule(
        "repeat_thaw_losses", "gt", 2, product_type="Property", action="decline", rule_name="One"
    )
    claims = _practice(
        extractor,
        "Q: The guide refers any account with repeat thaw losses of a kind. Does that end in "
        "a decline?\nA: Rarely. Once the cause has been dealt with, I approve with conditions.",
        [every, one],
        kind="sme",
    )
    assert [(c.product_type, c.mitigant_fields) for c in claims] == [("ALL", ["cause_fixed"])]


def test_a_logs_table_row_is_read_with_its_columns_names() -> None:
    known = [limit_rule("spray_density_gpm_sqft", "lt", 0.2, product_type="Property")]
    text = knowledge_text(
        "log",
        "Cold rooms referred for low design density.\n"
        "Ref | Class | Design density | Outcome\n"
        "CR-1 | ice house | 0.18 | accepted\n"
        "CR-2 | blast freezer | 0.16 | accepted with a housekeeping warranty\n"
        "CR-3 | ice house | 0.11 | declined\n",
        "production",
    )
    [claim] = with_practice([text], [], known, DICTIONARY)
    assert claim.soft_limit == 0.16


def test_a_rule_therefore_retired_is_withdrawn(extractor) -> None:  # type: ignore[no-untyped-def]
    flag = limit_rule(
        "ammonia_detector",
        "eq",
        0,
        product_type="ALL",
        action="flag_for_review",
        threshold=None,
        conditions=[{"field": "ammonia_detector", "operator": "eq", "value": False}],
    )
    text = knowledge_text(
        "cb",
        "Bulletin CB-9. The review of plant rooms without an ammonia detector is therefore "
        "retired for all products.",
        "compliance",
    )
    extracted = extractor.extract(text.text, source=text.source, source_type="compliance")
    claims = with_practice([text], extracted, [flag], DICTIONARY)
    assert [(c.withdrawn, condition_set(c)) for c in claims] == [
        (True, {("ammonia_detector", "eq", False)})
    ]


def test_practice_on_one_products_limit_leaves_anothers_reading() -> None:
    bop = limit_rule("defrost_backup_hours", "lt", 6, rule_name="BOP backup")
    gl = limit_rule(
        "defrost_backup_hours", "lt", 6, product_type="GL", action="decline", rule_name="GL"
    )
    note = knowledge_text(
        "tn",
        "This note records how the BOP desk has handled the under-6 referral since the "
        "guide came out. Of 41 BOP referrals, 33 were written. The shortest defrost backup "
        "the desk accepted was 4 hours, on a plant that fitted an ammonia detector a week "
        "later; backups of 4 to 5 hours are routinely approved with conditions when an "
        "ammonia detector is fitted. For GL the rule stands as written: a plant with under "
        "6 hours of defrost backup is declined, and the GL desk has made no exceptions.",
        "training",
        "2025-02-10",
    )
    read = [
        bop.model_copy(
            update={
                "text_id": "tn",
                "soft_limit": 4.0,
                "threshold_type": "soft",
                "mitigant_fields": ["ammonia_detector"],
            }
        ),
        gl.model_copy(update={"text_id": "tn"}),
    ]
    claims = with_practice([note], read, [bop, gl], DICTIONARY)
    said = {(c.product_type, c.action, c.soft_limit, tuple(c.mitigant_fields)) for c in claims}
    assert said == {("BOP", "refer", 4.0, ("ammonia_detector",)), ("GL", "decline", None, ())}


# -- round 25, second part (read on blind28 consolidation) ------------------------------


def test_a_limit_moved_from_one_figure_to_another_keeps_the_new_one(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "Effective 1 May, the GL decline point moves from a routine hygiene score under 85 "
        "to a score under 80.",
        "compliance",
    )
    assert condition_set(rule) == {("hygiene_score", "lt", 80)}


def test_what_remains_declined_is_declined(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "GL accounts with a hygiene score below 80 remain declined.")
    assert (rule.action, condition_set(rule)) == ("decline", {("hygiene_score", "lt", 80)})


def test_where_questions_go_is_no_rule(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "Questions about the Idaho side of the border go to the desk lead.")
    assert rules == []


@pytest.mark.parametrize(
    "sentence",
    [
        "GL food accounts with a hygiene score below 80 are declined.",
        "Applications with a hygiene score below 80 are declined.",
    ],
)
def test_a_sector_or_a_paper_is_no_class(extractor, sentence: str) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, sentence)
    assert condition_set(rule) == {("hygiene_score", "lt", 80)}


def test_a_zones_letter_is_no_class() -> None:
    # no field lists the zones here: "X" is only a letter before "building"
    extractor = extractor_over({k: v for k, v in FIELDS.items() if k != "flood_zone"})
    rules = _read(
        extractor,
        "The flood zone alone is not a reason to refer: a zone X building at six feet still "
        "goes to the desk, and a zone AE building at fourteen feet does not.",
    )
    assert all(c.field != "occupancy" for r in rules for c in r.conditions)


def test_a_flag_no_longer_required_is_withdrawn(extractor) -> None:  # type: ignore[no-untyped-def]
    flag = limit_rule(
        "rater_upload",
        "eq",
        1,
        product_type="ALL",
        action="flag_for_review",
        threshold=None,
        conditions=[{"field": "rater_upload", "operator": "eq", "value": True}],
    )
    text = knowledge_text(
        "cb",
        "Bulletin CB-4. Rater uploads now pass a validation service, so the review flag on "
        "comparative rater uploads is no longer required on any line.",
        "compliance",
    )
    extracted = extractor.extract(text.text, source=text.source, source_type="compliance")
    claims = with_practice([text], extracted, [flag], DICTIONARY)
    assert [(c.action, c.withdrawn) for c in claims] == [("flag_for_review", True)]


# -- round 25, third part (read on blind30 extraction after its first score) -----------


def test_an_everyday_value_needs_its_field_named(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Confirm that the insured has a written defrost plan; where it has none, verify "
        "before binding that a plan has been adopted.",
        "compliance",
    )
    assert all(c.field != "waste_status" for r in rules for c in r.conditions)
    [rule] = _read(extractor, "Sites with a waste generator status of none are referred.")
    assert condition_set(rule) == {("waste_status", "eq", "none")}


def test_a_value_written_as_initials_is_read_when_said_in_full(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "Sites that are large quantity generators are referred.")
    assert condition_set(rule) == {("waste_status", "eq", "lqg")}


def test_a_decline_reconsidered_where_a_protection_holds_is_mitigated(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "A yard with more than a dozen public docks is declined. The decline is "
        "reconsidered only where every public dock has dock gates and warning lights; "
        "those risks go to the yard specialist as a referral instead.",
    )
    assert (rule.action, condition_set(rule)) == ("decline", {("public_docks", "gt", 12)})
    assert rule.mitigant_fields == ["docks_gated"]


def test_what_a_hazard_is_used_for_does_not_make_it_a_protection(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "Oil-fired brine heaters are a Property decline.")
    assert (rule.action, condition_set(rule)) == ("decline", {("brine_heaters", "eq", True)})


def test_any_of_a_share_is_more_than_none(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(extractor, "Accounts with any ammonia retrofit work are declined.")
    assert condition_set(rule) == {("ammonia_work_pct", "gt", 0)}


def test_a_numbered_section_ends_the_product_of_the_one_before(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Cold Store Property Manual, Chapter 3. 3.4 BOP. A store that runs its own brine "
        "heaters is declined on the BOP. 3.5 Brine tanks. Brine tanks with a combined "
        "capacity over 200,000 liters are written with the brine leakage exclusion.",
    )
    products = {r.action: r.product_type for r in rules}
    assert products["decline"] == "BOP"
    assert products["exclude"] != "BOP"


def test_a_thing_and_where_it_is_kept_is_no_class() -> None:
    subjects = SubjectReader(FieldVocabulary(DICTIONARY))
    assert subjects.read("Ice kept inside the store building is a decline") == []
    assert subjects.read("Ice houses are a decline") == ["ice house"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Roof questions cause more LRO referrals than anything else.",
        "Athena had recommended decline; decision quality divergent.",
        "Distribution lists for bulletins were updated; managers should confirm their teams "
        "receive them.",
    ],
)
def test_a_count_a_reviewers_word_or_a_mailing_list_is_no_rule(extractor, sentence: str) -> None:  # type: ignore[no-untyped-def]
    assert _read(extractor, sentence, "production") == []


def test_a_rating_code_is_no_range(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "A plant room with fewer than 9 air changes per hour - that is, below Class 1-9 - is "
        "referred.",
    )
    assert condition_set(rule) == {("room_air_changes", "lt", 9.0)}
    [ranged] = _read(extractor, "Plant rooms with 3-5 air changes per hour are referred.")
    assert condition_set(ranged) == {
        ("room_air_changes", "gte", 3.0),
        ("room_air_changes", "lte", 5.0),
    }


def test_a_word_a_description_names_is_no_value() -> None:
    described = "County of the site, lower case, without the word 'county' (e.g. 'marin')"
    assert parse_enum(described) == (["marin"], True)


def test_a_class_number_is_no_measured_value(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "On every product, a cold room in class F 2 or higher (frost index above 200) must "
        "be verified before binding.",
        "compliance",
    )
    assert all(c.value != 2 for r in rules for c in r.conditions)


def test_what_takes_away_the_need_to_refer_is_a_mitigant(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "When the store keeps more than 20 public docks, refer the risk to the yard desk. "
        "Dock gates on every dock take away the need to refer.",
    )
    assert (rule.action, condition_set(rule)) == ("refer", {("public_docks", "gt", 20)})
    assert rule.mitigant_fields == ["docks_gated"]


def test_what_makes_the_referral_unnecessary_is_a_mitigant(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "Where a store keeps more than 20 public docks, the submission is referred. Dock "
        "gates on every dock make the referral unnecessary.",
    )
    assert (rule.action, rule.mitigant_fields) == ("refer", ["docks_gated"])


def test_whatever_the_class_or_product_is_every_product(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "On Property, a store with more than 20 public docks is declined. Whatever the class "
        "or product, a hygiene score under 40 is an automatic decline.",
    )
    products = {c.field: r.product_type for r in rules for c in r.conditions}
    assert products == {"public_docks": "Property", "hygiene_score": "ALL"}


def test_no_exceptions_and_no_referral_is_emphasis(extractor) -> None:  # type: ignore[no-untyped-def]
    [rule] = _read(
        extractor,
        "A store with more than 20 public docks is declined, with no exceptions and no referral.",
    )
    assert (rule.action, condition_set(rule)) == ("decline", {("public_docks", "gt", 20)})
