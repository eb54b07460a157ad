"""Round 8: the dictionary read as written, and classes named by their head noun.

Every field and sentence below is made up for these tests (a glass-blowing / canal-lock
dictionary no dataset has). An apostrophe inside a description ("the building's tenant")
opens no quoted example, so the listed business classes stay readable.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.topic_class import head_class
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.profile import parse_enum
from memory.underwriting.fieldlink.stems import stem
from schemas.fields import DataDictionary
from tests.rules import condition_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case; for LRO the class of the building's "
        "tenant (e.g. 'glass studio', 'lock keeper', 'canal boat yard', 'farrier')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["furnaces", "glory holes"],
        "description": "Number of glass furnaces on the premises",
    },
    "annealer_alarm": {
        "type": "bool",
        "synonyms": ["annealer alarm", "kiln over-temperature alarm"],
        "description": "An over-temperature alarm is fitted to every annealer",
    },
    "farrier_certified": {
        "type": "bool",
        "synonyms": ["certified farrier"],
        "description": "Every farrier on staff holds a guild certificate",
    },
    "kiln_shipping": {
        "type": "bool",
        "synonyms": ["kiln shipping"],
        "description": "The studio ships finished kilns to customers",
    },
    "airflow_logged": {
        "type": "bool",
        "synonyms": ["vent log"],
        "description": "Fume hood airflow is measured and written down every shift",
    },
    "annual_payroll_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["payroll", "annual payroll"],
        "description": "Annual payroll in USD",
    },
    "loss_count_3yr": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["losses in the last three years", "loss frequency"],
        "description": "Number of losses in the last 3 years",
    },
    "loss_run_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years of loss runs", "loss history provided"],
        "description": "Years of loss runs provided",
    },
    "stories": {
        "type": "int",
        "unit": "stories",
        "synonyms": ["stories", "floors"],
        "description": "Number of stories above grade",
    },
    "floor_guards": {
        "type": "int",
        "unit": "guards",
        "synonyms": ["floor guards", "floor monitors"],
        "description": "Guards on the studio floor during open sessions",
    },
    "min_apprentice_age": {
        "type": "int",
        "unit": "years",
        "synonyms": ["youngest apprentice", "apprentices from age"],
        "description": "Youngest age at which apprentices are taken on",
    },
    "apprentice_benches": {
        "type": "int",
        "unit": "benches",
        "synonyms": ["apprentice benches", "benches for apprentices"],
        "description": "Number of benches set aside for apprentices",
    },
    "night_firings": {
        "type": "int",
        "unit": "firings per month",
        "synonyms": ["night firings", "overnight firings"],
        "description": "Kiln firings left running overnight in a month",
    },
    "firing_log": {
        "type": "bool",
        "synonyms": ["written firing log", "kiln firing log"],
        "description": "A written log of every kiln firing is kept",
    },
    "owner_kiln_check": {
        "type": "bool",
        "synonyms": ["owner kiln check", "proprietor walk-through"],
        "description": "The owner has personally inspected the kilns",
    },
    "steep_glass_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["steep glass share", "jobs over 8/12 pitch"],
        "description": "Share of jobs on roofs steeper than 8/12, in percent",
    },
    "kiln_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["kiln height", "height of the kiln stack"],
        "description": "Height of the tallest kiln stack",
    },
    "kiln_to_building_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["kiln separation", "distance from the kiln to the building"],
        "description": "Distance from the nearest kiln to the main building",
    },
    "employee_count": {
        "type": "int",
        "unit": "employees",
        "synonyms": ["employees", "staff"],
        "description": "Number of employees",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def test_an_apostrophe_in_a_description_opens_no_quoted_example() -> None:
    values, examples = parse_enum(FIELDS["occupancy"]["description"])  # type: ignore[arg-type]
    assert examples
    assert values == ["glass studio", "lock keeper", "canal boat yard", "farrier"]
    values, _ = parse_enum("Trade, lower case (e.g. 'farmer's market', 'smith')")
    assert values == ["farmer's market", "smith"]


def test_a_class_listed_after_an_apostrophe_scopes_its_rule(extractor: OfflineExtractor) -> None:
    # "farrier" is also a word of another field's name: only the listed class makes it one
    rules = extractor.extract("Farriers with more than 3 employees are referred.")
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("occupancy", "eq", "farrier"), ("employee_count", "gt", 3)})
    ]


def test_a_head_noun_points_back_at_the_class_named_before(extractor: OfflineExtractor) -> None:
    text = (
        "Canal and river boat yards are an eligible GL class. "
        "If the yard has more than 40 employees, we refer it."
    )
    assert [(r.action, condition_set(r)) for r in extractor.extract(text)] == [
        ("refer", {("occupancy", "eq", "canal boat yard"), ("employee_count", "gt", 40)})
    ]


def test_an_answer_speaks_of_the_class_its_question_names(extractor: OfflineExtractor) -> None:
    text = "Q: Farriers on GL. Where is your line?\nA: Past 12 employees I refer it."
    assert [(r.action, condition_set(r)) for r in extractor.extract(text)] == [
        ("refer", {("occupancy", "eq", "farrier"), ("employee_count", "gt", 12)})
    ]


@pytest.mark.parametrize(
    "text",
    [
        # a rule whose subject names no class holds across classes
        "Canal boat yards are an eligible GL class. Any risk with more than 40 employees "
        "is referred.",
        # a question naming two classes scopes nothing
        "Q: Farriers and glass studios on GL. Where is your line?\n"
        "A: Past 12 employees I refer it.",
    ],
)
def test_a_rule_without_a_class_in_context_stays_unscoped(
    extractor: OfflineExtractor, text: str
) -> None:
    rules = extractor.extract(text)
    assert rules
    assert all("occupancy" not in {c.field for c in r.conditions} for r in rules)


def test_a_noun_used_as_a_modifier_points_back_at_no_class() -> None:
    assert head_class("the widest tent in the rental inventory", ["tent rental"]) is None
    assert head_class("if the rental has a span over 40 feet", ["tent rental"]) == "tent rental"


def test_a_doubled_consonant_before_ed_or_ing_is_undone() -> None:
    assert stem("tanned") == stem("tanning") == stem("tan") == "tan"
    assert stem("referred") == stem("refer")
    assert (stem("filled"), stem("pressed"), stem("staffed")) == ("fill", "press", "staff")


def test_they_as_the_subject_of_an_action_is_the_risk_before(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Some studios ship kilns to their customers. They are referred; the referral may "
        "be cleared when every annealer has an annealer alarm."
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in extractor.extract(text)] == [
        ("refer", {("kiln_shipping", "eq", True)}, ["annealer_alarm"])
    ]


def test_a_missing_protection_is_a_condition_of_the_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Glass studios without an annealer alarm with over 3 furnaces are referred."
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        (
            "refer",
            {
                ("occupancy", "eq", "glass studio"),
                ("annealer_alarm", "eq", False),
                ("furnace_count", "gt", 3),
            },
            [],
        )
    ]


def test_with_the_protection_written_with_conditions_it_is_a_mitigant(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Glass studios without an annealer alarm with over 3 furnaces are referred; with one, "
        "they may be written subject to a quarterly kiln inspection."
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in extractor.extract(text)] == [
        (
            "refer",
            {("occupancy", "eq", "glass studio"), ("furnace_count", "gt", 3)},
            ["annealer_alarm"],
        )
    ]


def test_a_mitigant_told_in_the_dictionarys_own_words_names_its_flag(
    extractor: OfflineExtractor,
) -> None:
    mitigants = extractor.analyzer.mitigant_fields
    # "Fume hood airflow is measured and written down every shift", said another way
    assert mitigants("they measure the fume hood airflow every shift") == ["airflow_logged"]
    assert mitigants("the fume hood is cleaned") == []


def test_a_list_of_state_codes_names_no_business_class(extractor: OfflineExtractor) -> None:
    text = "For studios located in MN, WI or ME, the policy is written with a winter warranty."
    fields = {c.field for r in extractor.extract(text) for c in r.conditions}
    assert "occupancy" not in fields or all(
        c.value == "glass studio"
        for r in extractor.extract(text)
        for c in r.conditions
        if c.field == "occupancy"
    )


def test_an_imperative_scopes_to_the_class_it_names(extractor: OfflineExtractor) -> None:
    text = "Flag any farrier schedule with more than 12 employees for a payroll review."
    assert {("occupancy", "eq", "farrier")} <= condition_set(extractor.extract(text)[0])


def test_a_class_named_only_to_widen_the_rule_scopes_nothing(
    extractor: OfflineExtractor,
) -> None:
    text = "For any BOP risk, not only farriers, more than 12 employees is a referral."
    [rule] = extractor.extract(text)
    assert condition_set(rule) == {("employee_count", "gt", 12)}


def test_a_class_in_a_list_of_examples_scopes_nothing(extractor: OfflineExtractor) -> None:
    text = (
        "A shop open past midnight - farriers, glass studios, boat yards - with more than "
        "12 employees is referred."
    )
    [rule] = extractor.extract(text)
    assert "occupancy" not in {c.field for c in rule.conditions}


def test_a_list_after_a_colon_completes_the_conditions_before_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "For glass studios that ship kilns, the following states are closed: Maine, Vermont "
        "and Ohio. Decline these at intake."
    )
    [rule] = extractor.extract(text)
    assert rule.action == "decline"
    assert condition_set(rule) == {
        ("occupancy", "eq", "glass studio"),
        ("kiln_shipping", "eq", True),
        ("state", "in", ("ME", "VT", "OH")),
    }


def test_a_share_of_a_scale_word_is_one_number() -> None:
    [mention] = find_numbers("a quarter of a million dollars")
    assert (mention.value, mention.unit) == (250_000.0, "usd")
    [mention] = find_numbers("three quarters of a million")
    assert mention.value == 750_000.0


def test_money_in_words_names_a_money_field(extractor: OfflineExtractor) -> None:
    text = "A glass studio paying its staff more than two million dollars is referred."
    [rule] = extractor.extract(text)
    assert ("annual_payroll_usd", "gt", 2_000_000) in condition_set(rule)


def test_a_contracted_is_makes_a_passive_action(extractor: OfflineExtractor) -> None:
    text = "More than 3 furnaces and I want a second look, so it's flagged."
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule)) == ("flag_for_review", {("furnace_count", "gt", 3)})


def test_practice_in_the_rules_own_sentence_sets_its_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The guide refers any glass studio with more than 4 furnaces, but she has approved "
        "studios up to 6 furnaces herself and would go no further."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, rule.soft_limit) == ("refer", 6)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "passes" compares like "exceeds"
        (
            "Once a glass studio's payroll passes $900,000, the file is referred.",
            ("annual_payroll_usd", "gt", 900_000),
        ),
        # a contracted negation denies the flag after it
        (
            "If the studio doesn't have an annealer alarm, flag the file for review.",
            ("annealer_alarm", "eq", False),
        ),
    ],
)
def test_comparators_and_negations_of_everyday_speech(
    extractor: OfflineExtractor, text: str, expected: tuple[str, str, object]
) -> None:
    [rule] = extractor.extract(text)
    assert expected in condition_set(rule)


def test_a_concession_after_though_is_practice_not_a_narrative(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Three furnaces is the comfort zone. Four or more is a referral on paper, though she "
        "has signed off studios with as many as six furnaces when the file was clean."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule), rule.soft_limit) == (
        "refer",
        {("furnace_count", "gte", 4)},
        6,
    )


def test_going_to_a_figure_on_ones_own_signature_is_a_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Glass studios?\nA: Anything above 4 furnaces goes to referral. "
        "I'll go to six furnaces on my own signature. Over six, it goes up the chain."
    )
    refer = [r for r in extractor.extract(text) if r.action == "refer"]
    assert refer and refer[0].soft_limit == 6


def test_an_acronym_names_no_business_class(extractor: OfflineExtractor) -> None:
    subjects = extractor.analyzer.subjects
    assert subjects.read("QA will accept studios up to 4 furnaces") == []
    assert subjects.read("Farriers are referred") == ["farrier"]


def test_a_rule_after_a_placement_takes_the_product_placed_on(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Glass studios are ineligible for the BOP and must be declined on that program; they "
        "are written on monoline Property. Studios with more than 4 furnaces are referred."
    )
    products = {r.action: r.product_type for r in extractor.extract(text)}
    assert products == {"decline": "BOP", "refer": "Property"}


def test_carrying_no_surcharge_is_no_condition(extractor: OfflineExtractor) -> None:
    text = "Selling cullet to recyclers is the preferred practice and carries no surcharge."
    assert extractor.extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Glass studios carry the cullet-burn exclusion.",
        # a relative clause without "that" after a quantified subject
        "So: every glass studio we write on GL carries the cullet-burn exclusion.",
    ],
)
def test_a_class_that_carries_an_exclusion_is_excluded(
    extractor: OfflineExtractor, text: str
) -> None:
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule)) == (
        "exclude",
        {("occupancy", "eq", "glass studio")},
    )


def test_a_cap_is_the_limit_the_next_clause_acts_past(extractor: OfflineExtractor) -> None:
    text = (
        "Q: Glass studios on GL?\nA: Our guide caps the studio at twelve furnaces; anything "
        "bigger is referred.\nQ: Firm?\nA: We've gone to fourteen furnaces with a clean file."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, rule.soft_limit) == ("refer", 14)
    assert ("furnace_count", "gt", 12) in condition_set(rule)


def test_a_question_on_an_unlisted_class_ends_the_earlier_topic(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Do you write glass studios?\nA: Yes, with the cullet-burn exclusion attached.\n"
        "Q: Tattoo parlors?\nA: Declined.\nQ: Is there a size limit?\n"
        "A: We refer anything above 40 employees to middle market."
    )
    refer = [r for r in extractor.extract(text) if r.action == "refer"]
    assert [condition_set(r) for r in refer] == [{("employee_count", "gt", 40)}]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the field measured in losses, not the one whose name says "loss"
        ("More than two losses in three years is a referral.", ("loss_count_3yr", "gt", 2)),
        # "two floor guards" counts guards; "floor" is no unit of stories here
        ("Fewer than two floor guards during open sessions: refer.", ("floor_guards", "lt", 2)),
        # "younger than" asks for a field counted in years
        (
            "A studio that takes apprentices younger than sixteen is referred.",
            ("min_apprentice_age", "lt", 16),
        ),
    ],
)
def test_a_number_goes_to_the_field_its_unit_measures(
    extractor: OfflineExtractor, text: str, expected: tuple[str, str, int]
) -> None:
    [rule] = extractor.extract(text)
    assert expected in condition_set(rule)


def test_a_summary_with_fewer_conditions_is_no_broader_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Glass studios with more than 4 furnaces and no annealer alarm are declined on every "
        "product; we don't write glass studios without an annealer alarm."
    )
    [rule] = extractor.extract(text)
    assert len(rule.conditions) == 3


def test_above_that_acts_past_a_bound_and_practice_sets_its_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The guideline is no more than four night firings a month; above that, refer. In "
        "practice the desk has approved up to six a month; seven or more has always been "
        "referred."
    )
    [rule] = extractor.extract(text)
    assert (condition_set(rule), rule.soft_limit) == ({("night_firings", "gt", 4)}, 6)


def test_a_number_a_month_is_a_frequency_not_a_duration() -> None:
    [mention] = find_numbers("six a month")
    assert (mention.value, mention.unit) == (6.0, None)


def test_refer_once_opens_a_condition_not_a_subject(extractor: OfflineExtractor) -> None:
    text = "The guide says refer once furnaces number more than 4."
    [rule] = extractor.extract(text)
    assert condition_set(rule) == {("furnace_count", "gt", 4)}


def test_a_negation_inside_a_flags_phrase_denies_it(extractor: OfflineExtractor) -> None:
    text = "A glass studio whose farriers are not all certified is declined."
    [rule] = extractor.extract(text)
    assert ("farrier_certified", "eq", False) in condition_set(rule)


def test_a_clause_that_lacks_the_one_thing_named_before_denies_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "A written firing log is expected; if the application doesn't confirm one, verify it "
        "before quoting."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule)) == ("verify", {("firing_log", "eq", False)})


def test_a_prefixed_unit_converts_to_the_fields_unit() -> None:
    fields = {
        **FIELDS,
        "kiln_power_kw": {
            "type": "float",
            "unit": "kW",
            "synonyms": ["kiln power", "kiln rating"],
            "description": "Electrical rating of the largest kiln in kW",
        },
    }
    reader = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    [rule] = reader.extract("A kiln rating of one megawatt or more is declined.")
    assert ("kiln_power_kw", "gte", 1000) in condition_set(rule)


def test_a_denied_description_of_a_flag_names_it_absent(extractor: OfflineExtractor) -> None:
    # "The owner has personally inspected the kilns", denied inside the restatement
    text = "If the owner has not personally inspected the kilns, flag the file for review."
    [rule] = extractor.extract(text)
    assert ("owner_kiln_check", "eq", False) in condition_set(rule)


def test_a_ratio_that_names_the_field_is_no_threshold_and_a_comparative_points_back(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Jobs on roofs steeper than 8/12 may make up no more than 30% of the job count. "
        "A higher share is referred, unless the insured has an annealer alarm, in which case "
        "the referral can be cleared."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule), rule.mitigant_fields) == (
        "refer",
        {("steep_glass_pct", "gt", 30)},
        ["annealer_alarm"],
    )


def test_feet_from_a_building_is_a_distance(extractor: OfflineExtractor) -> None:
    text = (
        "Kiln stacks over 15 feet high are referred. Kilns must stand at least fifty feet "
        "from the main building. Closer kilns are referred."
    )
    fields = {c[0] for r in extractor.extract(text) for c in condition_set(r)}
    assert "kiln_to_building_ft" in fields


def test_a_referral_point_is_the_limit_practice_goes_past(extractor: OfflineExtractor) -> None:
    text = (
        "Furnaces (GL): the guideline referral point is four furnaces. We've signed off up to "
        "six on established studios."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, condition_set(rule), rule.soft_limit) == (
        "refer",
        {("furnace_count", "gt", 4)},
        6,
    )


def test_the_guideline_is_to_verify_states_a_rule_not_a_purpose(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The guideline is to verify payroll whenever a glass studio runs more than 4 "
        "furnaces. In practice studios up to six furnaces have been accepted."
    )
    [rule] = extractor.extract(text)
    assert (rule.action, rule.soft_limit) == ("verify", 6)
    assert ("furnace_count", "gt", 4) in condition_set(rule)
