"""The values of a closed-list field a clause names ("zone AE", "a wood, pellet or coal stove").

Values come from the data dictionary (`FieldInfo.values`); short codes count only next
to a word of their field or inside a list of codes. Numbers written after their unit word
("Tier 1") are read as values too.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agents.offline.comparators import PRE_PATTERNS
from agents.offline.states import negated_list, separated
from agents.offline.textproc import content_tokens, find_phrase
from agents.offline.units import TIME_UNITS
from agents.offline.vocab import FieldInfo, FieldVocabulary
from memory.underwriting.fieldlink.linker import value_pattern
from memory.underwriting.fieldlink.states import US_STATES
from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition


def enum_hits(text: str, info: FieldInfo) -> list[tuple[str, int]]:
    """Values of an enum field found in text: [(value, offset)], longest values first.

    Short codes ("A", "VE") count only after a field word ("zone AE") or inside a list
    of codes ("V or VE").
    """
    taken: list[tuple[int, int]] = []
    hits: list[tuple[str, int, int]] = []
    for value in sorted(info.values, key=len, reverse=True):
        for match in value_pattern(value, compound=True).finditer(text):
            span = (match.start(), match.end())
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            if not _enum_context_ok(text, match, value, info):
                continue
            taken.append(span)
            hits.append((value, match.start(), match.end()))
    hits += _initial_hits(text, info, taken)  # "large quantity generators" is 'lqg'
    for value in info.values:  # "a wood, pellet or coal stove": the head noun is shared
        words = value.split()
        if len(words) != 2:
            continue
        shared = re.compile(
            rf"(?<![\w-]){re.escape(words[0])}(?=(?:\s*,\s*[\w-]+)*\s*,?\s+(?:or|and)\s+"
            rf"[\w-]+\s+{re.escape(words[1])}(?:s|es)?\b)",
            re.I,
        )
        for match in shared.finditer(text):
            if not any(s <= match.start() < e for s, e in taken):
                taken.append((match.start(), match.end()))
                hits.append((value, match.start(), match.end()))
    for value, start, end in _fuel_hits(text, info, taken):
        hits.append((value, start, end))
    hits.sort(key=lambda h: h[1])
    kept: list[tuple[str, int]] = []
    for value, start, end in hits:
        if (
            len(value) > 2
            or _field_word_before(text, start, info)
            or any(
                separated(text, end, s2) or separated(text, e2, start)
                for v2, s2, e2 in hits
                if len(v2) <= 2 and s2 != start
            )
        ):
            kept.append((value, start))
    return _without_denied(text, _without_place_states(text, kept))


def _without_place_states(text: str, hits: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Values that are a place's state after it: "the island of Maui, Hawaii" names Maui.

    A value that is also a US state's name, written right after another value and a
    comma and ending its list, says where that value is, not a second value.
    """
    kept = list(hits)
    for (first, at), (value, start) in zip(hits, hits[1:], strict=False):
        between = text[at + len(first) : start]
        after = text[start + len(value) : start + len(value) + 8]
        if (
            value.lower() in US_STATES
            and re.fullmatch(r"\s*,\s*", between)
            and not re.match(r"\s*,?\s*(?:and|or)\b", after, re.I)
        ):
            kept.remove((value, start))
    return kept


#: A word that denies the values listed after it ("no maple or polymer overlay").
_DENIAL = re.compile(r"\b(?:no|not|without|never|nor)\s+(?:an?\s+)?$", re.I)
#: What joins two values of one list.
_LIST_JOINT = re.compile(r"^\s*(?:,\s*)?(?:(?:or|and|nor)\s+)?$", re.I)


def _without_denied(text: str, hits: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The values a clause states, when it also lists values it denies.

    "Concrete skating surface (no maple or polymer overlay)" states concrete only: a
    value after "no / not / without", and the values listed on from it, are denied.
    When every value is denied, they stay (the caller reads the negated list).
    """
    denied = denied_values(text, hits)
    if all(denied) or not any(denied):
        return hits
    return [hit for hit, no in zip(hits, denied, strict=True) if not no]


def denied_values(text: str, hits: list[tuple[str, int]]) -> list[bool]:
    """Per value found, whether the text denies it ("no shoring, no trench box")."""
    denied: list[bool] = []
    end = 0
    for i, (value, start) in enumerate(hits):
        joined = i > 0 and _LIST_JOINT.match(text[end:start]) is not None
        denied.append(
            bool(_DENIAL.search(text[max(0, start - 12) : start]))
            or (joined and denied[-1])
            or _denied_parenthesis(text, start)
        )
        end = start + len(value)
    return denied


#: "No disinfection step (ozone, UV or chlorination)": the values a denied noun lists.
_DENIED_BEFORE_PAREN = re.compile(r"\b(?:no|without)\s+(?:[\w-]+\s+){0,3}?[\w-]+\s*$", re.I)


def _denied_parenthesis(text: str, start: int) -> bool:
    """True for a value inside a parenthesis that lists what a denied noun names."""
    opened = text.rfind("(", 0, start)
    if opened < 0 or ")" in text[opened:start]:
        return False
    return bool(_DENIED_BEFORE_PAREN.search(text[max(0, opened - 40) : opened]))


#: How a "<fuel>-fired" value is also said: "wood-burning", "a wood stove".
_FUELLED = (
    r"(?:-|\s)(?:fired|burning|fueled|fuelled|heated|powered)\b|"
    r"\s+(?:stoves?|burners?|furnaces?|fires?)\b"
)


def _fuel_hits(
    text: str, info: FieldInfo, taken: list[tuple[int, int]]
) -> list[tuple[str, int, int]]:
    """A "<fuel>-fired" value said as "<fuel>-burning" or "a <fuel> stove".

    Also a plain fuel value ("wood") said as "wood-fired". Only a value whose first word
    no other value of the field starts with.
    """
    firsts = [v.split("-")[0].split()[0] for v in info.values if v.strip()]
    found: list[tuple[str, int, int]] = []
    for value in info.values:
        fuel, _, rest = value.partition("-")
        if " " in fuel or firsts.count(fuel) != 1:
            continue
        if rest and not re.fullmatch(r"fired|burning|fueled|fuelled|heated|powered", rest):
            continue
        # a plain fuel ("wood") said as "a wood-fired drying room": only "-fired" and kin
        said = _FUELLED if rest else r"-(?:fired|burning|fueled|fuelled|heated|powered)\b"
        for match in re.finditer(rf"(?<![\w-]){re.escape(fuel)}(?:{said})", text, re.I):
            if not rest and not _heads_the_field(text[match.end() :], info):
                continue  # "propane-powered grinders" of a fogging unit's fuel field
            if not any(s < match.end() and match.start() < e for s, e in taken):
                found.append((value, match.start(), match.end()))
    return found


def _heads_the_field(after: str, info: FieldInfo) -> bool:
    """True when the words after "<fuel>-fired" are the field's own ("drying room")."""
    words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", after)[:3]}
    return any(words & set(phrase) for phrase in info.phrases)


_WORD_RUN = re.compile(r"[A-Za-z][\w-]*")


def _initial_hits(
    text: str, info: FieldInfo, taken: list[tuple[int, int]]
) -> list[tuple[str, int, int]]:
    """Values written as initials said in full: "large quantity generators" for 'lqg'.

    Only a value the dictionary writes as initials (`FieldInfo.initials`, read once per
    field), matched by as many words whose first letters spell it, the longest first.
    """
    if not info.initials:
        return []
    words = list(_WORD_RUN.finditer(text))
    found: list[tuple[str, int, int]] = []
    for value in info.initials:
        size = len(value)
        for i in range(len(words) - size + 1):
            run = words[i : i + size]
            if "".join(m.group(0)[0] for m in run).lower() != value.lower():
                continue
            span = (run[0].start(), run[-1].end())
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            taken.append(span)
            found.append((value, *span))
    return found


#: Values that are everyday words too: "where it has none" names no field's value.
_EVERYDAY_VALUES = frozenset({"none", "other", "unknown", "yes", "no", "n/a", "any", "all"})


def _enum_context_ok(text: str, match: re.Match[str], value: str, info: FieldInfo) -> bool:
    if value.lower() in _EVERYDAY_VALUES:
        return _field_word_before(text, match.start(), info) or _field_word_after(
            text, match.end(), info
        )
    if len(value) <= 2:
        return True
    if info.upper and not match.group(0).isupper():
        return _field_word_before(text, match.start(), info) or _field_word_after(
            text, match.end(), info
        )
    return True


def _field_word_before(text: str, start: int, info: FieldInfo) -> bool:
    window = content_tokens(text[max(0, start - 40) : start])[-3:]
    return any(t.stem in info.tokens for t in window)


def _field_word_after(text: str, end: int, info: FieldInfo) -> bool:
    window = content_tokens(text[end : end + 40])[:3]
    return any(t.stem in info.tokens for t in window)


@lru_cache(maxsize=512)
def _labelled(unit: str) -> re.Pattern[str] | None:
    """The pattern of numbers written after a unit word ("Tier 1, 2 or 3"), if it is one."""
    if not re.fullmatch(r"[A-Za-z]+", unit) or unit.lower() in TIME_UNITS:
        return None
    return re.compile(
        rf"\b{unit}s?\s+(\d+)((?:\s*(?:,(?!\d{{3}}\b)|or|and|to)\s*(?:{unit}s?\s+)?\d+)*)\b"
        r"(?![.,%]?\d|%)",  # "20,001" is one number, no list of 20 and 1
        re.I,
    )


def labelled_numbers(text: str, vocab: FieldVocabulary) -> list[Condition]:
    """Numbers written after their unit word: "Tier 1" -> county_tier eq 1."""
    found: list[Condition] = []
    lowered = text.lower()
    for info in vocab.of_kind("numeric"):
        unit = (info.spec.unit or "").strip()
        if unit.lower() not in lowered:
            continue  # the unit word is not in the text: no number labelled by it
        pattern = _labelled(unit)
        if pattern is None:
            continue
        values: list[int | float] = []
        for match in pattern.finditer(text):
            pre = text[max(0, match.start() - 30) : match.start()]
            if any(p.search(pre) for p, _ in PRE_PATTERNS):
                continue
            values.extend(int(v) for v in re.findall(r"\d+", match.group(0)))
        values = list(dict.fromkeys(values))
        if len(values) == 1:
            found.append(Condition(field=info.name, operator="eq", value=values[0]))
        elif values:
            found.append(Condition(field=info.name, operator="in", value=list(values)))
    return found


#: "on a beach, rather than in a marina slip": what follows is left out.
_INSTEAD = re.compile(r"\b(?:rather than|instead of)\b", re.I)


def _without_classes(text: str, vocab: FieldVocabulary) -> str:
    """The text with the business classes and measured things it names blanked out.

    Same length. "sheet metal shops" names no roof covering of metal, "tenter frames"
    no frame construction.
    """
    patterns = (vocab.class_pattern, vocab.measure_names, _BUSINESS_NAMED, _FRAME_OF, _PRODUCT_NAME)
    for pattern in patterns:
        if pattern is not None:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


#: "A General Liability submission": a product's name, no 'general' grade of anything.
_PRODUCT_NAME = re.compile(r"\bgeneral\s+liability\b|\bcommercial\s+property\b", re.I)
#: "a wood-frame studio": the frame construction the compound opens on.
_FRAME_OF = re.compile(r"\bwood-(?=frame\b)", re.I)


#: A word naming a business by what it handles: "frame yards", "a metal shop".
_BUSINESS_NAMED = re.compile(
    # (not "a wood-frame studio": how it is built)
    r"(?<![\w-])(?!wood-frame\b)[\w-]+"
    r"(?=\s+(?:yards?|shops?|works|mills?|studios?|outlets?|dealers?)\b)",
    re.I,
)


def enum_conditions(text: str, vocab: FieldVocabulary) -> list[Condition]:
    """Categorical values listed in the field descriptions (construction, zones...)."""
    found: list[Condition] = []
    text = _without_classes(text, vocab)  # "sheet metal shops": no roof covering of metal
    for info in vocab.categorical():
        values = enum_hits(text, info)
        if not values:
            continue
        negated = negated_list(text, values[0][1])
        # "a frame building (wood-frame walls or roof)": one value said twice is one
        vals: list[str | int | float | bool] = list(dict.fromkeys(v for v, _ in values))
        none = next((v for v in info.values if v.lower() == "none"), None)
        if none is not None and none not in vals and all(denied_values(text, values)):
            # "with no protective system (no shoring, no trench box)": the field's
            # own 'none' value, not a list of the systems denied
            found.append(Condition(field=info.name, operator="eq", value=none))
            continue
        negated = negated or all(denied_values(text, values))
        instead = _INSTEAD.search(text)
        at = [pos for _, pos in values]
        if instead and not negated and min(at) < instead.start() < max(at):
            # "on the open floor, rather than in a kiln room": the values before it
            vals = [v for v, at in values if at < instead.start()]
        rest = [v for v in info.values if v not in vals]
        if negated and info.kind == "enum" and len(rest) == 1:
            # "boats tied up on a beach, rather than in a slip or on a buoy": the one left
            found.append(Condition(field=info.name, operator="eq", value=rest[0]))
            continue
        if len(vals) == 1:
            found.append(
                Condition(field=info.name, operator="neq" if negated else "eq", value=vals[0])
            )
        else:
            found.append(
                Condition(field=info.name, operator="not_in" if negated else "in", value=vals)
            )
    return found


def denied_by_name(text: str, vocab: FieldVocabulary) -> list[tuple[Condition, int, int]]:
    """A closed list with a 'none' value, named by a synonym after "no": that value.

    "A home with no residential sprinkler system of any standard is referred": the
    sprinkler standard is 'none'. Returns each condition with the span of the words.
    """
    found: list[tuple[Condition, int, int]] = []
    tokens = content_tokens(text)
    denials = [i for i, t in enumerate(tokens) if t.text.lower() in {"no", "without"}]
    if not denials:
        return found
    for info in vocab.categorical():
        none = next((v for v in info.values if v.lower() == "none"), None)
        if none is None or enum_hits(text, info):
            continue
        for phrase in (p for p in info.phrases if len(p) >= 2):
            hit = next(
                (
                    (tokens[i].start, tokens[i + 1 + last].end)
                    for i in denials
                    for first, last in find_phrase(tokens[i + 1 : i + 5], phrase)[:1]
                    if first == 0
                ),
                None,
            )
            if hit:
                found.append((Condition(field=info.name, operator="eq", value=none), *hit))
                break
    return found


__all__ = ["denied_by_name", "denied_values", "enum_conditions", "enum_hits", "labelled_numbers"]
