"""Offline extraction round 31: a denied showing denies what it shows; a missing protection
names a risk; flags that are things; what practice credits with its approvals.

Every field and sentence below is made up for these tests (a chimney-sweep dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.ingestion.practice import with_practice
from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'chimney sweep', 'stove fitter')",
    },
    "soot_disposal_licensed": {
        "type": "bool",
        "synonyms": ["licensed soot disposal", "ash tip receipt"],
        "description": "Soot is taken to a licensed tip",
    },
    "roof_anchor_certificate": {
        "type": "bool",
        "synonyms": ["roof anchor certificate", "anchor test certificate"],
        "description": "A current roof anchor test certificate is held",
    },
    "flue_pits_unguarded": {
        "type": "bool",
        "synonyms": ["unguarded flue pits", "open flue pits"],
        "description": "Flue pits on the yard have no guard or fence",
    },
    "chimney_jobs_weekly": {
        "type": "int",
        "unit": "jobs",
        "synonyms": ["chimney jobs a week", "weekly sweeps"],
        "description": "Chimneys swept in a typical week",
    },
    "sweeps_sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "fully sprinklered"],
        "description": "The workshop is protected by automatic sprinklers",
    },
    "brushes_stored_sealed": {
        "type": "bool",
        "synonyms": ["brushes kept in sealed bins", "sealed brush bins"],
        "description": "Used brushes are kept in sealed metal bins",
    },
    "yard_unfenced": {
        "type": "bool",
        "synonyms": ["unfenced yard"],
        "description": "The stacking yard is unfenced, though a fence is planned",
    },
    "loft_unsprinklered": {
        "type": "bool",
        "synonyms": ["unsprinklered loft"],
        "description": "The brush loft is unsprinklered",
    },
    "masonry_chimney_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["share of masonry chimneys", "masonry chimney share"],
        "description": "Share of the chimneys swept that are masonry",
    },
    "chimney_build": {
        "type": "str",
        "synonyms": ["chimney construction"],
        "description": "How the main chimney is built: 'masonry', 'steel' or 'clay'",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _flags(extractor: OfflineExtractor, sentence: str) -> list[tuple[str, object]]:
    (rule,) = extractor.extract(sentence, source_type="manual")
    return [(c.field, c.value) for c in rule.conditions if c.field != "occupancy"]


@pytest.mark.parametrize(
    "sentence",
    [
        "A sweep that cannot show licensed soot disposal or an ash tip receipt is declined.",
        "A sweep that fails to produce an ash tip receipt is declined.",
        "A sweep unable to provide the yard's current ash tip receipt is declined.",
    ],
)
def test_a_denied_showing_denies_what_it_shows(extractor: OfflineExtractor, sentence: str) -> None:
    assert _flags(extractor, sentence) == [("soot_disposal_licensed", False)]


def test_a_shown_protection_stays_shown(extractor: OfflineExtractor) -> None:
    sentence = "A sweep that shows an ash tip receipt is approved with conditions."
    assert _flags(extractor, sentence) == [("soot_disposal_licensed", True)]


def test_a_missing_protection_is_a_risk_not_a_mitigant(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "A sweep with unguarded flue pits is referred.", source_type="manual"
    )
    assert [(c.field, c.value) for c in rule.conditions] == [("flue_pits_unguarded", True)]
    assert rule.mitigant_fields == []
    (rule,) = extractor.extract(
        "A sweep with an unsprinklered loft is referred.", source_type="manual"
    )
    assert [(c.field, c.value) for c in rule.conditions] == [("loft_unsprinklered", True)]
    assert rule.mitigant_fields == []
    (rule,) = extractor.extract("A sweep with an unfenced yard is referred.", source_type="manual")
    assert [(c.field, c.value) for c in rule.conditions] == [("yard_unfenced", True)]
    assert rule.mitigant_fields == []


def test_flags_that_are_things_are_no_flag_for_review(extractor: OfflineExtractor) -> None:
    said = (
        "This section covers sweeps who log weekly sweeps and mark roofs with paint and "
        "flags ahead of the crew."
    )
    assert extractor.extract(said, source_type="manual") == []
    (rule,) = extractor.extract(
        "The guide flags any sweep doing more than 40 chimney jobs a week.", source_type="manual"
    )
    assert rule.action == "flag_for_review"


def _practice(extractor: OfflineExtractor, body: str) -> list[ExtractedRule]:
    manual = KnowledgeText(
        id="m1",
        text="BOP: a sweep doing more than 40 chimney jobs a week is referred.",
        source="Sweep Manual",
        source_type="manual",
        date="2024-01-10",
    )
    note = KnowledgeText(
        id="s1", text=body, source="Sweep desk notes", source_type="sme", date="2024-06-01"
    )
    extracted = [
        rule
        for t in (manual, note)
        for rule in extractor.extract(
            t.text, source=t.source, source_type=t.source_type, text_id=t.id
        )
    ]
    return [
        c for c in with_practice([manual, note], extracted, [], DICTIONARY) if c.text_id == "s1"
    ]


@pytest.mark.parametrize(
    ("said", "field"),
    [
        (
            "Forty chimney jobs a week is where the desk stops. A fully sprinklered workshop "
            "is the one thing that makes her comfortable with any number.",
            "sweeps_sprinklered",
        ),
        (
            "Forty chimney jobs a week is where the desk stops. Keeping used brushes in "
            "sealed brush bins is now accepted as a mitigating factor.",
            "brushes_stored_sealed",
        ),
        (
            "Forty chimney jobs a week is where the desk stops, but the underwriters treated "
            "sealed brush bins as the deciding factor.",
            "brushes_stored_sealed",
        ),
        (
            "Forty chimney jobs a week is where the desk stops. Sealed brush bins change the "
            "picture for me whatever the count.",
            "brushes_stored_sealed",
        ),
        (
            "Forty chimney jobs a week is where the desk stops. Learning: sealed brush bins "
            "have been treated as sufficient.",
            "brushes_stored_sealed",
        ),
    ],
)
def test_what_practice_credits_is_a_mitigant_of_the_rule(
    extractor: OfflineExtractor, said: str, field: str
) -> None:
    claims = _practice(extractor, said)
    assert [c.mitigant_fields for c in claims] == [[field]]
    assert [(c.conditions[0].field, c.conditions[0].value) for c in claims] == [
        ("chimney_jobs_weekly", 40)
    ]


def test_a_past_tense_condition_of_a_present_rule_is_a_rule(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "If more than forty chimney jobs a week were booked, the account is referred.",
        source_type="manual",
    )
    assert (rule.action, [(c.field, c.value) for c in rule.conditions]) == (
        "refer",
        [("chimney_jobs_weekly", 40)],
    )


def test_since_a_document_is_no_clause_of_its_own(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "Remember that since CB-2031-04 a sweep doing more than forty chimney jobs a week "
        "is a declination.",
        source_type="training",
    )
    assert rule.action == "decline"


def test_a_word_of_the_measured_field_is_no_class_of_its_own(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "Where less than 50% of the chimneys swept are masonry, refer to the team lead.",
        source_type="manual",
    )
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("masonry_chimney_pct", "lt", 50)
    ]
    (rule,) = extractor.extract("A masonry chimney build is referred.", source_type="manual")
    assert [(c.field, c.value) for c in rule.conditions] == [("chimney_build", "masonry")]


def test_the_furthest_practice_went_is_said_after_the_cases(extractor: OfflineExtractor) -> None:
    claims = _practice(
        extractor,
        "Q: The guidelines refer more than forty chimney jobs a week. What do you do? "
        "A: It's a guideline, not a wall. I've signed off on forty-five and on fifty chimney "
        "jobs a week. Fifty is the most I've approved.",
    )
    assert [c.soft_limit for c in claims] == [50]


def _with_classes(description: str) -> DataDictionary:
    """The chimney dictionary with an occupancy field described as given."""
    occupancy = {"type": "str", "synonyms": ["class of business"], "description": description}
    return DataDictionary.model_validate({"fields": {**FIELDS, "occupancy": occupancy}})


LISTED = _with_classes(
    "Business class, lower case, one of: 'chimney sweep', 'stove fitter', 'flue liner shop', "
    "'log store', 'ash tip', 'bell foundry', 'kiln yard', 'coal merchant', 'soot works building'"
)


@pytest.mark.parametrize(
    ("sentence", "action", "named"),
    [
        (
            "Every chimney sweep submission is held to verify the state licence.",
            "verify",
            "chimney sweep",
        ),
        (
            "Every policy on a chimney sweep risk must carry the soot exclusion.",
            "exclude",
            "chimney sweep",
        ),
        (
            "On BOP, every soot works building has to be verified for its flue pits.",
            "verify",
            "soot works building",
        ),
    ],
)
def test_a_listed_class_opens_its_file_and_verb(sentence: str, action: str, named: str) -> None:
    rules = OfflineExtractor(LISTED).extract(sentence, source_type="manual")
    assert [(r.action, [(c.field, c.value) for c in r.conditions]) for r in rules] == [
        (action, [("occupancy", named)])
    ]


def test_the_other_side_of_a_condition_is_no_mitigant(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "A sweep without a roof anchor certificate is declined. Where that certificate is "
        "installed and current, this item needs nothing further.",
        source_type="manual",
    )
    assert [(c.field, c.value) for c in rule.conditions] == [("roof_anchor_certificate", False)]
    assert rule.mitigant_fields == []


@pytest.mark.parametrize(
    "sentence",
    [
        "From March 9, 2031, soot works are declined; they are no longer referred.",
        "Effective 9 March 2031 soot works are declined.",
        "As of March 2031, soot works are declined.",
    ],
)
def test_a_date_opening_a_rule_is_when_not_what(sentence: str) -> None:
    dictionary = _with_classes("Business class, lower case (e.g. 'chimney sweep')")
    rules = OfflineExtractor(dictionary).extract(sentence, source_type="compliance")
    assert [(r.action, [(c.field, c.value) for c in r.conditions]) for r in rules] == [
        ("decline", [("occupancy", "soot works")])  # a works is one or many alike
    ]


def test_cases_approved_on_appeal_say_how_far_practice_went(extractor: OfflineExtractor) -> None:
    claims = _practice(
        extractor,
        "Nine sweeps were declined under the manual this quarter. Two went to the regional "
        "manager on appeal and were approved with conditions: one with 44 jobs and one "
        "with 48 jobs, both with sealed brush bins. The other seven declinations stood.",
    )
    assert [c.soft_limit for c in claims] == [48]


def test_a_rate_or_a_period_is_no_count_of_the_field(extractor: OfflineExtractor) -> None:
    claims = _practice(
        extractor,
        "Two sweeps went to the regional manager on appeal and were approved over 8 weeks "
        "of review. Nothing else changed.",
    )
    assert claims == []


def test_a_case_counts_the_head_of_a_synonym() -> None:
    from agents.ingestion.evidence import field_near
    from memory.underwriting.fieldlink.numbers import find_numbers

    dictionary = DataDictionary.model_validate(
        {
            "fields": {
                "flue_fires_5yr": {
                    "type": "int",
                    "unit": "fires",
                    "synonyms": ["chimney fire callouts", "callouts in five years"],
                    "description": "Chimney fires attended by the fire service in five years",
                }
            }
        }
    )
    rule = ExtractedRule.model_validate(
        {
            "rule_name": "Flue Fires Over 2 Referral",
            "risk_factor": "Flue fires",
            "risk_category": "eligibility",
            "product_type": "BOP",
            "action": "refer",
            "threshold": {"field": "flue_fires_5yr", "operator": "gt", "value": 2},
            "conditions": [{"field": "flue_fires_5yr", "operator": "gt", "value": 2}],
            "source": "Manual",
            "source_type": "manual",
        }
    )
    line = "approved: a sweep with five callouts and one over 9 years"
    five, _, nine = find_numbers(line)  # five, one, 9
    assert field_near(rule, line, five, dictionary)
    assert not field_near(rule, line, nine, dictionary)  # years end "callouts in five years"
    # a share's synonym head is no count of it: "48 callouts" is no share of callouts
    share = DataDictionary.model_validate(
        {
            "fields": {
                "flue_fires_5yr": {
                    "type": "float",
                    "unit": "percent",
                    "synonyms": ["chimney fire callouts"],
                    "description": "Share of jobs that ended in a callout, in percent",
                }
            }
        }
    )
    assert not field_near(rule, line, five, share)


def test_every_product_set_as_the_scope_places_what_follows(extractor: OfflineExtractor) -> None:
    text = (
        "Sweep counts drive GL rating. On every product, count the chimney jobs from the "
        "diary. More than 40 chimney jobs a week are referred."
    )
    assert [r.product_type for r in extractor.extract(text, source_type="training")] == ["ALL"]
    # a rule of its own on every product scopes nothing after it
    text = (
        "Sweeps without an ash tip receipt are a decline on every product. "
        "On the GL, more than 40 chimney jobs a week are referred."
    )
    assert [r.product_type for r in extractor.extract(text, source_type="manual")] == [
        "ALL",
        "GL",
    ]
    text = (
        "8.1 Sweeps on the GL need care. 8.2 Sweeps without an ash tip receipt are a decline "
        "on every product. 8.3 More than 40 chimney jobs a week are referred."
    )
    assert [r.product_type for r in extractor.extract(text, source_type="manual")] == [
        "ALL",
        "GL",
    ]


def test_a_class_row_that_narrows_nothing_is_the_class_rule() -> None:
    text = (
        "| Class | Requirement | Action |\n|---|---|---|\n"
        "| Chimney sweep | All submissions (masonry chimneys) | Refer to a senior |\n"
        "| Stove fitter | Eligible; flue tests are conditions of the quote | Approve with "
        "conditions |\n"
    )
    rules = OfflineExtractor(LISTED).extract(text, source_type="manual")
    assert sorted((r.action, [(c.field, c.value) for c in r.conditions]) for r in rules) == [
        ("approve_with_conditions", [("occupancy", "stove fitter")]),
        ("refer", [("occupancy", "chimney sweep")]),
    ]
    (rule,) = OfflineExtractor(LISTED).extract(
        "Stove fitter: write with the flue test condition.", source_type="manual"
    )
    assert (rule.action, rule.conditions[0].value) == ("approve_with_conditions", "stove fitter")


def test_what_a_rule_used_to_be_is_history(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "If a sweep does more than 40 chimney jobs a week, the account is a referral to the "
        "team lead - it used to be a straight decline, but that changed last July.",
        source_type="training",
    )
    assert rule.action == "refer"


def test_the_furthest_said_keeps_the_cases_it_follows() -> None:
    from agents.offline.practice_text import read_limits

    (reading,) = read_limits(
        "Q: The guidelines refer more than forty chimney jobs a week. A: It's a guideline. "
        "I've signed off on forty-five and on fifty chimney jobs a week. Fifty is the most "
        "I've approved. Q: Anything else? A: No."
    )
    assert reading.soft_limit == 50
    assert "signed off on forty-five and on fifty" in reading.sentence
