"""Comparator vocabulary for the offline extractor: how a text bounds a number.

Generic English words only, no dataset's fields. This module holds the comparator
phrases before and after a number, maximum / minimum / requirement wording, time-window
cues, anaphoric comparisons ("over that") and bare comparatives ("larger operations")
with the words that give their direction.
"""

from __future__ import annotations

import re

# --- comparators -----------------------------------------------------------------------------

#: "cannot hold climate control for", "unable to run for": a capacity that falls short of
#: the number that follows.
CANNOT_LAST = (
    r"(?:cannot|can't|can not|unable to|fails? to|won't|will not)\s+"
    r"(?:(?!for\b)[\w-]+\s+){1,4}?for"
)
#: Phrases ending right before a number: (pattern, operator).
PRE_COMPARATORS: tuple[tuple[str, str], ...] = (
    # terse notes: "open < 2 yrs", "floor <= 8 ft", "losses >= 3" (not an arrow's "->")
    (r"<=|≤|=<", "lte"),
    (r"(?<!-)>=|≥|=>", "gte"),
    (r"<(?!=)", "lt"),
    (r"(?<![-=])>(?!=)", "gt"),
    # "at or under twenty-five gallons", "at or above 80 degrees": the figure included
    (r"at or (?:under|below)", "lte"),
    (r"at or (?:over|above)", "gte"),
    (r"no (?:more|greater) than|not (?:more|greater) than|at most|maximum of|up to", "lte"),
    # "even one assault claim": one or more
    (r"no (?:less|fewer) than|not (?:less|fewer) than|at least|minimum of|even", "gte"),
    (
        r"more than|greater than|in excess of|older than|higher than|larger than|"
        r"bigger than|taller than|wider than|longer than|heavier than|upwards of|north of|"
        r"farther (?:away )?than|further (?:away )?than|more distant than|worse than|"
        r"exceed(?:s|ing)?|over|above|past|beyond|after|newer than|later than|"
        # "a building that postdates 1990"
        r"postdat(?:es|ed|ing|e)|"
        # "once inventory passes $1.5M", "when the fleet tops 60"
        r"pass(?:es|ing)?|goes past|gets past|tops|crosses|"
        # "faster than", "steeper than": comparatives of more
        r"(?:fast|quick|hott|warm|steep|thick|deep|loud|strong|broad|dens|busi|stiff|full|"
        r"bright)er than",
        "gt",
    ),
    (
        r"less than|fewer than|younger than|lower than|smaller than|shorter than|"
        r"earlier than|short of|prior to|closer than|nearer than|south of|"
        # "slower than", "shallower than": comparatives of less
        r"(?:slow|cold|cool|thinn|shallow|narrow|light|weak|cheap|quiet|flatt|gentl|soft|"
        r"dimm|dull)er than|"
        # "where the building predates 1920"
        r"under|below|within|inside(?: of)?|before|predat(?:es|ed|ing|e)|pre|" + CANNOT_LAST,
        # "a supply that cannot keep the plant running for 48 hours": it lasts less
        "lt",
    ),
)
POST_COMPARATORS: tuple[tuple[str, str], ...] = (
    (
        r"or (?:more|greater|higher|older|above|over|later|worse|farther|further|faster|"
        r"larger|bigger|longer|taller|heavier|deeper|steeper|wider|hotter|thicker|stronger|"
        r"louder|busier|harder|tougher|rougher)|"
        r"and (?:above|over|up|older|higher|worse)|\+|plus",
        "gte",
    ),
    (
        r"or (?:less|fewer|lower|younger|under|below|earlier|before|closer|nearer|better|"
        r"slower|smaller|shorter|lighter|cooler|narrower|shallower|thinner|newer|weaker|"
        r"quieter|easier|milder|gentler)|"
        r"and (?:under|below|lower|less)",
        "lte",
    ),
)
#: "the 0.25% program minimum" -> lt; "the 20-employee limit" -> gt.
#: "The maximum TIV for frame is $2M" / "a minimum of ... is N".
MAXIMUM_BEFORE = re.compile(
    r"\b(?:maximum|max|limit|cap|ceiling)\b[^.;,]{0,40}?\b(?:is|of|at|=)\s*$|"
    # "the guide caps the fabric at twelve years", "capped at 40"
    r"\b(?:caps|capped|limits|limited)\b[^.;,]{0,40}?\bat\s*$|"
    # "the guideline referral point is four hundred cars"
    r"\b(?:referral|decline|trigger|review)\s+(?:point|line|threshold)\s+(?:is|of|at)\s*$|"
    r"\b(?:tops?|maxe?s?|caps?|peaks?) out at\s*$|"
    # terse notes: "max 60 gal", "maximum: 40"
    r"\b(?:max|maximum)\.?:?\s*$",
    re.I,
)
MINIMUM_BEFORE = re.compile(r"\b(?:minimum|min|floor)\b[^.;,]{0,40}?\b(?:is|at|=)\s*$", re.I)
#: A requirement: "requires at least N", "a minimum of N ... is required" fire below N.
REQUIREMENT = re.compile(
    r"\b(?:requires?|required|must (?:have|be at least|include|contain|carry|show|provide|"
    r"document|maintain|keep)|needs?|should have|shall (?:have|include)|minimum of|"
    # "the venue guide wants a safety apron of at least eight feet"
    r"wants?|calls? for|asks? for|expects?|insists? on)\b",
    re.I,
)
#: "twelve feet above the floor" is a height, not a floor price.
MINIMUM_LABEL = re.compile(
    r"^\W*(?!(?:above|below|off|from|to|of|over|under|across)\b)"
    r"(?:[\w-]+\s+){0,2}?(?:minimum|floor)\b",
    re.I,
)
#: "60 gal max", "the 20-employee limit": the figure is the most allowed.
#: "the 300-guest referral point": the figure past which a file is referred.
MAXIMUM_LABEL = re.compile(
    r"^\W*(?:[\w-]+\s+){0,2}?(?:maximum|max|limit|cap|ceiling|"
    r"(?:referral|decline|review)\s+(?:point|line|threshold|trigger|figure|number))\b",
    re.I,
)
#: Numbers that describe a time window, not a threshold ("in the last three years").
TIME_WINDOW_BEFORE = re.compile(
    r"\b(?:(?:in|within|during|for)\s+(?:the\s+)?(?:last|past|prior|previous|next|first)?|"
    # "inside the past three years", "across the last five years"
    r"(?:over|inside|across|throughout|through)\s+the\s+(?:last|past|prior|previous|next|"
    r"first))\s*$",
    re.I,
)
TIME_WINDOW_AFTER = re.compile(r"^\s*(?:ago|later|after|earlier|prior)\b", re.I)
#: A comparator followed by an anaphor: "over that", "above that size".
ANAPHOR_COMPARATOR = re.compile(
    r"\b(more than|over|above|past|beyond|under|below|less than|short of|"
    r"(?:closer|nearer|fewer|younger|smaller|lower|shorter|farther|further|older|larger|"
    r"bigger|higher|longer|taller|tighter|narrower|wider) than|"
    # "anything with more seat positions than that"
    r"(?:more|fewer|less)\s+(?:[\w-]+\s+){1,2}?than)\s+(?:that|this|it|"
    # "bindery rates under the minimum are referred": the minimum stated before
    r"the (?:minimum|maximum|limit|cap|threshold))\b"
    # "we decline it under this class": the class or form it is done under, no bound
    r"(?!\s+(?:class|program|programme|policy|form|product|section|rule|guideline|manual|"
    r"chapter|schedule|endorsement|line|heading)\b)|"
    # "kept to no more than 500 lb on premises. A parchment maker holding more is declined"
    r"\b(?:holding|storing|keeping|stocking|carrying|having)\s+(more|less|fewer)\b"
    r"(?!\s+(?:than|of|[\w-]+\s+than)\b)",
    re.I,
)
#: Anaphoric comparisons that point below the earlier value ("closer than that").
BELOW_ANAPHOR_WORDS = frozenset(
    "under below less closer nearer fewer younger smaller lower shorter tighter narrower".split()
    + ["short"]  # "short of that"
)
SIZE_ANAPHOR = re.compile(
    r"\b(?:that|this|those|these|such)\s+(?:size|level|amount|threshold|limit|value|"
    r"figure|range|area|volume|states?|count(?:y|ies)|locations?|class(?:es)?)\b",
    re.I,
)

# --- bare comparatives -----------------------------------------------------------------------

#: A clause opening on a bare comparative ("larger operations are referred", "a longer
#: interval is referred"): it acts on what the number stated just before leaves out.
#: Group 1 holds the comparative, read for its direction.
BARE_COMPARATIVE = re.compile(
    r"^(?:an?\s+|the\s+|any\s+|anything\s+)?(larger|bigger|longer|higher|greater|older|taller|"
    r"heavier|wider|deeper|farther|further|more|smaller|shorter|lower|younger|closer|"
    r"nearer|fewer|less|newer|narrower|shallower|thinner|thicker|lighter|"
    r"steeper|hotter|colder|cheaper|busier|louder|stronger|weaker|faster|quicker)"
    r"\b(?!\s+than\b)",
    re.I,
)
#: Comparatives that point above a bound (the rest point below it).
GREATER_WORDS = frozenset(
    "larger bigger longer higher greater older taller heavier wider deeper farther further "
    "more thicker steeper hotter busier louder stronger faster quicker".split()
)
