"""Linking words to data-dictionary fields: categorical values, naming phrases, meaning.

`FieldLinker` answers two questions for the extractor and the query reader alike:

* which categorical values a text names (`values_in`): the values a field's
  description lists, plus any extra values the caller knows (e.g. the values rules
  already use), matched with plurals and hyphens tolerated, and, when an embedder
  is given, by WordLlama similarity for wordings no list spells out;
* which field a noun phrase talks about (`link`): lexically from the field's name,
  synonyms and description, plus cosine similarity to the field's profile text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from memory.underwriting.fieldlink.profile import STOP_STEMS, DictionaryProfile, FieldProfile, stems
from memory.underwriting.fieldlink.stems import stem

Embed = Callable[[Sequence[str]], np.ndarray]

#: Cosine similarity above which a phrase is taken to name a value: values rules use
#: (open lists such as business classes), and values a description lists (closed lists).
VALUE_SIMILARITY = 0.65
CLOSED_VALUE_SIMILARITY = 0.75
#: Above this many known values the meaning match is skipped (lexical only): its cost
#: grows with the values (about 0.5 ms per 2,000), and the vector ranking of the query
#: path covers meaning anyway.
MAX_SIMILAR_VALUES = 4000
#: How far the best value must lead the runner-up of another field.
VALUE_MARGIN = 0.05
_NGRAM_STOP = frozenset(
    "a an the of and or to in on for with by at from as is are be that this its their our "
    "any all per than into no not without it we they has have had was were will would can "
    "could should must may might".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_VALUE_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")


@dataclass(frozen=True)
class ValueHit:
    """A categorical value named in a text."""

    field: str
    value: str
    start: int
    end: int
    score: float = 1.0


def _word_pattern(word: str) -> str:
    body = re.escape(word)
    if len(word) <= 2:
        return body
    if word.endswith("y") and len(word) > 3:
        return rf"(?:{body}|{re.escape(word[:-1])}ies)"
    return rf"{body}(?:s|es)?"


@lru_cache(maxsize=1 << 14)
def value_pattern(value: str, compound: bool = False) -> re.Pattern[str]:
    """A pattern finding `value` in text: plurals, hyphens and spacing tolerated.

    Short codes ("A", "VE") only match as written (upper case). With `compound`, a
    value may also open a hyphenated compound ("aluminum branch" in "aluminum
    branch-circuit wiring").
    """
    words = [w for w in re.split(r"[\s_-]+", value.strip()) if w]  # "extension_cord"
    body = r"[\s-]+".join(_word_pattern(w) for w in words)
    flags = 0 if len(value.strip()) <= 2 else re.I
    end = r"(?!\w)" if compound and len(words) > 1 else r"(?![\w-])"
    return re.compile(rf"(?<![\w-]){body}{end}", flags)


class FieldLinker:
    """Links words of a text to the fields of one data dictionary."""

    def __init__(
        self,
        profile: DictionaryProfile,
        known_values: Mapping[str, Iterable[str]] | None = None,
        embed: Embed | None = None,
    ) -> None:
        """Prepare value patterns and (lazily) embeddings.

        Args:
            profile: The data dictionary's profile.
            known_values: Extra values per categorical field (e.g. from stored rules).
            embed: Optional text embedder returning unit vectors (WordLlama offline).
        """
        self.profile = profile
        self.embed = embed
        pairs: dict[tuple[str, str], None] = {}
        for info in profile.fields.values():
            if info.categorical:
                for value in info.values:
                    pairs[(info.name, value)] = None
        for name, values in (known_values or {}).items():
            known = profile.fields.get(name)
            if known is not None and known.categorical:
                for value in values:
                    if isinstance(value, str) and value.strip():
                        pairs[(name, value)] = None
        self.values: list[tuple[str, str]] = sorted(pairs, key=lambda p: -len(p[1]))
        # Values by the stems of their words: a lookup per phrase of the text, so the
        # cost of reading a query does not grow with the number of known values.
        self._by_stems: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        for name, value in self.values:
            key = tuple(stem(w) for w in _VALUE_WORD.findall(value))
            if key:
                self._by_stems.setdefault(key, []).append((name, value))
        self._longest = max((len(k) for k in self._by_stems), default=0)
        names = list(profile.fields)
        self._value_fields = np.array([names.index(n) for n, _ in self.values], dtype=np.int32)
        self._value_vectors: np.ndarray | None = None
        self._field_vectors: np.ndarray | None = None

    # -- values -----------------------------------------------------------------------------

    def values_in(self, text: str, similar: bool = False) -> list[ValueHit]:
        """Categorical values named in a text, longest first, without overlaps.

        Args:
            text: Any text.
            similar: Also accept phrases close in meaning to a known value (needs an
                embedder).

        Returns:
            The hits, in text order.
        """
        words = list(_VALUE_WORD.finditer(text))
        taken: list[tuple[int, int]] = []
        hits: list[ValueHit] = []
        i = 0
        while i < len(words):
            found = self._value_at(text, words, i)
            if found is None:
                i += 1
                continue
            n, name, value = found
            span = (words[i].start(), words[i + n - 1].end())
            taken.append(span)
            hits.append(ValueHit(name, value, *span))
            i += n
        if similar and self.embed is not None and 0 < len(self.values) <= MAX_SIMILAR_VALUES:
            hits += self._similar_values(text, taken)
        hits.sort(key=lambda h: h.start)
        return hits

    def _value_at(
        self, text: str, words: list[re.Match[str]], i: int
    ) -> tuple[int, str, str] | None:
        """The longest known value starting at word `i`: (words used, field, value)."""
        for n in range(min(self._longest, len(words) - i), 0, -1):
            group = words[i : i + n]
            if any(
                re.search(r"[^\s-]", text[a.end() : b.start()])
                for a, b in zip(group, group[1:], strict=False)
            ):
                continue
            for name, value in self._by_stems.get(tuple(stem(w.group(0)) for w in group), ()):
                if len(value.strip()) <= 2 and not group[0].group(0).isupper():
                    continue  # a short code ("A", "VE") only as written
                return n, name, value
        return None

    def _similar_values(self, text: str, taken: list[tuple[int, int]]) -> list[ValueHit]:
        """Phrases of 1-3 words whose meaning is close to exactly one known value."""
        spans = _phrases(text, taken)
        if not spans:
            return []
        assert self.embed is not None
        vectors = self._values_matrix()
        phrase_vecs = self.embed([text[s:e] for s, e in spans])
        sims = phrase_vecs @ vectors.T
        found: list[ValueHit] = []
        used: list[tuple[int, int]] = []
        order = sorted(range(len(spans)), key=lambda i: -float(sims[i].max()))
        for i in order:
            best = int(sims[i].argmax())
            score = float(sims[i, best])
            if score < VALUE_SIMILARITY:
                break
            name, value = self.values[best]
            s, e = spans[i]
            if self.profile.fields[name].closed and score < CLOSED_VALUE_SIMILARITY:
                continue
            if _fragment(text[s:e], value):
                continue
            rivals = sims[i][self._value_fields != self._value_fields[best]]
            if rivals.size and float(rivals.max()) > score - VALUE_MARGIN:
                continue
            if any(a < e and s < b for a, b in used) or any(f.field == name for f in found):
                continue
            used.append((s, e))
            found.append(ValueHit(name, value, s, e, score))
        return found

    def _values_matrix(self) -> np.ndarray:
        if self._value_vectors is None:
            assert self.embed is not None
            self._value_vectors = self.embed([v for _, v in self.values])
        return self._value_vectors

    # -- fields -----------------------------------------------------------------------------

    def lexical_scores(self, phrase: str) -> dict[str, float]:
        """How strongly a phrase's words name each field (0 when not at all).

        A whole synonym counts 2, a naming word its specificity (1 / fields using
        it), a description word a third of that.
        """
        words = [s for s in stems(phrase) if s not in STOP_STEMS]
        scores: dict[str, float] = {}
        for info in self.profile.fields.values():
            score = 0.0
            for syn in info.phrases:
                if len(syn) > 1 and _contains(words, syn):
                    score += 2.0
            for word in set(words):
                if word in info.words:
                    score += self.profile.weight(word)
                elif word in info.desc_words:
                    score += self.profile.weight(word) / 3.0
            if score > 0:
                scores[info.name] = score
        return scores

    def similarity(self, phrase: str) -> dict[str, float]:
        """Cosine similarity of a phrase to each field's profile text (needs an embedder)."""
        if self.embed is None:
            return {}
        if self._field_vectors is None:
            self._field_vectors = self.embed([f.profile_text for f in self.profile.fields.values()])
        [vector] = self.embed([phrase])
        sims = self._field_vectors @ vector
        return {name: float(s) for name, s in zip(self.profile.fields, sims, strict=True)}

    def link(self, phrase: str, kinds: Sequence[str] | None = None) -> FieldProfile | None:
        """The field a noun phrase names ("membrane roof" -> the roof-covering field).

        Lexical evidence decides; meaning (when an embedder is given) breaks ties and
        links phrases that share no word with any field.

        Args:
            phrase: A short noun phrase.
            kinds: Only consider fields of these kinds.

        Returns:
            The field, or None when nothing names one clearly.
        """
        allowed = [f for f in self.profile.fields.values() if not kinds or f.kind in kinds]
        lexical = self.lexical_scores(phrase)
        scored = sorted(((lexical.get(f.name, 0.0), f.name) for f in allowed), reverse=True)
        if scored and scored[0][0] >= 0.5 and (len(scored) < 2 or scored[0][0] > scored[1][0]):
            return self.profile.fields[scored[0][1]]
        sims = self.similarity(phrase)
        if not sims:
            return None
        ranked = sorted(((sims[f.name], f.name) for f in allowed), reverse=True)
        if (
            ranked
            and ranked[0][0] >= 0.45
            and (len(ranked) < 2 or ranked[0][0] - ranked[1][0] >= 0.08)
        ):
            return self.profile.fields[ranked[0][1]]
        return None


def _fragment(phrase: str, value: str) -> bool:
    """True when a phrase is only part of a value ("shop" of "auto repair shop")."""
    mine, theirs = set(stems(phrase)), set(stems(value))
    return mine < theirs or (len(mine) == 1 and bool(mine & theirs) and mine != theirs)


def _contains(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def _phrases(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of 1-3 consecutive content words not already claimed."""
    words = [m for m in _WORD.finditer(text) if m.group(0).lower() not in _NGRAM_STOP]
    spans: list[tuple[int, int]] = []
    for i in range(len(words)):
        for n in (1, 2, 3):
            if i + n > len(words):
                break
            group = words[i : i + n]
            gap = any(
                re.search(r"[^\s-]", text[a.end() : b.start()])
                for a, b in zip(group, group[1:], strict=False)
            )
            if gap:
                break
            span = (group[0].start(), group[-1].end())
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            if n == 1 and len(group[0].group(0)) < 4:
                continue
            spans.append(span)
    return spans
