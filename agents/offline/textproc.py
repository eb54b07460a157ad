"""Text segmentation for the offline extractor: sentences, clauses, tokens."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from agents.offline import lexicon as lx
from agents.offline import lexicon_discourse as lxd
from agents.offline import lexicon_subjects as lxs
from agents.offline.tables import table_rows, unflatten
from memory.underwriting.fieldlink.stems import stem

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*|\d[\d,]*(?:\.\d+)?")
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs no inc st approx dept mr ms mrs dr co corp ltd jr sr u.s fig sec".split()
)
_SENTENCE_END = re.compile(
    r"[.!?][\"'’”]?(?=\s+[\"'‘“(\[A-Z0-9])|"
    # terse notes written in lower case: "book says 60 gal max. have gone to 75 for long-time
    # shops. never past 75" (a note's own openers only, never "approx. five")
    r"(?<=[a-z0-9]{2}\.)(?=\s+(?:never|have|has|had|we|we've|i|i've|always|usually|"
    r"sometimes|seen|done|written|approved)\s)|"
    # "PVC fill: refer, hot work or not. ceramic, fiberglass: no issue": a note's next label
    r"(?<=[a-z0-9]{2}\.)(?=\s+[a-z][\w-]*(?:,\s+[a-z][\w-]*){0,3}\s*:\s)"
)
#: In a note of arrows ("X -> refer (GL). combos kept offline -> ok"), a full stop ends a
#: sentence whatever case the next word is in.
_NOTE_END = re.compile(_SENTENCE_END.pattern + r"|(?<=[A-Za-z0-9)]{2}\.)(?=\s+[a-z])")
_SOURCE_LINE = re.compile(r"(?:^|(?<=[.!?\n]))\s*Source:\s*(?P<source>[^\n]+?)\s*$", re.I)
_VERBISH = re.compile(
    r"\b(?:is|are|was|were|be|been|must|may|can|should|will|shall|need|needs|require|"
    r"requires|has|have|had|do|does|did|goes|lands|drops|stays|remains|applies|flag|"
    r"gets|get|got|becomes|become|triggers|"
    r"refer|refers|decline|declines|verify|confirm|attach|write|bind|exclude|"
    r"\w+'s|\w+'re|\w+'ll|\w+'ve)\b|\b\w{3,}ed\b",
    re.I,
)
_CONJUNCTION_SPLIT = re.compile(
    r",\s*(?:and|but|while|whereas|though|although|even though)\s+|\s+but\s+", re.I
)
_BULLET = re.compile(r"^\s*(?:[-*•·▪–—>]+|\(?[a-z0-9]{1,2}[.)])\s+", re.I)
#: A spaced dash joins a subject to what is done with it: "Wood stoves - refer".
_DASH_SPLIT = re.compile(
    r"\s+[-–—]+\s+(?=(?:decline|refer|write|bind|exclude|verify|flag|attach|approve|accept|"
    r"quote|require|send|route)\w*\b)",
    re.I,
)
IMPERATIVE = re.compile(
    r"^\s*(?:decline|refer|write|bind|exclude|verify|flag|attach|approve|accept|quote|"
    r"require|send|route)\b",
    re.I,
)
_SPEAKER = re.compile(
    r"^(?:q|a|question|answer|decision|outcome|finding|reviewer|result|qa|disposition)$", re.I
)


@dataclass(frozen=True)
class Token:
    """A word or number of a text, with its stem and character span."""

    text: str
    stem: str
    start: int
    end: int


@dataclass
class Sentence:
    """One sentence of a knowledge text, with what its leading label says.

    Attributes:
        text: The sentence without its label.
        raw: The sentence as written.
        label: The "Label:" prefix, if any ("Q", "A", "Decision", "BOP", ...).
        index: Position of the sentence in the text.
    """

    text: str
    raw: str
    label: str | None
    index: int
    from_table: bool = False  # a table's row, rewritten as a sentence

    @property
    def is_question(self) -> bool:
        """Return True for the question lines of an interview ("Q: ...")."""
        return (self.label or "").lower() in {"q", "question"} or self.text.rstrip().endswith("?")

    @property
    def is_example(self) -> bool:
        """Return True for an illustration ("Worked example: ...", "For instance, ...")."""
        return bool(lx.EXAMPLE.match(self.label or "") or lx.EXAMPLE.match(self.text))

    @property
    def is_case_label(self) -> bool:
        """Return True for "Decision: declined." style case outcome lines."""
        return bool(self.label) and bool(lx.CASE_LABEL.match(f"{self.label}:"))


def tokenize(text: str) -> list[Token]:
    """Split a text into word/number tokens; "non-" prefixes are glued to their word.

    Args:
        text: The text.

    Returns:
        The tokens, with lower-case stems (a new list: a clause is tokenized once and
        read many times).
    """
    return list(_tokenized(text))


@lru_cache(maxsize=4096)
def _tokenized(text: str) -> tuple[Token, ...]:
    raw = [m for m in _TOKEN.finditer(text)]
    tokens: list[Token] = []
    i = 0
    while i < len(raw):
        match = raw[i]
        word = match.group(0)
        if word.lower() == "non" and i + 1 < len(raw) and raw[i + 1].start() - match.end() <= 1:
            nxt = raw[i + 1]
            joined = "non" + nxt.group(0).lower()
            tokens.append(Token(joined, stem(joined), match.start(), nxt.end()))
            i += 2
            continue
        tokens.append(Token(word, stem(word), match.start(), match.end()))
        i += 1
    return tuple(tokens)


def extract_source(text: str) -> tuple[str, str | None]:
    """Split a trailing "Source: ..." line off a text.

    Args:
        text: The knowledge text.

    Returns:
        The text without the source line, and the source (or None).
    """
    match = _SOURCE_LINE.search(text)
    if not match:
        return text, None
    return text[: match.start()].rstrip(), match.group("source").rstrip(". ")


def _is_abbreviation(before: str, after: str = "") -> bool:
    """True when the full stop ends an abbreviation or an initial ("J. Petrov"), not a sentence.

    A letter before a sentence's opening word ("... under Subchapter M. A tugboat operator
    ...") ends the sentence.
    """
    word = before.split()[-1] if before.split() else ""
    word = word.lower().rstrip(".")
    if len(word) == 1 and word.isalpha():
        return not _OPENER.match(after)
    if word in _BEFORE_A_NUMBER:  # "No. 4 boiler", not "a referral trigger, not a no. I've"
        return bool(re.match(r"\s+\(?\d", after))
    return word in _ABBREVIATIONS


#: Abbreviations that stand before a number only: "No. 12", "Fig. 3", "Sec. 4.2".
_BEFORE_A_NUMBER = frozenset({"no", "fig", "sec"})


#: A sentence's first word after a single letter and a full stop: no surname follows.
_OPENER = re.compile(
    r"^\s+(?:A|An|The|This|That|These|Those|If|When|Where|Any|All|Each|Every|No|Our|We|"
    r"It|Its|In|On|For)\s+[a-z]"
)


def answers_to(sentences: Sequence[Sentence], question: re.Pattern[str]) -> set[int]:
    """Indexes of the sentences that answer a question `question` matches.

    The answer is the first sentence after the question that is no question itself:
    "What do you need to see?" "Hold-harmless letters from the owners."
    """
    found: set[int] = set()
    asked = False
    for sentence in sentences:
        if sentence.is_question:
            asked = bool(question.search(sentence.text))
            continue
        if asked:
            found.add(sentence.index)
        asked = False
    return found


def denied_turns(sentences: Sequence[Sentence], denial: re.Pattern[str]) -> set[int]:
    """Indexes of the sentences of a turn the next speaker denies.

    "TB: My notes say X is declined. Is that right?" "RO: No, ... Over a quarter gets
    referred": the interviewer's restatement is no rule; the answer that corrects it is.
    A turn runs from a speaker's label to the next label; only a turn of another speaker.
    """
    denied: set[int] = set()
    for at, sentence in enumerate(sentences):
        if sentence.label is None or not denial.match(sentence.text):
            continue
        opened = next((k for k in range(at - 1, -1, -1) if sentences[k].label is not None), None)
        if opened is None or sentences[opened].label == sentence.label:
            continue
        denied |= {s.index for s in sentences[opened:at]}
    return denied


def split_sentences(text: str) -> list[Sentence]:
    """Split a text into sentences (lines first, then sentence punctuation).

    Args:
        text: The knowledge text.

    Returns:
        The sentences, with any short "Label:" prefix split off.
    """
    pieces: list[tuple[str, bool]] = []
    lines = unflatten(text.splitlines())
    written = set(lines)
    for line in table_rows(lines):
        row = line not in written
        line = _BULLET.sub("", line.strip())
        start = 0
        ends = _NOTE_END if "->" in line else _SENTENCE_END  # "-> refer (GL). combos kept"
        for match in ends.finditer(line):
            if _is_abbreviation(line[start : match.start()], line[match.end() :]):
                continue
            pieces.append((line[start : match.end()].strip(), row))
            start = match.end()
        pieces.append((line[start:].strip(), row))
    sentences: list[Sentence] = []
    for raw, row in (p for p in pieces if p[0]):
        body, label = raw, None
        label_match = lx.LABEL_PREFIX.match(raw)
        if label_match and len(label_match.group(1).split()) <= 4:
            label, body = label_match.group(1).strip(), raw[label_match.end() :]
            if IMPERATIVE.match(body) and not _SPEAKER.match(label):
                body = raw  # "Oil boiler: write with ...": the label is the subject
            elif _CLAUSE_LABEL.search(label):
                body = raw  # "That's a decline: different hazard": a clause, no label
            elif lxd.LACKS_ONE.search(body) and not _SPEAKER.match(label):
                body = raw  # "Groomer license: if it isn't held, verify": "it" is the label
        body = lx.SECTION_NUMBER.sub("", body, count=1)
        sentences.append(Sentence(body.strip(), raw, label, len(sentences), row))
    return sentences


#: A "label" with a finite verb is a clause that a colon explains: "That's a decline: ...".
_CLAUSE_LABEL = re.compile(r"\b(?:that|it|this|there)[’']s\b|\b(?:is|are)\b", re.I)


def subject_only(clause: str, following: str | None) -> bool:
    """True for a verbless noun phrase right before an imperative: "Oil boiler: refer"."""
    return (
        following is not None
        and bool(IMPERATIVE.match(following))
        and not (_VERBISH.search(clause))
    )


#: "shops that shrink iron tyres - heating the hoop in a fire ring until it expands - are
#: declined": an explanation set off by dashes, no clause of the rule.
_DASHED_EXPLANATION = re.compile(
    r"\s[-\u2013\u2014]\s(?!(?:any|some|no|every)thing\b|(?:in|ex)cluding\b|during\b|"
    r"according\b|regarding\b|concerning\b|following\b)[a-z]+ing\b"
    r"[^-\u2013\u2014.;:]{0,120}?\s[-\u2013\u2014](?=\s)",
    re.I,
)


def split_clauses(text: str) -> list[str]:
    """Split a sentence into clauses at semicolons, colons and clause-joining conjunctions.

    A ", and"/", but" split is made only when the left part holds a verb, so noun lists
    ("bars, taverns, and nightclubs") stay whole.

    Args:
        text: One sentence.

    Returns:
        The clauses, in order.
    """
    text = _DASHED_EXPLANATION.sub(" ", text)
    parts = [
        p
        for piece in re.split(
            r";|:(?!\d)|,\s+(?=(?:anything|otherwise)\b)|"
            # "at 150 feet or below we are comfortable, above it we decline"
            r",\s+(?=(?:above|below|over|under|beyond|past)\s+(?:it|that|this|those)\b)",
            text,
        )
        for p in _DASH_SPLIT.split(piece)
        if p.strip()
    ]
    clauses: list[str] = []
    for part in parts:
        start = 0
        for match in _CONJUNCTION_SPLIT.finditer(part):
            left = part[start : match.start()]
            if _VERBISH.search(left) and _VERBISH.search(part[match.end() :]):
                clauses.append(left.strip())
                start = match.end()
        clauses.append(part[start:].strip())
    return [c for clause in clauses for c in _spared_after(clause) if c]


#: ", and ..." / " - and ...": where a clause sparing the rule before may start.
_AND_AFTER = re.compile(r"(?:,|\s[-\u2013\u2014])\s+(?=(?:and|but|while|whereas)\s)", re.I)


def _spared_after(clause: str) -> list[str]:
    """Split off a closing clause that spares the rule the clause states.

    "..., and a kennel that has one needs no referral" says what the protection does;
    it is not more of the rule's subject.
    """
    for match in _AND_AFTER.finditer(clause):
        rest = clause[match.end() :]
        if lxd.SPARED_WHEN_HELD.search(rest) and not _AND_AFTER.search(rest):
            return [clause[: match.start()].strip(), rest.strip()]
    return [clause]


def strip_connectors(text: str) -> str:
    """Remove leading discourse connectors ("However,", "Separately,") from a clause."""
    return lx.LEADING_CONNECTOR.sub("", text).strip()


def find_phrase(
    tokens: list[Token], phrase: tuple[str, ...], max_gap: int = 2
) -> list[tuple[int, int]]:
    """Find a phrase (stems, stopwords removed) in tokens, allowing small gaps.

    Args:
        tokens: The content tokens of a text (stopwords already removed).
        phrase: The stems to find, in order.
        max_gap: How many other tokens may sit between two phrase stems.

    Returns:
        (first index, last index) of each occurrence.
    """
    hits: list[tuple[int, int]] = []
    if not phrase:
        return hits
    for i, tok in enumerate(tokens):
        if tok.stem != phrase[0]:
            continue
        pos, ok = i, True
        for part in phrase[1:]:
            nxt = next(
                (
                    j
                    for j in range(pos + 1, min(len(tokens), pos + 2 + max_gap))
                    if tokens[j].stem == part
                ),
                None,
            )
            if nxt is None:
                ok = False
                break
            pos = nxt
        if ok:
            hits.append((i, pos))
    return hits


def content_tokens(text: str) -> list[Token]:
    """Tokens of a text without stopwords."""
    return [t for t in tokenize(text) if t.text.lower() not in lxs.STOPWORDS]
