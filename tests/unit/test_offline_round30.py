"""Offline extraction round 30: a refusal to write names what it refuses; a generic
adjective opens a class name.

Every field and sentence below is made up for these tests (a bell-foundry dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.noun_phrases import noun_phrase
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'bell foundry', 'organ builder')",
    },
    "open_pit_casting": {
        "type": "bool",
        "synonyms": ["open pit casting", "pit pours"],
        "description": "The foundry pours bells in an open casting pit",
    },
    "kiln_test_report": {
        "type": "bool",
        "synonyms": ["kiln-level fire test report", "UL 2000K kiln test report"],
        "description": "The maker's UL 2000K kiln-level fire test report is on file",
    },
    "kiln_firewalls": {
        "type": "bool",
        "synonyms": ["rated firewalls between kilns", "firewalls separate the kilns"],
        "description": "Rated firewalls separate the kilns",
    },
    "kiln_gap_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["clear gap between kilns", "kiln spacing"],
        "description": "Clear distance between neighbouring kilns in feet",
    },
    "rigging_warranty": {
        "type": "bool",
        "synonyms": ["rigging warranty"],
        "description": "A rigging warranty is attached to every tower job",
    },
    "tower_hanging_jobs": {
        "type": "int",
        "unit": "jobs",
        "synonyms": ["tower hanging jobs", "bells hung in towers"],
        "description": "Bells hung in towers by the applicant in the past year",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


@pytest.mark.parametrize(
    "sentence",
    [
        "We do not write open pit casting in any form.",
        "We won't write open pit casting.",
        "We do not insure open pit casting, whatever the size of the foundry.",
    ],
)
def test_a_refusal_to_write_declines_what_it_names(
    extractor: OfflineExtractor, sentence: str
) -> None:
    (rule,) = extractor.extract(sentence, source_type="manual")
    assert rule.action == "decline"
    assert [(c.field, c.value) for c in rule.conditions] == [("open_pit_casting", True)]


def test_a_denied_flag_is_still_denied(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "A foundry that does not use open pit casting is approved with conditions.",
        source_type="manual",
    )
    assert [(c.field, c.value) for c in rule.conditions] == [("open_pit_casting", False)]


@pytest.mark.parametrize(
    ("clause", "phrase"),
    [
        (
            "Every commercial diving contractor must carry the exclusion",
            "Every commercial diving contractor",
        ),
        ("Commercial roofing firms are referred", "Commercial roofing firms"),
        ("roofers using torches are declined", "roofers"),
        ("Peat moss bagging plants are referred", "Peat moss bagging plants"),
    ],
)
def test_a_generic_adjective_does_not_end_a_class_name(clause: str, phrase: str) -> None:
    assert noun_phrase(clause) == phrase


def test_a_spaced_table_with_wrapped_cells_reads_every_row(extractor: OfflineExtractor) -> None:
    text = (
        "Bell foundries are eligible for the GL. Apply the grid below.\n\n"
        "EXPOSURE                 THRESHOLD                 TREATMENT\n"
        "Tower hanging            more than 12 jobs         Refer, unless a rigging\n"
        "                                                   warranty is on every job\n"
        "Pit pours                any                       Write subject to a fenced\n"
        "                                                   pit\n"
    )
    rules = extractor.extract(text, source_type="manual")
    hanging = [r for r in rules if any(c.field == "tower_hanging_jobs" for c in r.conditions)]
    assert [(r.action, r.mitigant_fields) for r in hanging] == [("refer", ["rigging_warranty"])]


def test_an_amendment_table_reads_its_new_column(extractor: OfflineExtractor) -> None:
    text = (
        "Effective 1 May 2025, the tower rule is amended. The referral now starts lower:\n\n"
        "| | Before this bulletin | From 1 May 2025 |\n"
        "|---|---|---|\n"
        "| Tower hanging jobs that must be referred (GL) | more than 12 jobs | more than 8 jobs |\n"
    )
    rules = extractor.extract(text, source_type="compliance")
    assert [(c.field, c.value) for r in rules for c in r.conditions] == [("tower_hanging_jobs", 8)]


def test_may_write_without_that_referral_spares_the_rule_before(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "11.2 Size. A foundry whose tower hanging jobs are above twenty a year goes to the "
        "tower desk as a referral. Where the maker's UL 2000K kiln-level fire test report is "
        "already in the file, the line underwriter may write the foundry on the standard "
        "foundry warranty without that referral.",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("refer", ["kiln_test_report"])]


def test_referred_rather_than_declined_softens_the_decline(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "11.3 Spacing. Kilns have to stand apart. A clear gap of ten feet or more between "
        "neighbouring kilns is acceptable; anything tighter is a decline. The one exception: "
        "where rated firewalls separate the kilns, a tight layout is referred to the tower desk "
        "rather than declined.",
        source_type="manual",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("decline", ["kiln_firewalls"])]


def test_a_clause_after_a_colon_bounds_the_class_rule_before_it(
    extractor: OfflineExtractor,
) -> None:
    (rule,) = extractor.extract(
        "Bell foundries are referred: anything with more than 12 tower hanging jobs a year.",
        source_type="sme",
    )
    assert rule.action == "refer"
    assert ("tower_hanging_jobs", 12) in [(c.field, c.value) for c in rule.conditions]


def test_a_flag_of_trouble_is_a_trigger_even_with_a_protective_word() -> None:
    dictionary = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "open_bell_dispute": {
                    "type": "bool",
                    "synonyms": ["disputed claim", "appraisal or suit against the insurer"],
                    "description": "The foundry is in an open dispute with its prior insurer",
                },
                "dispute_letter": {
                    "type": "bool",
                    "synonyms": ["settlement letter", "signed release"],
                    "description": "A signed settlement letter ending the dispute is on file",
                },
            }
        }
    )
    rules = OfflineExtractor(dictionary).extract(
        "Any foundry with a disputed claim is flagged for review; the flag clears once a "
        "signed settlement letter ends the dispute.",
        source_type="manual",
    )
    assert [
        (r.action, [(c.field, c.value) for c in r.conditions], r.mitigant_fields) for r in rules
    ] == [("flag_for_review", [("open_bell_dispute", True)], ["dispute_letter"])]


def test_a_column_named_for_what_its_cells_are_adds_no_subject(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Exercise table:\n"
        "| Pattern on the foundry file | What you do |\n"
        "| --- | --- |\n"
        "| More than 12 tower hanging jobs in a year | Refer |\n"
    )
    (rule,) = extractor.extract(text, source_type="training")
    assert [(c.field, c.value) for c in rule.conditions] == [("tower_hanging_jobs", 12)]


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("A foundry that has hung bells in towers more than three times in a year is referred.", 3),
        ("A foundry that has hung bells in towers more than twice in a year is referred.", 2),
    ],
)
def test_a_count_of_occurrences_is_a_threshold(
    extractor: OfflineExtractor, sentence: str, value: int
) -> None:
    (rule,) = extractor.extract(sentence, source_type="manual")
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("tower_hanging_jobs", "gt", value)
    ]


def test_a_table_of_limits_in_words_acts_once_you_pass_them(extractor: OfflineExtractor) -> None:
    text = (
        "Use the table.\n"
        "| Program | Tower hanging jobs allowed before action | What happens once you pass it |\n"
        "| --- | --- | --- |\n"
        "| General Liability | twelve | Refer to the tower desk |\n"
    )
    (rule,) = extractor.extract(text, source_type="training")
    assert (rule.action, rule.product_type) == ("refer", "GL")
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("tower_hanging_jobs", "gt", 12)
    ]


def test_an_interview_question_may_name_a_class_without_its_generic_head() -> None:
    fields = {
        **FIELDS,
        "occupancy": {
            "type": "str",
            "synonyms": ["class"],
            "description": "Business class, lower case (e.g. 'bell casting firm', 'organ builder')",
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    rules = extractor.extract(
        "Q: Bell casters?\nA: More than twelve tower hanging jobs a year is a referral.",
        source_type="sme",
    )
    assert [(c.field, c.value) for r in rules for c in r.conditions if c.field == "occupancy"] == [
        ("occupancy", "bell casting firm")
    ]
