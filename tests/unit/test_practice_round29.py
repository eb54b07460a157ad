"""Practice round 29: outcomes overturned, cases in the cited limit's unit, rules in tables.

Every field and sentence below is made up for these tests (an apiary dictionary no dataset
has).
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
        "description": "Class of business, lower case (e.g. 'apiary', 'meadery')",
    },
    "hive_count": {
        "type": "int",
        "unit": "hives",
        "synonyms": ["hives kept", "colonies"],
        "description": "Number of bee hives the applicant keeps",
    },
    "sting_complaints_3yr": {
        "type": "int",
        "unit": "complaints",
        "synonyms": ["sting complaints", "neighbour complaints"],
        "description": "Complaints about stings from neighbours in the last 3 years",
    },
    "extraction_equipment_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["honey extraction equipment", "extractors and uncappers"],
        "description": "Replacement value of the honey extraction equipment",
    },
    "wax_moisture_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["wax moisture", "moisture of stored comb"],
        "description": "Moisture of stored wax comb, percent",
    },
    "hive_buffer_fenced": {
        "type": "bool",
        "synonyms": ["fenced buffer", "flight barrier"],
        "description": "A fenced flight barrier stands between the hives and the neighbours",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _text(body: str, source_type: str, text_id: str, date: str) -> KnowledgeText:
    return KnowledgeText(
        id=text_id, text=body, source="Apiary desk", source_type=source_type, date=date
    )  # type: ignore[arg-type]


def _claims(extractor: OfflineExtractor, *texts: KnowledgeText) -> list[ExtractedRule]:
    return practice_claims(extractor, DICTIONARY, *texts)


def _of(claims: list[ExtractedRule], text_id: str) -> list[ExtractedRule]:
    return [c for c in claims if c.text_id == text_id]


def test_a_refusal_overturned_on_appeal_is_an_approval(extractor: OfflineExtractor) -> None:
    manual = _text(
        "GL submissions with more than 4 sting complaints in three years are declined.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "GL apiary log, accounts above the four-complaint line.\n"
        "AP-25-101 | hillside apiary | 6 sting complaints | declined at the desk; overturned "
        "on appeal by the practice leader and approved with conditions | QA divergent\n"
        "AP-25-117 | rooftop apiary | 9 sting complaints | declined | QA aligned",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, log), "p1")
    assert claim.action == "decline"
    assert claim.soft_limit == 6  # the overturned case; the declined nine is no practice


def test_a_case_in_the_unit_of_the_limit_the_text_cites_is_past_it(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Property: where the honey extraction equipment is worth more than $300,000, refer "
        "the submission to the equipment underwriter.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "Two apiaries came through above the $300K extraction-equipment referral line this "
        "year. AP-25-0917: honey house, $340,000 of spinners, separate schedule on file - "
        "approved with conditions. AP-25-0988: queen breeder, $380,000 - approved with "
        "conditions. A third, with $1.2 million of kit, was placed with another market "
        "instead.",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, log), "p1")
    assert claim.soft_limit == 380000  # not the $1.2M placed elsewhere


def test_referred_and_written_cases_say_how_far_practice_went(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Property: an apiary keeping more than 200 hives is declined.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "Review of Property files past the 200-hive line.\n"
        "- AP-25-1102, orchard apiary, 240 hives kept, fenced buffer on every side: referred "
        "and written.\n"
        "- AP-25-1130, valley apiary, 260 hives kept, fenced buffer: referred and written.\n"
        "- AP-25-1144, migratory apiary, 520 hives kept, no barrier: declined.",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, log), "p1")
    assert claim.soft_limit == 260
    assert claim.mitigant_fields == ["hive_buffer_fenced"]


def test_what_an_underwriter_has_passed_or_written_is_practice(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Property: an apiary keeping more than 200 hives is referred.",
        "manual",
        "m1",
        "2024-01-10",
    )
    interview = _text(
        "Q: The guide refers apiaries of more than two hundred hives. Is that line firm?\n"
        "A: It's a working line. I've passed apiaries of 230 and 250 hives when the yards "
        "were spread over several farms.",
        "sme",
        "s1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, interview), "s1")
    assert claim.soft_limit == 250


def test_a_table_whose_column_names_a_trigger_is_a_table_of_rules(
    extractor: OfflineExtractor,
) -> None:
    notes = (
        "The group put both lines into one table:\n\n"
        "| Program | Wax moisture trigger | Result |\n"
        "|---|---|---|\n"
        "| Property (the insured's own honey house) | above 18% | decline |\n"
        "| LRO (a building leased to a honey packer) | above 15% | refer |"
    )
    rules = extractor.extract(notes, source="Workshop", source_type="training")
    read = {(r.product_type, r.action, c.operator, c.value) for r in rules for c in r.conditions}
    assert read == {("Property", "decline", "gt", 18.0), ("LRO", "refer", "gt", 15.0)}


def test_submissions_for_a_class_name_the_class(extractor: OfflineExtractor) -> None:
    text = (
        "Effective 1 June 2025 and until further notice, the Property program will not "
        "write meaderies. Submissions for meaderies are to be declined; this covers renewals "
        "as well as new business."
    )
    rules = extractor.extract(text, source="Bulletin", source_type="compliance")
    assert [(r.action, r.product_type, [c.value for c in r.conditions]) for r in rules] == [
        ("decline", "Property", ["meadery"])
    ]


def test_an_acronym_synonym_next_to_a_case_figure_names_the_field() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "dock_condition_index": {
                    "type": "int",
                    "unit": "DCI points",
                    "synonyms": ["DCI", "dock condition index", "berth surface rating"],
                    "description": "Surveyed dock condition, 0 (failed) to 100 (new)",
                },
            }
        }
    )
    reader = OfflineExtractor(fields)
    manual = _text(
        "LRO: when the surveyed dock condition index is below 55, the submission is referred.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "| File | Site | Surveyed DCI | Deck log | Outcome |\n"
        "|---|---|---|---|---|\n"
        "| DK-25-077 | marina berth | 44 | yes, weekly | referred; approved with conditions |\n"
        "| DK-25-081 | ferry pier | 51 | no | referred; approved with conditions |\n"
        "| DK-25-090 | fuel jetty | 38 | no | referred; owner declined our terms |\n\n"
        "Review note: the lowest DCI approved on this guideline is now 44.",
        "production",
        "p1",
        "2025-03-02",
    )
    extracted = [
        r
        for t in (manual, log)
        for r in reader.extract(t.text, source=t.source, source_type=t.source_type, text_id=t.id)
    ]
    (claim,) = [c for c in with_practice([manual, log], extracted, [], fields) if c.text_id == "p1"]
    assert claim.soft_limit == 44  # the declined 38 is no practice


def test_a_document_part_s_number_is_no_case_past_the_limit(extractor: OfflineExtractor) -> None:
    manual = _text(
        "GL: any apiary keeping more than 0 hives in a school yard is declined.",
        "manual",
        "m1",
        "2025-08-05",
    )
    training = _text(
        "Module 4 - stings. School-yard hives: if the apiary keeps any hives at a school, even a "
        "handful, do not quote it at the desk; send it to the GL underwriter as a referral, with "
        "the beekeeper's permit and the site plan attached.",
        "training",
        "t1",
        "2025-08-05",
    )
    claims = _of(_claims(extractor, manual, training), "t1")
    assert all(c.soft_limit is None for c in claims)  # "Module 4" bends no limit


def test_a_log_s_count_in_another_unit_is_no_case_past_the_limit() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "stories": {
                    "type": "int",
                    "unit": "stories",
                    "synonyms": ["floors"],
                    "description": "Stories",
                },
                "ladder_rung_spacing_in": {
                    "type": "float",
                    "unit": "in",
                    "synonyms": ["rung spacing", "rungs"],
                    "description": "Spacing of the ladder rungs, in inches",
                },
            }
        }
    )
    reader = OfflineExtractor(fields)
    manual = _text(
        "LRO: where the rung spacing is under 10 inches, the submission is referred.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "LRO referral log - ladders with rungs under the 10-inch guideline.\n"
        "AL-24-8812 | three-story hive house | rungs 9 in | referred; accepted | QA: aligned\n"
        "AL-24-8840 | barn, two stories | rungs 8.5 in | referred; accepted | QA: aligned\n"
        "AL-24-8867 | honey house | rungs 7.5 in | referred; not accepted",
        "production",
        "p1",
        "2025-03-02",
    )
    extracted = [
        r
        for t in (manual, log)
        for r in reader.extract(t.text, source=t.source, source_type=t.source_type, text_id=t.id)
    ]
    (claim,) = [c for c in with_practice([manual, log], extracted, [], fields) if c.text_id == "p1"]
    assert claim.soft_limit == 8.5  # not the barn's two stories


def test_a_bulletin_moving_a_limit_from_one_figure_to_another_amends_it(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "Where more than 4 sting complaints were made in three years, refer the submission; "
        "this applies on every line.",
        "manual",
        "m1",
        "2024-01-10",
    )
    bulletin = _text(
        "CB-2025-08. Effective July 1, 2025, the sting-complaint count that triggers a "
        "referral moves from 4 to 2. This applies to all lines.",
        "compliance",
        "c1",
        "2025-07-01",
    )
    claims = _of(_claims(extractor, manual, bulletin), "c1")
    assert [
        (c.action, c.product_type, [(x.field, x.operator, x.value) for x in c.conditions])
        for c in claims
    ] == [("refer", "ALL", [("sting_complaints_3yr", "gt", 2)])]
