"""Practice round 5: logs that speak of a rule in other words than the manual's.

Made-up glass-furnace and kiln fields; no dataset has them. Each test fails on the code
before this round.
"""

from __future__ import annotations

from agents.ingestion.conform import withdrawals_of
from agents.ingestion.evidence import mentions
from agents.ingestion.practice import read_approvals, with_practice
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.rules import knowledge_text as text
from tests.rules import limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'art glass furnace studio')",
    },
    "furnace_load_kw": {
        "type": "float",
        "unit": "kW",
        "synonyms": ["connected furnace load", "furnace power"],
        "description": "Connected electrical load of the furnaces, in kilowatts",
    },
    "premium_paid_by_lender": {
        "type": "bool",
        "synonyms": ["lender pays the premium"],
        "description": "The premium is paid by a lender rather than the named insured",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


def _log(body: str, source: str) -> KnowledgeText:
    return KnowledgeText(
        id="log", text=body, source=source, source_type="production", date="2025-03-10"
    )  # type: ignore[arg-type]


def test_a_case_in_the_fields_own_short_unit_is_about_the_field() -> None:
    known = [limit_rule("furnace_load_kw", "gt", 300, product_type="Property")]
    log = _log(
        "FL-25-012: glass studio, PA; 420 kW connected; new breakers. Approved with "
        "conditions. FL-25-019: glass studio, NY; 900 kW. Not approved.",
        "Property Referral Log",
    )
    claims = read_approvals(log, known, DICTIONARY)
    assert [c.soft_limit for c in claims] == [420.0]


def test_a_log_titled_for_one_product_speaks_of_that_products_rule() -> None:
    known = [
        limit_rule("furnace_load_kw", "gt", 300, product_type="GL", rule_name="GL load"),
        limit_rule("furnace_load_kw", "gt", 900, product_type="Property", rule_name="P load"),
    ]
    log = _log(
        "FL-7 - glass studio, OH, 350 kW connected furnace load. Approved with conditions. "
        "Note: the Property side of FL-7 went to the Property desk and is not in this log.",
        "GL Referral Log",
    )
    claims = read_approvals(log, known, DICTIONARY)
    assert [(c.product_type, c.soft_limit) for c in claims] == [("GL", 350.0)]


def test_a_class_said_without_one_of_its_modifiers_is_still_named() -> None:
    assert mentions("a furnace studio in pa; 420 kw", "glass furnace studio")
    assert not mentions("a studio in pa", "glass furnace studio")  # the head alone
    assert not mentions("a glass studio", "glass furnace")  # a class of two loses nothing


def test_the_state_of_a_logged_case_is_no_rule() -> None:
    known = [limit_rule("furnace_load_kw", "gt", 300, product_type="GL")]
    log = _log(
        "FL-24-007 - glass studio, NJ, 350 kW connected furnace load; new breakers. "
        "Approved with conditions. FL-24-019 - glass studio, CA, 320 kW connected furnace "
        "load. Approved with conditions.",
        "GL Referral Log",
    )
    read = ExtractedRule.model_validate(
        {
            **known[0].model_dump(),
            "rule_name": "NJ conditions",
            "action": "approve_with_conditions",
            "conditions": [{"field": "state", "operator": "eq", "value": "NJ"}],
            "threshold": None,
            "outcome_description": "Approved with conditions.   - glass studio, NJ, 350 kW.",
            "text_id": "log",
            "source_type": "production",
        }
    )
    claims = with_practice([log], [read], known, DICTIONARY)
    assert all(c.conditions[0].field != "state" for c in claims), claims


def test_a_flag_rule_is_withdrawn_by_what_it_checked() -> None:
    flag = ExtractedRule.model_validate(
        {
            **limit_rule("furnace_load_kw", "gt", 1).model_dump(),
            "rule_name": "Lender premium flag",
            "product_type": "ALL",
            "action": "flag_for_review",
            "threshold": None,
            "conditions": [{"field": "premium_paid_by_lender", "operator": "eq", "value": True}],
        }
    )
    bulletin = text(
        "cb",
        "Section 3.1, which required a review flag whenever the premium is paid by a "
        "lender, is withdrawn for all lines effective 12 May 2025.",
        "compliance",
    )
    ended = withdrawals_of(bulletin, [], [flag])
    assert [(r.rule_name, r.withdrawn) for r in ended] == [("Lender premium flag", True)]


FLAGGED = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "kiln_alarm_monitored": {
                "type": "bool",
                "synonyms": ["monitored kiln alarm", "kiln alarm line supervised"],
                "description": "The kiln over-temperature alarm is monitored by a central station",
            },
        }
    }
)


def test_the_answer_to_what_made_practice_say_yes_names_the_mitigant() -> None:
    known = [limit_rule("furnace_load_kw", "gt", 300, product_type="Property")]
    interview = text(
        "sme",
        "Q: The guide refers studios over 300 kW. How do you handle them? A: Three hundred "
        "is a guideline; I've approved studios up to 400 kW. Q: What makes you say yes? "
        "A: A monitored kiln alarm. With that I let the desk write it.",
        "sme",
    )
    claims = with_practice([interview], [], known, FLAGGED)
    assert [(c.soft_limit, c.mitigant_fields) for c in claims] == [
        (400.0, ["kiln_alarm_monitored"])
    ], claims


def test_a_case_number_of_several_letter_groups_opens_a_case() -> None:
    known = [limit_rule("furnace_load_kw", "gt", 300, product_type="Property")]
    log = _log(
        "GL-FUR-24-201: glass studio, SC; 340 kW connected furnace load. Approved with "
        "conditions. GL-FUR-24-207: glass studio, MN; 900 kW connected furnace load. "
        "Referred on to a specialty market.",
        "Property Referral Log",
    )
    claims = read_approvals(log, known, DICTIONARY)
    assert [c.soft_limit for c in claims] == [340.0]


def test_a_place_read_from_a_decision_log_is_no_rule() -> None:
    known = [limit_rule("furnace_load_kw", "gt", 300, product_type="Property")]
    log = _log(
        "Case FL-24-140. Glass studio, northern Maine, 460 kW, above the current 300 kW "
        "referral line. Approved with conditions by the senior underwriter.",
        "Property Referral Log",
    )
    read = ExtractedRule.model_validate(
        {
            **known[0].model_dump(),
            "rule_name": "Maine referral",
            "conditions": [{"field": "state", "operator": "eq", "value": "ME"}],
            "threshold": None,
            "outcome_description": "Approved with conditions by the senior underwriter.",
            "text_id": "log",
            "source_type": "production",
        }
    )
    claims = with_practice([log], [read], known, DICTIONARY)
    assert all(c.conditions[0].field != "state" for c in claims), claims


def test_practice_with_no_product_binds_to_the_rule_for_every_product() -> None:
    every = limit_rule("furnace_load_kw", "gt", 300, product_type="ALL", rule_name="All load")
    gl = limit_rule("furnace_load_kw", "gt", 500, product_type="GL", rule_name="GL load")
    claim = every.model_copy(
        update={"rule_name": "Load guideline", "soft_limit": 350.0, "threshold_type": "soft",
                "text_id": "sme", "source_type": "sme"}
    )  # fmt: skip
    interview = text("sme", "Q: Is the 300 kW line firm? A: A guideline; I took 350 kW.", "sme")
    claims = with_practice([interview], [claim], [every, gl], DICTIONARY)
    assert {c.product_type for c in claims} == {"ALL"}, claims
