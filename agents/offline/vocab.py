"""Field vocabulary built from a data dictionary: what words name which field."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import cached_property

from agents.offline import lexicon_subjects as lxs
from agents.offline.descriptions import description_run
from agents.offline.field_info import FieldInfo, field_info
from agents.offline.flag_words import (
    NEGATION_WORDS,
    BoolMention,
    find,
    match_bool,
    negated_before,
    negated_within,
    reversed_pairs,
    scrambled,
    strip_negative_prefix,
)
from agents.offline.textproc import Token, content_tokens
from memory.underwriting.fieldlink.numbers import (
    KNOWN_UNITS,
    NUMBER_WORDS,
    TIME_UNITS,
    canonical_unit,
    find_numbers,
)
from memory.underwriting.fieldlink.stems import stem
from schemas.fields import DataDictionary, cached_data_dictionary

#: Verb forms that say how long something goes on ("lasting"), naming a duration field.
_DURATION_VERBS = frozenset({"lasting", "lasts", "lasted"})


def _phrases_pattern(phrases: Iterable[str]) -> re.Pattern[str] | None:
    """Phrases as one pattern, longest first, any spacing, a plural allowed; None if none."""
    said = sorted(phrases, key=len, reverse=True)
    if not said:
        return None
    names = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in said)
    return re.compile(rf"(?<![\w-])(?:{names})(?:e?s)?(?![\w-])", re.I)


#: Words of an underwriting decision, never the head word naming a protection.
_DECISION_WORDS = frozenset(
    "approve approves approved approving accept accepts accepted accepting decline declines "
    "declined declining refer refers referred referring".split()
)


class FieldVocabulary:
    """Per-field vocabulary and matching helpers built from a data dictionary."""

    def __init__(self, dictionary: DataDictionary) -> None:
        """Index the dictionary.

        Args:
            dictionary: The data dictionary of the dataset.
        """
        self.fields: dict[str, FieldInfo] = {
            name: field_info(name, spec) for name, spec in dictionary.fields.items()
        }
        counts: Counter[str] = Counter()
        for info in self.fields.values():
            counts.update(info.tokens)
        self.idf: dict[str, float] = {t: 1.0 / n for t, n in counts.items()}
        self.name_tokens: set[str] = {
            stem(w) for name in self.fields for w in name.split("_") if len(w) > 2
        }
        self.occupancy = next((n for n, i in self.fields.items() if i.kind == "occupancy"), None)
        self.state = next((n for n, i in self.fields.items() if i.kind == "state"), None)
        #: each boolean field's head nouns, read once: a protection named by one word
        self.heads: dict[str, set[str]] = {i.name: _heads(i) for i in self.of_kind("bool")}
        self._scored: list[tuple[list[Token], frozenset[str]]] = []
        #: every stem a flag's phrases or description hold: a clause with none of them
        #: cannot name the flag by its words (only by a negation, or one head word)
        self.flag_stems: dict[str, frozenset[str]] = {
            i.name: frozenset(w for p in i.phrases for w in p) | i.desc_words
            for i in self.of_kind("bool")
        }
        #: the words of every flag's phrases: "unsprinklered" in one is no denial of another
        self.phrase_words = frozenset(w for i in self.of_kind("bool") for p in i.phrases for w in p)

    @cached_property
    def flag_figures(self) -> list[tuple[float, tuple[str, ...], tuple[str, ...]]]:
        """Figures inside flags' synonyms and descriptions, with the two stems around them.

        "riders under 18 wear helmets" -> (18.0, ("rider", "under"), ("wear", "helmet"));
        a description's "within 200 feet of a pile line" -> (200.0, (...), ("pile", "line")).
        A synonym's figure is known by the words before it, a description's by those after
        (by those before when it ends the description: "treats children under twelve").
        A measure's synonyms count too: "items for children under three" names a share, and
        so does its description's figure after "under" / "over" ("parties for guests under 12").
        """
        found: list[tuple[float, tuple[str, ...], tuple[str, ...]]] = []
        for info in [*self.of_kind("numeric"), *self.of_kind("bool")]:
            for synonym in info.spec.synonyms:
                for said in find_numbers(synonym):
                    lead = _lead(synonym, said.start)
                    if len(lead) == 2:
                        found.append((said.value, lead, ()))
        for info in self.of_kind("bool"):
            description = info.spec.description
            for said in find_numbers(description):
                trail = tuple(t.stem for t in content_tokens(description[said.end :])[:2])
                measured = any(  # "a loss over 20% of building exposure": a share's words
                    set(trail) <= (i.tokens | i.desc_tokens) for i in self.of_kind("numeric")
                )
                if len(trail) == 2 and not measured:
                    found.append((said.value, (), trail))
                elif not trail:  # "The clinic treats children under twelve": the words before
                    lead = _lead(description, said.start)
                    if len(lead) == 2:
                        found.append((said.value, lead, ()))
        for info in self.of_kind("numeric"):
            # "Share of bookings that are parties for guests under 12": the share's own
            # words, when a preposition of age or size leads its figure
            description = info.spec.description
            for said in find_numbers(description):
                lead = _lead(description, said.start)
                if len(lead) == 2 and lead[1] in _NAMING_BOUNDS:
                    found.append((said.value, lead, ()))
        return found

    @cached_property
    def flag_trails(self) -> list[tuple[float, tuple[str, ...]]]:
        """Figures inside flags' synonyms, with the two stems right after the figure.

        "cellar room one way out" -> (1.0, ("way", "out")): "a basement room with only one
        way out" says the flag, whatever words come before its figure.
        """
        found: list[tuple[float, tuple[str, ...]]] = []
        for info in self.of_kind("bool"):
            for synonym in info.spec.synonyms:
                for said in find_numbers(synonym):
                    trail = tuple(t.stem for t in content_tokens(synonym[said.num_end :])[:2])
                    if len(trail) == 2:
                        found.append((said.value, trail))
        return found

    @cached_property
    def common_fields(self) -> frozenset[str]:
        """Fields any business class has: those of the packaged base dictionary.

        A dataset's dictionary extends the product's base one (location, building,
        headcount, losses, protection) with fields of its own risks; a base field is
        on every submission whatever its class, a dataset's own field belongs to the
        risks it was added for.
        """
        base = cached_data_dictionary(None).fields
        own = ("occupancy", "product")
        return frozenset(n for n, i in self.fields.items() if n in base and i.kind not in own)

    @cached_property
    def class_pattern(self) -> re.Pattern[str] | None:
        """The listed business classes as one pattern (plural allowed), longest first."""
        info = self.fields.get(self.occupancy or "")
        return _phrases_pattern(info.values if info else [])

    @cached_property
    def measure_names(self) -> re.Pattern[str] | None:
        """Synonyms of two words or more of the numeric and boolean fields, as one pattern.

        "three or more tenter frames" counts frames: no construction of frame is said.
        """
        return _phrases_pattern(
            {
                syn.strip()
                for i in self.fields.values()
                if i.kind in {"numeric", "bool"}
                for syn in i.spec.synonyms
                if len(syn.split()) > 1
            }
        )

    def of_kind(self, kind: str) -> list[FieldInfo]:
        """Return the fields of one kind (numeric, bool, enum, ...)."""
        return self._by_kind.get(kind, [])

    @cached_property
    def _by_kind(self) -> dict[str, list[FieldInfo]]:
        kinds: dict[str, list[FieldInfo]] = {}
        for info in self.fields.values():
            kinds.setdefault(info.kind, []).append(info)
        return kinds

    @cached_property
    def _numeric_words(self) -> dict[str, frozenset[str]]:
        """Every stem that may name a numeric field: its words, description and unit."""
        return {
            i.name: frozenset(i.tokens | i.desc_tokens | {w for p in i.phrases for w in p})
            | ({i.unit} if i.unit else set())
            for i in self.of_kind("numeric")
        }

    def _stems_of(self, tokens: list[Token]) -> frozenset[str]:
        """The stems of a token list, kept for the list scored next (one clause, many fields)."""
        for seen, stems in self._scored:
            if seen is tokens:
                return stems
        stems = frozenset(t.stem for t in tokens) | {
            _DIMENSIONS[t.stem] for t in tokens if t.stem in _DIMENSIONS
        }
        self._scored = [(tokens, stems), *self._scored[:3]]  # the clause, its context...
        return stems

    def categorical(self) -> list[FieldInfo]:
        """Fields whose values are listed words other than the business class.

        Closed lists ("enum") and open ones a description gives examples of ("panel
        brand, e.g. 'x', 'y'"): a value named in a rule sentence is a condition either way.
        """
        return [
            i for i in self.fields.values() if i.kind == "enum" or (i.kind == "text" and i.values)
        ]

    def distinctive(self, token: str, info: FieldInfo) -> bool:
        """Return True when a stem names only this field and is specific enough."""
        return (
            token in info.tokens
            and self.idf.get(token, 0.0) == 1.0
            and len(token) >= 5
            and token not in lxs.GENERIC_NOUNS
        )

    def bool_mentions(self, tokens: list[Token], partial: bool = False) -> list[BoolMention]:
        """Find boolean fields named in content tokens, with their polarity.

        Args:
            tokens: Content tokens of a clause.
            partial: Also accept one distinctive word of a field ("appraisal").

        Returns:
            Non-overlapping mentions, earliest first.
        """
        found: list[BoolMention] = []
        # words a phrase may open on here: a stem, the stem without "un"/"non", a negation
        openers = {t.stem for t in tokens}
        openers |= {w[len(p) :] for w in openers for p in ("un", "non") if w.startswith(p)}
        negation = any(t.text.lower() in NEGATION_WORDS for t in tokens)
        for info in self.of_kind("bool"):
            before = len(found)
            if not (negation or self.flag_stems[info.name] & openers):
                if partial and info.protective:
                    found.extend(self._head_mentions(tokens, info))
                continue  # no word of the flag here: only one head word may name it
            for phrase in info.phrases:
                if phrase[0] in openers or (negation and phrase[0] in NEGATION_WORDS):
                    found.extend(match_bool(tokens, info.name, phrase, self.phrase_words))
            if len(found) == before:
                found.extend(reversed_pairs(tokens, info, openers))
            if len(found) == before:
                found.extend(scrambled(tokens, info, openers))
            if len(found) == before:
                run = description_run(tokens, info.desc_words)
                # "not reporting its sales daily to ...": a missing practice the description
                # states, or a protection; a restated practice alone may be a mitigant
                # "the producer has not personally visited the premises": the negation may
                # sit inside the restated description
                negated = run is not None and (
                    negated_before(tokens, run[0])
                    or (not info.desc_negated and negated_within(tokens, run[0], run[1]))
                )
                if (
                    run is not None
                    and info.desc_negated
                    and not negated
                    and negated_within(tokens, run[0], run[1])
                ):
                    # "cafes that admit children without an accompanying adult": the
                    # description's own negation restated names the flag as set
                    found.append(BoolMention(info.name, run[0], run[1], False, False))
                    continue
                if run is not None and (negated or info.protective):
                    found.append(BoolMention(info.name, run[0], run[1], negated, False))
            if partial and info.protective:
                found.extend(self._head_mentions(tokens, info))
        found.sort(key=lambda m: (m.first, -m.full, -(m.last - m.first)))
        kept: list[BoolMention] = []
        for mention in found:
            if any(mention.field == k.field for k in kept):
                continue
            if any(mention.first <= k.last and k.first <= mention.last for k in kept):
                continue
            kept.append(mention)
        return kept

    def _head_mentions(self, tokens: list[Token], info: FieldInfo) -> list[BoolMention]:
        """A protection named by one distinctive head word of it ("appraisal")."""
        found = []
        heads = self.heads[info.name]
        for i, tok in enumerate(tokens):
            base = strip_negative_prefix(tok.stem, info.tokens)
            word = base or tok.stem
            if tok.text.lower() in _DECISION_WORDS:
                continue  # "pricing has approved two-year locks": a decision, no "TSA approval"
            if (
                tok.text.lower().endswith("ed")
                and tok.text.lower() not in self._said_words[info.name]
            ):
                continue  # "a locked, alarmed bay": what the bay is, no "DO alarm"
            if word in heads and self.distinctive(word, info):
                neg = base is not None or negated_before(tokens, i)
                found.append(BoolMention(info.name, i, i, neg, False))
        return found

    @cached_property
    def _said_words(self) -> dict[str, frozenset[str]]:
        """Each flag's words as written in its name and synonyms."""
        return {
            info.name: frozenset(
                re.findall(
                    r"[a-z]+", " ".join([info.name.replace("_", " "), *info.spec.synonyms]).lower()
                )
            )
            for info in self.of_kind("bool")
        }

    def named_flags(self, tokens: list[Token]) -> list[BoolMention]:
        """The flags a text names: by their phrases, else by one distinctive word."""
        return self.bool_mentions(tokens) or self.bool_mentions(tokens, partial=True)

    def flags_present(self, text: str) -> list[str]:
        """The flags a text names as present ("9 pots, sprinklered"); one said missing is none."""
        return [m.field for m in self.named_flags(content_tokens(text)) if not m.negated]

    def score_numeric(self, info: FieldInfo, tokens: list[Token], pos: int | None) -> float:
        """Lexical evidence that tokens talk about a numeric field.

        Args:
            info: The candidate field.
            tokens: Content tokens of the clause (or context).
            pos: Token index of the number; None to ignore distance.

        Returns:
            A score; 0 when no word of the field is present.
        """

        def prox(i: int) -> float:
            return 0.5 if pos is None else 1.0 / (1.0 + abs(i - pos) / 3.0)

        words = self._numeric_words.get(info.name)
        if words is not None and "duration" not in info.tokens:
            if not words & self._stems_of(tokens):
                return 0.0  # no word of the field here (most fields, for most numbers)
        score = 0.0
        if pos is not None and info.unit and info.unit not in KNOWN_UNITS:
            # The field's own unit word just before the number ("scoring above 80",
            # "class 9"): the dictionary's unit names what is counted.
            gaps = [pos - i for i in range(max(0, pos - 3), pos) if tokens[i].stem == info.unit]
            if gaps:
                score += 2.0 if min(gaps) <= 2 else 1.0
        # The unit words right after the number ("30 feet", "2,500 square feet") are the
        # number's unit, not words naming the field: every field measured in that unit
        # would otherwise score.
        unit_span = _unit_span(tokens, pos)
        for phrase in info.phrases:
            weight = 2.0 if len(phrase) > 1 else 1.0
            for first, last in find(tokens, phrase):
                if first not in unit_span or last not in unit_span:
                    score += weight * max(prox(first), prox(last))
        # a dimension's adjective adds to the words of the field's own thing ("a pond
        # deeper than"), never names it alone ("buildings taller than" is no mast height)
        named = any(t.stem in info.tokens for k, t in enumerate(tokens) if k not in unit_span)
        for i, tok in enumerate(tokens):
            if i in unit_span:
                continue
            if tok.text.lower() in _DURATION_VERBS and "duration" in info.tokens:
                score += prox(i)  # "events lasting more than three days": a duration
            if tok.stem in info.tokens:
                score += self.idf.get(tok.stem, 0.0) * prox(i)
            elif _DIMENSIONS.get(tok.stem) in info.tokens and named:  # "a pond deeper than"
                score += self.idf.get(_DIMENSIONS[tok.stem], 0.0) * prox(i)
            elif tok.stem in info.desc_tokens and tok.stem not in lxs.STOPWORDS:
                score += 0.3 / math.sqrt(1 + _desc_df(self, tok.stem)) * prox(i)
        return score


def _lead(text: str, start: int) -> tuple[str, ...]:
    """The stems of the (up to) two content words before an offset."""
    return tuple(t.stem for t in content_tokens(text[:start])[-2:])


#: Bounds a field's description names its own population by: "guests under 12".
_NAMING_BOUNDS = frozenset({"under", "over", "aged", "below", "above"})
#: Adjectives of a dimension and the noun a field names it by: "a pond deeper than two
#: feet" speaks of the pond's depth.
_DIMENSIONS = {
    "deep": "depth",
    "deeper": "depth",
    "wide": "width",
    "wider": "width",
    "narrower": "width",
    "tall": "height",
    "taller": "height",
    "high": "height",
    "higher": "height",
    "long": "length",
    "longer": "length",
    "heavy": "weight",
    "heavier": "weight",
    "thick": "thickness",
    "thicker": "thickness",
    "shallower": "depth",
}

#: Where a synonym's head noun ends: "face shields for every participant" -> "shields".
_POSTMODIFIER = re.compile(r"\s+(?:for|of|with|in|on|at|per|to|by|from|under|over)\s+.*$", re.I)


def _heads(info: FieldInfo) -> set[str]:
    """The head nouns of a field's synonyms (the last word before a prepositional phrase)."""
    heads = set()
    for synonym in info.spec.synonyms:
        words = re.findall(r"[a-z][a-z'-]*", _POSTMODIFIER.sub("", synonym.lower()))
        if len(words) > 1 and words[-1].endswith("ed"):
            continue  # "RRP certified": a participle is no head ("a certified rigger")
        if words:
            heads.add(stem(words[-1]))
    return heads or {p[-1] for p in info.phrases}


def _unit_span(tokens: list[Token], pos: int | None) -> set[int]:
    """Token indexes of the unit written right after the number at `pos` (one or two words)."""
    if pos is None or pos + 1 >= len(tokens):
        return set()
    while pos + 2 < len(tokens) and tokens[pos + 1].text.lower() in NUMBER_WORDS:
        pos += 1  # "ten thousand square feet": the unit follows the number's last word
    two = " ".join(t.text for t in tokens[pos + 1 : pos + 3])
    unit = canonical_unit(two) if pos + 2 < len(tokens) else None
    # a two-word unit ("square feet") reads as one unit, not as its first word's stem
    # ("3 years business" is years, then a word naming the field)
    if unit in KNOWN_UNITS and unit != stem(two.split()[0]):
        return {pos + 1, pos + 2}
    unit = canonical_unit(tokens[pos + 1].text)
    if unit in TIME_UNITS and pos + 2 < len(tokens) and tokens[pos + 2].text.lower() == "old":
        return {pos + 1, pos + 2}  # "twelve months old" says an age, not whose age it is
    return {pos + 1} if unit in KNOWN_UNITS else set()


def _desc_df(vocab: FieldVocabulary, token: str) -> int:
    return sum(1 for info in vocab.fields.values() if token in info.desc_tokens)
