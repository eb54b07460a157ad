"""An invented harbour / lighthouse data dictionary for the condition-reader tests.

No dataset has these fields. Each test file takes the fields it reads with
`harbour_fields`, with a change of wording where its cases need one.
"""

from __future__ import annotations

from typing import Any

HARBOUR: dict[str, dict[str, Any]] = {
    "berth_length_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["berth length", "berth"],
        "description": "Length of the longest berth, in feet",
    },
    "winch_span_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["winch span"],
        "description": "Span of the winch arm, in feet",
    },
    "tow_distance_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["tow distance", "tow yard"],
        "description": "Road distance to the tow yard, in miles",
    },
    "keeper_tenure_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["keeper tenure", "years as keeper"],
        "description": "Years the lighthouse keeper has held the post",
    },
    "glaze_loss_ratio": {
        "type": "float",
        "unit": "rate",
        "synonyms": ["glaze loss ratio", "glaze loss"],
        "description": "Share of glaze lost in firing, as a rate",
    },
    "mooring_fee_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["mooring fee"],
        "description": "Annual mooring fee",
    },
    "salt_index": {
        "type": "int",
        "unit": "index",
        "synonyms": ["salt index"],
        "description": "Salt exposure index, 1 (inland) to 9 (spray zone)",
    },
    "tide_zone": {
        "type": "int",
        "unit": "Zone",
        "synonyms": ["tide zone"],
        "description": "Tide zone number",
    },
    "drift_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["drift", "hull drift"],
        "description": "Hull drift against the survey, -12 = 12% below",
    },
    "crew_count": {
        "type": "int",
        "synonyms": ["crew", "deckhands"],
        "description": "Deckhands on the roster",
    },
    "hull_class": {
        "type": "str",
        "synonyms": ["hull class"],
        "description": "Hull class code (upper case): A, B, VX, KQ, GRP or STEEL",
    },
    "sail_cloth": {
        "type": "str",
        "synonyms": ["sail cloth"],
        "description": "Sail cloth, lower case: 'woven dacron', 'laminated mylar', 'mylar', "
        "'cotton duck'",
    },
    "harbour_state": {
        "type": "str",
        "synonyms": ["state"],
        "description": "Two-letter state code",
    },
    "bilge_alarm": {
        "type": "bool",
        "synonyms": ["bilge alarm"],
        "description": "A bilge alarm is fitted",
    },
    "rust_flag": {
        "type": "bool",
        "synonyms": ["rust flag", "visible rust"],
        "description": "Visible rust on the hull",
    },
    "slip_check_days": {
        "type": "int",
        "unit": "days",
        "synonyms": ["checked within", "slip check"],
        "description": "Days within which a hauled-out hull is checked",
    },
}


def harbour_fields(*names: str, **changes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The named fields of `HARBOUR`, in the order given, each with its `changes` applied."""
    return {name: {**HARBOUR[name], **changes.get(name, {})} for name in names}
