"""Discourse cues of the offline extractor: how a speaker holds, asks or accepts.

Generic English only: "don't quote until you have confirmed ..." (a check the quote waits
on), "trainees ask whether ..." (a question reported, no rule), "..., fine" (a bare
acceptance closing a condition clause).
"""

from __future__ import annotations

import re

#: "don't quote until you have confirmed X": the quote waits on a check (a verification).
HOLD_UNTIL_CHECKED = re.compile(
    r"\b(?:do not|don't|never|must not|mustn't|shall not|should not|cannot|can't)\s+"
    r"(?:quote|bind|write|issue|offer)(?:\s+(?:it|them|this|that|the \w+))?\s*,?\s*"
    r"(?:until|unless|before)\s+(?:\w+\s+){0,3}?"
    r"(?:confirm|verif|validat|check|obtain|receiv|review|seen)\w*",
    re.I,
)

#: "Trainees ask whether that's a referral": a question reported, not a rule.
INDIRECT_QUESTION = re.compile(
    r"\b(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|query|queries|queried)\s+"
    r"(?:\w+\s+){0,2}?(?:whether|if)\b",
    re.I,
)

#: "If they use X, fine": a bare acceptance closing a condition clause.
FINE = re.compile(
    r",\s*(?:that's |that is |then |it's |it is )?(?:fine|ok(?:ay)?|acceptable|no problem|"
    r"good|all good|no issue)\W*$",
    re.I,
)
