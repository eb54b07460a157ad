"""Offline extraction round 32: review queues, "we exclude", finding out why, signed
figures described in words, rules a class is not subject to, flags that are things.

Every field and sentence below is made up for these tests (a bell-foundry dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'bell foundry', 'carillon tuner')",
    },
    "tower_climbs_monthly": {
        "type": "int",
        "unit": "climbs",
        "synonyms": ["tower climbs a month", "monthly tower climbs"],
        "description": "Bell tower climbs made in a typical month",
    },
    "clappers_chained": {
        "type": "bool",
        "synonyms": ["clappers chained", "clapper safety chains"],
        "description": "Every clapper hangs on a safety chain",
    },
    "bell_warranty_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["warranty length", "bell warranty term"],
        "description": "Length of the warranty given on a cast bell, years",
    },
    "prior_policy_cancelled": {
        "type": "bool",
        "synonyms": ["prior policy cancelled", "cancelled by the prior insurer"],
        "description": "The prior insurer cancelled the policy",
    },
    "quote_vs_floor_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["quote versus floor", "below the floor premium"],
        "description": "Quoted premium against the floor premium, in percent (-20 means 20% "
        "below the floor)",
    },
    "bronze_stock_tons": {
        "type": "float",
        "unit": "tons",
        "synonyms": ["bronze stock", "bronze on hand"],
        "description": "Tons of bronze held on site",
    },
    "pit_fumes_ducted": {
        "type": "bool",
        "synonyms": ["fume exhaust", "ducted exhaust"],
        "description": "Casting fumes are ducted to the outside",
    },
    "tower_inspection_current": {
        "type": "bool",
        "synonyms": ["tower inspection certificate", "current tower inspection"],
        "description": "A current tower inspection certificate is held",
    },
    "kiln_generator": {
        "type": "bool",
        "synonyms": ["onboard generator", "kiln generator"],
        "description": "The kilns are powered by an onboard generator",
    },
    "pennant_lighting_wired": {
        "type": "bool",
        "synonyms": ["pennant lighting wiring", "wired pennant lights"],
        "description": "The foundry wires lighting for pennants on its towers",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _read(extractor: OfflineExtractor, sentence: str) -> list[tuple[str, str, object]]:
    return [
        (rule.action, c.field, c.value)
        for rule in extractor.extract(sentence, source_type="manual")
        for c in rule.conditions
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Where the clappers are not chained, the foundry goes to the loss control review queue.",
        "Once a foundry makes more than 30 tower climbs a month I send it to review.",
        "More than 30 monthly tower climbs goes to review.",
    ],
)
def test_a_review_queue_is_a_flag_for_review(extractor: OfflineExtractor, sentence: str) -> None:
    (found,) = _read(extractor, sentence)
    assert found[0] == "flag_for_review"
    assert found[1] in {"clappers_chained", "tower_climbs_monthly"}


def test_a_review_of_a_thing_is_no_queue(extractor: OfflineExtractor) -> None:
    said = "The foundry sent its clapper safety chains for a review of their welds last year."
    assert extractor.extract(said, source_type="manual") == []


def test_we_exclude_names_an_exclusion(extractor: OfflineExtractor) -> None:
    said = (
        "For a warranty length longer than ten years we exclude the warranty obligation "
        "beyond the standard form; ten years or less is fine."
    )
    assert _read(extractor, said) == [("exclude", "bell_warranty_years", 10)]


def test_we_exclude_the_account_is_no_exclusion(extractor: OfflineExtractor) -> None:
    said = "With more than 30 tower climbs a month we exclude the account from the program."
    assert [a for a, _, _ in _read(extractor, said)] != ["exclude"]


def test_finding_out_why_before_quoting_is_a_check(extractor: OfflineExtractor) -> None:
    said = "When the prior insurer cancelled the policy, find out why before quoting."
    assert _read(extractor, said) == [("verify", "prior_policy_cancelled", True)]


def test_a_signed_figure_described_in_words_reads_below_as_negative(
    extractor: OfflineExtractor,
) -> None:
    said = "When our quote comes out more than forty percent below the floor premium, we decline."
    assert _read(extractor, said) == [("decline", "quote_vs_floor_pct", -40)]


def test_what_is_not_subject_to_a_referral_is_no_referral(extractor: OfflineExtractor) -> None:
    said = "Foundries with 12 tons of bronze on hand or less are not subject to the stock referral."
    assert extractor.extract(said, source_type="manual") == []


def test_a_flag_that_is_a_thing_is_no_flag_for_review(extractor: OfflineExtractor) -> None:
    said = (
        "Licensing boards require a licensed electrician for any wiring of tower lighting, "
        "including flag illumination on the pennant lighting wiring."
    )
    assert [a for a, _, _ in _read(extractor, said)] == []
    (found,) = _read(extractor, "We flag any foundry with wired pennant lights.")
    assert found[0] == "flag_for_review"


@pytest.mark.parametrize(
    "sentence",
    [
        "Where a foundry makes more than 30 tower climbs a month, bell-hanging injury is excluded.",
        "The tower work exclusion for steeplejacks is attached wherever a foundry makes more "
        "than 30 tower climbs a month.",
        "The tower work exclusion goes on every foundry making more than 30 tower climbs a month.",
        "More than 30 tower climbs a month requires the tower work exclusion.",
        "With more than 30 tower climbs a month, exclude the climbing crew by endorsement.",
        "With more than 30 tower climbs a month, climbing injury comes off the GL.",
    ],
)
def test_an_exclusion_said_many_ways_is_an_exclusion(
    extractor: OfflineExtractor, sentence: str
) -> None:
    assert _read(extractor, sentence) == [("exclude", "tower_climbs_monthly", 30)]


def test_a_class_excluded_is_no_exclusion_of_cover(extractor: OfflineExtractor) -> None:
    said = "Foundries making more than 30 tower climbs a month are excluded."
    assert [a for a, _, _ in _read(extractor, said)] != ["exclude"]


def test_a_partial_reading_of_a_sentence_gives_way_to_the_full_one(
    extractor: OfflineExtractor,
) -> None:
    said = (
        "The tower work exclusion applies to chained clappers: every bell foundry with more "
        "than 30 tower climbs a month and clappers chained carries the tower work exclusion."
    )
    rules = extractor.extract(said, source_type="manual")
    assert len(rules) == 1
    assert {c.field for c in rules[0].conditions} >= {"tower_climbs_monthly", "clappers_chained"}


def test_what_a_warranty_asks_for_is_no_trigger(extractor: OfflineExtractor) -> None:
    said = (
        "Where the casting fumes are not ducted to the outside, write it with the exhaust "
        "warranty (ducted exhaust, or a filter maintenance log, within sixty days)."
    )
    assert _read(extractor, said) == [("approve_with_conditions", "pit_fumes_ducted", False)]


def test_from_one_figure_up_to_another_is_a_range(extractor: OfflineExtractor) -> None:
    said = "Foundries holding from 12 up to 20 tons of bronze on hand are referred."
    assert sorted(_read(extractor, said), key=str) == [
        ("refer", "bronze_stock_tons", 12),
        ("refer", "bronze_stock_tons", 20),
    ]
    (rule,) = extractor.extract(said, source_type="manual")
    assert sorted(c.operator for c in rule.conditions) == ["gte", "lte"]


def test_one_thing_counted_opening_a_clause_is_one_or_more(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "One tower climb a month inside the past three years, I refer.", source_type="sme"
    )
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("tower_climbs_monthly", "gte", 1)
    ]


def test_one_as_a_pronoun_counts_nothing(extractor: OfflineExtractor) -> None:
    said = (
        "A foundry making more than 30 tower climbs a month is referred, although one that "
        "has clappers chained may be written with conditions."
    )
    assert ("tower_climbs_monthly", 1) not in [
        (c.field, c.value)
        for r in extractor.extract(said, source_type="manual")
        for c in r.conditions
    ]


def test_one_of_a_rate_is_no_count(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "One tower climb a month with more than 30 tower climbs a month is referred.",
        source_type="manual",
    )
    assert [(c.operator, c.value) for c in rule.conditions] == [("gt", 30)]


def test_a_present_thing_joined_to_a_missing_protection_is_a_condition(
    extractor: OfflineExtractor,
) -> None:
    (rule,) = extractor.extract(
        "Where the kilns run on an onboard generator and the clappers are not chained, refer.",
        source_type="manual",
    )
    assert sorted((c.field, c.value) for c in rule.conditions) == [
        ("clappers_chained", False),
        ("kiln_generator", True),
    ]
    assert rule.mitigant_fields == []


def test_what_may_stand_in_for_a_check_is_its_mitigant(extractor: OfflineExtractor) -> None:
    said = (
        "If the bronze stock is more than 12 tons, verify it before quoting. A tower "
        "inspection certificate no more than three years old can stand in for that "
        "verification."
    )
    (rule,) = extractor.extract(said, source_type="training")
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("bronze_stock_tons", "gt", 12)
    ]
    assert rule.mitigant_fields == ["tower_inspection_current"]


def test_a_fifth_under_a_minimum_is_a_share(extractor: OfflineExtractor) -> None:
    said = "Quotes that land more than a fifth below the floor premium go to a senior underwriter."
    assert _read(extractor, said) == [("refer", "quote_vs_floor_pct", -20)]


def test_settles_it_names_the_checks_mitigant(extractor: OfflineExtractor) -> None:
    said = (
        "Every bell foundry with more than 12 tons of bronze on hand has to be verified. A "
        "tower inspection certificate settles it."
    )
    (rule,) = extractor.extract(said, source_type="training")
    assert rule.action == "verify"
    assert rule.mitigant_fields == ["tower_inspection_current"]


def test_a_decision_word_names_no_protection() -> None:
    from agents.offline.textproc import content_tokens

    vocab = OfflineExtractor(
        DataDictionary.model_validate(
            {
                "fields": {
                    "guild_approval": {
                        "type": "bool",
                        "synonyms": ["guild approval", "casting approval"],
                        "description": "The foundry holds a guild casting approval certificate",
                    }
                }
            }
        )
    ).vocab
    said = "In practice pricing has approved two-year locks on loss-free foundries."
    assert vocab.named_flags(content_tokens(said)) == []
    assert [m.field for m in vocab.named_flags(content_tokens("Guild approval is on file."))] == [
        "guild_approval"
    ]


def test_what_does_not_change_a_decline_is_no_mitigant(extractor: OfflineExtractor) -> None:
    said = (
        "A foundry whose clappers are not chained is declined on any product. Staff training "
        "in tower inspection does not change the tower-chain decline."
    )
    rules = extractor.extract(said, source_type="manual")
    assert [(r.action, r.mitigant_fields) for r in rules] == [("decline", [])]


def test_days_a_week_are_days_per_week() -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    assert [(n.value, n.unit) for n in find_numbers("fewer than two days a week")] == [
        (2.0, "day per week")
    ]
    assert [(n.value, n.unit) for n in find_numbers("a 36-month lease")] == [(36.0, "months")]


def test_every_one_of_a_named_class_by_its_head_noun(extractor: OfflineExtractor) -> None:
    said = (
        "Bell foundries cast in open pits. Because clappers can fall, every foundry is "
        "referred on the GL unless a current tower inspection certificate is held."
    )
    (rule,) = extractor.extract(said, source_type="manual")
    assert [(c.field, c.value) for c in rule.conditions] == [("occupancy", "bell foundry")]
    assert rule.action == "refer"
    assert rule.mitigant_fields == ["tower_inspection_current"]
