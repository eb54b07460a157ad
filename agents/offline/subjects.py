"""Occupancy / business-class values read from the subject of a rule sentence.

"Jewelry stores are declined ..." -> "jewelry store"; "Bars, taverns and nightclubs are
ineligible ..." -> ["bar", "tavern", "nightclub"]. Words that belong to other fields
(construction values, boolean flags, products, states) and generic nouns ("buildings",
"risks") are removed, so "unsprinklered warehouses" -> "warehouse".
"""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.textproc import content_tokens, find_phrase, strip_connectors
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.linker import value_pattern
from memory.underwriting.fieldlink.numbers import find_numbers, stem

_STOP = frozenset(
    """
    is are was were be been being must may might can could should shall will would need needs
    require requires required has have had do does did with without in on of over under above
    below more less fewer than at for within from that which who whose where when including
    include includes built constructed located dispensing operating using having like as if
    unless to by per into exceed exceeds exceeding drop drops land lands stays remains older
    younger newer greater automatically always generally typically usually normally never
    only also still require referred declined excluded flagged verified written bound get gets
    whenever while during after before because since due outside across then larger smaller
    bigger higher lower longer shorter wider taller heavier open opened closed closing
    used using stay stays staying holding held storing stored working doing does done
    closer nearer farther further else otherwise worse better
    apply applies limit limits cover covers follow follows mean means
    move moves moved change changes changed rise rises fall falls continue continues
    inside slower faster sooner later earlier return returns
    """.split()
)
_IMPERATIVE = frozenset(
    "decline refer verify flag attach tell record count check write bind exclude confirm "
    "make keep send route do don't please note".split()
)
_CONTRACTION = re.compile(r"(?:n't|'ve|'re|'ll|'d|'m|’ve|’re|’ll)$|^(?:that|it|there|what)'s$")
_PERSONAL = frozenset({"we", "i", "you", "they", "he", "she"})
_ACTION_VERBS = frozenset({"decline", "refer", "exclude"})
_REFUSAL = re.compile(
    r"^(?:we|the company|the carrier)\s+(?:will not|won't|do not|don't|does not|cannot|"
    r"can't|never|no longer)\s+(?:write|insure|accept|quote|bind|cover|offer)\s+",
    re.I,
)
# "The manual says BOP risks ..." -> "BOP risks ...": a reporting clause is not the subject.
_REPORTING = re.compile(
    r"^(?:[\w'’-]+\s+){0,5}?(?:says|said|states|stated|notes|specifies|stipulates|"
    r"indicates|provides|reads)\s+(?:that\s+)?",
    re.I,
)
#: Verb forms of an action: the subject ends before them.
_ACTION_WORD = re.compile(r"^(?:declin|refer|exclud|verif|confirm|flag|escalat|approv|reject)\w*$")
#: "ninja or obstacle-course gyms": a singular modifier shares the plural head after it.
_SHARED_HEAD = re.compile(
    r"\b([a-z][\w-]*[^s\W])\s+(or|and)\s+([a-z][\w-]*)\s+([a-z][\w-]*s)\b", re.I
)
#: "... is attached to every self-storage quote": the policies a clause applies to.
_SCOPE = re.compile(
    r"\b(?:to|on|for|with|in)\s+(?:every|each|all|any)\s+([\w\s-]{2,40}?)\s+"
    r"(?:polic(?:y|ies)|quotes?|accounts?|risks?|submissions?|renewals?|files?)\b",
    re.I,
)
_PARENTHESES = re.compile(r"\([^()]*\)")
_NP_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d,.]*|[,;:()/]")


def _noun_phrase(text: str) -> str:
    """The leading noun phrase of a clause, ending right before a verb or preposition.

    Returns "" when the phrase runs into a number, punctuation or the end of the clause
    (then it is not a subject: "Decline.", "Effective January 1").
    """
    words: list[str] = []
    for match in _NP_WORD.finditer(text):
        word = match.group(0)
        low = word.lower().strip("'’")
        if low in _STOP:
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if _ACTION_WORD.match(low):  # "the senior confirms", "the portal refers": an agent
            return "" if not words or words[-1] != "," else " ".join(words)[:-2].strip(" ,")
        if word in {";", ":", "(", ")"} or word[0].isdigit() or find_numbers(word):
            return ""
        if _CONTRACTION.search(low) or low in _PERSONAL:
            return ""
        if (
            words
            and low.endswith("ing")
            and (
                words[-1].lower().endswith("s")
                or words[-1].lower() in lxs.GENERIC_NOUNS
                or words[-1].lower() in lxs.NON_BUSINESS_WORDS  # "anyone distilling spirits"
            )
        ):  # "roofers using torches", "any insured running ten trucks": a participle
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if words and low.endswith("ing") and _ends_participle(text[match.end() :]):
            # "a contractor subletting more than ...": a participle with its object
            return " ".join(words).replace(" ,", ",").strip(" ,")
        words.append(word)
    return ""


def _ends_participle(rest: str) -> bool:
    """True when the word after an -ing word opens its object or complement."""
    nxt = _NP_WORD.search(rest)
    if nxt is None:
        return False
    low = nxt.group(0).lower()
    return low in _STOP or low in lxs.DETERMINERS or low[0].isdigit() or bool(find_numbers(low))


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


class SubjectReader:
    """Reads occupancy values from clause subjects using the field vocabulary."""

    def __init__(self, vocab: FieldVocabulary) -> None:
        """Prepare the words that belong to other fields.

        Args:
            vocab: The field vocabulary of the dataset.
        """
        self.vocab = vocab
        occupancy = vocab.fields.get(vocab.occupancy or "")
        self.examples: list[str] = occupancy.values if occupancy else []
        self.example_set: set[str] = {e.lower() for e in self.examples}
        self.foreign_phrases: list[tuple[str, ...]] = [
            p for info in vocab.fields.values() for p in info.phrases
        ]
        self.heads: set[str] = {
            p[-1]
            for info in vocab.fields.values()
            if info.kind in {"bool", "numeric"}
            for p in info.phrases
        }
        # "membrane roofs", "aluminum wiring": the head noun names a categorical field
        # other than the business class, so the subject is a value of that field.
        self.heads |= {
            w
            for info in vocab.categorical()
            for p in info.phrases
            for w in p
            if w not in lxs.STOPWORDS and stem(w) not in {"type", "kind", "class"}
        }
        # Words other fields are described with name the thing insured ("vessel",
        # "building"), never a business class on their own.
        self.carrier_words: set[str] = {
            w
            for info in vocab.fields.values()
            if info.kind != "occupancy"
            for w in info.desc_tokens
        }
        self.field_words: set[str] = self.carrier_words | {
            w for info in vocab.fields.values() if info.kind != "occupancy" for w in info.tokens
        }
        self.enum_values: list[str] = [
            v for info in vocab.categorical() for v in info.values if len(v) > 2
        ]

    def read(self, clause: str) -> list[str]:
        """Return the occupancy value(s) named by a clause's subject ([] when none).

        Args:
            clause: One clause of a rule sentence.

        Returns:
            Lower-case singular values; several for a list subject.
        """
        text = _PARENTHESES.sub(" ", strip_connectors(clause))  # "Private party (weddings)"
        reporting = _REPORTING.match(text)
        if reporting:
            text = text[reporting.end() :]
        if lx.SUBORDINATOR.match(text):
            return []
        prep = re.match(r"^(?:on|for|with|among)\s+", text, re.I) or _REFUSAL.match(text)
        if prep and prep.group(0).lower().startswith("with") and "," in text:
            return []  # "With several fires active in the state, new business is ...": no subject
        if prep:
            text = text[prep.end() :]
        first = text.split()[0].lower() if text.split() else ""
        if first in _ACTION_VERBS and len(text.split()) > 1:
            text = text.split(None, 1)[1]
        elif first in _IMPERATIVE:
            return []
        phrase = _SHARED_HEAD.sub(r"\1 \4 \2 \3 \4", _noun_phrase(text))
        for value in self.enum_values:  # "knob and tube" is one value, not a list
            phrase = value_pattern(value.lower()).sub(" ", phrase)
        head = phrase.split()[-1].lower() if phrase.split() else ""
        if _singular(head) in lxs.INSTRUMENT_NOUNS:
            return []  # "the glue burn exclusion is attached ...": an instrument, no class
        values = self._values(phrase)
        listed = self._listed_in_parentheses(clause)
        if listed and not (values and all(v in self.example_set for v in values)):
            return listed  # "Hobby submissions (puppet theatres, ice rinks)"
        return values

    def _values(self, phrase: str) -> list[str]:
        items = [i for i in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*", phrase)]
        values = [v for v in (self._clean(i) for i in items) if v]
        return list(dict.fromkeys(values))

    def _listed_in_parentheses(self, clause: str) -> list[str]:
        """The classes a parenthesis after the subject lists.

        "Event submissions (trade shows, street fairs) are ...". Only when the parenthesis
        follows the subject's first words and every item in it is a business class the
        dictionary lists.
        """
        match = _PARENTHESES.search(clause)
        if not match or len(clause[: match.start()].split()) > 4:
            return []
        values = self._values(match.group(0).strip("()"))
        return values if values and all(v in self.example_set for v in values) else []

    def scope(self, clause: str) -> list[str]:
        """The business class a clause's scope names: "attached to every bakery policy".

        Args:
            clause: One clause of a rule sentence.

        Returns:
            The value, when the phrase after "every / each / all" is a business class
            the dictionary lists ([] otherwise).
        """
        match = _SCOPE.search(clause)
        if not match:
            return []
        value = self._clean(match.group(1))
        return [value] if value and value in self.example_set else []

    def mitigated_outcome(self, clause: str, mitigant_text: str) -> bool:
        """True when the subject is qualified by the previous mitigant ("alarmed risks").

        Args:
            clause: The clause to test.
            mitigant_text: Mitigant text of the clause or sentence before.

        Returns:
            Whether the clause describes what happens once the mitigant is present.
        """
        if not mitigant_text:
            return False
        stems = {t.stem for t in content_tokens(mitigant_text)}
        phrase = _noun_phrase(strip_connectors(clause))
        words = [w.lower() for w in phrase.split()]
        return any(w.endswith("ed") and stem(w) in stems for w in words)

    def _clean(self, item: str) -> str | None:
        for _, pattern in lxs.PRODUCT_PATTERNS:
            item = pattern.sub(" ", item)
        item = lxs.STATE_NAME_RE.sub(" ", item)
        words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", item)]
        while len(words) > 1 and words[0].lower() in lxs.DETERMINERS:
            words.pop(0)
        while len(words) > 1 and "-" in words[0]:
            words.pop(0)
        if any(w.lower() in lxs.DETERMINERS for w in words[1:]):
            return None
        low = " ".join(w.lower() for w in words)
        for value in self.enum_values:
            low = value_pattern(value.lower()).sub(" ", low)
        tokens = content_tokens(low)
        drop: set[int] = set()
        for phrase in self.foreign_phrases:
            for first, last in find_phrase(tokens, phrase, max_gap=0):
                drop.update(range(first, last + 1))
        for mention in self.vocab.bool_mentions(tokens):
            drop.update(range(mention.first, mention.last + 1))
        kept = [
            t.text.lower()
            for i, t in enumerate(tokens)
            if i not in drop
            and t.text.lower() not in lxs.GENERIC_NOUNS
            and t.text.lower() not in lxs.NON_BUSINESS_WORDS
            and t.text.lower() not in lxs.DETERMINERS
        ]
        if not kept or len(kept) > 4 or any(len(w) > 4 and w.endswith("ed") for w in kept):
            return None
        if any(w.endswith(("'s", "’s")) or stem(w) in lxs.NON_BUSINESS_WORDS for w in kept):
            return None
        value = " ".join([*kept[:-1], _singular(kept[-1])])
        if value in self.example_set:
            return value  # the dictionary names it a business class ("printing plant")
        if stem(kept[-1]) in self.heads:
            return None
        if len(kept) == 1 and stem(kept[0]) in self.carrier_words:
            return None
        if len(kept) > 1 and all(stem(w) in self.field_words for w in kept):
            return None  # "vacant rentable area": a measured field's words, no business
        if len(kept) == 1 and stem(kept[0]) in self.vocab.name_tokens:
            return None
        return self._canonical(value)

    def _canonical(self, value: str) -> str:
        """Snap a value onto a dictionary example when the words clearly agree.

        A lone head noun ("a clinic") is the one example it ends ("veterinary clinic").
        """
        words = value.split()
        if len(words) == 1:
            ending = [e for e in self.example_set if e.split()[-1] == value and " " in e]
            if len(ending) == 1:
                return ending[0]
        for example in self.examples:
            ex_words = example.lower().split()
            if len(ex_words) != len(words):
                continue
            if not (set(words) & set(ex_words)) and any(
                abs(len(a) - len(b)) > 3 for a, b in zip(words, ex_words, strict=True)
            ):
                continue  # a bare prefix is no evidence: "rest" is not "restaurant"
            if all(
                a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))
                for a, b in zip(words, ex_words, strict=True)
            ):
                return example.lower()
        return value
