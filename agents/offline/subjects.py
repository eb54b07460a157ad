"""Occupancy / business-class values read from the subject of a rule sentence.

"Jewelry stores are declined ..." -> "jewelry store"; "Bars, taverns and nightclubs are
ineligible ..." -> ["bar", "tavern", "nightclub"]. Words that belong to other fields
(construction values, boolean flags, products, states) and generic nouns ("buildings",
"risks") are removed, so "unsprinklered warehouses" -> "warehouse".
"""

from __future__ import annotations

import re
from dataclasses import replace

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.noun_phrases import (
    akin,
    drop_adverb,
    kept_words,
    noun_phrase,
    plural,
    singular,
)
from agents.offline.textproc import content_tokens, find_phrase, strip_connectors
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.linker import value_pattern
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.states import US_STATES
from memory.underwriting.fieldlink.stems import stem

_STATE_CODES = frozenset(US_STATES.values())
_IMPERATIVE = frozenset(
    "decline refer verify flag attach tell record count check write bind exclude confirm "
    "make keep send route do don't please note know ask read pull look find remember call "
    "use treat measure compute obtain review see contact".split()
)
_ACTION_VERBS = frozenset({"decline", "refer", "exclude"})
_REFUSAL = re.compile(
    r"^(?:we|the company|the carrier|(?:the|our)\s+(?:[\w-]+\s+)?(?:program|desk|book|unit))"
    r"\s+(?:will not|won't|do not|don't|does not|cannot|"
    r"can't|never|no longer)\s+(?:write|insure|accept|quote|bind|cover|offer)\s+",
    re.I,
)
# "The manual says BOP risks ..." -> "BOP risks ...": a reporting clause is not the subject.
_REPORTING = re.compile(
    r"^(?:[\w'’-]+\s+){0,5}?(?:says|said|states|stated|notes|specifies|stipulates|"
    r"indicates|provides|reads|insists|maintains|is (?:firm|clear|adamant|explicit))\s+"
    r"(?:that\s+)?",
    re.I,
)
#: "ninja or obstacle-course gyms": a singular modifier shares the plural head after it.
_SHARED_HEAD = re.compile(
    r"\b([a-z][\w-]*[^s\W])\s+(or|and)\s+([a-z][\w-]*)\s+([a-z][\w-]*s)\b", re.I
)
#: "... is attached to every self-storage quote": the policies a clause applies to.
_SCOPE = re.compile(
    r"\b(?:to|on|for|with|in)\s+(?:every|each|all|any)\s+([\w\s-]{2,40}?)\s+"
    r"(?:polic(?:y|ies)|quotes?|accounts?|risks?|submissions?|renewals?|files?|BOP|GL|LRO)\b",
    re.I,
)
_PARENTHESES = re.compile(r"\([^()]*\)")
#: An aside between spaced dashes after a subject's first words.
_DASHED_ASIDE = re.compile(r"(?<=\w)\s[-–—]\s(?:(?!\s[-–—]\s)[^.;]){1,80}?\s[-–—]\s(?=\w)")
#: "Submissions for fertilizer blending plants are to be declined": the class asked for.
_REQUESTS_FOR = re.compile(
    r"^(?:(?:new|all|any|every)\s+)?(?:[\w-]+\s+)?(?:submissions?|applications?|requests?|"
    r"quotes?|enquiries|inquiries)\s+(?:for|from)\s+(?:an?\s+|any\s+|the\s+)?(?=[a-z])"
    r"(?!(?:which|whom|whose|more|less|fewer|over|under)\b)",
    re.I,
)
#: "policies issued to tutoring centers, senior centers and music schools carry ...", "every
#: policy we issue to a dye house carries ...".
_ISSUED_TO = re.compile(
    r"\b(?:polic(?:y|ies)|coverage|quotes?)\s+(?:(?:that\s+)?(?:we|you)\s+(?:issue|write|sell|"
    r"offer|bind)|issued|written|sold|offered|bound)\s+"
    r"(?:to|for)\s+(?P<list>[^.;:()]+)|"
    # "For every GL policy on a maple syrup producer, verify ...": the class it covers
    r"\b(?:every|each|any)\s+(?:[A-Z]{2,3}\s+|property\s+|general liability\s+)?"
    r"polic(?:y|ies)\s+(?:on|for)\s+(?P<one>an?\s+[^.;:(),]+)",
    re.I,
)
#: "no new Property policy may be bound for a fertility clinic": the class a policy is for.
_BOUND_FOR = re.compile(
    # ("... is to be written for small hydroelectric stations located in VT": a plural too)
    r"\b(?:bound|written|quoted|issued|offered)\s+for\s+(?:(?:an?|any)\s+(?=[a-z])|(?=[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*){0,2}?s\b(?:\s*[-–,.;:]|\s+(?:in|located|that|which|where|with|"
    r"operating|based|trading)\b)))"
    r"(?P<name>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?=\s*(?:[-–,.;:]|$)|\s+(?:in|located|"
    r"that|which|where|with|operating|based|trading)\b)",
    re.I,
)
#: "a building leased to a recycling center tenant": the tenant's business class.
_LEASED_TO = re.compile(
    r"\b(?:leased|rented|let|sublet)\s+to\s+(?:an?|the)\s+(?P<name>(?:[a-z][\w-]*\s+){1,3}?)"
    r"(?:tenants?|occupants?|lessees?)\b",
    re.I,
)
#: A clause that opens on "what": "What turns that referral into an easy yes is ...".
_PSEUDO_CLEFT = re.compile(r"^\W*what\s", re.I)
#: "a building with a hatchet throwing lounge among its tenants", "when a tenant in the
#: building is a hatchet throwing lounge": the tenant's business class.
_TENANT_NAMED = re.compile(
    r"\b(?:with\s+an?\s+(?=(?:[a-z][\w-]*\s+){1,4}?(?:among\s+(?:its|the)\s+tenants|as\s+"
    r"(?:a|one of its|its)\s+tenants?)\b)|tenant\s+(?:in\s+the\s+building\s+)?(?:is|was)\s+"
    r"an?\s+(?=(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*\s*[,.;:]))"
    r"(?P<name>(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)(?=\s+among\b|\s+as\b|\s*[,.;:])",
    re.I,
)
#: Where the items of a list of classes part: "bars, taverns and nightclubs".
_LIST_SPLIT = re.compile(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+")
#: "where the building is let to a kipper smokehouse or to a perfumery, ...": each item
#: a singular class after "a"/"an", up to the clause's end.
_LET_TO_LIST = re.compile(
    r"\b(?:leased|rented|let|sublet)\s+"
    r"(?:(?:in whole or in part|wholly or partly|in part)\s+)?to\s+"
    r"(?P<list>an?\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}"
    r"(?:(?:\s*,\s*|\s+)(?:or|and)?\s*(?:to\s+)?an?\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})*)"
    r"(?=\s*[,.;:]|\s*$|\s+(?:are|is|must|should|will|get|gets)\b)",
    re.I,
)
#: "Decline GL for hookah lounges in CA": a class the dictionary lists, after "for".
_FOR_CLASS = re.compile(
    r"\bfor\s+(?:all\s+|any\s+|the\s+)?(?P<name>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?=\s+(?:in|located|that|which|where|whose|with|on)\b|\s*[.,;:]|\s*$)",
    re.I,
)
#: "for either laundry class (commercial laundries and cloth diaper services)": a list of
#: the classes a predicate is for.
_FOR_LIST = re.compile(
    r"\bfor\s+(?:(?:either|both|each|every|all|the\s+two)\s+(?:of\s+)?(?:the\s+|our\s+)?"
    r"(?:[\w-]+\s+)?class(?:es)?\s*\(\s*)?(?P<list>[a-z][^().;:]*)",
    re.I,
)
#: "will not write Property cover for lime kiln works located in PA": what the cover is for.
_COVER_FOR = re.compile(
    r"\b(?:cover|coverage|insurance|business)\s+(?:for|on)\s+(?:all\s+|any\s+|the\s+|an?\s+)?"
    r"(?P<name>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?=\s+(?:in|located|that|which|where|whose|with|on)\b|\s*[.,;:]|\s*$)",
    re.I,
)
#: Heads of a list of modifiers that names a kind of loss, not classes ("the assault,
#: false-arrest and wrongful-death exposure").
_EXPOSURE_HEADS = frozenset("exposure hazard liability loss claim peril".split())
#: "Independently of volume, ...": a sentence adverb with its complement, before the subject.
#: "The written floor for paper mills is a rate of 0.40%": the class the limit is set for.
_LIMIT_FOR = re.compile(
    r"^(?:the|our|a|an)\s+(?:[\w-]+\s+)?(?:floor|limit|cap|maximum|minimum|ceiling|threshold)"
    r"\s+(?:for|on)\s+",
    re.I,
)
_LY_OF = re.compile(r"^[A-Za-z]+ly\s+(?:of|from)\s+[^,]{1,40},\s*", re.I)
#: "Following saltwater intrusion in the basin, no new business ...": a cause, no subject.
_CAUSE = re.compile(
    r"^(?:following|given|due to|because of|in light of|in view of|in response to)\s+"
    r"[^,]{1,160},\s*(?=\S)",
    re.I,
)
#: "First, ...", "Second, ...": an ordinal that opens a step.
_ORDINAL = re.compile(r"^(?:first|second|third|fourth|fifth|next|then|finally|lastly),\s*", re.I)
#: "Under CB-2024-01, ...", "Per the 2023 bulletin, ...": the authority a rule cites.
_CITED = re.compile(
    r"^(?:under|per|as per|pursuant to|following|in line with)(?:\s+(?:the\s+)?"
    r"(?=[^,]{0,40}(?:\d|\b(?:bulletin|memo|manual|guide|rule|section|notice)\b))[^,]{1,40})?"
    # the code itself may be gone already ("Under, ...": its reference stripped)
    r"\s*,\s*",
    re.I,
)
#: "'bale' means ...", "A hot desk is defined as ...": a definition names no class.
_DEFINITION = re.compile(
    r"^\s*(?:(?:[\w-]+\s+){0,2}definitions?\s*:\s*)?(?:[\"'‘“][^\"'’”]{1,40}[\"'’”]|"
    r"[\w\s-]{1,40}?)\s+(?:means|shall mean|is defined as|are defined as|denotes)\b",
    re.I,
)


#: "Castellanos on the artwork referral: 'The mark is ...'": who speaks, on what topic.
_ATTRIBUTION = re.compile(
    r"^\W*[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?\s+(?:on|about|regarding)\s+(?:the|a|an|our|this|"
    r"that|his|her|their)\s+(?:[\w-]+\s+){0,3}(?:referrals?|rules?|limits?|guidelines?|"
    r"questions?|topics?|issues?|declines?|exclusions?|thresholds?|caps?)"
    # "Tom on the GL lead-exposure referral for letterpress studios, now at 2,000 lb: ..."
    r"(?:\s+(?:for|on|of|in)\s[^:.;]{0,80})?\s*(?::|(?:is|are)?$|,)"
)
#: "The same beer garden ...": the case just described, no class of its own.
_THE_SAME = re.compile(r"^\W*(?:the|that|this|those|these)\s+same\b", re.I)
#: "Brandt did not put a number on it and said ...": a person, by name, who speaks.
_PERSON = re.compile(
    r"^\W*(?:(?:Mr|Ms|Mrs|Dr)\.?\s+)?[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?\s+(?:did|does|said|says|"
    r"noted|notes|added|adds|told|tells|explained|explains|asked|asks|agreed|agrees|thinks|"
    r"believes|recalled|recalls|mentioned|mentions|put|puts|wants|wanted)\b"
)
#: "A clinic", "the lab": one singular noun after an article points back at the text's
#: business; a class is named in the plural ("Clinics ...") or with its own words.
_LONE_SINGULAR = re.compile(r"^(?:an?|the|this|that|each|every|any)\s+[a-z][\w-]*$", re.I)
#: "A scenic shop storing more than 8,000 sq ft": one business, singular, measured by a
#: figure; the class is the text's topic, not the rule's condition.
_ONE_MEASURED = re.compile(r"^an?\s+(?:[a-z][\w-]*\s+){1,3}[a-z][\w-]*[^s\W]$", re.I)
#: Nouns of a report about cases, not of a rule: "Q3 review of rodeo arena referrals".
_ACCOUNT_OF = lxs.DISCOURSE_NOUNS | frozenset(
    "review summary note list log analysis discussion report audit sample study breakdown "
    "memo survey look recap round-up roundup update".split()
)
#: The "of" / "on" phrase right after a subject: "Makers of toys", "the hold on bakeries".
_OF_PHRASE = re.compile(r"^\s+(?:of|on)\s+(?:the\s+|all\s+|any\s+)?([a-z][\w\s-]{0,60})", re.I)
#: The goods after a maker: "makers of flags and banners are ...".
_MADE_GOODS = re.compile(
    r"^\s+of\s+([a-z]+(?:(?:,\s*|\s+and\s+)[a-z]+){0,2})\b(?=\s+(?:are|is|were|must|may|should|will|get|go)\b|\s*[,;:])",
    re.I,
)
#: A dictionary listing this many business classes enumerates them, not examples.
_ENUMERATED = 8
#: Nouns that name a business by its trade word ("a handyman shop", "roofing outfits").
_BUSINESS_HEADS = frozenset("shop business outfit firm company operation operator".split())


#: Letters two forms of one word of a class share at least ("private", "privately").
_AKIN_LETTERS = 6


#: What a file on a class is called: "every air show producer submission".
_FILE_WORDS = r"(?:submissions?|risks?|accounts?|polic(?:y|ies)|applicants?|insureds?)"
#: "stacks higher than 20 feet": a lone noun and the comparative of a dimension it is
#: measured by ("stack height"): the thing measured, no class. Comparative -> dimension.
_DIMENSION_OF = {
    "higher": "height",
    "taller": "height",
    "longer": "length",
    "deeper": "depth",
    "wider": "width",
    "heavier": "weight",
}
_DIMENSION_COMPARED = re.compile(r"^\s*(" + "|".join(_DIMENSION_OF) + r")\s+than\b", re.I)

#: A hyphened size or grade before a class ("high-hazard", "mid-size", "40-unit").
_SIZE_WORD = re.compile(
    r"^(?:[\w]*\d[\w]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|"
    r"high|low|mid|large|small|medium|full|part|newly|well|so|self|non|"
    r"heavy|light|long|short|top|lower|upper)-[\w-]+$|"
    # "absentee-run", "family-owned", "owner-operated": who runs it, no part of the class
    r"^[a-z]+-(?:run|owned|operated|managed|based|facing|only|free|staffed)$",
    re.I,
)

#: A lone compound adjective ("customer-facing", "family-owned", "cash-only").
_HYPHENED_ADJECTIVE = re.compile(r"^[a-z]+-[a-z]*(?:ing|ed|en|only|free|wide|based|like)$")

#: A verb opening a rule's predicate right after its subject.
_SUBJECT_VERB = r"(?:is|are|must|has|have|should|shall|will|may|gets?|needs?)\b"


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
        self.listed: list[str] = list(dict.fromkeys(e.lower() for e in self.examples))
        #: The dictionary enumerates its business classes (not a few examples).
        self.enumerated = len(self.example_set) >= _ENUMERATED
        # a listed class of several words opening a clause before its comma, longest first
        several = sorted((e for e in self.example_set if " " in e), key=len, reverse=True)
        listed = "|".join(re.escape(e) for e in several)
        self._opening: re.Pattern[str] | None = (
            re.compile(
                rf"(?:an?\s+|the\s+)?({listed})s?\s*,|"
                # "Every air show producer submission is held ...", "Every policy on a vein
                # clinic risk must carry ...": the listed class and a verb
                rf"(?:(?:every|each|any|an?|the)\s+)?(?:{_FILE_WORDS}\s+(?:on|for|of)\s+"
                rf"(?:an?|the|any)\s+)?({listed})s?(?:\s+{_FILE_WORDS})?\s+{_SUBJECT_VERB}"
            )
            if self.enumerated and several
            else None
        )
        self.foreign_phrases: list[tuple[str, ...]] = [
            p for info in vocab.fields.values() for p in info.phrases
        ]
        # "machining centers" (a count) makes "center" a head only with its own words:
        # "recycling centers" stays a class, "centers" alone or "CNC centers" does not.
        self.measured_heads: dict[str, list[set[str]]] = {}
        for info in vocab.fields.values():
            for p in info.phrases if info.kind in {"bool", "numeric"} else []:
                # a flag's head stays a flag ("a clean inspection"); a count's head only
                # with the words it is counted by
                rest = set(p[:-1]) if info.kind == "numeric" else set()
                self.measured_heads.setdefault(p[-1], []).append(rest)
        # "stack height": the word a dimension of a numeric field is named by
        self.dimensioned: set[tuple[str, str]] = {
            (p[-2], p[-1])
            for info in vocab.fields.values()
            if info.kind == "numeric"
            for p in info.phrases
            if len(p) >= 2
        }
        self.heads: set[str] = set()
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
        self.words_of_field: list[set[str]] = [
            info.desc_tokens | info.tokens
            for info in vocab.fields.values()
            if info.kind != "occupancy"
        ]
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
        if _DEFINITION.match(clause) or _ATTRIBUTION.match(clause) or _PERSON.match(clause):
            return []
        if _THE_SAME.match(strip_connectors(clause)):
            return []  # "The same beer garden quoted on GL is a referral": the example again
        text = _PARENTHESES.sub(" ", drop_adverb(strip_connectors(clause)))
        # "Any planetarium - stand-alone, on a campus or in a museum - is referred"
        text = _DASHED_ASIDE.sub(" ", text)
        reporting = _REPORTING.match(text)
        if reporting:
            text = text[reporting.end() :]
        if lx.SUBORDINATOR.match(text) or _PSEUDO_CLEFT.match(text):
            return []  # "What turns that referral into a yes is ...": no subject named
        prep = re.match(r"^(?:on|for|with|among)\s+", text, re.I) or _REFUSAL.match(text)
        if prep and prep.group(0).lower().startswith("with") and "," in text:
            return []  # "With several fires active in the state, new business is ...": no subject
        if prep:
            text = text[prep.end() :]
        text = _REQUESTS_FOR.sub("", text)
        text = _LY_OF.sub("", text)  # "Independently of volume, any stack ..."
        text = _CAUSE.sub("", text)
        text = _LIMIT_FOR.sub("", text)
        text = _ORDINAL.sub("", text)  # "Second, know where the line sits"
        text = _CITED.sub("", text)  # "Under CB-2024-01, pop-up outfitters ... are declined"
        opening = self._listed_opening(text)
        if opening:  # "document shredding service, ...": a class the dictionary lists
            return [opening]
        first = text.split()[0].lower() if text.split() else ""
        if first in lxs.PRONOUNS or first == "such":
            return []  # "Those go through with conditions", "such accounts": no class named
        if re.match(r"^\S+\s+and\s", text):
            pass  # "Flag and banner makers ...": a noun of a list, no order
        elif first in _ACTION_VERBS and len(text.split()) > 1:
            text = text.split(None, 1)[1]
            if lx.SUBORDINATOR.match(text):
                return []  # "refer once oil-based finishes are ...": a condition, no subject
        elif first in _IMPERATIVE:
            return []
        tenant = _TENANT_NAMED.search(text)
        if tenant and (value := self._clean(tenant.group("name"))):
            return [value]  # "a building with a hatchet throwing lounge among its tenants"
        phrase = _SHARED_HEAD.sub(r"\1 \4 \2 \3 \4", noun_phrase(text))
        for value in self.enum_values:  # "knob and tube" is one value, not a list
            phrase = value_pattern(value.lower()).sub(" ", phrase)
        head = phrase.split()[-1].lower() if phrase.split() else ""
        if self._dimension_subject(text, phrase):
            return []
        if self._opens_a_field(text, phrase):
            # "Artwork on premises worth more than $150K": a field's name, no class (the
            # items before it may still name one)
            phrase = phrase[: phrase.rfind(",")] if "," in phrase else ""
            if not phrase:
                return []
        if singular(head) in lxs.INSTRUMENT_NOUNS:
            return []  # "the glue burn exclusion is attached ...": an instrument, no class
        related = self._related(text, phrase)
        if related is not None:
            return related
        values = self._values(phrase)
        made = self._makers_of(text, phrase) if len(values) > 1 else None
        if made is not None:  # "Awning fabricators and makers of flags and banners"
            values = [*values[:-1], made] if made else values[:-1]
        # "For a shotcrete contractor, if fewer than 75% ...": a class the rule is scoped to
        scoped = prep is not None and prep.group(0).lower().startswith("for")
        scoped = scoped and bool(re.match(r"an?\s", phrase, re.I)) and "," not in phrase
        scoped = scoped and text.startswith(phrase) and text[len(phrase) :].lstrip()[:1] == ","
        scoped = scoped and not self.enumerated
        named = self._named(phrase) if scoped else None
        if named and (not values or values == [named.split()[-1]]):
            values = [named]  # words other fields use may name the class it is scoped to
        if (
            not self.enumerated
            and not scoped
            and (
                _LONE_SINGULAR.match(phrase) or (_ONE_MEASURED.match(phrase) and find_numbers(text))
            )
            # "A store with more than twelve incidents" stays the text's business, though a
            # lone head snaps onto the one example it ends ('candy store')
            and not {singular(head)} & self.example_set
        ):
            return []  # "A lab with more than eight beds": the text's own business, not a class
        listed = self._listed_in_parentheses(clause)
        if listed and not (values and all(v in self.example_set for v in values)):
            return listed  # "Hobby submissions (puppet theatres, ice rinks)"
        if not values and prep and "," in text:
            # "On the Property side, a sign shop in ...": the subject follows the comma
            return self.read(text.split(",", 1)[1])
        return values

    def _dimension_subject(self, text: str, phrase: str) -> bool:
        """True for "stacks higher than ...": a field's thing compared by its dimension."""
        if len(phrase.split()) != 1 or not text.startswith(phrase):
            return False
        compared = _DIMENSION_COMPARED.match(text[len(phrase) :])
        if not compared:
            return False
        dimension = stem(_DIMENSION_OF[compared.group(1).lower()])
        return (stem(singular(phrase.lower())), dimension) in self.dimensioned

    def _related(self, text: str, phrase: str) -> list[str] | None:
        """The class a subject's "of" / "on" phrase names, or [] for a bare relational noun.

        "The California hold on appliance demanufacturers" speaks of the listed class after
        "on", not of a class "hold"; "Makers of toys, rattles ..." names what is made, not a
        class "maker". None when the subject has no such phrase (read it as it is).
        """
        at = text.find(phrase) if phrase else -1
        after = _OF_PHRASE.match(text[at + len(phrase) :]) if at >= 0 else None
        if after is None:
            return None
        said = [singular(w) for w in re.findall(r"[a-z][\w-]*", after.group(1).lower())]
        named = [e for e in self.example_set if said[: len(e.split())] == e.split()]
        head = singular(phrase.split()[-1].lower())
        if head in _ACCOUNT_OF:
            return [] if named else None  # "Q3 review of rodeo arena referrals": a report
        if named:
            return [max(named, key=len)]
        words = [w for w in phrase.split() if w.lower() not in lxs.DETERMINERS]
        return [] if len(words) == 1 and after.group(0).lstrip().lower().startswith("of") else None

    def _makers_of(self, text: str, phrase: str) -> str | None:
        """The last item of a list subject named by what it makes, as one class.

        "Canvas awning fabricators and makers of flags and banners": the maker of flags
        and banners ("flag and banner maker"). None when the last item is no bare agent
        noun before "of"; "" when what follows names no goods.
        """
        head = phrase.split()[-1] if phrase.split() else ""
        last = _LIST_SPLIT.split(phrase)[-1].split()
        at = text.find(phrase)
        after = _MADE_GOODS.match(text[at + len(phrase) :]) if at >= 0 else None
        if len(last) != 1 or after is None or not head.lower().endswith(("ers", "ors")):
            return None
        goods = [singular(w.lower()) for w in re.split(r",\s*|\s+and\s+", after.group(1))]
        if not goods or any(len(g.split()) > 1 for g in goods):
            return ""
        return f"{' and '.join(goods)} {singular(head.lower())}"

    def _listed_opening(self, text: str) -> str | None:
        """The listed class a clause opens with, word for word, before a comma or a verb."""
        said = self._opening.match(text.lower().lstrip()) if self._opening else None
        return (said.group(1) or said.group(2)) if said else None

    def _opens_a_field(self, text: str, phrase: str) -> bool:
        """True when the subject is the first words of another field's name, said in full.

        "Artwork on premises worth more than ..." names the field "artwork on premises",
        whose first word the noun phrase ends at; no business class.
        """
        last = re.split(r",\s*", phrase)[-1]  # "Property, Artwork": the item before the verb
        at = text.find(last)
        size = len(content_tokens(last))
        if not size or at < 0:
            return False
        tokens = content_tokens(text[at:])[: size + 4]
        single = [replace(t, stem=stem(singular(t.text.lower()))) for t in tokens]
        return any(
            first == 0 and last >= size
            for p in self.foreign_phrases
            if len(p) > size and p[0] == single[0].stem
            for first, last in find_phrase(single, p, max_gap=0)
        )

    def _listed_ending(self, value: str) -> str:
        """The one listed one-word class a shorter word ends ("mill": 'sawmill'), else it.

        Never a class of several words: "contractor" alone does not name 'hvac contractor'.
        """
        if value in self.example_set or " " in value:
            return value
        ends = [e for e in self.example_set if " " not in e and e.endswith(value) and e != value]
        return ends[0] if len(ends) == 1 else value

    def _listed_tail(self, value: str) -> str:
        """The one listed class of two words or more a longer name ends with.

        "revived victorian gin palace" is the listed 'gin palace' with modifiers.
        """
        words = value.split()
        if value in self.example_set or len(words) < 3:
            return value
        tails = [
            e
            for e in self.example_set
            if 1 < len(e.split()) < len(words) and value.endswith(" " + e)
        ]
        return tails[0] if len(tails) == 1 else value

    def _values(self, phrase: str) -> list[str]:
        items = [i for i in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*", phrase)]
        head = singular(items[-1].split()[-1].lower()) if items[-1].split() else ""
        if len(items) > 1 and head in _EXPOSURE_HEADS | lxs.DISCOURSE_NOUNS:
            return []  # "the assault, false-arrest and wrongful-death exposure": modifiers
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
        value = self._clean(match.group(1)) if match else None
        issued = _ISSUED_TO.search(clause)
        if match and (value or not issued):
            return [value] if value and value in self.example_set else []
        if issued and issued.group("one"):
            value = self._clean(issued.group("one"))
            return [value] if value and value in self.example_set else []
        if issued:  # "policies issued to cider mills", "every policy issued to a dye house"
            listed = self._plural_list(issued.group("list"))
            value = None if listed else self._clean(noun_phrase(issued.group("list")))
            return listed or ([value] if value else [])
        for found in _FOR_CLASS.finditer(clause):  # "decline GL for hookah lounges in CA"
            name = found.group("name")
            value = self._clean(name)
            said = [stem(w) for w in name.lower().split()]
            if value and value in self.example_set and said == [stem(w) for w in value.split()]:
                return [value]
        for found in _FOR_LIST.finditer(clause):  # "a decline for laundries and diaper services"
            listed = self._plural_list(found.group("list"))
            if len(listed) > 1 and all(v in self.example_set for v in listed):
                return listed
        cover = _COVER_FOR.search(clause)  # "will not write Property cover for lime kiln works"
        if cover and not self.enumerated and (named := self._named(cover.group("name"))):
            return [self._canonical(named)]
        bound = _BOUND_FOR.search(clause)  # "no new policy may be bound for a fertility clinic"
        if bound:  # "small hydroelectric stations" for the listed "small hydro station"
            words = bound.group("name").lower().split()
            snapped = self._canonical(" ".join([*words[:-1], singular(words[-1])]))
            if snapped in self.example_set:
                return [snapped]
        if bound and not self.enumerated and (named := self._named(bound.group("name"))):
            return [self._canonical(named)]
        leased = _LEASED_TO.search(clause) or _TENANT_NAMED.search(clause)
        value = self._clean(leased.group("name")) if leased else None
        return [value] if value else self._let_to(clause)

    def _let_to(self, clause: str) -> list[str]:
        """The tenants' classes a building is let to, each after "a" / "an".

        "let to a kipper smokehouse or to a perfumery, refer ..." gives two classes.
        """
        let = _LET_TO_LIST.search(clause)
        if not let:
            return []
        values: list[str] = []
        for item in _LIST_SPLIT.split(let.group("list")):
            item = re.sub(r"^(?:to\s+)?(?:an?\s+)", "", item.strip(), flags=re.I)
            named = self._named(item) if item else None
            value = self._canonical(named) if named else None
            if not value or (self.enumerated and value not in self.example_set):
                return []
            values.append(value)
        return list(dict.fromkeys(values))

    def _plural_list(self, text: str, strict: bool = True) -> list[str]:
        """The classes of a list of plural nouns, up to the verb after its last item.

        "tutoring centers, senior centers and music schools carry ..." gives three
        classes; a list whose items are not all plural nouns gives none. Not `strict`
        (a subject line's own list), words other fields are described with may stay.
        """
        names: list[str] = []
        for item in _LIST_SPLIT.split(text):
            words = item.split()
            # the plural head within three words, four for a name of four ("tower clock
            # winding services") when no article opens the item
            reach = 3 if words and words[0].lower() in lxs.DETERMINERS else 4
            end = next((i for i, w in enumerate(words[:reach]) if plural(w)), None)
            if end is None:
                return []
            names.append(" ".join(words[: end + 1]))
            if end < len(words) - 1:
                break  # the verb after the last item ends the list
        values = [self._clean(n) if strict else self._named(n) for n in names]
        if not all(values):
            return []
        return list(dict.fromkeys(v for v in values if v))

    def listed_classes(self, text: str) -> list[str]:
        """The classes a list after a colon names ("ice sculpture studios, clock shops.").

        Args:
            text: The list, as written.

        Returns:
            Every item's class, or [] when any item names none.
        """
        return self._plural_list(text.strip().rstrip(".;"), strict=False)

    def _named(self, item: str) -> str | None:
        """A class named outright: plain words, none generic, no other field's value."""
        words = re.findall(r"[a-z][\w-]*", item.lower())
        while words and words[0] in lxs.DETERMINERS:
            words.pop(0)
        refused = lxs.GENERIC_NOUNS | lxs.NON_BUSINESS_WORDS | lxs.DISCOURSE_NOUNS
        if not words or len(words) > 4 or any(w in refused for w in words):
            return None
        value = " ".join([*words[:-1], singular(words[-1])])
        if value in lxs.GENERIC_HEADS or any(
            value_pattern(v.lower()).search(value) for v in self.enum_values
        ):
            return None
        return value

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
        phrase = noun_phrase(strip_connectors(clause))
        words = [w.lower() for w in phrase.split()]
        return any(w.endswith("ed") and stem(w) in stems for w in words)

    def _clean(self, item: str) -> str | None:
        for _, pattern in lxs.PRODUCT_PATTERNS:
            item = pattern.sub(" ", item)
        item = lxs.STATE_NAME_RE.sub(" ", item)
        words = [w.rstrip("'’") for w in re.findall(r"[A-Za-z][\w'’-]*", item)]
        if any(w in _STATE_CODES for w in words):
            return None  # "domes located in MN, WI or ME": a list of states, no classes
        if len(words) == 1 and words[0].isupper() and words[0].lower() not in self.example_set:
            return None  # "QA comment: ...": an acronym of a role or a form, no class
        if any(w.lower() == "not" for w in words):
            return None  # "any BOP risk, not only farriers": the class widened, not named
        said_to = [i for i, w in enumerate(words[:-1]) if w.lower() in lxs.WRITING_VERBS]
        if said_to:  # "the products desk writes brewers": the class is what is written
            words = words[said_to[-1] + 1 :]
        while len(words) > 1 and words[0].lower() in lxs.DETERMINERS:
            words.pop(0)
        while len(words) > 1 and _SIZE_WORD.match(words[0]):
            words.pop(0)  # "mid-size sawmills", "40-unit buildings"; not "pop-up outfitters"
        if any(w.lower() in lxs.DETERMINERS for w in words[1:]):
            return None
        low = " ".join(w.lower() for w in words)
        low_words = low.split()
        said_words = low_words
        listed = " ".join([*low_words[:-1], singular(low_words[-1])]) if low_words else low
        if listed in self.example_set:
            return listed  # the dictionary names it a class: "helicopter tour operators"
        snapped = self._canonical(listed) if len(low_words) > 1 else listed
        if snapped in self.example_set:
            return snapped  # "small hydroelectric stations": the listed "small hydro station"
        akin = self._akin_listed(low_words) if self.enumerated else None
        if akin is not None:
            return akin  # "privately operated correctional facilities", "wafer fabs"
        for value in self.enum_values:
            low = value_pattern(value.lower()).sub(" ", low)
        tokens = content_tokens(low)
        drop: set[int] = set()
        # "roof coverings" names "roof covering": plurals meet the phrase in the singular
        single = [replace(t, stem=stem(singular(t.text.lower()))) for t in tokens]
        said = {t.stem for t in single}
        for phrase in self.foreign_phrases:
            if phrase and phrase[0] not in said:
                continue  # the phrase cannot start here
            for first, last in find_phrase(single, phrase, max_gap=0):
                drop.update(range(first, last + 1))
        for mention in self.vocab.bool_mentions(tokens):
            drop.update(range(mention.first, mention.last + 1))
        if tokens and tokens[-1].text.lower() in lxs.NON_BUSINESS_WORDS:
            return None  # "Branch managers will confirm ...": people or papers, no class
        kept = kept_words(tokens, drop)
        # "renovated buildings" is a state of a risk; "stained glass studios" a trade
        named_trade = len(kept) >= 3 and kept[0].endswith("ed") and not kept[1].endswith("ed")
        if (
            not kept
            or len(kept) > 4 + item.count("-")  # "hot-air balloon tour companies"
            or any(len(w) > 4 and w.endswith("ed") for w in kept[1 if named_trade else 0 :])
        ):
            return None
        # "senior centers": a premises head makes a modifier part of the class name
        named = kept[-1:] if kept[-1] in lxs.GENERIC_HEADS else kept
        if any(w.endswith(("'s", "’s")) for w in kept) or any(
            w in lxs.NON_BUSINESS_WORDS or stem(w) in lxs.NON_BUSINESS_WORDS for w in named
        ):
            return None
        if kept[-1].endswith(("able", "ible")):
            return None  # "a wind tunnel capable of ...": an adjective, no class head
        if (
            kept[-1] in lxs.PIECE_HEADS
            or any(w in lxs.DISCOURSE_NOUNS for w in kept)
            or any(self._negated_field_word(w) or w[0].isdigit() for w in kept)
        ):
            return None  # "non-sterile compounding", "part C-11": a field's word, a code
        value = " ".join([*kept[:-1], singular(kept[-1])])
        if kept[-1] in lxs.IRREGULAR_PARTICIPLES:
            return None  # "pomace kept inside the mill": a thing and where it is, no class
        if len(value) < 3 or value in lxs.SECTOR_WORDS:
            return None  # "a zone X building", "GL food accounts": a code's letter, a sector
        if value not in self.example_set:  # the dictionary's own spelling first
            value = _rehyphen(value, said_words)
        if _HYPHENED_ADJECTIVE.match(value):
            return None  # "customer-facing premises": a kind of premises, no class
        value = self._listed_ending(value)
        value = self._listed_tail(value)
        if value in self.example_set:
            return value  # the dictionary names it a business class ("printing plant")
        if value in lxs.SECTOR_NOUNS and not any(e.endswith(f" {value}") for e in self.listed):
            return None  # "retailers reporting more than 24 incidents": a whole sector
        if stem(kept[-1]) in self.heads or self._measured_head(kept):
            return None
        if len(kept) == 1 and stem(kept[0]) in {thing for thing, _ in self.dimensioned}:
            return None  # "stacks above 6 courses" of "stack height": the thing measured
        if len(kept) == 1 and stem(kept[0]) in self.carrier_words:
            return None
        if len(kept) > 1 and any(all(stem(w) in f for w in kept) for f in self.words_of_field):
            return None  # "vacant rentable area": a measured field's words, no business
        if len(kept) == 1 and stem(kept[0]) in self.vocab.name_tokens:
            return None
        value = self._canonical(value)
        if self.enumerated and value not in self.example_set:
            return None  # a dictionary that enumerates its classes does not list it
        return None if value in lxs.GENERIC_HEADS else value

    def _akin_listed(self, words: list[str]) -> str | None:
        """The one listed class whose every word a subject says, in other forms.

        "privately operated correctional facilities" names the private correctional
        facility: each of its words said, the subject ending on its head. Never a part of
        a class ("dive shops" is no scuba dive shop: the rule may be about something else).
        """
        said = [singular(w) for w in words if w not in lxs.DETERMINERS]
        if not said:
            return None
        found = [
            value
            for value in self.listed
            if akin(said[-1], value.split()[-1], _AKIN_LETTERS)
            and all(any(akin(a, b, _AKIN_LETTERS) for b in said) for a in value.split())
        ]
        if not found and len(said) >= 2:
            # "a truss plant" for the listed "roof truss plant": the class's own last words
            found = [
                value
                for value in self.listed
                if len(value.split()) > len(said)
                and all(
                    akin(a, b, _AKIN_LETTERS)
                    for a, b in zip(said, value.split()[-len(said) :], strict=True)
                )
            ]
        return found[0] if len(found) == 1 else None

    def _measured_head(self, kept: list[str]) -> bool:
        """True when the words end in a measured field's phrase ("bowling lanes")."""
        others = {stem(w) for w in kept[:-1]}
        return any(
            len(kept) == 1 or not rest or rest & others
            for rest in self.measured_heads.get(stem(kept[-1]), [])
        )

    def _negated_field_word(self, word: str) -> bool:
        """True for "non" + a word another field is named with ("nonsterile")."""
        return word.startswith("non") and stem(word[3:].lstrip("-")) in self.field_words

    def _canonical(self, value: str) -> str:
        """Snap a value onto a dictionary example when the words clearly agree.

        A lone head noun ("a clinic") is the one example it ends ("veterinary clinic").
        """
        words = value.split()
        if len(words) == 1:
            ending = [e for e in self.example_set if e.split()[-1] == value and " " in e]
            if len(ending) == 1:
                return ending[0]
        if len(words) > 1 and words[-1] in _BUSINESS_HEADS and len(words[-2]) >= 6:
            # "handyman shop" / "handyman outfit": the one listed class the modifier opens
            modifier = " ".join(words[:-1])
            opening = [e for e in self.example_set if e.startswith(modifier + " ")]
            if len(opening) == 1:
                return opening[0]
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


def _rehyphen(value: str, said: list[str]) -> str:
    """Give a value back the hyphens its words were said with ("pop-up glamping outfitter").

    Tokens split "pop-up" and drop "up" as a stopword; the compound is one word of the class.
    """
    words = value.split()
    for compound in (w for w in said if "-" in w.strip("-")):
        parts = compound.split("-")
        ending = len(words) > 0 and singular(parts[-1]) == words[-1]
        if ending:
            parts[-1] = words[-1]  # "food co-packers": the class in the singular
        at = [i for i, w in enumerate(words) if w in parts]
        if not at or at != list(range(at[0], at[0] + len(at))):
            continue
        if [words[i] for i in at] != [p for p in parts if p in words]:
            continue
        words[at[0] : at[-1] + 1] = ["-".join(parts)]
    return " ".join(words)
