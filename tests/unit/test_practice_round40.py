"""Round 40, read as claims: classes said as what the tenant is, the desk's limits said
inverted, short logs whose clauses each tell a case, and a case's figure labelled by the
head word of its field's synonym.

Every field and sentence below is made up for these tests (a cold-store and hay-barn
dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import BASE_FIELDS, knowledge_text, practice_claims, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "tenant class"],
        "description": "Business class, lower case: 'snail farm', 'leech farm', 'hay barn'",
    },
    "idle_months_per_year": {
        "type": "int",
        "unit": "months",
        "synonyms": ["months idle each year", "months shut"],
        "description": "Months a year the premises do not trade",
    },
    "cold_room_temp_gap_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["cold room reading gap", "logger mismatch"],
        "description": "Gap between declared and logged cold-room temperatures",
    },
    "bale_stack_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["bale stack height", "stack height"],
        "description": "Height of the tallest hay bale stack",
    },
    "loader_top_speed_mph": {
        "type": "int",
        "unit": "mph",
        "synonyms": ["loader top speed", "fastest loader"],
        "description": "Top speed of the fastest bale loader on the yard",
    },
    "stack_rating_lbs": {
        "type": "int",
        "unit": "lbs",
        "synonyms": ["stack load rating", "racking load class"],
        "description": "Rated load of the stacking system (Class 1-900 is 900 lbs)",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def test_a_class_said_as_what_the_tenant_is_is_the_rules_class() -> None:
    text = (
        "Where the tenant of a lessor's building is a snail farm or a leech farm, refer "
        "the submission to the LRO team lead."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("LRO", "refer", [("occupancy", "in", ["snail farm", "leech farm"])])
    ]


def test_never_written_at_the_desk_is_a_referral() -> None:
    text = (
        "Reminder for the LRO desk: snail farms are never written at the desk when they "
        "are the tenant. They go to the team lead as referrals - not declines."
    )
    assert rule_triples(EXTRACTOR, text, "training") == [
        ("LRO", "refer", [("occupancy", "eq", "snail farm")])
    ]


def test_the_others_of_an_accepted_range_named_by_a_comparative() -> None:
    text = (
        "Only yards whose loader top speed is at or under twelve miles per hour are fine "
        "for the desk; quicker loaders go to the farm underwriter on referral."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("loader_top_speed_mph", "gt", 12)])]


MANUAL = knowledge_text(
    "k01", "Any business with more than five months shut a year is referred.", "manual"
)


def test_a_short_log_whose_clauses_each_tell_a_case() -> None:
    log = knowledge_text(
        "k02",
        "Since the five-month line came in we have approved, after referral, a hay barn "
        "shut six months a year and a snail farm shut seven months over winter; a leech "
        "farm shut ten months was declined by the senior. Highest approved so far: seven "
        "months.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 7.0)]


def test_a_case_figure_labelled_by_its_synonyms_head_word() -> None:
    manual = knowledge_text(
        "k01",
        "A logger mismatch of more than 10% between declared and logged cold-room "
        "temperatures is referred.",
        "manual",
    )
    log = knowledge_text(
        "k02",
        "Cold-room referrals this quarter: CR-25-019, mismatch 12%, approved once the "
        "logs came in; CR-25-033, mismatch 14%, approved with conditions; CR-25-041, "
        "mismatch 37%, declined.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 14.0)]


def test_a_designation_after_the_head_word_is_no_figure() -> None:
    manual = knowledge_text(
        "k01", "A stack load rating under 800 lbs is referred on Property.", "manual"
    )
    log = knowledge_text(
        "k02",
        "Stack referrals below the 800 lbs minimum.\n"
        "HB-25-0907 | hay barn | Class 1-750 racking, tested | approved with conditions\n"
        "HB-25-0944 | hay barn | Class 1-500, original racking | not approved",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert all(c.soft_limit is None for c in claims)


def test_a_text_naming_no_product_moves_the_limit_known_on_one_product() -> None:
    first = knowledge_text(
        "k01", "On Property, refer any hay barn idle more than five months a year.", "manual"
    )
    later = knowledge_text(
        "k02",
        "Refer the risk only where the barn is idle more than seven months a year.",
        "manual",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, first, later)
    assert [(c.text_id, c.product_type) for c in claims] == [
        ("k01", "Property"),
        ("k02", "Property"),
    ]


def test_a_text_saying_every_line_keeps_its_rule_on_every_product() -> None:
    first = knowledge_text(
        "k01", "On Property, refer any hay barn idle more than five months a year.", "manual"
    )
    later = knowledge_text(
        "k02",
        "On every line, refer any business idle more than seven months a year.",
        "manual",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, first, later)
    assert [(c.text_id, c.product_type) for c in claims] == [("k01", "Property"), ("k02", "ALL")]


def test_our_liability_appetite_is_the_gl() -> None:
    text = (
        "A barn with a bale stack taller than 30 feet is outside our liability appetite "
        "and is declined."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("GL", "decline", [("bale_stack_height_ft", "gt", 30)])
    ]


def test_whichever_line_a_rule_arrives_on_is_every_line() -> None:
    first = knowledge_text(
        "k01", "On Property, refer any hay barn idle more than five months a year.", "manual"
    )
    later = knowledge_text(
        "k02",
        "A business idle more than seven months a year is referred on whichever line of "
        "business it arrives.",
        "manual",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, first, later)
    assert [(c.text_id, c.product_type) for c in claims] == [("k01", "Property"), ("k02", "ALL")]


def test_a_log_naming_a_class_without_its_business_word_bends_the_class_rule() -> None:
    dictionary = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "occupancy": {
                    "type": "str",
                    "synonyms": ["class of business"],
                    "description": "Business class, lower case: 'hay barn rental', 'snail farm'",
                },
                "night_hire_pct": {
                    "type": "float",
                    "unit": "percent",
                    "synonyms": ["night hire share"],
                    "description": "Share of hires after dark",
                },
            }
        }
    )
    extractor = OfflineExtractor(dictionary)
    manual = knowledge_text(
        "k01",
        "Hay barn rentals taking more than 15% of hires after dark are referred on GL.",
        "manual",
    )
    log = knowledge_text(
        "k02",
        "| Ref | Night hire share | Outcome |\n| --- | --- | --- |\n"
        "| HB-207 | 18% | approved with conditions |\n| HB-219 | 22% | approved with conditions |\n"
        "| HB-233 | 45% | declined |\n\nQA: aligned. Every hay barn took its night hires with "
        "a warden on site.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(extractor, dictionary, manual, log)
    assert [c.conditions[0].field for c in claims] == ["occupancy", "occupancy"]
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 22.0)]


def test_a_summing_up_line_is_no_case_of_its_own() -> None:
    dictionary = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "barn_warden_on_site": {
                    "type": "bool",
                    "synonyms": ["barn warden", "warden on site"],
                    "description": "A warden is on site through every hire",
                },
            }
        }
    )
    extractor = OfflineExtractor(dictionary)
    manual = knowledge_text(
        "k01", "Any business with more than five months shut a year is referred.", "manual"
    )
    log = knowledge_text(
        "k02",
        "Seven barn submissions came through in the half-year. Four were shut five months "
        "or less and went through normally. A hay barn shut six months with a barn warden "
        "on site was accepted after referral (HB-031). A snail farm shut nine months was "
        "declined (HB-044), as was a leech farm at ten months. Longest closure accepted in "
        "the period: six months.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(extractor, dictionary, manual, log)
    assert [(c.text_id, c.soft_limit, c.mitigant_fields) for c in claims] == [
        ("k01", None, []),
        ("k02", 6.0, ["barn_warden_on_site"]),
    ]
