"""Knowledge that accumulates, round 3: texts about known rules, on invented fields and wording.

A carnival / fairground dictionary no dataset has. Each test is one mechanism by which a
later text speaks of a rule already known: the same limit written the other way on a
whole-number field, a bulletin naming the figure it replaces, an amendment, a
withdrawal that names the rule by what it does, a question about how far practice went,
a decision log's case past the limit.
"""

from __future__ import annotations

from typing import Any

import pytest

from agents.ingestion.conform import changes_known, conform, earlier_figures
from agents.ingestion.evidence import evidenced
from agents.ingestion.practice import read_approvals, with_practice
from agents.offline.extractor import OfflineExtractor
from memory.underwriting.consolidate import consolidate
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule
from tests.rules import knowledge_text as text
from tests.rules import limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'carnival', 'fairground')",
    },
    "ride_count": {
        "type": "int",
        "unit": "rides",
        "synonyms": ["rides", "ride count"],
        "description": "Number of mechanical rides on the lot",
    },
    "generator_fuel_gallons": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["generator fuel", "fuel stored"],
        "description": "Gallons of generator fuel stored on the lot",
    },
    "inflatable_count": {
        "type": "int",
        "unit": "inflatables",
        "synonyms": ["inflatables", "bounce houses"],
        "description": "Number of inflatable attractions",
    },
    "open_pit_count": {
        "type": "int",
        "unit": "pits",
        "synonyms": ["fire pits"],
        "description": "Open fire pits on the lot",
    },
    "open_permit_violations": {
        "type": "int",
        "unit": "violations",
        "synonyms": ["permit violations"],
        "description": "Open violations on the event permit",
    },
    "fenced_midway": {
        "type": "bool",
        "synonyms": ["fenced midway"],
        "description": "The midway is fenced with controlled gates",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def rule(
    field: str = "ride_count", op: str = "gt", value: float = 4, **update: Any
) -> ExtractedRule:
    return limit_rule(field, op, value, **update)


def shape(claim: ExtractedRule) -> tuple[str, list[tuple[str, str, Any]]]:
    return claim.product_type, [(c.field, c.operator, c.value) for c in claim.conditions]


# --- whole-number limits written the other way ------------------------------------------------


def test_two_or_more_on_a_whole_number_field_restates_more_than_one() -> None:
    known = rule(value=1, product_type="ALL")
    said = rule(op="gte", value=2, product_type="ALL", source_type="training", text_id="t")
    [claim] = conform([said], "Two or more rides go to a senior underwriter.", [known], DICTIONARY)
    assert shape(claim) == ("ALL", [("ride_count", "gt", 1)])
    assert claim.threshold is not None and claim.threshold.operator == "gt"
    [lineage] = consolidate([known, claim.model_copy(update={"date": "2024-01-01"})])
    assert lineage.current is not None and lineage.current.conditions[0].value == 1
    assert {s.text_id for s in lineage.current.sources} == {"guide", "t"}


def test_a_measured_field_is_not_stepped_and_an_unknown_limit_is_kept() -> None:
    known = rule("generator_fuel_gallons", "gt", 99)
    said = rule("generator_fuel_gallons", "gte", 100, text_id="t")
    assert shape(conform([said], "x", [known], DICTIONARY)[0])[1][0][1] == "gte"
    other = rule(op="gte", value=7, text_id="t")  # no known rule at 6
    assert shape(conform([other], "x", [rule()], DICTIONARY)[0])[1] == [("ride_count", "gte", 7)]


# --- a statement that names the figure it replaces -------------------------------------------


@pytest.mark.parametrize(
    ("body", "figures"),
    [
        ("This replaces the earlier figure of four in Part 3.", [4.0]),
        ("The earlier figure of four in Part C-14 no longer applies.", [4.0]),
        ("(the previous trigger of twenty no longer applies)", [20.0]),
        ("The line is raised from 20 to 24 rides.", [20.0]),
        ("From the date of this bulletin, more than 2 rides are referred.", []),
    ],
)
def test_earlier_figures_are_the_numbers_a_text_says_it_replaces(
    body: str, figures: list[float]
) -> None:
    assert earlier_figures(body) == figures


def test_a_bulletin_naming_the_earlier_figure_amends_that_rule_in_its_shape() -> None:
    known = rule()  # BOP ride_count > 4
    said = rule(
        value=6,
        product_type="ALL",
        source_type="compliance",
        text_id="cb",
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "carnival"},
            {"field": "ride_count", "operator": "gt", "value": 6},
        ],
    )
    body = (
        "A carnival running more than six rides is referred. "
        "This replaces the earlier figure of four."
    )
    assert changes_known(body)
    [claim] = conform([said], body, [known], DICTIONARY)
    assert shape(claim) == ("BOP", [("ride_count", "gt", 6)])
    [lineage] = consolidate([known, claim.model_copy(update={"date": "2025-02-01"})])
    assert [v.conditions[0].value for v in lineage.versions] == [4, 6]


def test_an_earlier_figure_that_fits_no_rule_or_clashes_leaves_the_claim_alone() -> None:
    said = rule(
        value=6,
        text_id="cb",
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "carnival"},
            {"field": "ride_count", "operator": "gt", "value": 6},
        ],
    )
    other_class = rule(
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "fairground"},
            {"field": "ride_count", "operator": "gt", "value": 4},
        ]
    )
    body = "More than six rides are referred; the previous figure was four."
    assert conform([said], body, [other_class], DICTIONARY) == [said]
    assert conform([said], "The previous figure was five.", [other_class], DICTIONARY) == [said]


# --- an amendment, and a withdrawal named by what the rule does --------------------------------


def test_an_amendment_takes_the_one_shape_of_the_known_rules_on_its_limit() -> None:
    known = rule("generator_fuel_gallons", "gt", 500, action="decline", product_type="Property")
    said = rule(
        "generator_fuel_gallons",
        "gt",
        500,
        product_type="Property",
        source_type="compliance",
        conditions=[
            {"field": "fenced_midway", "operator": "eq", "value": True},
            {"field": "generator_fuel_gallons", "operator": "gt", "value": 500},
        ],
    )
    body = "Section 3 is amended. Lots storing more than 500 gallons are no longer declined."
    [claim] = conform([said], body, [known], DICTIONARY)
    assert shape(claim) == ("Property", [("generator_fuel_gallons", "gt", 500)])
    # Without amendment words, or with two shapes known on the field, nothing is guessed.
    assert conform([said], "Lots storing more than 500 gallons.", [known], DICTIONARY) == [said]
    unfenced = [
        {"field": "inflatable_count", "operator": "gt", "value": 2},
        {"field": "generator_fuel_gallons", "operator": "gt", "value": 900},
    ]
    two = [known, rule("generator_fuel_gallons", "gt", 900, product_type="Property",
                       conditions=unfenced)]  # fmt: skip
    assert conform([said], body, two, DICTIONARY) == [said]


def test_a_withdrawal_naming_the_rule_by_its_content_ends_that_rule(
    extractor: OfflineExtractor,
) -> None:
    known = rule("inflatable_count", "gt", 3, action="decline", product_type="Property")
    body = (
        "Part C-7 of the Property guide (decline of lots with more than three inflatables) "
        "is withdrawn."
    )
    said = text("wd", body, kind="compliance", date="2025-09-15")
    read = extractor.extract(body, source=said.source, source_type="compliance", text_id="wd")
    [claim] = with_practice([said], read, [known], DICTIONARY)
    assert claim.withdrawn and shape(claim) == ("Property", [("inflatable_count", "gt", 3)])
    assert (claim.text_id, claim.date) == ("wd", "2025-09-15")
    # The withdrawal is the bulletin's claim, not a copy of the manual's rule.
    assert (claim.source, claim.source_type) == (said.source, "compliance")
    assert claim.sources == [] and claim.conflicts == []
    [lineage] = consolidate([known, claim])
    assert lineage.current is None  # ended, no successor
    # A withdrawal whose words name no known rule's limit withdraws nothing.
    other = rule("ride_count", "gt", 4, product_type="Property")
    assert not [c for c in with_practice([said], read, [other], DICTIONARY) if c.withdrawn]


def test_a_withdrawal_read_on_other_conditions_takes_the_shape_of_the_rule_it_names() -> None:
    known = rule("inflatable_count", "gt", 3, action="decline", product_type="Property")
    read = rule(
        "occupancy", "eq", 0, product_type="Property", withdrawn=True, text_id="wd",
        threshold=None, conditions=[{"field": "occupancy", "operator": "eq", "value": "lot"}],
    )  # fmt: skip
    body = "The decline of lots with more than three inflatables is withdrawn."
    [claim] = conform([read], body, [known], DICTIONARY)
    assert claim.withdrawn and shape(claim) == ("Property", [("inflatable_count", "gt", 3)])
    assert claim.threshold is not None and claim.threshold.field == "inflatable_count"
    # Read with no product, it takes the product of the rule it names.
    [anywhere] = conform(
        [read.model_copy(update={"product_type": "ALL"})], body, [known], DICTIONARY
    )
    assert shape(anywhere) == ("Property", [("inflatable_count", "gt", 3)])


@pytest.mark.parametrize(
    ("body", "changes"),
    [
        ("Section 4 of the carnival guide is amended.", True),
        ("Rule 7 on inflatables is withdrawn.", True),
        ("More than six rides are referred (previously four).", True),
        ("More than six rides are referred.", False),
    ],
)
def test_a_statement_that_changes_known_rules_is_told_from_one_that_only_states(
    body: str, changes: bool
) -> None:
    assert changes_known(body) is changes


# --- how far practice went, asked in a question ----------------------------------------------


@pytest.mark.parametrize(
    ("body", "soft"),
    [
        ("Q: The guide refers more than four rides. What's the most rides you've taken?\n"
         "A: Seven, at a county fair.", 7),
        ("Q: Rides over four come to you.\nA: Yes.\nQ: How many rides have you accepted?\n"
         "A: Six, all on fenced lots.", 6),
        ("Q: Is four rides firm?\nA: No. I have approved bigger lots.\nQ: How much bigger?\n"
         "A: The largest was a nine-ride lot with a fenced midway.", 9),
    ],
)  # fmt: skip
def test_an_answer_to_how_far_practice_went_is_the_soft_limit(body: str, soft: float) -> None:
    [claim] = read_approvals(text("sme", body), [rule()])
    assert claim.soft_limit == soft and claim.rule_name == rule().rule_name


@pytest.mark.parametrize(
    "body",
    [
        "Q: What's the most rides you've taken?\nA: None above four.",
        "Q: Would you go past seven rides?\nA: I haven't been asked.",
        "Q: How many rides does a county fair run?\nA: Seven or eight.",
    ],
)
def test_a_refusal_or_a_question_about_no_approval_is_no_soft_limit(body: str) -> None:
    assert read_approvals(text("sme", body), [rule()]) == []


def test_the_rule_whose_field_the_text_names_more_fully_takes_the_answer() -> None:
    pits = rule("open_pit_count", "gt", 2, product_type="ALL")
    violations = rule("open_permit_violations", "gt", 1, product_type="ALL")
    body = (
        "Q: More than one open permit violation is referred on every product. "
        "How do you handle those?\nA: With a correction plan I approve.\n"
        "Q: How many open items have you accepted?\nA: Three."
    )
    [claim] = read_approvals(text("sme", body), [pits, violations])
    assert claim.conditions[0].field == "open_permit_violations" and claim.soft_limit == 3


# --- a decision log's case is evidence, not a rule -------------------------------------------


def test_a_logged_decline_past_the_limit_is_no_rule_of_its_own(
    extractor: OfflineExtractor,
) -> None:
    known = rule("generator_fuel_gallons", "gt", 500, product_type="Property")
    said = text(
        "log",
        "Lot 12, carnival, more than 800 gallons of generator fuel - declined by the senior "
        "underwriter.",
        kind="production",
    )
    read = extractor.extract(said.text, source_type="production", text_id="log")
    claims = with_practice([said], read, [known], DICTIONARY)
    assert not [c for c in claims if c.action == "decline"]


# --- the rule a statement replaces, a restatement with no product -----------------------------


def test_the_rule_named_as_replaced_is_dropped_and_the_new_limit_amends_it() -> None:
    body = (
        "The referral for lots with more than 4 rides is replaced. From 1 May 2025, lots "
        "with more than 6 rides are declined."
    )
    assert earlier_figures(body) == [4.0]  # the date is no figure
    known = rule()
    old = rule(text_id="cb", source_type="compliance")
    new = rule(value=6, action="decline", text_id="cb", source_type="compliance")
    [claim] = conform([old, new], body, [known], DICTIONARY)
    assert (claim.action, shape(claim)) == ("decline", ("BOP", [("ride_count", "gt", 6)]))
    # A new band that starts at the old figure is no old rule.
    band = rule(
        text_id="cb", source_type="compliance",
        conditions=[{"field": "ride_count", "operator": "gte", "value": 4},
                    {"field": "ride_count", "operator": "lte", "value": 9}],
    )  # fmt: skip
    top = rule(value=9, action="decline", text_id="cb", source_type="compliance")
    body_band = "Lots over 9 rides are declined (previously referred above 4). 4 to 9: refer."
    assert len(conform([top, band], body_band, [known], DICTIONARY)) == 2
    # Without the words that name it replaced, both limits stay (two tiers of one text).
    assert len(conform([old, new], "Lots with more than 4 rides ...", [known], DICTIONARY)) == 2


def test_a_restatement_that_names_no_product_restates_the_one_known_rule() -> None:
    said = rule(product_type="ALL", source_type="training", text_id="t")
    body = "Lots with more than four rides go to a senior. This is the guide's rule restated."
    [claim] = conform([said], body, [rule()], DICTIONARY)
    assert claim.product_type == "BOP"
    # (since round 40, a text naming no product speaks of the one product its limit is
    # known on, restatement words or not; one that says every line keeps every product)
    every = "On every line, lots with more than four rides go to a senior."
    assert conform([said], every, [rule()], DICTIONARY)[0].product_type == "ALL"
    two = [rule(), rule(product_type="GL")]
    assert conform([said], body, two, DICTIONARY)[0].product_type == "ALL"


# --- decision logs: case lines, and fields named by their synonyms ----------------------------


def test_a_place_read_from_a_logged_case_line_is_no_rule() -> None:
    log = text("log", "07/11 | carnival, Tulsa OK | 5 rides | approved at the desk", "production")
    case = rule(
        "state", "eq", 0, text_id="log", source_type="production", threshold=None,
        conditions=[{"field": "state", "operator": "eq", "value": "OK"}],
        outcome_description="07/11 | carnival, Tulsa OK | 5 rides | approved at the desk",
    )  # fmt: skip
    stated = case.model_copy(update={"outcome_description": "Carnivals in Oklahoma are referred."})
    general = rule(
        text_id="log", source_type="production",
        outcome_description="07/12 | 9 rides | referred: lots over 4 rides are referred",
    )  # fmt: skip
    kept = with_practice([log], [case, stated, general], [], DICTIONARY)
    assert [r.outcome_description for r in kept] == [
        "Carnivals in Oklahoma are referred.",
        "07/12 | 9 rides | referred: lots over 4 rides are referred",
    ]


def test_a_logged_value_named_by_a_synonym_of_the_field_is_practice() -> None:
    known = rule("inflatable_count", "gt", 3)
    log = text(
        "log",
        "Carnival decision log.\n10/08 | county fair | 5 bounce houses | approved\n"
        "11/02 | church fete | 9 bounce houses | declined",
        "production",
    )
    [claim] = read_approvals(log, [known], DICTIONARY)
    assert claim.soft_limit == 5
    assert read_approvals(log, [known]) == []  # the field's name alone is not said


def test_a_class_of_several_words_is_evidenced_by_each_of_its_words() -> None:
    party = rule(
        "inflatable_count",
        "gt",
        3,
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "party rental"},
            {"field": "inflatable_count", "operator": "gt", "value": 3},
        ],
    )
    assert evidenced(party, "rental companies that run a party every weekend")
    assert not evidenced(party, "rental companies with inflatables")


# --- a rule restated with or without its business class ----------------------------------------


def test_a_limit_read_with_a_class_the_known_rule_lacks_is_that_rule() -> None:
    known = rule()  # BOP ride_count > 4, no class
    said = rule(
        value=6,
        text_id="t",
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "lot"},
            {"field": "ride_count", "operator": "gt", "value": 6},
        ],
    )
    [claim] = conform([said], "A lot with more than six rides is referred.", [known], DICTIONARY)
    assert shape(claim) == ("BOP", [("ride_count", "gt", 6)])


def test_a_limit_read_without_the_class_the_text_names_takes_it() -> None:
    known = rule(
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "fairground"},
            {"field": "ride_count", "operator": "gt", "value": 4},
        ]
    )
    said = rule(value=5, text_id="t", source_type="training")
    body = "Slide 3 - Fairgrounds. More than 5 rides: refer."
    [claim] = conform([said], body, [known], DICTIONARY)
    assert shape(claim)[1] == [("occupancy", "eq", "fairground"), ("ride_count", "gt", 5)]
    # A text that does not name the class, or two known classes: nothing is guessed.
    assert conform([said], "More than 5 rides: refer.", [known], DICTIONARY) == [said]
    other = known.model_copy(
        update={"conditions": [known.conditions[0].model_copy(update={"value": "carnival"}),
                               known.conditions[1]]}
    )  # fmt: skip
    both = "Fairgrounds and carnivals. More than 5 rides: refer."
    assert conform([said], both, [known, other], DICTIONARY) == [said]


def test_a_list_of_withdrawals_ends_the_rules_it_names() -> None:
    fuel = rule("generator_fuel_gallons", "gt", 500, product_type="Property")
    body = (
        "The following are withdrawn with effect from 1 May 2025. (1) Guide s.4, the "
        "referral of lots with more than 4 rides. (2) Property s.9, the referral of lots "
        "storing more than 500 gallons of generator fuel. Nothing else changes."
    )
    said = [
        rule(text_id="wd", source_type="compliance"),
        rule("generator_fuel_gallons", "gt", 500, product_type="Property", text_id="wd",
             source_type="compliance"),
    ]  # fmt: skip
    claims = conform(said, body, [rule(), fuel], DICTIONARY)
    assert [c.withdrawn for c in claims] == [True, True]
    [lineage] = consolidate([rule(), claims[0].model_copy(update={"date": "2025-05-01"})])
    assert lineage.current is None
    # The same claims in a text that withdraws nothing by a list are restatements.
    plain = "Lots with more than 4 rides are referred. The fuel referral stays."
    assert not any(c.withdrawn for c in conform(said, plain, [rule(), fuel], DICTIONARY))
    # A changed limit in a list of withdrawals is no restatement: it is not withdrawn.
    changed = [rule(value=6, text_id="wd", source_type="compliance")]
    assert not conform(changed, body, [rule()], DICTIONARY)[0].withdrawn


def test_a_calendar_year_in_a_logged_case_is_no_age_past_the_limit() -> None:
    fields = {
        **FIELDS,
        "survey_age_years": {
            "type": "float",
            "unit": "years",
            "synonyms": ["survey age", "years since the survey"],
            "description": "Years since the last ride survey",
        },
    }
    known = rule("survey_age_years", "gt", 5)
    log = text(
        "log",
        "Carnival referral log - lots whose ride survey is more than five years old.\n"
        "C-1 | 1920s carousel lot | survey 6.5 years old | approved with conditions\n"
        "C-2 | county fair | 7 years since the survey | approved with conditions",
        "production",
    )
    [claim] = read_approvals(log, [known], DataDictionary.model_validate({"fields": fields}))
    assert claim.soft_limit == 7


def test_a_protection_every_approved_case_had_is_practices_mitigant() -> None:
    known = rule("inflatable_count", "gt", 3)
    log = text(
        "log",
        "Carnival referral log.\n"
        "10/08 | county fair | 5 bounce houses | fenced midway with controlled gates | approved\n"
        "10/19 | harvest fete | 6 bounce houses | fenced midway | approved\n"
        "11/02 | church fete | 9 bounce houses | open lot | declined",
        "production",
    )
    [claim] = read_approvals(log, [known], DICTIONARY)
    assert claim.soft_limit == 6 and claim.mitigant_fields == ["fenced_midway"]


def test_a_protection_only_some_approved_cases_had_is_no_mitigant() -> None:
    known = rule("inflatable_count", "gt", 3)
    log = text(
        "log",
        "Carnival referral log.\n"
        "10/08 | county fair | 5 bounce houses | fenced midway | approved\n"
        "10/19 | harvest fete | 6 bounce houses | open lot, two stewards | approved",
        "production",
    )
    [claim] = read_approvals(log, [known], DICTIONARY)
    assert claim.soft_limit == 6 and claim.mitigant_fields == []
