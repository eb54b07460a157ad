"""Round 17: the means of a check, time since an event, participle subjects, exclusions.

Every field and sentence below is made up for these tests (a pet-transport dictionary no
dataset has).
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
        "description": "Class of business, lower case (e.g. 'pet transporter', 'kennel')",
    },
    "route_check_level": {
        "type": "str",
        "synonyms": ["route check", "route verification level"],
        "description": "How the route was checked: gps, logbook, dispatch or none (lower case)",
    },
    "license_age_months": {
        "type": "int",
        "unit": "months",
        "synonyms": ["transporter licensed", "months since licensing"],
        "description": "Months since the transporter was licensed",
    },
    "exotic_animal_transport": {
        "type": "bool",
        "synonyms": ["exotic animal runs", "exotics transported"],
        "description": "The transporter carries exotic animals",
    },
    "sprinkler_crate_design": {
        "type": "bool",
        "synonyms": ["crate misting design", "designs its own misting crates"],
        "description": "The insured designs its own sprinkler misting crates",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(extractor: OfflineExtractor, text: str, source_type: str = "manual") -> list[tuple]:
    return [(r.action, condition_set(r)) for r in extractor.extract(text, source_type=source_type)]


def test_the_means_of_a_check_in_parentheses_is_no_trigger(extractor: OfflineExtractor) -> None:
    text = (
        "When the route was only checked by logbook or dispatch, the route isn't confirmed; "
        "the underwriter verifies the route (gps trace, photos) before quoting."
    )
    [rule] = _rules(extractor, text, "sme")
    assert rule[0] == "verify"
    assert ("route_check_level", "in", ("logbook", "dispatch")) in rule[1], rule


def test_a_comparator_before_months_ago_bounds_the_time_since(extractor: OfflineExtractor) -> None:
    text = "A transporter licensed less than six months ago is flagged for review."
    [rule] = _rules(extractor, text, "compliance")
    assert rule == ("flag_for_review", {("license_age_months", "lt", 6)}), rule


def test_a_participle_subject_restating_a_flag_is_its_condition(
    extractor: OfflineExtractor,
) -> None:
    text = "Transporters carrying exotic animals are written with the exotics exclusion attached."
    [rule] = _rules(extractor, text)
    assert rule[0] == "exclude" and ("exotic_animal_transport", "eq", True) in rule[1], rule


def test_an_exclusion_conditioned_on_a_protective_sounding_flag_removes_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Where the insured designs its own misting crates, the GL policy is issued with the "
        "professional services exclusion."
    )
    [rule] = _rules(extractor, text)
    assert rule[0] == "exclude" and ("sprinkler_crate_design", "eq", True) in rule[1], rule


MORE = {
    **FIELDS,
    "deepest_run_ft": {
        "type": "int",
        "unit": "ft",
        "synonyms": ["deepest dive", "run depth"],
        "description": "Depth of the deepest dive the operator runs",
    },
    "exotic_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["exotic share", "share of exotic loads"],
        "description": "Share of loads that are exotic animals, in percent",
    },
}


@pytest.fixture(scope="module")
def more() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": MORE}))


def test_below_a_depth_is_deeper(more: OfflineExtractor) -> None:
    text = "If any run takes divers below 130 feet, the account is referred."
    [rule] = _rules(more, text)
    assert ("deepest_run_ft", "gt", 130.0) in rule[1], rule


def test_below_on_other_fields_stays_below(more: OfflineExtractor) -> None:
    text = "Transporters licensed below 6 months ago are referred."
    assert all(("license_age_months", "gt", 6) not in r[1] for r in _rules(more, text))


def test_n_of_every_m_is_a_share(more: OfflineExtractor) -> None:
    text = "Once the exotic share passes three of every ten loads, the transporter is referred."
    [rule] = _rules(more, text)
    assert ("exotic_share_pct", "gt", 30.0) in rule[1], rule


def test_a_question_names_the_field_of_the_bare_figure_after_it(more: OfflineExtractor) -> None:
    text = (
        "Q: The guide refers transporters with an exotic share above 40 percent. How do you "
        "handle them? A: Forty is a guideline. If the crates are misted, I approve with "
        "conditions well beyond forty."
    )
    rules = _rules(more, text, "sme")
    assert all(c[0] != "deepest_run_ft" for r in rules for c in r[1]), rules
    assert any(("exotic_share_pct", "gt", 40.0) in r[1] for r in rules), rules
