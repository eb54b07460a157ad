"""Practice reading, round 2: each failure class, on invented fields and wording.

A marina / boatyard dictionary no dataset has. Practice (SME interviews, decision
logs, training notes on practice) must bend the rules it speaks of from general
English and the rules' own fields: protections that earn relief, a limit disowned
in a question and answer, how far approvals went, refusals, withdrawals.
"""

from __future__ import annotations

from typing import Any

import pytest

from agents.ingestion.practice import read_approvals, read_revisions, with_practice
from agents.offline.extractor import OfflineExtractor
from agents.offline.relief import is_relief
from memory.underwriting.consolidate import consolidate
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.rules import knowledge_text as text

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'marina', 'boat kiosk')",
    },
    "berth_count": {
        "type": "int",
        "unit": "berths",
        "synonyms": ["berths", "berth count"],
        "description": "Number of berths",
    },
    "hull_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["hull age"],
        "description": "Age of the oldest hull stored, in years",
    },
    "haul_out_distance_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["haul-out distance"],
        "description": "Road miles to the nearest haul-out crane",
    },
    "fuel_dock": {
        "type": "bool",
        "synonyms": ["fuel dock"],
        "description": "The marina sells fuel from a dock",
    },
    "night_patrol": {
        "type": "bool",
        "synonyms": ["night patrol", "harbour patrol"],
        "description": "A security guard patrols the marina every night",
    },
    "ice_bubblers": {
        "type": "bool",
        "synonyms": ["ice bubblers", "de-icing bubblers"],
        "description": "De-icing bubblers are installed along every pontoon",
    },
    "hull_survey": {
        "type": "bool",
        "synonyms": ["hull survey", "out-of-water survey"],
        "description": "A certified hull survey of the last two years is on file",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def rule(**update: Any) -> ExtractedRule:
    base: dict[str, Any] = {
        "rule_name": "LRO Berth Cap Referral",
        "risk_factor": "Berths",
        "risk_category": "eligibility",
        "product_type": "LRO",
        "action": "refer",
        "threshold": {"field": "berth_count", "operator": "gt", "value": 40, "unit": "berths"},
        "threshold_type": "hard",
        "conditions": [{"field": "berth_count", "operator": "gt", "value": 40}],
        "source": "Marina Guide",
        "source_type": "manual",
        "text_id": "guide",
        "date": "2023-01-10",
    }
    return ExtractedRule.model_validate({**base, **update})


def hull_rule(**update: Any) -> ExtractedRule:
    hull: dict[str, Any] = {
        "rule_name": "LRO Hull Age Decline",
        "action": "decline",
        "threshold": {"field": "hull_age_years", "operator": "gt", "value": 30, "unit": "years"},
        "conditions": [{"field": "hull_age_years", "operator": "gt", "value": 30}],
    }
    return rule(**{**hull, **update})


def claims_of(
    extractor: OfflineExtractor, said: KnowledgeText, known: list[ExtractedRule]
) -> list[ExtractedRule]:
    found = extractor.extract(
        said.text, source=said.source, source_type=said.source_type, text_id=said.id
    )
    stamped = [r.model_copy(update={"date": said.date}) for r in found]
    return with_practice([said], stamped, known)


# --- a protection practice accepts (relief) -------------------------------------------------


def test_a_protection_that_earns_an_approval_joins_the_rule_the_text_names(
    extractor: OfflineExtractor,
) -> None:
    said = text(
        "sme",
        "Q: When an LRO marina comes in above the 40-berth line, what changes your mind?\n"
        "A: Patrols. If the site has a night patrol every night, I let the desk write it "
        "with conditions.",
    )
    reliefs = [r for r in extractor.extract(said.text, source_type="sme") if is_relief(r)]
    assert [r.mitigant_fields for r in reliefs] == [["night_patrol"]]
    [claim] = claims_of(extractor, said, [rule(), hull_rule()])
    assert claim.rule_name == "LRO Berth Cap Referral" and claim.mitigant_fields == ["night_patrol"]
    [lineage] = consolidate([rule(), claim])
    now = lineage.current
    assert now is not None and now.threshold_type == "soft" and now.soft_limit is None
    assert now.mitigant_fields == ["night_patrol"] and now.action == "refer"


def test_a_decline_the_speaker_will_not_let_stand_is_relief_too(
    extractor: OfflineExtractor,
) -> None:
    said = text(
        "sme",
        "Q: The guide declines hulls older than 30 years - does that bend?\n"
        "A: It's where I start. But when the owner has a hull survey on file, I don't let "
        "the desk decline it.",
    )
    [claim] = claims_of(extractor, said, [rule(), hull_rule()])
    assert (claim.rule_name, claim.mitigant_fields) == ("LRO Hull Age Decline", ["hull_survey"])


def test_a_relief_about_no_known_rule_or_about_several_is_dropped(
    extractor: OfflineExtractor,
) -> None:
    nothing = text("sme", "A: If the site has a night patrol, I approve with conditions.")
    assert claims_of(extractor, nothing, [rule()]) == []
    # Berths and hull age both named, neither limit said: which one is not a guess.
    both = text(
        "sme",
        "A: Berths and hull age matter less to me. If the site has a night patrol, I "
        "approve with conditions.",
    )
    assert claims_of(extractor, both, [rule(), hull_rule()]) == []


def test_a_refused_approval_or_a_protection_credited_with_approvals(
    extractor: OfflineExtractor,
) -> None:
    refused = text("sme", "A: If the site has a night patrol I have not approved it either.")
    assert not [r for r in extractor.extract(refused.text, source_type="sme") if is_relief(r)]
    log = text(
        "log",
        "Decision log - LRO sites above the 40-berth referral point.\n"
        "M-1 | 46 berths | night patrol | approved | QA: aligned\n"
        "Reviewer note: the night patrol carried both approvals.",
        kind="production",
    )
    [claim] = claims_of(extractor, log, [rule()])
    assert (claim.soft_limit, claim.mitigant_fields) == (46, ["night_patrol"])


def test_a_training_note_that_waives_the_rule_when_a_protection_holds(
    extractor: OfflineExtractor,
) -> None:
    note = text(
        "tn",
        "When a hull is older than 30 years, you do not need to decline it if the file "
        "already holds a hull survey.",
        kind="training",
    )
    found = extractor.extract(note.text, source_type="training", text_id="tn")
    assert any(is_relief(r) and r.mitigant_fields == ["hull_survey"] for r in found)
    claims = claims_of(extractor, note, [hull_rule()])
    assert [c.mitigant_fields for c in claims if not is_relief(c)] == [["hull_survey"]]


# --- how far practice went -------------------------------------------------------------------


def test_a_limit_disowned_in_a_question_and_the_furthest_asked_for() -> None:
    interview = text(
        "sme",
        "Q: Section 2 refers an LRO marina past 40 berths.\nIs that absolute?\n"
        "A: No - it is a prompt to look at the pontoons.\n"
        "Q: What is the largest you have approved?\nA: Fifty-five berths, with new pontoons.",
    )
    [revision] = read_revisions(interview)
    assert (revision.value, revision.soft_limit, revision.product_type) == (40, 55, "LRO")
    hedge = text(
        "sme",
        "A: Forty berths is where I start looking, not where I stop. I have approved marinas "
        "up to fifty berths.",
    )
    assert [(r.value, r.soft_limit) for r in read_revisions(hedge)] == [(40, 50)]


def test_a_limit_said_by_value_alone_that_fits_two_rules_binds_to_neither() -> None:
    dock = hull_rule(
        rule_name="LRO Haul-Out Referral",
        threshold={"field": "haul_out_distance_miles", "operator": "gt", "value": 40},
        conditions=[{"field": "haul_out_distance_miles", "operator": "gt", "value": 40}],
    )
    said = text("sme", "A: I read 40 as a guideline. I have approved up to 45.")
    assert with_practice([said], [], [rule(), dock]) == []
    named = text("sme", "A: I read 40 berths as a guideline. I have approved up to 45.")
    assert [c.rule_name for c in with_practice([named], [], [rule(), dock])] == [
        "LRO Berth Cap Referral"
    ]


def test_a_case_in_a_unit_written_two_ways_and_refusals_that_say_accepted() -> None:
    per_foot = rule(
        rule_name="LRO Slab Value Verification",
        action="verify",
        threshold={"field": "slab_value_per_sqft_usd", "operator": "lt", "value": 60,
                   "unit": "USD/sq ft"},
        conditions=[{"field": "slab_value_per_sqft_usd", "operator": "lt", "value": 60}],
    )  # fmt: skip
    log = text(
        "log",
        "Slab values below the $60/sq ft floor, LRO.\n"
        "S-1 | slab at $52 per sq ft | accepted as reported\n"
        "S-2 | slab at $47 per sq ft | not accepted\n"
        "Nothing under $44 per sq ft has been accepted.",
        kind="production",
    )
    [claim] = read_approvals(log, [per_foot])
    assert claim.soft_limit == 52


def test_a_log_that_names_the_field_once_and_its_cases_by_unit_alone() -> None:
    dock = rule(
        rule_name="LRO Haul-Out Referral",
        threshold={"field": "haul_out_distance_miles", "operator": "gt", "value": 20,
                   "unit": "miles"},
        conditions=[{"field": "haul_out_distance_miles", "operator": "gt", "value": 20}],
    )  # fmt: skip
    log = text(
        "log",
        "Referral log - LRO marinas beyond the 20-mile haul-out distance.\n"
        "H-1 | 26 road miles, crane on call | approved with conditions\n"
        "H-2 | 31 road miles | declined",
        kind="production",
    )
    [claim] = read_approvals(log, [dock])
    assert claim.soft_limit == 26
    one_line = text(
        "x",
        "Marinas 26 road miles away were accepted at the desk last spring; nobody asked "
        "about the haul-out distance.",
    )
    assert read_approvals(one_line, [dock]) == []  # not a log: the field's words must be near


def test_a_rule_on_a_class_of_business_is_named_in_the_plural(
    extractor: OfflineExtractor,
) -> None:
    kiosk = rule(
        rule_name="BOP Boat Kiosk Decline",
        product_type="BOP",
        action="decline",
        threshold=None,
        conditions=[{"field": "occupancy", "operator": "eq", "value": "boat kiosk"}],
    )
    said = text(
        "sme",
        "Q: Boat kiosks are declined on the BOP. Does that bend?\n"
        "A: When the kiosk has de-icing bubblers on every pontoon, I don't want the desk "
        "declining it.",
    )
    [claim] = claims_of(extractor, said, [kiosk])
    assert (claim.rule_name, claim.mitigant_fields) == ("BOP Boat Kiosk Decline", ["ice_bubblers"])


# --- a withdrawal in "no longer" -------------------------------------------------------------


def test_no_longer_need_to_be_flagged_withdraws_the_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Bulletin B-7. Marinas with a fuel dock no longer need to be flagged.",
        source_type="compliance",
    )
    assert [(r.action, r.withdrawn) for r in rules] == [("flag_for_review", True)]
    # Stated anew in the same text, the old action's end is not a withdrawal of its own.
    amended = extractor.extract(
        "Hulls older than 30 years are no longer declined; they are referred.",
        source_type="compliance",
    )
    assert [(r.action, r.withdrawn) for r in amended] == [("refer", False)]


def test_a_protection_read_as_an_approval_rule_is_the_relief_of_the_rule_spoken_of() -> None:
    said = text("sme", "A: The 40-berth cap? If the site has a night patrol, approve it.")
    granted = rule(
        rule_name="Night Patrol Conditions",
        action="approve_with_conditions",
        threshold=None,
        conditions=[{"field": "night_patrol", "operator": "eq", "value": True}],
        source_type="sme",
        text_id="sme",
        date="2024-05-02",
    )
    [claim] = with_practice([said], [granted], [rule()])
    assert (claim.rule_name, claim.mitigant_fields) == ("LRO Berth Cap Referral", ["night_patrol"])
    alone = text("sme", "A: If the site has a night patrol, approve it.")
    assert [c.rule_name for c in with_practice([alone], [granted], [rule()])] == [
        "Night Patrol Conditions"
    ]


def test_an_approval_past_a_limit_does_not_bend_a_rule_that_already_approves() -> None:
    written = rule(rule_name="LRO Small Marina Conditions", action="approve_with_conditions")
    log = text("log", "M-9 | 52 berths | approved", kind="production")
    assert read_approvals(log, [written]) == []
    assert [c.soft_limit for c in read_approvals(log, [rule()])] == [52]


def test_an_endorsement_attached_past_the_limit_is_an_approval() -> None:
    log = text(
        "log",
        "Referral log - berths above 40.\n"
        "R-1 | 44 berths | endorsement attached after review\n"
        "R-2 | 47 berths | endorsement not attached",
        kind="production",
    )
    assert [c.soft_limit for c in read_approvals(log, [rule()])] == [44]
