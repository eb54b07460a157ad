"""What a data dictionary says about each field: kind, unit, naming words and values.

Everything here is read from the `fields.json` given (names, synonyms, units and the
values a description lists); nothing names a particular dataset's fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.underwriting.fieldlink.numbers import canonical_unit
from memory.underwriting.fieldlink.stems import stem
from schemas.fields import DataDictionary, FieldSpec

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
#: A quoted value: the quote opens and closes at a word's edge, so the apostrophe of
#: "the building's tenant" opens nothing and "'farmer's market'" is one value.
_QUOTED = re.compile(r"(?<!\w)'((?:[^']|'(?=\w))+)'(?!\w)|\"([^\"]+)\"")
_OCCUPANCY_HINT = re.compile(
    r"\b(?:occupancy|class of business|business class|business type|type of business|"
    r"industry|line of work)\b",
    re.I,
)
#: Function words and comparison words never tell which field a text is about.
STOP_STEMS = frozenset(
    stem(w)
    for w in """
    a an the of and or to in on for with by at from as is are be that this its their our any
    all per than into number share amount count percent percentage total below under over
    above vs versus more less use used case lower upper e g
    """.split()
)
_UNIT_TOKENS = frozenset({"usd", "pct", "3yr", "5yr", "sqft", "ft", "miles", "days", "yr"})


def stems(text: str) -> list[str]:
    """Lower-case stems of the words of a text (underscores count as spaces)."""
    return [stem(w) for w in _WORD.findall(text.replace("_", " "))]


#: A coded value: a word and a number ("nfpa 13d", "class 2"), not a range ("1 to 10").
_CODE = re.compile(
    r"(?!.*\b(?:to|and|than|per)\b)[a-z][a-z-]*(?:\s[a-z][a-z-]*)?\s?\d+[a-z]?", re.I
)


#: A word a description names as a word, not as a value: "without the word 'county'".
_NAMED_WORD = re.compile(r"\bthe (?:word|term|suffix|prefix)s?\s+(?:'[^']*'|\"[^\"]*\")", re.I)


def parse_enum(description: str) -> tuple[list[str], bool]:
    """Read the values listed in a field description.

    Args:
        description: e.g. "BASIC, BROAD or SPECIAL (upper case)", "Roof covering: metal,
            clay tile, wood shake" or "Class of business (e.g. 'bakery', 'bar')".

    Returns:
        The values (empty when the description is not a list) and whether they are
        examples only ("e.g. ...") rather than the complete set.
    """
    if re.search(r"\be\.g\.|for example|such as", description, re.I):
        # "without the word 'county' (e.g. 'sarasota')": a word named is no value
        said = _NAMED_WORD.sub(" ", description)
        quoted = [a or b for a, b in _QUOTED.findall(said)]
        codes = _EXAMPLE_CODES.search(said)
        if quoted or codes is None:
            return quoted, True
        # "upper case (e.g. X, A, AE, V, VE)": codes given by example, unquoted
        return [c.strip() for c in codes.group(1).split(",")], True
    span = _LETTER_SPAN.search(description)
    if span is not None and ord(span.group(1)) < ord(span.group(2)):
        # "one upper-case letter A-F": every letter of the span
        return [chr(c) for c in range(ord(span.group(1)), ord(span.group(2)) + 1)], False
    if ":" in description:
        # "Business class (for LRO, of the principal tenant), lower case; one of: 'incense
        # manufacturer', ...": the quoted list after the colon, not the aside before it
        after = re.split(r"\.\s+(?=[A-Z])", description.split(":", 1)[1], maxsplit=1)[0]
        listed = [a or b for a, b in _QUOTED.findall(after)]
        if len(listed) >= _QUOTED_LIST and all(len(q.split()) <= _QUOTED_WORDS for q in listed):
            return listed, False
    paren = re.search(r"\(([^()]*,[^()]*)\)", description)
    text = paren.group(1) if paren else re.sub(r"\([^()]*\)", "", description)
    if not paren and ":" in text:
        text = text.split(":", 1)[1]
        # "...: natural gas, coal, sawdust. If coal is used at all, ...": the list ends
        # with its sentence
        text = re.split(r"\.\s+(?=[A-Z])", text, maxsplit=1)[0]
        # "Values used in this set: 'limousine service', 'industrial tank cleaning
        # contractor', ...": quoted values, of any length a class name has
        quoted = [a or b for a, b in _QUOTED.findall(text)]
        if len(quoted) >= _QUOTED_LIST and all(len(q.split()) <= _QUOTED_WORDS for q in quoted):
            return quoted, False
    # "Classes used in this set: timber framer; shopfitter; waxworks": a list by semicolons
    items = [i.strip(" .'\"") for i in re.split(r"[,;]\s*|\s+or\s+", text) if i.strip(" .'\"")]
    # a long list may hold a class of four words ("crime scene cleanup contractor")
    longest = _LONG_ITEM_WORDS if len(items) >= _LONG_LIST else 3
    ok = len(items) >= (2 if paren else 3) and all(
        1 <= len(i.split()) <= longest and (not re.search(r"\d", i) or _CODE.fullmatch(i))
        for i in items
    )
    return (items if ok else []), False


#: Upper-case codes listed by example: "(e.g. X, A, AE, V, VE)".
_EXAMPLE_CODES = re.compile(
    r"\(\s*(?:e\.g\.|for example|such as),?\s*((?:[A-Z0-9]{1,4},\s*)+[A-Z0-9]{1,4})\s*\)"
)
#: "one upper-case letter A-F", "a grade from A to D": values that are a span of letters.
_LETTER_SPAN = re.compile(
    r"\b(?i:letters?|grades?|ratings?|bands?|tiers?|classes|categor(?:y|ies))\b[^.;()]{0,30}?"
    r"(?<![\w-])([A-Z])\s*(?:-|\u2013|to|through)\s*([A-Z])(?![\w-])"
)
#: A list of this many items may hold values of up to `_LONG_ITEM_WORDS` words.
_LONG_LIST = 6
_LONG_ITEM_WORDS = 5
#: Quoted values after a colon that make a list, and the most words one may have.
_QUOTED_LIST = 3
_QUOTED_WORDS = 6


def spec_values(spec: FieldSpec) -> tuple[list[str], bool]:
    """The values a field may take: its `enum` list, else those its description lists.

    Returns:
        The values, and whether they are examples only (see `parse_enum`).
    """
    if spec.enum:
        return list(spec.enum), False
    return parse_enum(spec.description)


def field_kind(name: str, spec: FieldSpec, values: list[str], examples: bool) -> str:
    """numeric, bool, product, state, enum (closed list), occupancy or text."""
    text = " ".join([name, *spec.synonyms, spec.description])
    if spec.type == "bool":
        return "bool"
    if spec.type in {"int", "float"}:
        return "numeric"
    if name == "product_type" or (values and {"BOP", "GL"} <= set(values)):
        return "product"
    if "state" in name.split("_") or re.search(r"\bstate code\b|two-letter", text, re.I):
        return "state"
    if _OCCUPANCY_HINT.search(" ".join([name.replace("_", " "), *spec.synonyms])):
        return "occupancy"  # the business class, its values listed in full or not
    # codes given by example ("e.g. X, A, AE, V, VE") are the codes a text writes
    if values and (not examples or all(v.isupper() for v in values)):
        return "enum"
    if _OCCUPANCY_HINT.search(text):
        return "occupancy"
    return "text"


@dataclass(frozen=True)
class FieldProfile:
    """One field as the linker sees it.

    Attributes:
        name: The canonical field name.
        spec: The dictionary entry.
        kind: numeric, bool, product, state, enum, occupancy or text.
        unit: Canonical unit of a numeric field (see `canonical_unit`).
        phrases: Stemmed synonyms and the name, as word tuples.
        words: Stems of the name and synonyms (unit abbreviations left out).
        desc_words: Stems of the description not already in `words`.
        values: Values the description lists (all of them, or examples).
        closed: The listed values are the complete set.
        upper: Values are written upper case.
    """

    name: str
    spec: FieldSpec
    kind: str
    unit: str | None
    phrases: tuple[tuple[str, ...], ...]
    words: frozenset[str]
    desc_words: frozenset[str]
    values: tuple[str, ...]
    closed: bool
    upper: bool

    @property
    def categorical(self) -> bool:
        """Return True for fields whose values are words (enum, occupancy, text)."""
        return self.kind in {"enum", "occupancy", "text"}

    @property
    def profile_text(self) -> str:
        """The field in words, for embedding: name, synonyms, description."""
        return ". ".join([self.name.replace("_", " "), ", ".join(self.spec.synonyms),
                          self.spec.description])  # fmt: skip


def _profile(name: str, spec: FieldSpec) -> FieldProfile:
    values, examples = spec_values(spec)
    phrases = tuple(
        p
        for p in (
            tuple(s for s in stems(text) if s not in STOP_STEMS) for text in [*spec.synonyms, name]
        )
        if p
    )
    words = frozenset(s for p in phrases for s in p if s not in _UNIT_TOKENS and not s.isdigit())
    desc = frozenset(stems(spec.description)) - words - STOP_STEMS
    return FieldProfile(
        name=name,
        spec=spec,
        kind=field_kind(name, spec, values, examples),
        unit=canonical_unit(spec.unit),
        phrases=phrases,
        words=words,
        desc_words=desc,
        values=tuple(values),
        closed=bool(values) and not examples,
        upper="upper case" in spec.description.lower()
        or (bool(values) and all(v.isupper() for v in values)),
    )


class DictionaryProfile:
    """Every field of a data dictionary, profiled, with word statistics across fields."""

    def __init__(self, dictionary: DataDictionary) -> None:
        """Profile the fields.

        Args:
            dictionary: The data dictionary.
        """
        self.dictionary = dictionary
        self.fields: dict[str, FieldProfile] = {
            name: _profile(name, spec) for name, spec in dictionary.fields.items()
        }
        counts: dict[str, int] = {}
        for info in self.fields.values():
            for word in info.words | info.desc_words:
                counts[word] = counts.get(word, 0) + 1
        self.df = counts

    def of_kind(self, *kinds: str) -> list[FieldProfile]:
        """Return the fields of the given kinds, in dictionary order."""
        return [f for f in self.fields.values() if f.kind in kinds]

    @property
    def occupancy(self) -> str | None:
        """The business-class field, if the dictionary has one."""
        return next((f.name for f in self.of_kind("occupancy")), None)

    @property
    def state(self) -> str | None:
        """The US-state field, if the dictionary has one."""
        return next((f.name for f in self.of_kind("state")), None)

    def weight(self, word: str) -> float:
        """How much a word tells about a field: 1 when only one field uses it."""
        return 1.0 / self.df.get(word, 1)


_PROFILES: dict[int, tuple[DataDictionary, DictionaryProfile]] = {}


def profile_of(dictionary: DataDictionary) -> DictionaryProfile:
    """The profile of a data dictionary, built once per dictionary object."""
    cached = _PROFILES.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    if len(_PROFILES) > 32:
        _PROFILES.clear()
    profile = DictionaryProfile(dictionary)
    _PROFILES[id(dictionary)] = (dictionary, profile)
    return profile
