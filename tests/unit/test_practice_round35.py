"""Practice and statements round 35: a case or an SME's figure in another unit than the
limit's ("nineteen thousand pounds" of a limit in tons, "the hundred-yard setback" of one
in feet), outcomes said as "we wrote it" or "overturned ... and written", a relief said as
"with X like that I'll go down to", and more ways a class or a state is named.

Every field and sentence below is made up for these tests (a pottery-and-glass studio
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "tenant class"],
        "description": "Business class, lower case (e.g. 'glass blower', 'raku pottery')",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "erected"],
        "description": "Calendar year the building was put up",
    },
    "clay_stock_tons": {
        "type": "float",
        "unit": "tons",
        "synonyms": ["clay stock", "clay held on the premises", "bagged clay"],
        "description": "Clay held on the premises in US short tons (2,000 pounds)",
    },
    "kiln_setback_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["kiln setback", "distance from the kiln to the boundary"],
        "description": "Distance from the kiln shed to the nearest boundary, in feet",
    },
    "cooling_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["cooling time", "hours the kiln takes to cool"],
        "description": "Hours a loaded kiln takes to cool to handling temperature",
    },
    "kiln_alarm": {
        "type": "bool",
        "synonyms": ["kiln alarm", "kiln temperature alarm"],
        "description": "The kiln has a monitored over-temperature alarm",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def _text(id_: str, kind: str, day: str, text: str) -> KnowledgeText:
    return KnowledgeText(id=id_, text=text, source=f"Doc {id_}", source_type=kind, date=day)


def _soft(claims: list, text_id: str) -> list[tuple[str, float | None, list[str]]]:
    return sorted(
        (c.conditions[-1].field, c.soft_limit, c.mitigant_fields)
        for c in claims
        if c.text_id == text_id
    )


def test_a_case_in_pounds_bends_a_limit_in_tons() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "A BOP applicant holding more than sixteen thousand pounds of bagged clay is declined.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "BP-24-017, studio pottery: nineteen thousand pounds of bagged clay, sprinklers "
        "throughout. Outside the eight-ton BOP ceiling, so it should have been declined; the "
        "BOP lead referred it instead and we wrote it on the package.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert _soft(claims, "p1") == [("clay_stock_tons", 9.5, [])]


def test_a_desk_decline_overturned_and_written_is_an_approval() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Where the kiln shed stands closer than sixty feet to the boundary, the LRO "
        "submission is declined.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "LR-24-009: kiln shed forty-five feet from the boundary. Declined by the desk under "
        "the sixty-foot guideline, overturned by the lead and written with a kiln warranty.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert _soft(claims, "p1") == [("kiln_setback_ft", 45.0, [])]


def test_an_sme_limit_in_yards_bends_a_class_rule_in_feet() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "A glass blower whose kiln sits within one hundred yards of the boundary is referred "
        "to the GL desk.",
    )
    sme = _text(
        "s1",
        "sme",
        "2024-06-02",
        "The hundred-yard setback is a review point, not a wall. I'll go as close as seventy "
        "yards if the owner has a signed letter from the neighbour.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, sme)
    assert _soft(claims, "s1") == [("kiln_setback_ft", 210.0, [])]


def test_with_a_protection_like_that_names_what_practice_accepts() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Where the cooling time is less than forty-eight hours, the BOP account is referred.",
    )
    sme = _text(
        "s1",
        "sme",
        "2024-06-02",
        "Q: Is the forty-eight-hour cooling time a hard line? A: No, it's where I start "
        "asking. Last spring I wrote a studio whose kiln cooled in thirty-six hours, because "
        "it has a kiln temperature alarm. With a kiln alarm like that I'll go down to about a "
        "day and a half. Without it, anything under two days gets referred.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, sme)
    assert _soft(claims, "s1") == [("cooling_hours", 36.0, ["kiln_alarm"])]


def test_a_withdrawal_naming_its_rule_only_by_a_distinctive_limit_ends_it() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Rule 2.4 Heritage valuation. On every line, a building whose year of construction is "
        "earlier than 1850 must have its insured value verified.",
    )
    bulletin = _text(
        "c1",
        "compliance",
        "2025-06-30",
        "From 30 June 2025 General Rule 2.4 (valuation check on buildings erected before "
        "1850, all lines) is withdrawn.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, bulletin)
    assert [
        (c.action, [(x.field, x.value) for x in c.conditions], c.withdrawn)
        for c in claims
        if c.text_id == "c1"
    ] == [("verify", [("year_built", 1850)], True)]


def test_a_protection_a_bulletin_names_a_mitigant_joins_the_limit_it_amends() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Where the cooling time is less than forty-eight hours, the BOP account is referred.",
    )
    bulletin = _text(
        "c1",
        "compliance",
        "2025-01-10",
        "The cooling time standard is tightened by raising it to seventy-two hours. A kiln "
        "that cannot cool in that time is referred. A kiln temperature alarm remains a "
        "recognised mitigant.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, bulletin)
    assert [
        ([(x.field, x.value) for x in c.conditions], c.mitigant_fields)
        for c in claims
        if c.text_id == "c1"
    ] == [([("cooling_hours", 72)], ["kiln_alarm"])]


FLEET = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "kilns_for_hire": {
                "type": "int",
                "unit": "units",
                "synonyms": ["number of kilns", "machines"],
                "description": "Kilns the studio hires out",
            },
            "glaze_sales_pct": {
                "type": "float",
                "unit": "pct",
                "synonyms": ["share of glaze sales"],
                "description": "Percent of sales that are glazes",
            },
        }
    }
)
FLEET_EXTRACTOR = OfflineExtractor(FLEET)


@pytest.mark.parametrize(
    ("case", "reach"),
    [
        ("Studio, OR: fifteen kilns for hire; referred and approved with conditions.", 15.0),
        ("I've signed off on studios running sixteen machines when every one is alarmed.", 16.0),
    ],
)
def test_a_case_counts_what_a_synonym_counts(case: str, reach: float) -> None:
    manual = _text(
        "m1", "manual", "2024-01-10", "A studio hiring out more than twelve kilns is referred."
    )
    log = _text("p1", "production", "2024-06-02", case)
    claims = practice_claims(FLEET_EXTRACTOR, FLEET, manual, log)
    assert [(c.conditions[-1].field, c.soft_limit) for c in claims if c.text_id == "p1"] == [
        ("kilns_for_hire", reach)
    ]


def test_a_fraction_of_the_output_reaches_a_limit_in_percent() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "If more than fifteen percent of sales are glazes, the submission is referred.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Pottery, Lancaster PA: about eighteen percent of sales in glazes. Referred; the lead "
        "approved with conditions. Lead's comment: up to a fifth of sales in glazes is fine.",
    )
    claims = practice_claims(FLEET_EXTRACTOR, FLEET, manual, log)
    assert [(c.conditions[-1].field, c.soft_limit) for c in claims if c.text_id == "p1"] == [
        ("glaze_sales_pct", 20.0)
    ]


def test_another_market_s_practice_is_no_reach_of_ours() -> None:
    manual = _text(
        "m1", "manual", "2024-01-10", "A studio hiring out more than twelve kilns is referred."
    )
    sme = _text(
        "s1",
        "sme",
        "2024-06-02",
        "I've let studios run up to fifteen kilns and approved them with conditions. I know "
        "one competitor writes these up to forty kilns; we are not them.",
    )
    claims = practice_claims(FLEET_EXTRACTOR, FLEET, manual, sme)
    assert [c.soft_limit for c in claims if c.text_id == "s1"] == [15.0]


def test_a_withdrawal_naming_only_a_small_count_ends_no_rule() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Rule 3.1 Kilns. A studio hiring out more than three kilns is referred.",
    )
    bulletin = _text(
        "c1",
        "compliance",
        "2025-06-30",
        "From 30 June 2025 General Rule 3.1 (3 of them) is withdrawn.",
    )
    claims = practice_claims(FLEET_EXTRACTOR, FLEET, manual, bulletin)
    assert [c for c in claims if c.text_id == "c1"] == []


def test_a_quarter_that_names_a_period_is_no_share() -> None:
    storeys = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "stories": {
                    "type": "int",
                    "unit": "stories",
                    "synonyms": ["storeys", "building height"],
                    "description": "Stories above grade",
                },
                "glaze_sales_pct": {
                    "type": "float",
                    "unit": "pct",
                    "synonyms": ["share of glaze sales"],
                    "description": "Percent of sales that are glazes",
                },
            }
        }
    )
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "LRO buildings of more than four stories are referred. If more than fifteen percent "
        "of sales are glazes, the submission is referred.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Height referrals, LRO, April-June.\n#LRO-1533: 5-story masonry studio building - "
        "referred; approved.\nQuarter summary: the tallest building approved this quarter "
        "was five stories.",
    )
    claims = practice_claims(OfflineExtractor(storeys), storeys, manual, log)
    assert [(c.conditions[-1].field, c.soft_limit) for c in claims if c.text_id == "p1"] == [
        ("stories", 5.0)
    ]
