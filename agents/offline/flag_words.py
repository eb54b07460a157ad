"""How a text names a yes / no field: its words in order, reversed, scrambled or denied.

The matchers take a clause's content tokens and one field's phrases (stemmed words of its
synonyms and name) and say where the field is named and whether the text denies it
("no attendant", "is not enforced", "if it isn't held").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Protocol

from agents.offline import lexicon_subjects as lxs
from agents.offline.textproc import Token, find_phrase


class FieldInfo(Protocol):
    """What the matchers need of a field: its name and stemmed phrases."""

    @property
    def name(self) -> str:
        """The field's name."""
        ...

    @property
    def phrases(self) -> list[tuple[str, ...]]:
        """Stemmed words of the field's synonyms and name."""
        ...

    @property
    def tokens(self) -> set[str]:
        """Stems of the field's name and synonyms."""
        ...

    @property
    def desc_tokens(self) -> set[str]:
        """Stems of the field's description not among `tokens`."""
        ...


#: Words that negate a flag named within three words after them. "neither X nor Y" and
#: "cannot confirm X" deny X (and Y) as plainly as "no X" does.
NEGATION_WORDS = frozenset(
    {"no", "not", "without", "lack", "lacking", "lacks", "absent", "missing", "neither", "nor"}
    | {"cannot", "can't", "unable"}
    # "if the salon hasn't switched to pipeless tubs", "doesn't have a sprinkler system"
    | {
        f"{w}{q}t"
        for w in ("doesn", "don", "didn", "hasn", "haven", "hadn", "isn", "aren", "wasn", "won")
        for q in ("'", "’")
    }
)
_AFTER_NEGATION = frozenset({"not", "isn't", "aren't", "never"})
#: Verbs of holding whose denial denies their object: "does not hold a certificate";
#: of showing it: "cannot show disposal at a permitted plant", "fails to produce a permit".
_POSSESSION = frozenset(
    "hold holds have has carry carries keep keeps maintain maintains".split()
    + "show shows produce produces provide provides document documents prove proves".split()
    + "demonstrate demonstrates evidence furnish furnishes submit submits".split()
)
#: Words that deny a showing only: "fails to show a permit" ("a failed inspection" is none).
_FAILING = frozenset("fail fails failed failing".split())
#: Words a denied possession's object may have before the field's own words.
_OBJECT_WORDS = 6


@dataclass(frozen=True)
class BoolMention:
    """A boolean field named in a text."""

    field: str
    first: int
    last: int
    negated: bool
    full: bool


def find(tokens: list[Token], phrase: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where a phrase's stems occur in tokens, as (first, last) indices."""
    return find_phrase(tokens, phrase)


def strip_negative_prefix(word: str, known: set[str]) -> str | None:
    """The word without "un" / "non" when the rest is a known stem ("unsprinklered")."""
    for prefix in ("un", "non"):
        if word.startswith(prefix) and word[len(prefix) :] in known:
            return word[len(prefix) :]
    return None


def _match_negative_phrase(
    tokens: list[Token], name: str, rest: tuple[str, ...]
) -> list[BoolMention]:
    """A synonym that carries its own negation ("no attendant") matches any negation word.

    "open without an attendant" names the flag "no attendant" as plainly as its own
    words do; the flag is then set (the negation belongs to the synonym).
    """
    hits: list[BoolMention] = []
    for i, tok in enumerate(tokens):
        if tok.text.lower() not in NEGATION_WORDS:
            continue
        matched = find(tokens[i + 1 :], rest)
        if matched and matched[0][0] == 0:
            hits.append(BoolMention(name, i, i + 1 + matched[0][1], False, True))
    return hits


def negated_before(tokens: list[Token], index: int, own: frozenset[str] = frozenset()) -> bool:
    """A negation within the three words before a mention, or a denied possession.

    "does not hold its own FAA Part 135 certificate": a negated verb of holding reaches
    over the words of its object's noun phrase (up to six). "no enclosed weighing booth
    with extraction for the colorants": the negation reaches over the flag's `own` words
    (its name's and description's stems) to the words of the name.
    """
    start = max(0, index - 3)
    if any(_negation_at(tokens, i) for i in range(start, index)):
        return True
    reach = index
    while reach > max(0, index - _OBJECT_WORDS) and tokens[reach - 1].stem in own:
        reach -= 1
    if reach <= start and reach > 0 and _negation_at(tokens, reach - 1):
        return True
    return any(
        (_negation_at(tokens, i) or tokens[i].text.lower() in _FAILING)
        and tokens[i + 1].text.lower() in _POSSESSION
        for i in range(max(0, index - _OBJECT_WORDS - 2), index - 1)
    )


def negated_within(tokens: list[Token], first: int, last: int, own: int = 0) -> bool:
    """A negation between a mention's first and last word: "mechanics are not all licensed".

    `own` negations belong to the phrase matched ("minors without an adult").
    """
    return sum(_negation_at(tokens, i) for i in range(first + 1, last)) > own


#: Words "other (than)" follows as a negation: "anything other than active".
_ANY_OTHER_HEADS = frozenset({"anything", "something", "anywhere", "somewhere", "any", "every"})
#: Verbs of writing a risk: "We do not write saturation diving" refuses what it names.
_REFUSING_VERBS = frozenset("write insure quote bind accept entertain underwrite touch".split())


def _negation_at(tokens: list[Token], i: int) -> bool:
    """A negation word, or "anything other (than)" ("a status anything other than active").

    A negation of a verb of writing ("we do not write X") refuses X; it does not deny it.
    """
    word = tokens[i].text.lower()
    if word in NEGATION_WORDS:
        following = tokens[i + 1].text.lower() if i + 1 < len(tokens) else ""
        # "will not accept the sexual misconduct exclusion": terms refused, not a risk
        terms = following in {"accept", "take", "sign"} and any(
            t.text.lower() in lxs.INSTRUMENT_NOUNS for t in tokens[i + 2 : i + 6]
        )
        return following not in _REFUSING_VERBS or terms
    # "spraying anywhere other than inside a listed booth": not in one
    return word == "other" and i > 0 and tokens[i - 1].text.lower() in _ANY_OTHER_HEADS


def _negated_after(tokens: list[Token], last: int) -> bool:
    """A negated participle right after the mention: "MFA is not enforced".

    Not a decision's participle: "a dealer that keeps fuel in its bikes is not referred"
    spares the risk; the fuel is still there.
    """
    after = [t.text.lower() for t in tokens[last + 1 : last + 3]]
    return (
        len(after) == 2
        and after[0] in _AFTER_NEGATION
        and (after[1].endswith("ed") or after[1] in lxs.IRREGULAR_PARTICIPLES)
        and after[1] not in _DECIDED
    )


#: The participles of a decision on the risk, which a negation denies, not the mention.
_DECIDED = frozenset(
    "referred declined flagged excluded verified approved accepted written quoted bound".split()
)


#: A credential no longer held: "whose boarding license has lapsed or been suspended", or
#: not there at all: "if the shielding survey is missing".
_LAPSED = frozenset(
    "lapsed lapses expired expires suspended revoked cancelled canceled terminated".split()
    + "missing absent unavailable".split()
)
_AUXILIARIES = frozenset("has have had is are was were been be".split())


def _lapsed_after(tokens: list[Token], last: int) -> bool:
    """The mention's next verb says it ended: "the license has lapsed", "permit expired"."""
    after = [t.text.lower() for t in tokens[last + 1 : last + 5]]
    if len(after) > 1 and after[1] in _LAPSED | _AUXILIARIES and after[0] not in _AUXILIARIES:
        after = after[1:]  # "the shielding survey of the vaults is missing": its complement
    while after and after[0] in _AUXILIARIES:
        after = after[1:]
    return bool(after) and after[0] in _LAPSED


#: A credential said to have ended, before its name: "a lapsed, suspended or revoked permit".
_ENDED = frozenset(
    "lapsed expired suspended revoked cancelled canceled terminated invalid inactive".split()
)


#: A flag whose name says the credential ended ("registration_lapsed"): its word affirms it.
_ENDED_NAME = re.compile(r"laps|expir|suspend|revok|cancel|terminat|invalid|inactive")


def _lapsed_before(tokens: list[Token], first: int, name: str) -> bool:
    """An ended credential's word within the three words before it: "an expired license"."""
    return not _ENDED_NAME.search(name) and any(
        t.text.lower() in _ENDED for t in tokens[max(0, first - 3) : first]
    )


def _denied_by_pronoun(tokens: list[Token], last: int) -> bool:
    """A pronoun after the mention says it is missing: "license: if it isn't held, verify".

    Within the next eight words, "it / they" then a negation then a participle.
    """
    after = [t.text.lower() for t in tokens[last + 1 : last + 9]]
    for j, word in enumerate(after[:-2]):
        if word in {"it", "they"} and after[j + 1] in _AFTER_NEGATION | {"wasn't", "weren't"}:
            verb = after[j + 2]
            return verb.endswith("ed") or verb in lxs.IRREGULAR_PARTICIPLES
    return False


def reversed_pairs(tokens: list[Token], info: FieldInfo, stems: set[str]) -> list[BoolMention]:
    """A two-word name said the other way round: "overnight boarding" in "boards ... overnight".

    English turns a compound into a verb phrase by swapping its words ("boarding pets" /
    "pets boarded"); only a plural object may sit between them ("the cap is working"
    is no "working space"). Not a full-phrase match, so one in the written order wins.
    `stems` are the clause's stems.
    """
    hits: list[BoolMention] = []
    # "an unsensored leg" says "leg sensors" denied: a word of it with "un" / "non"
    prefixed = {t.stem[2:] for t in tokens if t.stem.startswith("un")} | {
        t.stem[3:] for t in tokens if t.stem.startswith("non")
    }
    for phrase in info.phrases:
        if len(phrase) != 2 or not set(phrase) <= stems | prefixed or set(phrase) & NEGATION_WORDS:
            continue
        bases = [strip_negative_prefix(t.stem, set(phrase)) for t in tokens]
        seen = [replace(t, stem=b) if b else t for t, b in zip(tokens, bases, strict=True)]
        for first, last in find(seen, (phrase[1], phrase[0]))[:1]:
            # next to each other, or around the verb's object ("boards animals overnight")
            between = [t.text.lower() for t in tokens[first + 1 : last]]
            if not between or (len(between) == 1 and _plural_noun(between[0])):
                negated = (
                    any(bases[first : last + 1])
                    or negated_before(tokens, first)
                    or _negated_after(tokens, last)
                )
                hits.append(BoolMention(info.name, first, last, negated, False))
    return hits[:1]


def scrambled(tokens: list[Token], info: FieldInfo, stems: set[str]) -> list[BoolMention]:
    """A name of three words or more said in another order, close together.

    "conveys sawdust pneumatically" names "pneumatic sawdust conveying", "drain covers
    are not VGB-compliant" names "VGB compliant drain covers": every word of the name
    within a run at most two words longer than the name. `stems` are the clause's stems.
    """
    for phrase in info.phrases:
        need = set(phrase)
        if len(phrase) < 3 or need & NEGATION_WORDS or len(need - stems) > 1:
            continue  # (at most one word said in a longer or shorter form)
        # "qualified through a recognised saddlery society" says "saddlery society
        # qualification": a long word's stem opening the other's is the same word
        said = {t.stem: _same_word(t.stem, need) for t in tokens}
        missing = need - set(said.values())
        # "guests handle birds on the glove" says "guests hold birds on the glove": a name
        # of four words or more with one word said otherwise
        if missing and not (len(need) >= _ONE_SAID_OTHERWISE and len(missing) == 1):
            continue
        if missing & said.keys():
            continue  # "mineral-oil hydraulics ... convert to fire-resistant fluid": the word
            # is said, only elsewhere: the rest is no name of its own
        present = need - missing
        for first, tok in enumerate(tokens):
            if said[tok.stem] not in need:
                continue
            window = tokens[first : first + len(phrase) + (1 if missing else 2)]
            seen = {said[t.stem] for t in window} & need
            if seen != present:
                continue
            if missing and any(t.stem.endswith(w) for t in window for w in missing):
                continue  # "license shows inactive" denies "license active": no other word
            last = first + max(i for i, t in enumerate(window) if said[t.stem] in need)
            own = frozenset(info.tokens | info.desc_tokens)
            negated = negated_before(tokens, first, own) or negated_within(tokens, first, last)
            return [BoolMention(info.name, first, last, negated, False)]
    return []


#: Stems that say a thing is permitted: a name's "allowed" is a text's "may use".
_PERMITTING = frozenset({"allow", "permit", "may"})
#: A name of this many words may have one of them said in another word.
_ONE_SAID_OTHERWISE = 4
#: How many letters two stems share before one long word is said for the other.
_SAME_WORD_STEM = 7


def _same_word(stem: str, need: set[str]) -> str | None:
    """The word of `need` a stem says: itself, or one it opens or is opened by (7+ letters)."""
    if stem in need:
        return stem
    if stem in _PERMITTING and (allowed := need & _PERMITTING):
        return min(allowed)  # "clients may use live candles" says "live candles allowed"
    if len(stem) < _SAME_WORD_STEM:
        return None
    return next(
        (
            w
            for w in need
            if len(w) >= _SAME_WORD_STEM and (w.startswith(stem) or stem.startswith(w))
        ),
        None,
    )


def _plural_noun(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


#: A phrase this long may have a word said in a longer form of the same stem.
_AKIN_PHRASE = 3
_AKIN_STEM = 6
_AKIN_SUFFIXES = frozenset({"ity", "ality", "ities", "alities"})
_AKIN_ENDINGS = ("ity", "ities")


def _akin_word(stem: str, phrase: tuple[str, ...]) -> str | None:
    """The phrase's adjective a token names as a noun ("municipality" of "municip").

    Only the "-ity" noun of an adjective: a "surveyor" is no "survey".
    """
    if stem in phrase:
        return None
    return next(
        (
            w
            for w in phrase
            if len(w) >= _AKIN_STEM and stem.startswith(w) and stem[len(w) :] in _AKIN_SUFFIXES
        ),
        None,
    )


def match_bool(
    tokens: list[Token], name: str, phrase: tuple[str, ...], own: frozenset[str] = frozenset()
) -> list[BoolMention]:
    """Every place a field's phrase is said in order, with whether it is denied.

    A word of the phrase said with "un" / "non" denies it ("client files unencrypted"),
    unless the prefixed word is in `own` (a word of some flag's phrase, "unsprinklered").
    """
    if len(phrase) > 1 and phrase[0] in NEGATION_WORDS:
        return _match_negative_phrase(tokens, name, phrase[1:])
    hits: list[BoolMention] = []
    # "client files unencrypted": a word of the phrase said with "un" / "non" denies it
    bases = [
        strip_negative_prefix(t.stem, set(phrase[:1] if t.stem in own else phrase)) for t in tokens
    ]
    seen = [replace(t, stem=b) if b else t for t, b in zip(tokens, bases, strict=True)]
    if len(phrase) >= _AKIN_PHRASE:  # "assumed the municipality's liability": "municipal"
        seen = [
            replace(t, stem=a)
            if t.stem.endswith(_AKIN_ENDINGS) and (a := _akin_word(t.stem, phrase))
            else t
            for t in seen
        ]
    for i, tok in enumerate(seen):
        if tok.stem != phrase[0]:
            continue
        matched = find(seen[i:], phrase)
        if not matched or matched[0][0] != 0:
            continue
        last = i + matched[0][1]
        negated = (
            any(bases[i : last + 1])
            or negated_before(tokens, i)
            or _negated_after(tokens, last)
            or _lapsed_after(tokens, last)
            or _lapsed_before(tokens, i, name)
            or negated_within(tokens, i, last, own=sum(w in NEGATION_WORDS for w in phrase))
            or _denied_by_pronoun(tokens, last)
        )
        hits.append(BoolMention(name, i, last, negated, True))
    return hits
