"""Offline extraction round 37: a lead's bulleted list of conditions, a proviso that is a
waiver, the trade's "care, custody and control" exclusion, a clause that names its own field
after another sentence's topic, "property" in lower case as the product, a log's furthest
case in short words ("OK'd at 35"), a flag whose synonym holds a number, a hedged waiver,
a rule said as a wish ("wants X referred"), a conditional approval that points back, terms
listed after "with conditions:", and a log headed by its class.

Every field and sentence below is made up for these tests (a sail-loft and violin-workshop
dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import canonical_unit
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case: sail loft, violin workshop, ferry kiosk",
    },
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business"],
        "description": "Years the business has operated",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "sprinklers"],
        "description": "Automatic sprinklers throughout",
    },
    "canvas_stock_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["canvas stock", "sailcloth on hand"],
        "description": "Value of sailcloth held",
    },
    "cutting_tables": {
        "type": "int",
        "unit": "tables",
        "synonyms": ["cutting tables"],
        "description": "Cutting tables in use",
    },
    "dust_extraction": {
        "type": "bool",
        "synonyms": ["dust extraction", "ducted extraction"],
        "description": "Ducted dust extraction at the machines",
    },
    "mast_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["mast height", "tallest mast"],
        "description": "Tallest mast the loft rigs on",
    },
    "fall_arrest_fitted": {
        "type": "bool",
        "synonyms": ["fall arrest anchors", "fall arrest"],
        "description": "Permanent fall arrest anchors on every rig",
    },
    "offsite_jobs_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["offsite jobs", "work at the marina"],
        "description": "Share of jobs done away from the loft",
    },
    "varnish_on_bench": {
        "type": "bool",
        "synonyms": ["varnish heated on the bench"],
        "description": "Varnish is heated on the bench",
    },
    "racing_clients_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["racing clients", "racing crews"],
        "description": "Share of clients who race",
    },
    "junior_clients_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["clients under 16", "junior share"],
        "description": "Share of clients under 16",
    },
    "attic_single_stair": {
        "type": "bool",
        "synonyms": ["attic loft one way down", "attic with one stair"],
        "description": "The loft is an attic with a single stair",
    },
    "instrument_vault": {
        "type": "bool",
        "synonyms": ["instrument vault", "fireproof vault"],
        "description": "Instruments are kept in a fireproof vault",
    },
    "instruments_held_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["instruments held", "customer instruments"],
        "description": "Value of customer instruments held",
    },
    "after_dark_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["hours past dusk", "after dark"],
        "description": "Hours the loft rigs after dusk",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Building construction: frame, joisted masonry, non-combustible",
    },
    "rigging_crews": {
        "type": "int",
        "unit": "crews",
        "synonyms": ["rigging crews"],
        "description": "Rigging crews employed",
    },
}
EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(text: str, kind: str = "manual") -> list[tuple[str, str, list[tuple[str, str, object]]]]:
    return [
        (r.product_type, r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def _soft(text: str, kind: str = "production") -> list[tuple[str, float | None]]:
    return [
        (r.conditions[-1].field, r.soft_limit) for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def _mitigants(text: str, kind: str = "manual") -> list[tuple[str, list[str]]]:
    return [
        (r.conditions[-1].field, sorted(r.mitigant_fields))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def test_a_lead_with_a_bulleted_list_reads_a_rule_per_line() -> None:
    text = (
        "Refer to a senior underwriter if any of the following apply:\n"
        "- sailcloth on hand exceeds $80,000;\n"
        "- six or more cutting tables are in use;\n"
        "- varnish is heated on the bench.\n"
        "Small lofts are otherwise routine."
    )
    assert [action for _, action, _ in _rules(text)] == ["refer", "refer", "refer"]
    fields = [conditions[0][0] for _, _, conditions in _rules(text)]
    assert fields == ["canvas_stock_usd", "cutting_tables", "varnish_on_bench"]


def test_all_of_the_following_joins_the_lines_into_one_rule() -> None:
    text = (
        "Decline where all of the following are true:\n"
        "- the tallest mast exceeds 90 ft;\n"
        "- more than 40% of jobs are offsite jobs."
    )
    assert _rules(text) == [
        ("ALL", "decline", [("mast_height_ft", "gt", 90.0), ("offsite_jobs_pct", "gt", 40.0)])
    ]


def test_a_proviso_that_the_referral_may_be_waived_is_a_mitigant() -> None:
    text = (
        "Where the tallest mast a crew rigs on exceeds sixty feet, the account is referred, "
        "provided that the referral may be waived where the loft has fall arrest anchors "
        "fitted on every rig."
    )
    assert _mitigants(text) == [("mast_height_ft", ["fall_arrest_fitted"])]


def test_care_custody_and_control_does_not_break_the_clause() -> None:
    text = (
        "Where offsite jobs are more than half of all jobs, attach the off-premises care, "
        "custody and control exclusion to the GL."
    )
    assert _rules(text) == [("GL", "exclude", [("offsite_jobs_pct", "gt", 50.0)])]


def test_a_clause_naming_its_own_field_is_not_outvoted_by_the_sentence_before() -> None:
    text = (
        "We do not write lofts whose racing crews and racing clients are more than half of "
        "all clients. "
        "Where clients under 16 make up more than 30% of the loft, flag the account for "
        "review."
    )
    fields = [conditions[-1][0] for _, _, conditions in _rules(text, "compliance")]
    assert fields == ["racing_clients_pct", "junior_clients_pct"]


def test_on_property_in_lower_case_names_the_product() -> None:
    text = "We don't write a loft with more than 5 cutting tables on property."
    assert [product for product, _, _ in _rules(text, "sme")] == ["Property"]
    held = "A loft with more than 5 cutting tables kept on the property is referred."
    assert [product for product, _, _ in _rules(held, "sme")] == ["ALL"]


def test_on_the_liability_side_names_the_gl() -> None:
    text = "On the liability side, a loft with more than 5 cutting tables is referred."
    assert [product for product, _, _ in _rules(text)] == ["GL"]


def test_a_log_reaches_the_furthest_case_in_short_words() -> None:
    text = (
        "Guideline: offsite jobs above 25% are flagged for review. 03/02 - Harbour Sails, "
        "offsite 30%, passed at 30. 04/19 - Cove Lofts, 32%, OK'd at 32. 06/11 - Tern "
        "Canvas, offsite 35%, OK'd at 35 on a five-year clean loss run."
    )
    assert _soft(text) == [("offsite_jobs_pct", 35.0)]


def test_several_cases_in_one_sentence_reach_the_furthest() -> None:
    text = (
        "The guide refers customer instruments held over $100k. Decisions: Fiddle Row, "
        "$110,000 held, OK'd at 110k; Bow House, $118,000, passed at 118k; Scroll & Peg, "
        "$125,000, passed at 125k."
    )
    assert _soft(text) == [("instruments_held_usd", 125000.0)]


def test_soldered_in_place_is_no_protection_present() -> None:
    text = (
        "Where the tallest mast exceeds sixty feet, the account is referred, but the referral "
        "may be waived where fall arrest anchors are fitted. Ducted extraction hoods are "
        "bolted in place at each bench."
    )
    assert _mitigants(text) == [("mast_height_ft", ["fall_arrest_fitted"])]


def test_a_number_inside_a_flag_synonym_continues_no_topic() -> None:
    text = (
        "Anybody rigging two hours or more past dusk goes to referral on the BOP. An attic "
        "room with only one way down is a decline for me on the BOP."
    )
    assert _rules(text, "sme")[-1] == ("BOP", "decline", [("attic_single_stair", "eq", True)])


def test_a_hedged_waiver_is_a_waiver() -> None:
    text = (
        "The guide refers customer instruments held over $100k. Where the shop keeps the "
        "instruments in a fireproof vault overnight, the referral is normally waived."
    )
    assert _mitigants(text, "production") == [("instruments_held_usd", ["instrument_vault"])]


def test_a_rule_said_as_a_wish_with_younger_cases_approved() -> None:
    text = (
        "New lofts: the guide wants anything under three years in business referred; we "
        "approved two-year-old lofts twice this year and nothing younger."
    )
    assert _rules(text, "production") == [("ALL", "refer", [("years_in_business", "lt", 3)])]
    assert _soft(text) == [("years_in_business", 2.0)]


def test_a_figure_joined_to_its_noun_is_practice_unless_denied() -> None:
    signed = "Past five cutting tables, refer it - though I've signed off a seven-table loft."
    assert _soft(signed, "sme") == [("cutting_tables", 7.0)]
    denied = "Past five cutting tables, refer it; nobody has approved a seven-table loft."
    assert _soft(denied, "sme") == [("cutting_tables", None)]


def test_a_conditional_approval_points_back_at_the_flag_before() -> None:
    text = (
        "Varnish is heated on the bench to seal seams. This may be written provided that the "
        "pot is thermostatic and no open flame is used."
    )
    assert _rules(text) == [("ALL", "approve_with_conditions", [("varnish_on_bench", "eq", True)])]


def test_a_proviso_naming_a_protection_is_not_an_approval_of_the_risk_before() -> None:
    text = (
        "Some lofts heat varnish on the bench. That is acceptable provided there is ducted "
        "extraction at the bench; without one, refer it."
    )
    assert "approve_with_conditions" not in [action for _, action, _ in _rules(text, "training")]


def test_terms_listed_after_with_conditions_are_not_conditions() -> None:
    text = (
        "Lots of lofts now heat varnish on the bench. That's fine, but write it with "
        "conditions: tins on a non-combustible shelf, rags in a metal bin."
    )
    assert _rules(text, "sme") == [
        ("ALL", "approve_with_conditions", [("varnish_on_bench", "eq", True)])
    ]
    rule = (
        "Tall rigs I handle with conditions: a mast taller than ninety feet needs a rescue "
        "plan, and we write it subject to that."
    )
    assert _rules(rule, "sme") == [
        ("ALL", "approve_with_conditions", [("mast_height_ft", "gt", 90.0)])
    ]


def test_a_log_headed_by_a_plural_class_scopes_its_rules() -> None:
    text = (
        "Sail lofts. The guide wants anything under three years in business referred; we "
        "approved two-year-old lofts twice."
    )
    assert _rules(text, "production") == [
        ("ALL", "refer", [("occupancy", "eq", "sail loft"), ("years_in_business", "lt", 3)])
    ]


def test_a_waiver_after_a_logs_cases_reaches_its_rule() -> None:
    text = (
        "The guide refers customer instruments held over $100k. Decisions: Fiddle Row, "
        "$110,000, OK'd. Bow House, $160,000, referred and declined. Where the shop keeps "
        "the instruments in a fireproof vault overnight, the referral is waived."
    )
    assert _mitigants(text, "production") == [("instruments_held_usd", ["instrument_vault"])]


# Round 37b: a dictionary that lists its classes by semicolons, a table's measure column, a
# unit that is a field's own synonym, two bounds joined by "but", a log's shorthand, and a
# log headed by its book of business.

SEMICOLON_FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case. Classes used in this set: sail loft; "
        "violin workshop; puppet booth. On LRO submissions it is the tenant's class.",
    },
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["square feet", "floor area", "sq ft"],
        "description": "Total floor area of the premises",
    },
    "drying_room_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["drying room"],
        "description": "Floor area of the sail drying room",
    },
    "tiv_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["building value", "valued"],
        "description": "Total insured value",
    },
    "peak_day_visitors": {
        "type": "int",
        "unit": "visitors",
        "synonyms": ["busiest day", "visitors per day"],
        "description": "Visitors on the busiest day",
    },
    "shows_per_month": {
        "type": "int",
        "unit": "shows",
        "synonyms": ["shows a month"],
        "description": "Shows booked in the busiest month",
    },
    "sailcloth_gallons": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["resin capacity", "resin vats"],
        "description": "Gallons of sail resin held",
    },
    "resin_mixed_onsite": {
        "type": "bool",
        "synonyms": ["resin mixed on site"],
        "description": "Sail resin is mixed at the loft",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "haul_radius_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["longest regular run", "haul radius"],
        "description": "Longest regular delivery run from the loft",
    },
    "placarded_loads_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["loads carrying placards", "placarded loads"],
        "description": "Share of loads that carry hazard placards",
    },
    "cutting_tables": {
        "type": "int",
        "unit": "tables",
        "synonyms": ["cutting tables"],
        "description": "Cutting tables in the loft",
    },
    "resin_vats": {
        "type": "int",
        "unit": "vats",
        "synonyms": ["resin vats"],
        "description": "Resin vats in the loft",
    },
    "pigment_gallons": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["pigment stock"],
        "description": "Gallons of pigment held",
    },
    "resin_alarm": {
        "type": "bool",
        "synonyms": ["vat alarm"],
        "description": "Resin vats send remote alerts",
    },
    "puppeteers_vetted": {
        "type": "bool",
        "synonyms": ["vetted"],
        "description": "Every puppeteer has been fingerprinted and vetted",
    },
}
SEMICOLONS = OfflineExtractor(DataDictionary.model_validate({"fields": SEMICOLON_FIELDS}))


def _semi(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in SEMICOLONS.extract(text, source_type=kind)
    ]


def test_classes_listed_by_semicolons_are_the_classes() -> None:
    assert SEMICOLONS.analyzer.subjects.listed == [
        "sail loft",
        "violin workshop",
        "puppet booth",
    ]


def test_a_tables_measure_column_names_the_field_of_each_row() -> None:
    text = (
        "| Class | Measure | Refer at | Decline at |\n"
        "|---|---|---|---|\n"
        "| Sail loft | visitors on the busiest day | 2,500 or more | 6,000 or more |\n"
        "| Puppet booth | shows a month | 40 or more | 90 or more |"
    )
    assert _semi(text) == [
        ("refer", [("occupancy", "eq", "sail loft"), ("peak_day_visitors", "gte", 2500)]),
        ("decline", [("occupancy", "eq", "sail loft"), ("peak_day_visitors", "gte", 6000)]),
        ("refer", [("occupancy", "eq", "puppet booth"), ("shows_per_month", "gte", 40)]),
        ("decline", [("occupancy", "eq", "puppet booth"), ("shows_per_month", "gte", 90)]),
    ]


def test_a_unit_that_is_one_fields_synonym_picks_that_field() -> None:
    assert _semi("Premises over 8,000 sq ft are referred.") == [
        ("refer", [("square_feet", "gt", 8000)])
    ]


def test_two_bounds_joined_by_but_both_hold() -> None:
    text = "A building valued under $100,000 but larger than 10,000 sq ft is verified."
    assert _semi(text, "training") == [
        ("verify", [("square_feet", "gt", 10000), ("tiv_usd", "lt", 100000.0)])
    ]


def test_a_logs_shorthand_and_bare_participle_state_its_guideline() -> None:
    text = (
        "Sail lofts, 2024 files.\n"
        "Guideline: resin capacity over 2,000 gal ref'd unless a vat alarm is fitted.\n"
        "- Luff & Leech, 2,300 gal, no alarm. Appr'd.\n"
        "- Clew Works, NJ. 2,600 gal, no alarm. Appr'd, sr. sign-off.\n"
        "- Tack Sails, 3,400 gal, no alarm. Ref'd; client walked."
    )
    rules = SEMICOLONS.extract(text, source_type="production")
    assert [(r.action, r.conditions[-1].field, r.soft_limit) for r in rules] == [
        ("refer", "sailcloth_gallons", 2600.0)
    ]
    assert rules[0].mitigant_fields == ["resin_alarm"]


def test_a_log_headed_by_its_book_of_business_scopes_its_rules() -> None:
    text = (
        "Decision log extract - sail loft book, Q1-Q3 2024.\n"
        "Guideline in force: premises over 8,000 sq ft ref'd.\n"
        "- 05/07 Cobb Sails. 9,400 sq ft. Ref'd."
    )
    assert _semi(text, "production") == [
        ("refer", [("occupancy", "eq", "sail loft"), ("square_feet", "gt", 8000)])
    ]


def test_a_vetting_flag_in_an_approval_is_a_protection() -> None:
    assert SEMICOLONS.vocab.fields["puppeteers_vetted"].protective


def test_must_have_x_verified_is_a_verification_of_the_risk() -> None:
    text = (
        "Lofts that have been trading for under four years must have the owner's trade "
        "background verified before binding."
    )
    assert _rules(text) == [("ALL", "verify", [("years_in_business", "lt", 4)])]


def test_gal_is_a_gallon() -> None:
    assert canonical_unit("gal") == canonical_unit("gallons") == "gallon"


def test_should_have_been_verified_is_hindsight_not_a_wish() -> None:
    """A QA remark on one case ("should have been verified") is not rewritten as a rule."""
    text = (
        "QA sample: sail loft. The loft kept its resin in a steel cabinet rather than in a "
        "vat with a vat alarm. The underwriter bound without asking; QA finding: partial - "
        "the decision was reasonable, but resin storage should have been verified before "
        "binding whenever a vat alarm isn't fitted."
    )
    assert _semi(text, "production") == []


def test_the_highest_approved_is_practices_reach() -> None:
    text = (
        "The referral point is 5 cutting tables. We approved Fore Sails at 6 and Mizzen "
        "Lofts at 8, both with clean loss records; 8 is the highest approved."
    )
    assert _soft(text) == [("cutting_tables", 8.0)]


def test_let_it_run_to_half_reaches_fifty_percent() -> None:
    text = (
        "Over forty percent offsite jobs it lands on my desk as a referral. I've let it run "
        "to half for long-standing lofts."
    )
    assert _soft(text, "sme") == [("offsite_jobs_pct", 50.0)]


def test_cases_between_two_figures_approved_reach_the_far_one() -> None:
    text = (
        "The manual refers any loft with more than 15% offsite jobs. This quarter seven "
        "lofts between 16% and 22% offsite jobs were approved by team leads."
    )
    assert _soft(text) == [("offsite_jobs_pct", 22.0)]


def test_a_file_cleared_after_a_protection_was_added_names_the_mitigant() -> None:
    text = (
        "The referral applies when more than 30% of jobs are offsite jobs. Tern Sails were "
        "referred at 45% in January; after they fitted fall arrest anchors on every rig in "
        "February the file was cleared with conditions, consistent with the guide."
    )
    assert _mitigants(text, "production") == [("offsite_jobs_pct", ["fall_arrest_fitted"])]


def test_on_the_premises_says_on_site() -> None:
    assert _semi("Resin mixed on the premises: verify the vat store.") == [
        ("verify", [("resin_mixed_onsite", "eq", True)])
    ]


def test_those_three_states_are_the_states_listed_not_every_other() -> None:
    text = (
        "Our forms are filed and approved in every state other than Louisiana, Alaska and "
        "Hawaii; submissions from those three states are declined on every product."
    )
    assert _semi(text, "compliance") == [("decline", [("state", "in", ["LA", "AK", "HI"])])]


def test_under_this_class_is_no_bound() -> None:
    text = (
        "If the operator's longest regular run is more than 250 miles from the loft, it is a "
        "long-haul trucker, and we decline it under this class on any product."
    )
    assert _semi(text, "training") == [("decline", [("haul_radius_miles", "gt", 250.0)])]


def test_one_load_in_ten_is_ten_percent_of_loads() -> None:
    text = "More than one load in ten carrying placards is a referral on every product."
    assert _semi(text, "training") == [("refer", [("placarded_loads_pct", "gt", 10.0)])]


def test_a_count_said_acceptable_is_the_topic_of_the_next_bound() -> None:
    text = (
        "A typical loft has twelve to twenty cutting tables. Resin: one or two resin vats "
        "in a loft are acceptable; more than two is a referral, on any product."
    )
    assert [c for _, c in _semi(text)][-1] == [("resin_vats", "gt", 2)]
