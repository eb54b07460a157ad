"""What the extractor knows about one field of a data dictionary, read from its entry.

The field's kind, unit, the stemmed phrases its name and synonyms say, its description's
words, the values it lists, the scale a description states and whether the flag is a
protection. `agents.offline.vocab.FieldVocabulary` indexes these for a whole dictionary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agents.offline import lexicon_subjects as lxs
from agents.offline.flag_words import NEGATION_WORDS
from agents.offline.textproc import content_tokens
from memory.underwriting.fieldlink.numbers import NUMBER_WORDS, canonical_unit
from memory.underwriting.fieldlink.profile import field_kind, spec_values
from schemas.fields import FieldSpec

_UNIT_NAME_TOKENS = frozenset({"usd", "pct", "3yr", "5yr", "sqft", "ft", "miles", "days"})
_NEGATIVE_BELOW = re.compile(
    # "-37 = 37% below minimum", "-30 means 30% below the minimum", "-25 is 25 percent under"
    r"-\s?\d+(?:\.\d+)?\s*(?:=|means|is|denotes|indicates)\s*\d+(?:\.\d+)?\s*"
    r"(?:%|percent|per cent|pct)?\s*(?:below|under|short of|less than)|"
    # "-18 = an 18% reduction": a reduction is the negative side
    r"-\s?\d+(?:\.\d+)?\s*=\s*(?:an?\s+)?\d+(?:\.\d+)?\s*%?\s*"
    r"(?:reduction|decrease|cut|drop|discount)|"
    r"\bnegative (?:values? )?(?:means?|is|are|=) (?:below|under|short of)\b",
    re.I,
)
#: A scale a description states: "1 (best) to 10 (no fire service)", "0-100".
_SCALE = re.compile(
    r"(?<![\w.$-])(\d+(?:\.\d+)?)\s*(?:\([^()]{0,40}\)\s*)?(?:to|-|–)\s*(\d+(?:\.\d+)?)"
    r"(?![\w.%])(?!\s*(?:%|percent|years|ft|feet|miles|days))",
    re.I,
)


@dataclass
class FieldInfo:
    """What the extractor knows about one data-dictionary field.

    Attributes:
        name: The canonical field name.
        spec: The dictionary entry.
        kind: numeric, bool, enum, state, occupancy, product or text.
        unit: Canonical unit of a numeric field.
        phrases: Stemmed content-word tuples of the synonyms and the name.
        tokens: Stems of the name and synonyms.
        desc_tokens: Stems of the description.
        desc_words: Every distinct stem of the description (synonym words included).
        values: Allowed values (enum) or examples (occupancy).
        upper: Values are upper case.
        negative_below: Values below a reference are negative ("-37 = 37% below").
        protective: A boolean that protects the risk (a mitigant) rather than flags it.
        desc_negated: The description says the flag by a negation ("admitted without an
            adult"): a negation inside its restatement is the flag's, not a denial.
        scale: The (low, high) scale a numeric field's description states, if any.
        rising: Words the description gives a higher value ("higher = finer powder"):
            "finer than 100 mesh" is more than 100.
        falling: Words it gives a lower value ("lower = safer").
        initials: Values of three to five letters the dictionary writes as initials (in
            upper case among the synonyms or the description): "lqg" for "LQG".
    """

    name: str
    spec: FieldSpec
    kind: str
    unit: str | None = None
    phrases: list[tuple[str, ...]] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    desc_tokens: set[str] = field(default_factory=set)
    desc_words: frozenset[str] = frozenset()
    values: list[str] = field(default_factory=list)
    upper: bool = False
    negative_below: bool = False
    protective: bool = False
    scale: tuple[float, float] | None = None
    rising: frozenset[str] = frozenset()
    falling: frozenset[str] = frozenset()
    desc_negated: bool = False
    initials: tuple[str, ...] = ()

    def in_scale(self, value: float) -> bool:
        """Return False when a value lies outside the scale the description states."""
        return self.scale is None or self.scale[0] <= value <= self.scale[1]


def description_scale(spec: FieldSpec, name: str = "") -> tuple[float, float] | None:
    """The value scale of a numeric field's description ("0 (lowest) to 100")."""
    if spec.type not in {"int", "float"}:
        return None
    match = _SCALE.search(spec.description)
    if not match:
        return None
    label = _LABEL_BEFORE.search(spec.description[: match.start()])
    own = f"{name} {spec.unit or ''}".lower()
    if label and label.group(1).lower() not in own:
        return None  # "heavy-duty (class 7-8) wreckers": a kind named by its range, no scale
    low, high = float(match.group(1)), float(match.group(2))
    return (low, high) if low < high else None


def _denied_protection(words: list[str]) -> set[str]:
    """Protective words the field denies: "no fence or barrier", "unfenced", "not sprinklered".

    A flag for a protection missing names a risk, not a mitigant.
    """
    denied = set()
    for at, word in enumerate(words):
        for prefix in ("un", "non"):
            rest = word.removeprefix(prefix)
            if rest != word and rest in lxs.PROTECTIVE_WORDS:
                denied.add(word)
        if word in lxs.PROTECTIVE_WORDS and set(words[max(0, at - 2) : at]) & NEGATION_WORDS:
            denied.add(word)
    return denied


#: A word that names a kind by a range after it ("class 7-8", "type 1-3").
_LABEL_BEFORE = re.compile(r"\b(class|type|category|group|tier|grade|division|zone)\s*$", re.I)


def _stems(text: str) -> list[str]:
    return [t.stem for t in content_tokens(text.replace("_", " "))]


#: Words a field name ends on that a text leaves out: "coal_tar_sealant_use" is said
#: "coal-tar sealant", "cerumen_removal_services" "cerumen removal".
_NAME_SUFFIXES = frozenset({"use", "used", "present", "flag", "services", "offered", "performed"})


def _name_core(name: str) -> list[str]:
    """The name without a conventional last word, when two words or more remain."""
    words = name.split("_")
    if len(words) >= 3 and words[-1] in _NAME_SUFFIXES:
        return [" ".join(words[:-1])]
    return []


#: A description's opening label: "Racking erector: ...".
_CLASS_LABEL = re.compile(r"^\s*[A-Za-z][\w' -]{0,40}:\s+")
#: Two ways to say where on the insured's own ground a thing is done.
_ON_SITE = {"site": "premis", "premis": "site"}


def field_info(name: str, spec: FieldSpec) -> FieldInfo:
    """What the extractor knows about one field, read from its dictionary entry."""
    values, examples = spec_values(spec)
    kind = field_kind(name, spec, values, examples)
    phrases = [tuple(_stems(s)) for s in [*spec.synonyms, name, *_name_core(name)]]
    # "supervising_physician_onsite" is said "a supervising physician on site" ("on" is
    # no content word)
    phrases += [tuple("site" if w == "onsit" else w for w in p) for p in phrases if "onsit" in p]
    # "tinctures made on site" is said "tinctures made on the premises", and back
    phrases += [tuple(_ON_SITE.get(w, w) for w in p) for p in phrases if set(p) & set(_ON_SITE)]
    # "area without sprinkler protection" is said "floor area lacking sprinkler protection"
    phrases += [
        tuple("lack" if w == "without" else w for w in p) for p in phrases if "without" in p
    ]
    # A one-word synonym that is also an everyday adverb ("still" for a distillery, "even")
    # would fire on "I'll still quote": it names the field only inside a longer phrase.
    phrases = [p for p in phrases if not (len(p) == 1 and p[0] in lxs.EVERYDAY_ADVERBS)]
    tokens = {
        s
        for p in phrases
        for s in p
        if s not in _UNIT_NAME_TOKENS
        and not s.isdigit()
        and s not in lxs.COMPARISON_WORDS
        and s not in NUMBER_WORDS  # "losses in the last three years": "three" names no field
    }
    # "heaters are used for frost protection": what a thing is for does not make it one
    # "Crossing guard contractor: contracts assume ...": the class a description opens on
    # says whose field it is, not what the flag is ("guard" protects nothing here)
    said = " ".join(
        [name.replace("_", " "), *spec.synonyms, _CLASS_LABEL.sub("", spec.description)]
    )
    plain = re.findall(r"[a-z]+", _FOR_PROTECTION.sub(" ", said).lower())
    words = set(plain)
    denied = _denied_protection(plain)
    info = FieldInfo(
        name=name,
        spec=spec,
        kind=kind,
        unit=canonical_unit(spec.unit),
        phrases=[p for p in phrases if p],
        tokens=tokens,
        desc_tokens=set(_stems(spec.description)) - tokens - lxs.COMPARISON_WORDS,
        desc_words=frozenset(_stems(spec.description)) - NEGATION_WORDS,
        values=values,
        upper="upper case" in spec.description.lower()
        or bool(values)
        and all(v.isupper() for v in values),
        negative_below=bool(_NEGATIVE_BELOW.search(spec.description)),
        protective=kind == "bool"
        and len(words & lxs.PROTECTIVE_WORDS - denied) > len(words & lxs.TROUBLE_WORDS | denied)
        and not _LIMITED.search(spec.description),
        scale=description_scale(spec, name),
        rising=_direction_words(spec.description, "higher|greater|larger|more"),
        falling=_direction_words(spec.description, "lower|smaller|less|fewer"),
        # "(not mineral oil)": a parenthesis clarifies, its negation is not the flag's
        desc_negated=any(
            w in NEGATION_WORDS for w in _stems(re.sub(r"\([^()]*\)", " ", spec.description))
        ),
        initials=_initials(spec, values),
    )
    return info


def _initials(spec: FieldSpec, values: list[str]) -> tuple[str, ...]:
    """The values the dictionary writes as initials, longest first (see `FieldInfo`)."""
    said = " ".join([*spec.synonyms, spec.description or ""])
    codes = [
        v
        for v in values
        if v.isalpha() and 3 <= len(v) <= 5 and re.search(rf"\b{re.escape(v.upper())}\b", said)
    ]
    return tuple(sorted(codes, key=len, reverse=True))


#: "used for frost protection": the purpose a thing serves, not a protection it is.
_FOR_PROTECTION = re.compile(
    r"\b(?:used|needed|run|lit|installed)\s+(?:for|as)\s+(?:[\w-]+\s+){0,2}?protection\b|"
    # "The field inspection recorded power strips plugged into ...": who found the hazard
    r"\b(?:inspections?|inspectors?|surveys?|surveyors?)\s+(?:recorded|records|found|finds|"
    r"noted|notes|reported|reports|observed|observes|identified|identifies|showed|shows)\b|"
    # "protected wildlife", "protected species material": a category the law guards, a
    # hazard of handling it, no protection of the risk
    r"\bprotected\s+(?:species|wildlife|animals?|birds?|plants?|habitats?|wetlands?|"
    r"sites?|areas?|lands?|status)\b|"
    # "an application completed by hand", "a hand-completed form": how it was made
    r"\bhand[\s-]+completed\b|\bcompleted\s+(?:by\s+hand|on\s+paper)\b|"
    # "installed in the same room as the boiling arch": where a thing sits beside a hazard
    r"\b(?:installed|located|placed|kept|stored)\s+(?:in|inside|within)\s+the\s+same\s+"
    r"(?:room|space|building|area|enclosure|shed|bay)\s+as\b",
    re.I,
)
#: "protected only by a volunteer fire department": a protection's limit is a hazard.
#: A protection only partly had: "secured only by a padlock", "the only survey on file was
#: done over a video call" (a shortfall, not a protection).
_LIMITED = re.compile(r"\b(?:only|solely|merely)\s+(?:by|with|through|from)\b|\bthe only\b", re.I)


def _direction_words(description: str, way: str) -> frozenset[str]:
    """The words a description gives one direction of its value: "higher = finer" -> finer."""
    found = re.finditer(
        rf"\b(?:{way})\s*(?:=|means|is)\s*(?:a\s+|the\s+)?([a-z]+)", description, re.I
    )
    return frozenset(m.group(1).lower() for m in found)


__all__ = ["FieldInfo", "description_scale", "field_info"]
