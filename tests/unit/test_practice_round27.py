"""Practice round 27: what makes a limit matter less, how far down practice went, who spoke.

Every field and sentence below is made up for these tests (a violin-workshop dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.ingestion.practice import with_practice
from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'violin workshop')",
    },
    "instrument_stock_value_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["instruments on the premises", "instrument stock"],
        "description": "Combined value of the instruments kept at the workshop",
    },
    "instruments_scheduled": {
        "type": "bool",
        "synonyms": ["individually scheduled", "instrument schedule"],
        "description": "Every instrument is individually scheduled with an appraised value",
    },
    "insured_to_value_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["insurance to value", "insured to value"],
        "description": "Building limit as a share of its replacement cost, in percent",
    },
    "recent_appraisal": {
        "type": "bool",
        "synonyms": ["recent appraisal"],
        "description": "A building appraisal from the last two years is on file",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _text(body: str, source_type: str, text_id: str, date: str) -> KnowledgeText:
    return KnowledgeText(
        id=text_id, text=body, source="Violin desk", source_type=source_type, date=date
    )  # type: ignore[arg-type]


def _claims(extractor: OfflineExtractor, *texts: KnowledgeText) -> list[ExtractedRule]:
    return practice_claims(extractor, DICTIONARY, *texts)


MANUAL = (
    "Where the instruments on the premises are worth more than $100,000 in total, refer the "
    "BOP submission to the contents specialist."
)


def test_a_protection_that_makes_the_limit_matter_less_is_a_mitigant(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(MANUAL, "manual", "m", "2024-01-10")
    talk = _text(
        "Okafor on the instrument referral: 'Where every instrument is individually "
        "scheduled with an appraised value, the total matters far less to me.'",
        "sme",
        "t",
        "2024-06-01",
    )
    said = [
        (c.action, c.soft_limit, c.mitigant_fields)
        for c in _claims(extractor, manual, talk)
        if c.text_id == "t"
    ]
    assert said == [("refer", None, ["instruments_scheduled"])]


def test_how_far_down_practice_went_takes_the_protection_it_was_said_with(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "LRO buildings insured to value below 80 percent are referred.", "manual", "m", "2024-01-10"
    )
    talk = _text(
        "Asked how the 80 percent insurance-to-value referral works, Okafor said: 'Eighty is "
        "where I look, not a wall. If the owner has a recent appraisal, I will take a "
        "building insured down to about 72 percent of the figure.'",
        "sme",
        "t",
        "2024-06-01",
    )
    said = [
        (c.soft_limit, c.mitigant_fields)
        for c in _claims(extractor, manual, talk)
        if c.text_id == "t"
    ]
    assert said == [(72.0, ["recent_appraisal"])]


@pytest.mark.parametrize(
    "talk",
    [
        "Okafor on the instrument referral: 'The $100,000 mark is where I start reading.'",
        "Okafor did not put a number on it and said the total still goes on the referral form.",
    ],
)
def test_a_speaker_named_before_what_they_say_is_no_business_class(
    extractor: OfflineExtractor, talk: str
) -> None:
    rules = extractor.extract(talk, source="Violin desk", source_type="sme")
    assert not any(c.field == "occupancy" for r in rules for c in r.conditions)


WIND = {
    "launch_wind_mph": {
        "type": "float",
        "unit": "mph",
        "synonyms": ["launch wind limit", "launch-policy wind ceiling"],
        "description": "Highest sustained wind the written launch policy lets riders fly in",
    },
    "weak_link_fitted": {
        "type": "bool",
        "synonyms": ["weak link on the towline", "towline weak link"],
        "description": "The towline carries a calibrated weak link",
    },
    "rehearsal_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["rehearsal hours"],
        "description": "Hours of rehearsal each performer logs",
    },
}


def test_how_far_a_paragraph_went_survives_a_refusal_in_another_sentence() -> None:
    fields = DataDictionary.model_validate({"fields": {**FIELDS, **WIND}})
    extractor = OfflineExtractor(fields)
    manual = _text(
        "Operators whose launch wind limit is above 18 mph are referred on the GL. Performers "
        "with fewer than 40 rehearsal hours are referred.",
        "manual",
        "m",
        "2024-01-10",
    )
    talk = _text(
        "The eighteen-mile-an-hour line is older than my time here. In practice I've approved "
        "operators whose written policy goes to twenty-two, never higher, and only where the "
        "boat runs a weak link on the towline. Twenty-two with a weak link is an approval "
        "with conditions. I turned down a twenty-five last summer. I care what the captain "
        "will fly in.",
        "sme",
        "t",
        "2024-06-01",
    )
    extracted = [
        rule
        for t in (manual, talk)
        for rule in extractor.extract(
            t.text, source=t.source, source_type=t.source_type, text_id=t.id
        )
    ]
    claims = with_practice([manual, talk], extracted, [], fields)
    said = {
        (c.conditions[0].field, c.soft_limit, tuple(c.mitigant_fields))
        for c in claims
        if c.text_id == "t"
    }
    assert said == {("launch_wind_mph", 22.0, ("weak_link_fitted",))}


def test_practice_leaves_the_product_its_text_says_it_does_not_change(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Where the instrument stock is above $100,000, refer the account, on every product. "
        "On the LRO, refer when the instrument stock is above $50,000.",
        "manual",
        "m",
        "2024-01-10",
    )
    note = _text(
        "In practice the desk has accepted instrument stock up to $140,000 without a "
        "referral. LRO accounts have their own, tighter limit, and nothing in this note "
        "changes that one.",
        "sme",
        "t",
        "2024-06-01",
    )
    said = {
        (c.product_type, c.soft_limit)
        for c in _claims(extractor, manual, note)
        if c.text_id == "t" and c.soft_limit is not None
    }
    assert said == {("ALL", 140_000.0)}


def test_a_logs_cases_numbered_with_one_letter_are_cases_of_their_own(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Where the instrument stock is above $100,000, refer the account, on every product.",
        "manual",
        "m",
        "2024-01-10",
    )
    log = _text(
        "Referrals under the instrument stock rule, first quarter. R-1187, violin workshop: "
        "instrument stock $180,000. Approved with conditions. R-1191, bow maker: instrument "
        "stock $120,000, approved with conditions. R-1203, cello workshop: instrument stock "
        "$260,000; left with a referral and later not taken up. Pattern: seniors approve "
        "stock a little above the line.",
        "production",
        "log",
        "2024-06-01",
    )
    said = [c.soft_limit for c in _claims(extractor, manual, log) if c.text_id == "log"]
    assert said == [180_000.0]


def test_the_biggest_one_practice_took_is_how_far_it_went(extractor: OfflineExtractor) -> None:
    talk = _text(
        "Q: The guide says instrument stock over $100,000 is referred. Is that how it works? "
        "A: That's the book. In practice I've taken a handful of them past that - the biggest "
        "was a workshop whose instrument stock ran about $150,000. Q: Anything else? A: No.",
        "sme",
        "t",
        "2024-06-01",
    )
    said = [(c.action, c.soft_limit) for c in _claims(extractor, talk)]
    assert said == [("refer", 150_000.0)]


def test_a_rate_per_hundred_is_the_fields_rate_per_100() -> None:
    from memory.underwriting.fieldlink.numbers import rate_fits

    assert rate_fits("supervisor per hundred", "supervisors per 100 guests")
    assert not rate_fits("supervisor per hundred", "supervisors per 10 guests")


def test_a_text_heard_again_does_not_withdraw_the_rule_it_states() -> None:
    from agents.ingestion.conform import conform
    from tests.rules import limit_rule

    bulletin = (
        "The moratorium on violin workshops is lifted. From today a violin workshop with "
        "instrument stock over $100,000 is referred instead."
    )
    lifted = limit_rule(
        "instrument_stock_value_usd",
        "gt",
        100_000,
        text_id="b",
        withdrawn=True,
        action="decline",
        conditions=[{"field": "occupancy", "operator": "eq", "value": "violin workshop"}],
        threshold=None,
    )
    stated = limit_rule(
        "instrument_stock_value_usd",
        "gt",
        100_000,
        text_id="b",
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "violin workshop"},
            {"field": "instrument_stock_value_usd", "operator": "gt", "value": 100_000},
        ],
    )
    # heard again: the rule the bulletin stated is known, the one it lifted is retired
    [again] = conform([lifted], bulletin, [stated], DICTIONARY)
    assert [c.field for c in again.conditions] == ["occupancy"]


def test_a_protection_named_by_the_limits_own_words_is_no_relief_of_it() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "sprinkler_density_gpm_sqft": {
                    "type": "float",
                    "unit": "gpm/sq ft",
                    "synonyms": ["sprinkler density", "design density"],
                    "description": "Sprinkler design density over the storage",
                },
                "sprinklered": {
                    "type": "bool",
                    "synonyms": ["sprinklered", "sprinkler system"],
                    "description": "The building has a sprinkler system",
                },
            }
        }
    )
    extractor = OfflineExtractor(fields)
    manual = _text(
        "Storage protected at a sprinkler density below 0.2 gpm/sq ft is referred on Property.",
        "manual",
        "m",
        "2024-01-10",
    )
    talk = _text(
        "Q: When storage comes to you below the density line, what decides it? A: If the "
        "owner can give me a current calc from a licensed sprinkler contractor, the density "
        "on an old plan matters much less.",
        "sme",
        "t",
        "2024-06-01",
    )
    extracted = [
        rule
        for t in (manual, talk)
        for rule in extractor.extract(
            t.text, source=t.source, source_type=t.source_type, text_id=t.id
        )
    ]
    claims = with_practice([manual, talk], extracted, [], fields)
    assert all("sprinklered" not in c.mitigant_fields for c in claims if c.text_id == "t")
