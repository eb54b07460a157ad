"""Offline extraction round 43: which field a bare figure speaks of when the talk turns.

Every field and sentence below is made up for these tests (a party-supply dictionary no
dataset has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'party supply store', 'costume hire')",
    },
    "stock_value_usd": {
        "type": "int",
        "unit": "USD",
        "synonyms": ["stock value", "inventory value"],
        "description": "Value of the stock on hand, in USD",
    },
    "helium_tanks_count": {
        "type": "int",
        "unit": "tanks",
        "synonyms": ["helium tanks", "balloon gas tanks", "tanks on site"],
        "description": "Number of helium tanks kept on site",
    },
    "largest_claim_usd": {
        "type": "int",
        "unit": "USD",
        "synonyms": ["largest paid claim", "biggest claim"],
        "description": "Largest single paid claim in the loss history, in USD",
    },
    "balloon_bay_units_count": {
        "type": "int",
        "unit": "units",
        "synonyms": ["balloon bay units", "party store bays", "store bay count"],
        "description": "Number of balloon-filling bays in the store",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction", "construction class"],
        "description": "frame, joisted masonry, non-combustible, fire resistive",
    },
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["square feet", "floor area"],
        "description": "Total floor area in square feet",
    },
    "marshal_lookup_done": {
        "type": "bool",
        "synonyms": ["fire marshal lookup", "permit verified", "marshal lookup"],
        "description": "The tank permit was confirmed on the fire marshal's lookup",
    },
    "tanks_caged_outdoors": {
        "type": "bool",
        "synonyms": ["tanks caged outdoors", "locked tank cage"],
        "description": "Helium tanks are kept in a locked cage outdoors",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_figure_after_a_sentence_naming_another_thing_leaves_the_last_topic() -> None:
    text = (
        "For a party supply store on Property the stock value guideline is $400,000; "
        "anything over that is a referral. In practice I've signed off a few up to five "
        "hundred thousand with clean loss runs. Every party store bay has helium; the "
        "balloons need it. What matters is how many tanks they keep. More than twelve and "
        "it's a referral, whatever the line of business. If the tanks sit in a locked cage "
        "outdoors, I'll clear the referral with conditions."
    )
    rules = EXTRACTOR.extract(text, source="SME interview", source_type="sme")
    by_field = {r.conditions[-1].field: r for r in rules}
    assert "largest_claim_usd" not in by_field
    assert "balloon_bay_units_count" not in by_field
    tanks = next(r for r in rules if "helium_tanks_count" in {c.field for c in r.conditions})
    assert (tanks.action, tanks.mitigant_fields) == ("refer", ["tanks_caged_outdoors"])
    assert [c.value for c in tanks.conditions if c.field == "helium_tanks_count"] == [12]


def test_a_figure_that_follows_figures_keeps_their_topic() -> None:
    text = (
        "Q: Bays? A: The guide caps us at six balloon bay units before a referral. I've "
        "signed off on seven and eight for established family stores; nine or more goes to "
        "a senior underwriter."
    )
    triples = rule_triples(EXTRACTOR, text, "sme")
    assert triples == [("ALL", "refer", [("balloon_bay_units_count", "gt", 6)])]


def test_located_there_points_to_the_states_of_the_nearest_clause() -> None:
    text = (
        "Bulletin B-7. The earlier bulletin suspended new GL business for party supply stores "
        "in Oregon, Idaho, Nevada and Utah. The filing is now approved in Oregon and Idaho, "
        "and the suspension is withdrawn in those two states. It remains in force in Nevada "
        "and Utah: GL submissions for party supply stores located there are declined."
    )
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        (
            "GL",
            "decline",
            [("occupancy", "eq", "party supply store"), ("state", "in", ["NV", "UT"])],
        )
    ]


def test_a_table_of_limits_acts_when_each_row_s_limit_is_exceeded() -> None:
    text = (
        "Section 4 - Store limits. The limits below apply to every store.\n\n"
        "| Characteristic | Limit | When the limit is exceeded |\n"
        "| --- | --- | --- |\n"
        "| Helium tanks | 12 | Refer to a senior underwriter |\n"
        "| Stock value | $400,000 | Decline |\n"
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("helium_tanks_count", "gt", 12)]),
        ("ALL", "decline", [("stock_value_usd", "gt", 400000)]),
    ]


def test_the_clause_past_a_class_s_bound_keeps_its_classes() -> None:
    listed = rule_triples(
        EXTRACTOR,
        "Party supply stores may be written with no more than 12 helium tanks; over 12 is "
        "referred.",
    )
    assert listed == [
        (
            "ALL",
            "refer",
            [("helium_tanks_count", "gt", 12), ("occupancy", "eq", "party supply store")],
        )
    ]
    excepted = rule_triples(
        EXTRACTOR,
        "Every class in this guide except party supply stores may be written with no more "
        "than 12 helium tanks; over 12 is referred.",
    )
    assert excepted == [
        (
            "ALL",
            "refer",
            [("helium_tanks_count", "gt", 12), ("occupancy", "neq", "party supply store")],
        )
    ]


def test_a_numbered_item_s_class_label_scopes_its_rule() -> None:
    text = (
        "Section 5 - Retail. 5.1 Party supply stores: buildings of frame construction are "
        "declined on Property; joisted masonry or better is acceptable."
    )
    assert rule_triples(EXTRACTOR, text) == [
        (
            "Property",
            "decline",
            [("construction_type", "eq", "frame"), ("occupancy", "eq", "party supply store")],
        )
    ]


LOG = (
    "Decision log extract, party book, January 2025.\n\n"
    "| Case | Class | Product | Key facts | Guideline | UW decision |\n"
    "| --- | --- | --- | --- | --- | --- |\n"
    "| DL-1 | party supply store | Property | 14 helium tanks; tanks in a locked cage | "
    "refer above 12 helium tanks | approved with conditions |\n"
    "| DL-2 | party supply store | Property | 15 helium tanks; no cage | "
    "refer above 12 helium tanks | referred |\n"
    "| DL-3 | costume hire | all lines | two claims over $20,000; no cage | none stated | "
    "declined |\n\n"
    "Reviewer note: more than 12 helium tanks has been approved up to 14 tanks, so treat the "
    "Property tank referral as soft. A largest paid claim over $20,000 is a decline on any "
    "product for either class (party supply stores and costume hires)."
)


def test_a_decision_log_row_states_the_rule_it_cites_and_its_case_is_evidence() -> None:
    rules = EXTRACTOR.extract(LOG, source="Decision log", source_type="production")
    tanks = [r for r in rules if "helium_tanks_count" in {c.field for c in r.conditions}]
    assert [(r.product_type, r.action) for r in tanks] == [("Property", "refer")]
    [rule] = tanks
    assert sorted((c.field, c.operator, c.value) for c in rule.conditions) == [
        ("helium_tanks_count", "gt", 12),
        ("occupancy", "eq", "party supply store"),
    ]
    assert (rule.soft_limit, rule.mitigant_fields) == (14, ["tanks_caged_outdoors"])
    # the case decided with no guideline makes no rule; the reviewer's note does
    claims = [r for r in rules if "largest_claim_usd" in {c.field for c in r.conditions}]
    assert [sorted((c.field, c.operator, c.value) for c in r.conditions) for r in claims] == [
        [
            ("largest_claim_usd", "gt", 20000),
            ("occupancy", "in", ["party supply store", "costume hire"]),
        ]
    ]


def test_a_class_s_shortened_name_before_its_premises_points_back_at_it() -> None:
    text = (
        "5.1 Party supply stores: buildings of frame construction are declined on Property. "
        "5.2 A supply store building larger than 20,000 square feet is referred."
    )
    scoped = [
        sorted((c.field, c.operator, c.value) for c in r.conditions)
        for r in EXTRACTOR.extract(text, source_type="manual")
    ]
    assert [("occupancy", "eq", "party supply store"), ("square_feet", "gt", 20000)] in scoped


def test_a_share_written_as_a_digit_fraction_is_a_percent() -> None:
    more = {
        "rental_share_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["rental share"],
            "description": "Share of receipts from rentals, in percent",
        }
    }
    text = "rental share > 1/5 of receipts = decline."
    assert rule_triples(extractor_over(FIELDS, more), text, "sme") == [
        ("ALL", "decline", [("rental_share_pct", "gt", 20)])
    ]


def test_the_lacking_check_said_again_is_the_requirement_s_rule() -> None:
    text = (
        "For both classes, party supply stores and costume hires, the tank permit must be "
        "confirmed against the fire marshal's public lookup before binding; where that lookup "
        "has not been done, send the file back for verification."
    )
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        (
            "ALL",
            "verify",
            [
                ("marshal_lookup_done", "eq", False),
                ("occupancy", "in", ["party supply store", "costume hire"]),
            ],
        )
    ]


TIMED = extractor_over(
    FIELDS,
    {
        "evacuation_drill_secs": {
            "type": "int",
            "unit": "seconds",
            "synonyms": ["evacuation drill", "drill time"],
            "description": "Seconds for the last customer to leave the store in a timed drill",
        }
    },
)


def test_a_fraction_of_a_minute_after_the_drill_is_named_is_seconds() -> None:
    text = (
        "Ask for the store's evacuation drill: the time, in seconds, for the last customer to "
        "reach the street. Anything longer than three-quarters of a minute is referred."
    )
    assert rule_triples(TIMED, text) == [("ALL", "refer", [("evacuation_drill_secs", "gt", 45)])]


def test_a_log_heading_cut_at_its_colon_is_no_rule_on_any_drill() -> None:
    text = (
        "Evacuation-drill referrals (guide limit: 45 seconds):\n"
        "- 2024-01-09: party supply store, Columbus OH - drill timed at 55 seconds. Approved."
    )
    assert all(
        (c.field, c.value) != ("evacuation_drill_secs", 0)
        for r in TIMED.extract(text, source_type="production")
        for c in r.conditions
    )


CANNONS = extractor_over(
    FIELDS,
    {
        "confetti_cannon_onsite": {
            "type": "bool",
            "synonyms": ["confetti cannon", "party cannon"],
            "description": "The store fires confetti cannons on site",
        }
    },
)


def test_a_refusal_to_bind_for_a_risk_with_a_hazard_is_its_decline() -> None:
    text = (
        "Effective 20 February 2024 and until further notice, no new or renewal BOP policy "
        "may be bound for a store with a confetti cannon (as seen at party venues). Such "
        "submissions are declined."
    )
    assert rule_triples(CANNONS, text, "compliance") == [
        ("BOP", "decline", [("confetti_cannon_onsite", "eq", True)])
    ]


def test_no_mitigant_said_after_the_rule_leaves_the_rule_standing() -> None:
    text = "A BOP store with a confetti cannon is declined, and no mitigant changes that."
    assert rule_triples(CANNONS, text, "training") == [
        ("BOP", "decline", [("confetti_cannon_onsite", "eq", True)])
    ]


def test_a_comparison_split_by_its_object_is_read_whole() -> None:
    more = {
        "street_setback_ft": {
            "type": "float",
            "unit": "ft",
            "synonyms": ["setback from the street", "street setback"],
            "description": "Distance from the tank cage to the street, in feet",
        }
    }
    text = "A store that keeps its tank cage closer to the street than 40 feet is declined."
    assert rule_triples(extractor_over(FIELDS, more), text) == [
        ("ALL", "decline", [("street_setback_ft", "lt", 40)])
    ]


KIDS = extractor_over(
    FIELDS,
    {
        "under10_party_share_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["share of kids' parties", "parties for children under ten"],
            "description": "Share of the store's party bookings that are for guests under 10, "
            "in percent",
        },
        "uav_mass_kg": {
            "type": "float",
            "unit": "kg",
            "synonyms": ["drone mass"],
            "description": "Take-off mass of the heaviest drone flown, in kilograms",
        },
    },
)


def test_a_figure_in_the_share_s_own_name_bounds_nothing() -> None:
    text = (
        "Where parties for guests under 10 make up more than 60% of the store's bookings, "
        "refer the account."
    )
    assert rule_triples(KIDS, text) == [("ALL", "refer", [("under10_party_share_pct", "gt", 60)])]


def test_three_in_five_of_them_is_sixty_percent() -> None:
    text = "When more than three in five of the parties booked are for kids, decline the store."
    assert rule_triples(KIDS, text) == [("ALL", "decline", [("under10_party_share_pct", "gt", 60)])]


def test_a_table_of_dated_cases_and_their_decisions_states_no_rule() -> None:
    text = (
        "Exceptions against the 12-tank referral line:\n\n"
        "| Date | Store | Helium tanks | Locked tank cage | Decision |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| 2024-03-14 | party supply store | 14 | yes | approved with conditions |\n"
        "| 2024-06-21 | costume hire | 20 | no | declined |\n"
    )
    rules = EXTRACTOR.extract(text, source_type="production")
    assert [r for r in rules if r.action == "decline"] == []
    assert all("tanks_caged_outdoors" not in {c.field for c in r.conditions} for r in rules)


def test_what_drove_the_decline_is_the_rule_it_names() -> None:
    more = {
        "open_after_midnight": {
            "type": "bool",
            "synonyms": ["open after midnight", "late opening"],
            "description": "The store stays open after midnight",
        },
        "noise_complaints_count": {
            "type": "int",
            "unit": "complaints",
            "synonyms": ["noise complaints"],
            "description": "Noise complaints logged in the last twelve months",
        },
    }
    text = (
        "What drove the decline was the pairing: a store open after midnight together with "
        "two or more noise complaints. Either one alone is not a reason to decline."
    )
    assert rule_triples(extractor_over(FIELDS, more), text, "production") == [
        (
            "ALL",
            "decline",
            [("noise_complaints_count", "gte", 2), ("open_after_midnight", "eq", True)],
        )
    ]


def test_a_bound_said_in_the_sentence_before_lends_no_class() -> None:
    text = "A party supply store is eligible with no more than 12 helium tanks. Above 12, refer."
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("helium_tanks_count", "gt", 12)])]


def test_a_bound_s_subject_that_no_class_lists_lends_no_class() -> None:
    text = (
        "Our audit of 40 files shows helium tanks up to 12 signed off routinely; every file "
        "above 12 stayed a referral."
    )
    assert rule_triples(EXTRACTOR, text, "production") == [
        ("ALL", "refer", [("helium_tanks_count", "gt", 12)])
    ]


def test_a_log_row_citing_no_guideline_is_a_case_whatever_its_first_column() -> None:
    text = (
        "Store log.\n\n"
        "| Store | Product | Key facts | Guideline | UW decision |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| costume hire | all lines | 20 helium tanks; no locked tank cage | none stated | "
        "declined |\n"
    )
    assert rule_triples(EXTRACTOR, text, "production") == []
