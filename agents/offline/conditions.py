"""Conditions of one clause: numeric thresholds, categorical values, boolean flags."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

from agents.offline import lexicon as lx
from agents.offline import lexicon_comparators as lxc
from agents.offline import lexicon_subjects as lxs
from agents.offline.comparators import PRE_PATTERNS, comparator
from agents.offline.enum_values import denied_by_name, enum_conditions, labelled_numbers
from agents.offline.field_choice import choose_field
from agents.offline.flag_words import NEGATION_WORDS, BoolMention
from agents.offline.noun_phrases import singular
from agents.offline.pointers import resolve_pointed_flags
from agents.offline.scales import listed_values, scale_ends
from agents.offline.states import other_states, read_states
from agents.offline.textproc import Token, content_tokens, find_phrase
from agents.offline.units import TIME_UNITS, unit_fits, unit_from_context
from agents.offline.vocab import FieldInfo, FieldVocabulary
from memory.underwriting.fieldlink.numbers import (
    KNOWN_UNITS,
    NumberMention,
    find_numbers,
)
from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition

_TRAILING_COMPARATOR = re.compile(r"\s+(?:less|more|fewer|greater) than$|\s+(?:under|over)$")
_FLIP = {"gt": "lt", "gte": "lte", "lt": "gt", "lte": "gte"}
#: A reduction named right before its size: "cut deeper than", "reduction of more than".
_REDUCTION_BEFORE = re.compile(
    r"\b(?:reductions?|cuts?|decreases?|drops?|discounts?|reduced|decreased|cut by)\b"
    r"[^.;,\d]{0,25}$",
    re.I,
)
_BELOW_AFTER = re.compile(
    r"^\s*(?:or (?:more|greater)\s+)?(?:below|under|short of|beneath)\b", re.I
)
#: Words that relate a noun to another, never a noun themselves ("levels above grade").
_RELATION_WORDS = frozenset("above below over under beyond between per within across".split())
#: The word right after another ("sprinkler| deflectors").
_NEXT_WORD = re.compile(r"^\s+([A-Za-z][\w-]*)")
#: "square feet of mezzanine": the noun after the unit names what is measured.
_OF_NOUN = re.compile(r"^\s+of\s+(?:the\s+|an?\s+|raised\s+)?([a-z][a-z-]{3,})\b", re.I)
_SIGN_WORD = re.compile(r"\b(?:below|under|short of|beneath)\b", re.I)
#: A parenthesised aside; not a bare comparison qualifying the noun before it ("a
#: short-notice bind request (under 24 hours)"), which is the condition itself.
_PAREN = re.compile(
    r"\((?!\s*(?:under|over|below|above|more than|less than|fewer than|at least|at most)"
    r"\s+\$?\d[\d,.]*\s*[a-z%]*\s*\))[^()]*\)",
    re.I,
)
#: "is reduced from", "raised from": the numbers that follow are an old and a new limit.
#: Stems of verbs that change a limit ("reduced", "raises", "moves").
_CHANGE_VERBS = "reduc|cut|rais|increas|lower|mov|chang|extend|tighten|loosen|drop|amend|revis"
_CHANGE_FROM = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|shorten|rise|rises|rose|risen|lift|bump|adjust)\w*\s+"
    # "moves from a Pavement Condition Index of 60 to 70": the measure's name may intervene
    r"(?:\w+\s+){0,2}?from\s*(?:(?:an?|the)\s+(?:[\w-]+\s+){1,4}?of\s+)?\W?\s*$",
    re.I,
)
_THAT = re.compile(r"^\s*(?:that|this|the same)\b", re.I)
#: The limit a change names: "the cap ... is raised", "the minimum ... is cut" (not "the
#: referral point", which a text may set on either side).
_UPPER_LIMIT = re.compile(r"\b(?:cap|ceiling|maximum|upper limit)\b", re.I)
_LOWER_LIMIT = re.compile(r"\b(?:minimum|floor|lower limit)\b", re.I)


def _changed_bound(before: str) -> str | None:
    """The operator past a changed limit its sentence names ("the cap", "the minimum")."""
    upper, lower = _UPPER_LIMIT.search(before), _LOWER_LIMIT.search(before)
    if bool(upper) == bool(lower):
        return None
    return "gt" if upper else "lt"


#: What a multiple is of: "three times the limit", "twice its value", "2x annual sales".
_RATIO_OBJECT = re.compile(
    r"^\s*(?!(?:in|over|during|within|since|per|a|an|each|every|or|and|before|after)\b)"
    r"(?=[a-z$])",
    re.I,
)
_MULTIPLIER = re.compile(
    # "eight times an hour" is a frequency, not a ratio
    r"^(?:\s*(?:times(?!\s+(?:an?|per|each|every)\s+(?:hour|minute|day|week|month|year)\b)"
    r"|fold)\b|-fold\b|x\b)",
    re.I,
)
#: "7-8" written as a range of small numbers (not "404-600 Main St", not "2024-25").
_RANGE_DASH = re.compile(r"(?<![\w.$-])(\d{1,2})-(\d{1,2})(?![\w.%-])")
_FROM_UP_TO = re.compile(r"(\bfrom\s+\$?\d[\d,.]*\s*(?:[a-z%]+\s+)?)up to\b", re.I)
_RANGE_JOIN = re.compile(
    r"\s*(?:to|-|–|through|and|(?:up )?to and including|up to|to and with)\s*", re.I
)
#: "in class St 2", "hazard class 3": a class's number (a code of its own) before it.
_CLASS_CODE = re.compile(r"\bclass(?:es)?\s+(?:[A-Z][A-Za-z]{0,2}[\s-]*)?$", re.I)


def _counts_classes(info: FieldInfo) -> bool:
    """True for a field whose value is a class, tier or grade ("hazard class", "PPC")."""
    words = " ".join([info.name, info.spec.unit or "", *info.spec.synonyms]).lower()
    return bool(re.search(r"class|tier|grade|categor|level|rating|type", words))


#: "Class 1-90", "Type II-B": a label word right before a hyphenated code.
_LABELLED_CODE = re.compile(r"\b(?:class|type|grade|form|code|rating|series)\s*$", re.I)


#: Money below this, written bare, may have left its scale ("million") to the figure before.
_BARE_AMOUNT = 1000


def _soft_before(text: str, start: int) -> bool:
    """True when practice's cue ends right before the number at `start` ("gone up to 23")."""
    begin = max(0, start - 80)
    window = text[begin : start + 30]
    return any(m.end() == start - begin for m in lx.SOFT_LIMIT_CUE.finditer(window))


#: A period a fraction is taken of: "half the year", "a third of a season".
_OF_A_PERIOD = re.compile(
    r"^\s*(?:of\s+)?(?:the|a|an)\s+(?:year|month|week|day|season|shift)\b(?!\s*['\u2019]s)", re.I
)
#: A duration compared after its figure: "for ninety days or longer", "for 30 days or more".
_DURATION_COMPARED = re.compile(
    r"^\s*(?:or (?:more|longer|over|above|greater)|\+|and (?:over|above|longer|more))\b", re.I
)


@dataclass
class NumericHit:
    """A number tied to a field, with its comparator when one was written."""

    field: str
    value: float
    operator: str | None
    start: int
    soft_evidence: bool = False
    end: int = 0


@dataclass
class Extracted:
    """Conditions and flags found in a trigger text."""

    conditions: list[Condition] = field(default_factory=list)
    numbers: list[NumericHit] = field(default_factory=list)
    protective_pos: list[str] = field(default_factory=list)
    protective_neg: list[str] = field(default_factory=list)


#: A parenthesis right after a warranty, condition or endorsement: what it asks for.
_INSTRUMENT_PARENTHESIS = re.compile(
    r"(?:(?<=warranty )|(?<=condition )|(?<=endorsement )|(?<=requirement )|"
    r"(?<=deductible ))\([^()]*\)",
    re.I,
)


def blank_parentheses(text: str) -> str:
    """Replace parenthesised text by spaces (keeps offsets)."""
    return _PAREN.sub(lambda m: " " * len(m.group(0)), text)


def _zero_word(text: str, hit: NumericHit) -> bool:
    """True for a count written "zero" (not the minutes of "2:00", not a zero digit)."""
    return hit.value == 0 and text[hit.start : hit.start + 4].lower() == "zero"


def _bounds_share_units(text: str, mentions: list[NumberMention]) -> list[NumberMention]:
    """Mentions where a bare lower bound takes the unit of the bound after it.

    "At least two but under three years": the two is years too.
    """
    out = list(mentions)
    for i, (first, second) in enumerate(zip(mentions, mentions[1:], strict=False)):
        if (
            first.unit is None
            and second.unit
            and _BOUND_JOIN.fullmatch(text[first.end : second.start])
        ):
            out[i] = replace(first, unit=second.unit)
    return out


#: What joins a range's two bounds when the first is said bare: "but under", "and below".
_BOUND_JOIN = re.compile(
    r"\s*,?\s*(?:but|and)\s+(?:under|below|less than|fewer than|not more than|no more than|"
    r"up to|over|above|more than)\s*",
    re.I,
)


def _one_opening(text: str, hit: NumericHit, vocab: FieldVocabulary) -> bool:
    """True for a clause opening on "One <thing counted>" of a whole-count field.

    "One citation for serving a minor in three years, I refer" acts on one or more.
    """
    info = vocab.fields.get(hit.field)
    return (
        hit.value == 1
        and info is not None
        and info.spec.type == "int"
        and info.unit not in KNOWN_UNITS  # a count of things, not feet or dollars
        and hit.end - hit.start > len("one ")  # "one that is sprinklered": a pronoun
        and _ONE_OPENING.match(text[: hit.start + 8]) is not None
        and not text[: hit.start].strip(" :,-")
    )


_ONE_OPENING = re.compile(r"^\W*(?:one|a single)\s", re.I)


#: "students younger than sixteen", "buildings older than 40": an age.
_AGE_BEFORE = re.compile(r"\b(?:younger|older)\s+than\s*$|\baged?\s*$", re.I)
_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
)
#: "1 July 2025": a month name right before a year (a day and a month, no figure).
_DATE_BEFORE = re.compile(r"(?-i:\b" + _MONTHS + r")\s*$")
#: A policy's limit of liability: "a million per occurrence", "$2M aggregate".
_PER_OCCURRENCE = re.compile(
    r"^\s*(?:(?:per|each|an?)\s+(?:occurrence|claim)|(?:in\s+the\s+)?aggregate)\b", re.I
)
#: What a year names after "the": "the 2024 midway collapse claims", "the 2025 bulletin".
_NAMED_BY_YEAR = re.compile(
    r"\s+(?:[a-z-]+\s+){0,3}?(?:bulletins?|claims?|losses|manual|guide|"
    r"edition|update|revision|memo|circular|collapses?|storms?|fires?|floods?|season|"
    r"program(?:me)?|renewals?|guidelines?|filings?|amendments?|notice)\b",
    re.I,
)
#: "July 1, 2025": a month and its day before a year.
_MONTH_DAY = re.compile(r"(?-i:\b" + _MONTHS + r")\s+\d{1,2}(?:st|nd|rd|th)?,?\s*$")
#: "a wood-frame building", "timber-framed": frame construction in other words.
_WOOD_FRAME = re.compile(
    r"\b(?:wood|timber)[- ]?(?=frame[sd]?\s+(?:buildings?|construction|structures?|houses?|"
    r"homes?|dwellings?|barns?|sheds?|premises)\b)",
    re.I,
)
#: "When that time exceeds two hours": a quantity the sentence before named.
_POINTED_BEFORE = re.compile(
    r"\b(?:that|this|the same)\s+(?:time|figure|number|period|duration|distance|span|"
    r"interval|reading|count|total|amount|length|depth|height|width)\s+[^.;,]{0,30}$",
    re.I,
)


#: A figure a change replaces: "the threshold moves from (more than) 25 ...".
_OLD_FIGURE = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|shift|go|goes|went)\w*\b[^.;]{{0,60}}?\bfrom\s+"
    # "moves from a routine inspection score under 85 to ...": the field's words between
    r"(?:(?:an?|the)\s+(?:[\w-]+\s+){0,4}?(?=(?:more|less|fewer|greater|over|above|under|"
    r"below|at)\b))?"
    r"(?:(?:more|less|fewer|greater) than\s+|over\s+|above\s+|under\s+|below\s+|"
    r"at least\s+)?\$?$",
    re.I,
)
#: ... and the figure that replaces it: "... to (more than) 40".
_NEW_FIGURE = re.compile(r"^[^.;]{0,30}?\bto\s+(?:[a-z]+\s+){0,4}?\$?\d", re.I)
#: "taller than", "deeper than": a height or depth, whatever "from" follows the figure.
_HEIGHT_BEFORE = re.compile(r"\b(?:taller|higher|deeper|tall|high|deep)\s+than\s*$", re.I)
#: "hauling pianos more than twenty times in a month": a count per period.
_TIMES_PER = re.compile(
    r"^\s*times?\s+(?:in\s+)?(?:a|an|per|each|every)\s+(day|week|month|year)\b", re.I
)
#: "starts above four animals instead of above two": the figure replaced.
_INSTEAD_OF = re.compile(
    r"\b(?:instead of|in place of|rather than|replacing)\s+(?:(?:more|less|fewer|greater) than"
    r"\s+|over\s+|above\s+|under\s+|below\s+|the\s+(?:old|former|previous)\s+)?\$?$",
    re.I,
)
#: "fifty feet from the main building", "500 ft away from": a distance.
_FROM_AFTER = re.compile(
    r"^\s*(?:feet|foot|ft|miles?|yards?|meters?|metres?)?\s*(?:away\s+)?from\b", re.I
)


#: Units that still measure when hyphen-attached: "a 30-day vacancy", "a thirty-minute wait".
_ATTACHED_MEASURES = TIME_UNITS | {"minut", "hour", "second"}
#: A limit named by its figure: "the 300-guest referral point", "the 12-seat cap" (the
#: attached unit then measures, as "300 guests" does). "up to that five-thousand-ton
#: ceiling" points back at a figure already said: it is not named anew.
_LIMIT_ARTICLE = re.compile(r"\b(?:the|our|a|an|its|their)\s+$", re.I)
_LIMIT_NAMED_AFTER = re.compile(
    rf"\s+(?:(?:referral|decline|hard|soft|underwriting|guideline|eligibility)\s+)?"
    rf"{lx.LIMIT_NOUNS}\b",
    re.I,
)


class ConditionReader:
    """Reads conditions from clause text with a field vocabulary."""

    def __init__(self, vocab: FieldVocabulary) -> None:
        """Keep the vocabulary.

        Args:
            vocab: The field vocabulary of the dataset.
        """
        self.vocab = vocab
        #: The numeric field the text is currently about (set by the reader of a text):
        #: "Two or more cancellations are referred. Three or more are declined."
        self.topic: str | None = None
        #: The value last compared on the topic field ("... twice that height").
        self.topic_value: float | None = None

    def read(self, trigger: str, context: str = "") -> Extracted:
        """Extract the conditions of a trigger text.

        Args:
            trigger: Clause text without mitigant / reason parts.
            context: Preceding sentences, used to place numbers that carry no unit.

        Returns:
            Conditions, numeric mentions and protective flags.
        """
        out = Extracted()
        trigger = _YEAR_PREFIX.sub(_year_words, trigger)  # "Pre-1950 frame buildings"
        trigger = resolve_pointed_flags(trigger, context, self.vocab)  # "without that approval"
        if not self._frame_flag:  # "a wood-frame building" is of frame construction
            trigger = _WOOD_FRAME.sub("", trigger)
        out.numbers = self.numbers(trigger, context)
        compared = {h.field for h in out.numbers if h.operator}
        for h in out.numbers:
            # ("One guide walking more than twenty guests": a rate's "one", the field compared)
            if (
                h.operator is None
                and h.field not in compared
                and _one_opening(trigger, h, self.vocab)
            ):
                h.operator = "gte"  # "One citation for serving a minor, I refer": one or more
        out.conditions.extend(
            Condition(field=h.field, operator=h.operator or "eq", value=h.value)  # type: ignore[arg-type]
            for h in out.numbers
            # "zero employees": none at all is an exact value, compared or not
            if (h.operator or _zero_word(trigger, h)) and not h.soft_evidence
        )
        if _NOT_ALL.search(trigger):  # "at least 75% but not all technicians": below 100
            out.conditions.extend(
                Condition(field=h.field, operator="lt", value=100)
                for h in out.numbers
                if h.operator in ("gt", "gte") and _is_share(self.vocab, h.field)
            )
        # "(trucks older than model year 2000 are the usual cases)": examples, no condition
        out.conditions.extend(labelled_numbers(_EXAMPLES.sub(" ", trigger), self.vocab))
        if not any(c.field == h.field for c in out.conditions for h in out.numbers):
            # "9 or 10" only where the list runs to an end of a stated scale (gte 9)
            listed = scale_ends(listed_values(trigger, out.numbers), self.vocab)
            out.conditions.extend(c for c in listed if c.operator != "in")
        out.conditions = scale_ends(out.conditions, self.vocab)
        # "less than 50% of the exterior walls are noncombustible": the value names the
        # measured field ("noncombustible exterior pct"), not a construction class
        fields = self.vocab.fields
        measured = [fields[c.field] for c in out.conditions if c.field in fields]
        measured = [info for info in measured if info.kind == "numeric"]
        out.conditions.extend(
            c for c in enum_conditions(trigger, self.vocab) if not _names_measure(c, measured)
        )
        # "write it with the exhaust warranty (ducted exhaust, or a filter log)": what the
        # warranty asks for is no trigger flag
        flags_said = _INSTRUMENT_PARENTHESIS.sub(lambda m: " " * len(m.group(0)), trigger)
        denied = denied_by_name(flags_said, self.vocab)
        out.conditions.extend(c for c, _, _ in denied)
        out.conditions.extend(
            self.states(trigger) or other_states(trigger, context, self.vocab.state)
        )
        self._bools(flags_said, out, [(a, b) for _, a, b in denied], context)
        flags = [
            fields[c.field]
            for c in out.conditions
            if isinstance(c.value, bool) and c.field in fields
        ]
        if flags:  # "where aluminum frames are TIG welded": no frame construction
            out.conditions = [c for c in out.conditions if not _in_flag_words(c, flags, trigger)]
        return out

    @cached_property
    def _limits_measured(self) -> bool:
        """True when a numeric field measures a policy's limit ("per occurrence")."""
        return any(
            re.search(r"\boccurrence|\baggregate|\blimit of liability", i.spec.description, re.I)
            for i in self.vocab.of_kind("numeric")
        )

    def numbers(self, text: str, context: str = "") -> list[NumericHit]:
        """Numbers of a text tied to numeric fields (window phrases and counts skipped)."""
        plain = _RANGE_DASH.sub(r"\1 - \2", blank_parentheses(text))
        # "from 4.2 up to 4.6": a range's two ends, as "from 4.2 to 4.6" (offsets kept)
        plain = _FROM_UP_TO.sub(lambda m: m.group(1) + "   to", plain)
        tokens = content_tokens(plain)
        hits: list[NumericHit] = []
        for mention in _bounds_share_units(plain, find_numbers(plain)):
            if (
                mention.attached
                and mention.unit not in _ATTACHED_MEASURES
                and not (
                    _LIMIT_NAMED_AFTER.match(plain[mention.end :])
                    and _LIMIT_ARTICLE.search(plain[max(0, mention.start - 8) : mention.start])
                )
            ):
                continue  # "a 36-unit building" counts; "a thirty-minute period" measures
            if lx.DOC_PART.search(plain[max(0, mention.start - 20) : mention.start]):
                continue  # "exactly as Manual Section 5.4 says": a part of a document
            if _DATE_BEFORE.search(pre := plain[max(0, mention.start - 20) : mention.start]) or (
                _MONTH_DAY.search(pre)
            ):
                continue  # "With effect from 1 July 2025", "on July 1, 2025": a date
            if (
                _NAMED_BY_YEAR.match(plain[mention.end :])
                and re.search(r"\bthe\s+$", pre)
                and re.fullmatch(r"(?:19|20)\d\d", plain[mention.start : mention.num_end])
            ):
                continue  # "following the 2024 midway collapse claims": a year names them
            if _UNDER_A_PART.search(plain[max(0, mention.start - 30) : mention.end + 1]):
                continue  # "Referred under 3.8; approved": the rule's section, no figure
            if in_flag_name(plain, mention, self.vocab):
                continue  # "helmets for riders under eighteen": a flag's own words
            if _PER_OCCURRENCE.match(plain[mention.end :]) and not self._limits_measured:
                continue  # "a certificate - at least a million per occurrence": a policy limit
            if mention.fraction and _OF_A_PERIOD.match(plain[mention.end :]):
                continue  # "up for more than half the year": a time, no share of anything
            multiplier = _MULTIPLIER.match(plain[mention.num_end :])
            if multiplier:  # "one and a half times that height": a ratio, not a threshold
                hit = self._multiple(plain, mention, multiplier.end())
                if hit is not None:
                    hits.append(hit)
                # a field counted in times reads on ("coverage below 1.5 times"), and so
                # does a count of occurrences ("moved insurers more than three times in
                # that period"): only a multiple of something ("twice that height",
                # "three times the limit") is a ratio
                ratio = _RATIO_OBJECT.match(plain[mention.num_end + multiplier.end() :])
                if hit is not None or (not self._counted_in_times and ratio):
                    continue
            pre = plain[max(0, mention.start - 40) : mention.start]
            ago = bool(lxc.TIME_WINDOW_AFTER.match(plain[mention.end :]))
            window = lxc.TIME_WINDOW_BEFORE.search(pre)
            if window and window.group(0).strip().lower() == "for":
                # "empty for ninety days or longer": a duration compared, no window
                window = None if _DURATION_COMPARED.match(plain[mention.end :]) else window
            if (
                mention.unit in TIME_UNITS
                and (window or ago)
                and not self._named_window(pre)
                # "inspected more than 24 months ago": a compared age, not a window
                and not (ago and any(p.search(pre) for p, _ in PRE_PATTERNS))
            ):
                continue
            pos = _token_index(tokens, mention.start)
            if self.topic is None:  # no field compared before: the context's unit
                mention = unit_from_context(mention, context)
            hint = "age" if _AGE_BEFORE.search(pre) else None
            if _POINTED_BEFORE.search(pre):
                hint = "pointed"  # "When that time exceeds two hours": the field named before
            if _FROM_AFTER.match(plain[mention.num_end :]) and not _HEIGHT_BEFORE.search(pre):
                # "stand at least fifty feet from the main building"; not "taller than 80 ft
                # from crest to toe", a height
                hint = "distance"
            per = _TIMES_PER.match(plain[mention.num_end :])
            if per:
                hint = f"per {per.group(1).lower()}"  # "twenty times in a month"
            resolved = choose_field(
                self.vocab, (self.topic, self.topic_value), mention, tokens, pos, context, hint=hint
            )
            resolved = self._measured_of(plain, mention) or resolved
            cued = _soft_before(plain, mention.start)
            if cued and mention.unit is None:
                # "we've signed off on seven and eight for established outfits": practice's
                # bare figures go past the limit just compared, whatever word follows them
                resolved = self._topic_reached(mention) or resolved
            if resolved is None:
                continue
            info, factor = resolved
            if _EVEN_ONE.search(pre) and _counts_other(plain[mention.end :], mention, info):
                continue  # "where even one driver keeps paper logs": any driver, no years
            if _names_the_field(plain[mention.start : mention.num_end], info):
                continue  # "roofs steeper than 8/12" where the field is "jobs over 8/12 pitch"
            if _CLASS_CODE.search(pre) and not _counts_classes(info):
                continue  # "a dust in class St 2 or higher": a class's number, not a Kst
            soft = (
                cued
                or bool(
                    hits  # "approved roofs of twenty-one to twenty-three years": the run's end too
                    and hits[-1].soft_evidence
                    and _RANGE_JOIN.fullmatch(plain[hits[-1].end : mention.start])
                )
            )
            hit = self._hit(plain, mention, info, soft, factor)
            if _OLD_FIGURE.search(plain[: mention.start]) and _NEW_FIGURE.match(
                plain[mention.end :]
            ):
                hit.operator = None  # "moves from more than 25 to more than 40": replaced
            if _INSTEAD_OF.search(plain[: mention.start]):
                hit.operator = None  # "above four instead of above two": replaced
            if _AGE_BEFORE.search(pre) and _calendar_year(info, hit.value):
                # "a building older than 1850": built before the year
                hit.operator = "lt" if "older" in pre.lower()[-12:] else "gt"
            if hit.operator in ("lt", "lte") and _deeper(plain[: mention.start], info):
                hit.operator = "gt"  # "takes students below 130 feet": deeper than 130
            if (
                hits
                and hits[-1].operator is None
                and hits[-1].field == hit.field
                and (_RANGE_JOIN.fullmatch(plain[hits[-1].end : mention.start]))
            ):
                before = plain[max(0, hits[-1].start - 50) : hits[-1].start]
                joint = plain[hits[-1].end : mention.start]
                if _LABELLED_CODE.search(before) and ("-" in joint or "–" in joint):
                    # "below Class 1-90": a rating's code, no range (the text says the bound)
                    hits[-1].operator = hit.operator = None
                elif hits[-1].value > hit.value or _CHANGE_FROM.search(before):
                    # "reduced from five to four miles": a change of limit, no range; "the
                    # cap ... is raised from 5,000 to 8,000 taps": past the new one
                    hits[-1].operator = hit.operator = None
                    if _CHANGE_FROM.search(before):
                        hit.operator = _changed_bound(plain[: hits[-1].start])
                else:
                    hits[-1].operator, hit.operator = "gte", "lte"
            hit.end = mention.end
            hits.append(hit)
        return hits

    def _measured_of(self, text: str, mention: NumberMention) -> tuple[FieldInfo, float] | None:
        """The one field the noun after "of" names: "5,000 square feet of mezzanine"."""
        if mention.unit in (None, "percent"):
            return None  # "20% of revenue": the noun is what the share is of
        said = _OF_NOUN.match(text[mention.end :])
        if said is None:
            return None
        if said.group(1).lower() in lxs.GENERIC_NOUNS | lxs.GENERIC_HEADS:
            return None  # "6,000 square feet of the building": no field of its own
        word = stem(said.group(1))
        named = [
            i
            for i in self.vocab.of_kind("numeric")
            if word in i.tokens and unit_fits(mention.unit, i) and i.in_scale(mention.value)
        ]
        return (named[0], 1.0) if len(named) == 1 else None

    def _topic_reached(self, mention: NumberMention) -> tuple[FieldInfo, float] | None:
        """The field last compared, when a bare figure of practice lies past its limit."""
        info = self.vocab.fields.get(self.topic or "")
        if info is None or self.topic_value is None or info.kind != "numeric":
            return None
        if mention.value <= self.topic_value or not info.in_scale(mention.value):
            return None
        return info, 1.0

    def _scaled_like_topic(self, value: float, mention: NumberMention, info: FieldInfo) -> float:
        """A bare amount after "up to twelve and a half million": "above twelve and a half".

        Money written without its scale, on the field last compared in millions or
        thousands, takes the scale that brings it near that figure.
        """
        if (
            info.unit != "usd"
            or mention.unit is not None
            or value >= _BARE_AMOUNT
            or self.topic != info.name
            or not self.topic_value
            or self.topic_value < _BARE_AMOUNT * 100
        ):
            return value
        for scale in (1e6, 1e3):
            if self.topic_value / 10 <= value * scale <= self.topic_value * 10:
                return value * scale
        return value

    def _named_window(self, pre: str) -> bool:
        """True when a synonym ending in the window word names a field: "applied within"."""
        low = re.sub(r"\s+", " ", pre.lower()).rstrip()
        # "a producer appointed less than six months ago": the synonym, then a comparator
        low = _TRAILING_COMPARATOR.sub("", low)
        return any(
            len(syn.split()) > 1 and low.endswith(syn.lower())
            for info in self.vocab.of_kind("numeric")
            for syn in info.spec.synonyms
        )

    @cached_property
    def _frame_flag(self) -> bool:
        """A field of the dictionary names a frame itself ("salt shed wood frame")."""
        return any(
            "frame" in " ".join([i.name, *i.spec.synonyms]).lower()
            for i in self.vocab.fields.values()
            if i.kind != "enum"
        )

    @cached_property
    def _counted_in_times(self) -> bool:
        """A numeric field is counted in times: "rent coverage of 1.5 times" is its value."""
        return any(
            (i.spec.unit or "").lower().startswith("times") for i in self.vocab.of_kind("numeric")
        )

    def _named_before(self, tokens: list[Token], context: str) -> list[BoolMention]:
        """Protections said missing by a head word, that the context named in full."""
        if not context:
            return []
        heads = [
            m
            for m in self.vocab.bool_mentions(tokens, partial=True)
            if m.negated and not m.full and self.vocab.fields[m.field].protective
        ]
        if not heads:
            return []
        named = {m.field for m in self.vocab.bool_mentions(content_tokens(context)) if m.full}
        return [m for m in heads if m.field in named]

    def _multiple(self, text: str, mention: NumberMention, length: int) -> NumericHit | None:
        """A multiple of the value last compared in the text: "above twice that height"."""
        rest = text[mention.num_end + length :]
        if self.topic is None or self.topic_value is None or not _THAT.match(rest):
            return None
        op = comparator(text, mention)
        if op is None:
            return None
        value = round(mention.value * self.topic_value, 6)
        info = self.vocab.fields[self.topic]
        if info.spec.type == "int" and float(value).is_integer():
            value = int(value)
        return NumericHit(self.topic, value, op, mention.start, end=mention.end)

    def _hit(
        self, text: str, mention: NumberMention, info: FieldInfo, soft: bool, factor: float
    ) -> NumericHit:
        # "finer than 100 mesh" on a field whose description says "higher = finer"
        op = _said_direction(text[: mention.start], info) or comparator(text, mention)
        if op is None and info.scale is not None and _RATED.search(text[: mention.start]):
            op = "eq"  # "a location rated 5 is a decline": one step of a stated scale
        value = self._scaled_like_topic(round(mention.value * factor, 6), mention, info)
        if info.unit == "rate" and mention.unit == "percent":
            value = round(value / 100.0, 8)  # 0.28% is 0.0028, not 0.0028000000000000004
        elif mention.fraction and info.unit == "percent":  # "more than half" -> 50
            value = value * 100.0
        if info.negative_below and (
            _BELOW_AFTER.match(text[mention.num_end :]) or _BELOW_AFTER.match(text[mention.end :])
        ):  # "20% below", "twenty percent below": the sign, not a comparison
            value = -value
            op = _signed_comparison(text, mention)
        elif info.negative_below and _REDUCTION_BEFORE.search(text[: mention.start]):
            # "a renewal cut deeper than 15 percent", "reduction of more than 25%": the size
            # of a reduction on a field whose reductions are negative (-18 = an 18% cut)
            value = -value
            op = _FLIP.get(op, op) if op else op
        if info.spec.type == "int" and float(value).is_integer():
            value = int(value)
        return NumericHit(info.name, value, op, mention.start, soft)

    def states(self, text: str) -> list[Condition]:
        """US states named in the text, as two-letter codes."""
        return read_states(text, self.vocab.state)

    def _bools(
        self, text: str, out: Extracted, taken: list[tuple[int, int]], context: str = ""
    ) -> None:
        """The flags of a text, but those inside words a closed list already read.

        A protection said missing by its head word alone ("a dental office without a
        separator") is the one the sentences before named in full ("amalgam separator").
        """
        if lx.NOT_A_MITIGANT.search(text):
            return
        text = without_restatements(self.vocab, text)
        tokens = content_tokens(text)
        measured = [self.vocab.fields[h.field] for h in out.numbers if h.field in self.vocab.fields]
        nouns = [_noun_words(m) for m in measured]  # once a clause, not once a flag
        # "an unsprinklered area over 15,000 square feet": the flag's word is in the name
        named = [
            s for m in measured for p in m.phrases if len(p) > 1 for s in find_phrase(tokens, p)
        ]
        mentions = self.vocab.bool_mentions(tokens) or self._named_before(tokens, context)
        for mention in mentions:
            at = tokens[mention.first].start
            if any(a <= at < b for a, b in taken):
                continue  # "no residential sprinkler system": the standard 'none'
            if any(a <= mention.first and mention.last <= b for a, b in named):
                continue
            info = self.vocab.fields[mention.field]
            last = tokens[mention.last]
            nxt = _NEXT_WORD.match(text[last.end :])
            after = stem(nxt.group(1)) if nxt and not last.text.lower().endswith("ed") else ""
            if after not in info.tokens and any(after in words for words in nouns):
                continue  # "the sprinkler deflectors": a noun modifier of the measured field
            said = {tokens[i].stem for i in range(mention.first, mention.last + 1)}
            if info.protective and any(said & words for words in nouns):
                continue  # "a sprinkler system designed to deliver under 0.2 gpm": measured
            if info.protective:
                (out.protective_neg if mention.negated else out.protective_pos).append(info.name)
            else:
                out.conditions.append(
                    Condition(field=info.name, operator="eq", value=not mention.negated)
                )


#: An aside in parentheses or between dashes: "bareboat - no instructor aboard - is ...".
_ASIDE = re.compile(r"\([^()]{3,80}\)|\s[-–—]\s[^-–—.;()]{3,80}\s[-–—](?=\s)")
#: A parenthesis that gives examples: "(short-haul trucks are the usual cases)".
_EXAMPLES = re.compile(
    r"\([^()]*\b(?:usual|usually|typical|typically|e\.g\.|for example|for instance|such as)"
    r"\b[^()]*\)",
    re.I,
)
#: "even one assault claim": one or more of what follows.
_EVEN_ONE = re.compile(r"\beven\s+$", re.I)


def _counts_other(after: str, mention: NumberMention, info: FieldInfo) -> bool:
    """True when "even one X" counts a thing that is not the field's unit.

    "Where even one driver still keeps a paper logbook" counts drivers, not the years of
    a field measured in years; "even one assault claim" counts the claims a field in
    claims counts.
    """
    if mention.value != 1 or not info.unit:
        return False
    counted = [t.stem for t in content_tokens(f"{mention.unit or ''} {after}")[:4]]
    if any(_says(counted, p) for p in info.phrases):
        return False  # "even one party bus", a field of party buses counted in vehicles
    unit = {stem(singular(w)) for w in re.findall(r"[a-z]+", info.unit.lower())}
    return not unit & {stem(singular(w)) for w in re.findall(r"[a-z]+", " ".join(counted))}


def _names_measure(condition: Condition, measured: list[FieldInfo]) -> bool:
    """True when a class value's words are all words of a measured field's name."""
    values = condition.value if isinstance(condition.value, list) else [condition.value]
    words = {t.stem for v in values if isinstance(v, str) for t in content_tokens(v)}
    named = [{t.stem for t in content_tokens(info.name.replace("_", " "))} for info in measured]
    return bool(words) and any(words <= name for name in named)


def _in_flag_words(condition: Condition, flags: list[FieldInfo], trigger: str) -> bool:
    """True when a class value is said inside a present flag's own phrase.

    "Where aluminum frames are TIG welded on site" (a flag "aluminum frame welding"): the
    "frame" beside "aluminum" is the flag's word, no construction class.
    """
    if not isinstance(condition.value, str):
        return False
    said = [t.stem for t in content_tokens(condition.value)]
    tokens = [t.stem for t in content_tokens(trigger)]
    for info in flags:
        for phrase in info.phrases:
            if not said or not set(said) <= set(phrase):
                continue
            for i in range(len(tokens) - len(said) + 1):
                if tokens[i : i + len(said)] != said:
                    continue
                beside = {*tokens[max(0, i - 1) : i], *tokens[i + len(said) : i + len(said) + 1]}
                if beside & (set(phrase) - set(said)):
                    return True
    return False


def _says(words: list[str], phrase: tuple[str, ...]) -> bool:
    """True when stemmed words open with a phrase's first two words ("bus" says "buses")."""
    head = phrase[:2]
    return len(words) >= len(head) > 0 and all(
        a.startswith(b) or b.startswith(a) for a, b in zip(words, head, strict=False)
    )


def without_restatements(vocab: FieldVocabulary, text: str) -> str:
    """A text with the asides that restate a flag's description blanked (offsets kept)."""
    return _ASIDE.sub(
        lambda m: " " * len(m.group(0)) if _restates(vocab, m.group(0)) else m.group(0), text
    )


def _restates(vocab: FieldVocabulary, aside: str) -> bool:
    """True when an aside says a flag's description again, its negation the flag's own.

    "bareboat - no instructor or skipper aboard - is declined", for a flag described
    "charters boats bareboat (no instructor or skipper aboard)".
    """
    tokens = content_tokens(aside)
    if not any(t.text.lower() in NEGATION_WORDS for t in tokens):
        return False
    said = {t.stem for t in tokens if t.text.lower() not in NEGATION_WORDS}
    return bool(said) and any(
        said <= _denied_words(info.spec.description) for info in vocab.of_kind("bool")
    )


@lru_cache(maxsize=1024)
def _denied_words(description: str) -> frozenset[str]:
    """The words a flag's description says after a negation ("(no skipper aboard)").

    Not "fire-resistant fluid (not mineral oil)": an aside "no fire-resistant fluid"
    denies the flag, it does not say the description again.
    """
    words: set[str] = set()
    for part in re.split(r"[().;,]", description):
        tokens = content_tokens(part)
        at = next((i for i, t in enumerate(tokens) if t.text.lower() in NEGATION_WORDS), None)
        if at is not None:
            words |= {t.stem for t in tokens[at + 1 :]}
    return frozenset(words)


def _noun_words(info: FieldInfo) -> set[str]:
    """The words a measured field's synonyms name it with, none generic ("deflector")."""
    words = {
        t.stem
        for phrase in info.spec.synonyms
        for t in content_tokens(phrase)
        if t.text.lower() not in _RELATION_WORDS
    }
    return words - {stem(w) for w in lxs.GENERIC_NOUNS}


#: "at least 75% but not all": a share short of the whole.
_NOT_ALL = re.compile(r"\bbut not (?:all|every|the whole)\b", re.I)


def _is_share(vocab: FieldVocabulary, name: str | None) -> bool:
    """True for a field measured in percent (a share of a whole)."""
    info = vocab.fields.get(name or "")
    return info is not None and info.unit == "percent"


def in_flag_name(text: str, mention: NumberMention, vocab: FieldVocabulary) -> bool:
    """True when a number is part of a flag's synonym said in the text.

    "Riders under 18 wear helmets" names a flag; "helmets for riders under eighteen"
    says its words and its number, which bounds nothing; so does "within two hundred feet
    of a pile line" of a flag described as "... within 200 feet of a pile line".
    """
    if vocab.flag_trails:  # most dictionaries have no figure in a flag's synonym
        after_figure = text[mention.num_end : mention.num_end + 40]
        named = tuple(t.stem for t in content_tokens(after_figure)[:2])
        if any(value == mention.value and trail == named for value, trail in vocab.flag_trails):
            return True  # "only one way out" of a flag "cellar room one way out"
    if not vocab.flag_figures:
        return False
    before = tuple(
        t.stem for t in content_tokens(text[max(0, mention.start - 40) : mention.start])[-2:]
    )
    after = tuple(t.stem for t in content_tokens(text[mention.end : mention.end + 40])[:2])
    return any(
        value == mention.value and (lead == before if lead else trail == after)
        for value, lead, trail in vocab.flag_figures
    )


def _names_the_field(said: str, info: FieldInfo) -> bool:
    """True when a number written as a ratio is part of the field's own name or description."""
    said = said.strip()
    if "/" not in said:
        return False
    words = " ".join([info.spec.description, *info.spec.synonyms])
    return re.search(rf"(?<![\w/]){re.escape(said)}(?![\w/])", words) is not None


def _token_index(tokens: list[Token], offset: int) -> int:
    for i, tok in enumerate(tokens):
        if tok.start >= offset:
            return i
    return len(tokens)


#: A decision taken under a numbered part: "Referred under 3.8;", "declined under 4.2.1".
_UNDER_A_PART = re.compile(
    r"\b(?:referred|declined|flagged|excluded|verified|written|approved) (?:under|per) "
    r"\d+(?:\.\d+)+(?:[;,.)]|\s*$)",
    re.I,
)
#: A calendar year with a prefix: "pre-1950", "post-2000".
_YEAR_PREFIX = re.compile(r"\b(pre|post)-((?:18|19|20)\d\d)\b", re.I)


def _calendar_year(info: FieldInfo, value: object) -> bool:
    """True for a year on a field that holds calendar years ("year built" 1850)."""
    return (
        info.unit == "year"
        and isinstance(value, int | float)
        and _CALENDAR_YEARS[0] <= value <= _CALENDAR_YEARS[1]
    )


#: The years a calendar year may name.
_CALENDAR_YEARS = (1700, 2100)


#: "finer than", "coarser than": a comparative right before the figure.
_COMPARATIVE = re.compile(r"\b([a-z]+er)\s+than\s*$", re.I)


def _said_direction(before: str, info: FieldInfo) -> str | None:
    """The comparison a description's own direction word makes ("finer than" on mesh)."""
    match = _COMPARATIVE.search(before)
    if match is None:
        return None
    word = match.group(1).lower()
    return "gt" if word in info.rising else "lt" if word in info.falling else None


#: "rated 5", "a rating of 4", "scored 3": a step of a rating scale named as such.
_RATED = re.compile(
    r"\b(?:rated|graded|scored|scoring|a (?:rating|score|grade) of|at (?:rating|level))\s*$", re.I
)
#: After a gap's sign word: "or worse" (that far or further) or "or less" (no further).
_WIDER_AFTER = re.compile(
    r"^\s*(?:(or (?:worse|more|further|deeper|greater)|and (?:beyond|worse|more))|"
    r"or (?:less|better|closer))\b",
    re.I,
)


def _signed_comparison(text: str, mention: NumberMention) -> str | None:
    """The comparison on a figure that is negative below a reference ("20% below minimum").

    "more than 20% below" speaks of the size of the gap (past -20: lt); "the floor is 20%
    below" names the signed value itself (under the floor: lt, no flip).
    """
    below = _SIGN_WORD.search(text, mention.num_end)  # the "below" after it is the sign
    op = comparator(text[: below.start()] if below else text, mention)
    if op is None and below is not None:
        # "30 percent under or worse": the gap that far or wider (-30 or lower)
        wider = _WIDER_AFTER.match(text[below.end() :])
        if wider:
            return "lte" if wider.group(1) else "gte"
    pre = text[max(0, mention.start - 40) : mention.start]
    if op is None or lxc.MINIMUM_BEFORE.search(pre) or lxc.MAXIMUM_BEFORE.search(pre):
        return op
    return _FLIP.get(op, op)


def _year_words(match: re.Match[str]) -> str:
    return f"{'before' if match.group(1).lower() == 'pre' else 'after'} {match.group(2)}"


#: "below 130 feet", "beneath 40 ft": on a depth, further down is more.
_BELOW = re.compile(r"\b(?:below|beneath)\s*$", re.I)


def _deeper(before: str, info: FieldInfo) -> bool:
    """True when "below N" bounds a depth (a field whose name or description says deep)."""
    words = f"{info.name} {info.spec.description}".lower()
    return bool(_BELOW.search(before)) and bool(re.search(r"\bdeep|depth", words))
