"""A text's sentences said plainly before they are read for rules.

What a sentence points at is said in its place ("If so" repeats its question, "wants X
referred" says "X is referred"), a lead's bulleted conditions become a sentence each, and a
log's shorthand is written out. Offsets are not kept: the rules are read from the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agents.offline.placement import find_product
from agents.offline.texts import listed_conditions, strip_case_ids
from memory.underwriting.paths import canonical_product

#: "..., provided that the referral may be waived where X": a waiver, not a proviso ("but").
_PROVIDED_WAIVED = re.compile(
    r",\s*provided(?:\s+that)?\s+(?=(?:the|this|that|any|such)\s+(?:referral|decline|"
    r"declination|flag|exclusion|verification)s?\s+(?:may|can|could|will)\s+(?:still\s+)?be\s+"
    r"(?:waived|cleared|lifted|set aside)\b)",
    re.I,
)
#: "the guide wants anything under three years in business referred", "must have the
#: owner's background verified": what is to be done, said as a wish or a duty ("anything
#: under three years in business is referred").
_WANTS_DONE = re.compile(
    r"\b(?:wants?|wanted|would have|expects?|must have|must get|should have|shall have|"
    r"needs? to have|(?:is|are) to have)\s+"
    r"(?P<what>(?!to\b|it\b|them\b|been\b)[^.;:]{3,80}?)(?<!\sbe)\s+"
    r"(?P<done>referred|declined|flagged|verified|excluded)\b",
    re.I,
)
#: "write it with conditions: printers on a non-combustible surface, ...": the terms an
#: approval lists are no conditions of the risk.
_TERMS_LISTED = re.compile(
    r"\b(with (?:these |the following |some |two |three |a few )?conditions)\s*[:\u2013\u2014]"
    r"[^.\n\"]+",
    re.I,
)
#: What makes the words after "with conditions:" a rule of their own ("a cabled route longer
#: than three thousand feet needs ...", "when the peak crowd exceeds 8,000").
_STATES_A_RULE = re.compile(
    r"\b(?:if|when|whenever|where|than|exceeds?|is|are|over|above|under|below|more|less|"
    r"fewer|needs?|requires?)\b|\d",
    re.I,
)


def _only_terms(match: re.Match[str]) -> bool:
    """True when the words after "with conditions:" only list terms (no rule of their own)."""
    return _STATES_A_RULE.search(match.group(0)[len(match.group(1)) :]) is None


#: "a building valued under $100,000 but larger than 10,000 sq ft": two bounds of one
#: subject, both to hold ("and"), no contrast.
_BUT_BOUND = re.compile(
    r"(\b(?:under|over|below|above|than)\s+\$?\d[\d,.]*(?:\s*(?:%|[a-z]+\.?)){0,2})\s+but\s+"
    r"(?=(?:larger|smaller|bigger|taller|higher|lower|older|newer|longer|shorter|more|less|"
    r"fewer|over|under|above|below|at least|at most)\b)",
    re.I,
)
#: A log's short words for its outcomes: "ref'd", "appr'd", "Decl.", "w/ conds".
_SHORTHAND = (
    (re.compile(r"\bref['\u2019]d\b", re.I), "referred"),
    (re.compile(r"\bappr['\u2019]d\b", re.I), "approved"),
    (re.compile(r"\bdecl(?:['\u2019]d\b|\.(?=\s|$))", re.I), "declined."),
    (re.compile(r"\bw/\s*conds?\b\.?", re.I), "with conditions"),
    (re.compile(r"(?<![\w/])w/\s*(?=[a-z])", re.I), "with "),  # "write w/ conditions"
    (re.compile(r"\bbiz\b", re.I), "business"),  # "< 3 yrs in biz"
)


#: "framing sheds over 8,000 sq ft referred": a bound and a bare participle, a log's way of
#: saying "are referred".
_BARE_DONE = re.compile(
    r"(\b(?:over|above|under|below|than|exceeding)\s+\$?\d[\d,.]*(?:\s*(?:%|[a-z]+\.?)){0,2})"
    r"\s+(?=(?:referred|declined|excluded|flagged|verified)\b)",
    re.I,
)


def _spelled_shorthand(text: str) -> str:
    """A log's shorthand written out ("ref'd" is "referred", "biz" is "business")."""
    if "'" in text or "\u2019" in text or "/" in text or "ecl." in text or "biz" in text:
        for pattern, word in _SHORTHAND:
            text = pattern.sub(word, text)
    return _BARE_DONE.sub(r"\1 is ", text)


#: The count and the round number of a share said as "N ... in M".
_OF_N = r"\b(?P<n>one|two|three|four|five|\d{1,2})\s+"
_IN_M = r"(?:in|out of)\s+(?P<d>ten|twenty|five|four|three|a hundred|100|\d{2,3})"
#: "more than one load in ten": a share said as a count out of a round number.
_ONE_IN = re.compile(
    _OF_N + r"(?P<noun>[a-z]+?)s?\s+" + _IN_M + r"\b(?!\s*(?:years?|months?|days?|weeks?))",
    re.I,
)
#: "more than three in five of the parties booked": a share with no noun between.
_N_IN_M_OF = re.compile(_OF_N + _IN_M + r"\s+(?=of\b)", re.I)
#: The words for the counts `_ONE_IN` reads.
_SMALL = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "ten": 10,
    "twenty": 20,
    "a hundred": 100,
}


def _percent(match: re.Match[str]) -> str | None:
    """The percent "N in M" says ("three in five": "60"), or None past a whole."""
    n, d = (match.group(k).lower() for k in ("n", "d"))
    top = _SMALL.get(n) or int(n)
    bottom = _SMALL.get(d) or int(d)
    return f"{round(100 * top / bottom, 2):g}" if 0 < top < bottom else None


def _n_in_m(match: re.Match[str]) -> str:
    """The share "three in five of the parties" says: "60% of the parties"."""
    share = _percent(match)
    return match.group(0) if share is None else f"{share}% "


def _one_in(match: re.Match[str]) -> str:
    """The share "one load in ten" says: "10% of loads"."""
    share = _percent(match)
    return match.group(0) if share is None else f"{share}% of {match.group('noun')}s"


#: "accounts turning over more than $4 million a year": the revenue said as a verb.
_TURNING_OVER = re.compile(
    r"\bturn(?:s|ing|ed)?\s+over(?=\s+(?:more|less|over|under|above|below|at least|at most|"
    r"up to|about|around|roughly|\$|\d))",
    re.I,
)
#: "Referred: any risk with fewer than three years in business ...": the action first, as a
#: label over what it acts on.
_ACTION_LABEL = re.compile(
    r"\b(?P<act>Referred|Declined|Excluded|Verified)\s*:\s+"
    r"(?=(?:any|every|all|each|a|an|the|risks?|accounts?|submissions?)\b)"
)
_ORDERS = {"Referred": "Refer", "Declined": "Decline", "Excluded": "Exclude", "Verified": "Verify"}
#: "that has already had a loss": one loss or more, counted.
_HAD_A_LOSS = re.compile(
    r"\b(?P<have>has|have|had)\s+(?:already\s+|previously\s+|ever\s+)?had\s+an?\s+"
    r"(?P<what>loss|claim)\b(?!\s+(?:of|over|above|greater|exceeding|larger|bigger|worth)\b)",
    re.I,
)
#: "Except where the risk is located in Texas, ...": the places the rule leaves out.
_EXCEPT_LOCATED = re.compile(
    r"\b(?P<except>except)\s+(?:where|when|if)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:is|are)\s+"
    r"(?:located|based|domiciled|situated)\s+in\b",
    re.I,
)
#: "more than half the year (call it 26 weeks)": a share of a period the writer restates as
#: a figure in the parenthesis; the figure is the threshold.
_PERIOD_RESTATED = re.compile(
    r"\b(?:half|a quarter|a third|two[- ]thirds|three[- ]quarters)(?:\s+of)?\s+(?:the|a|an)\s+"
    r"(?:year|month|week|day|season|shift)\s*\(\s*(?:call it|i\.?\s?e\.?,?|that is,?|say|"
    r"about|roughly|approximately|around|or)?\s*(?P<fig>\d[\d,.]*\s*(?:weeks?|days?|months?|"
    r"hours?))\s*\)",
    re.I,
)
#: "pumped out less often than every 90 days": an interval longer than 90 days.
_LESS_OFTEN = re.compile(
    r"\b(?P<how>less|more)\s+(?:often|frequently)\s+than\s+(?:once\s+)?every\s+(?=\$?\d|"
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|ninety)\b)",
    re.I,
)


def _interval(match: re.Match[str]) -> str:
    """An interval: "less often than every" is longer than the figure, "more often" shorter."""
    return (
        "at intervals of " + ("more" if match.group("how").lower() == "less" else "less") + " than "
    )


#: "worth more than $150,000 in total": a sum, not the "total" of a field's name.
_IN_TOTAL = re.compile(r"\bin total\b", re.I)
#: The trade's name for an exclusion, whose commas are no clause breaks.
_CARE_CUSTODY = re.compile(r"\bcare,\s+custody,?\s+(?:and|&)\s+control\b", re.I)
#: "changed insurers more than twice in five years": a count of two (not "twice that").
_TWICE = re.compile(
    r"\b(more than|over|fewer than|less than|at least|at most|no more than|up to)\s+twice\b"
    r"(?!\s+(?:that|the|its|their|as|this)\b)",
    re.I,
)


#: "The referral in section 18.4 is amended: it now applies where ...": the rule named
#: before the colon is what now applies.
_AMENDED_TO = re.compile(
    r"\s+(?:is|are|has been|have been) (?:amended|revised|changed|updated)\s*[:;,]\s*"
    r"(?:it|they|this|the rule)\s+(?=(?:now\s+)?(?:applies|apply)\b)",
    re.I,
)

#: "paragraph 5.1(c) of the LRO Guidelines - referral of buildings leased to a meadery -
#: is withdrawn": the rule a withdrawn part of a document is, named between dashes.
_WITHDRAWN_PART = re.compile(
    r"\b(?:paragraph|section|rule|clause|item|part)\s+[\w.()-]+(?P<doc>\s+of\s+[^\u2013\u2014.;]{0,80}?)?"
    r"\s[-\u2013\u2014]\s(?P<what>[^\u2013\u2014.;]{5,120}?)\s[-\u2013\u2014]\s"
    r"(?=(?:is|are|has been|have been)\s+(?:withdrawn|rescinded|retired|removed|lifted|deleted|"
    r"discontinued|cancell?ed)\b)",
    re.I,
)


def _withdrawn_part(text: str) -> str:
    """Say a withdrawn document part as the rule it is: "the LRO referral of ... is withdrawn"."""

    def said(match: re.Match[str]) -> str:
        product = find_product(match.group("doc") or "")
        return f"the {product + ' ' if product else ''}{match.group('what')} "

    return _WITHDRAWN_PART.sub(said, text)


#: "Is any retaining wall taller than six feet? If so, and ..., refer it": the question's
#: words are the condition "If so" points back to.
_IF_SO = re.compile(r"\b(?:Is|Are|Does|Do|Has|Have)\s+(?P<body>[^?.!]{5,150})\?\s*(?P<so>If so\b)")


#: "Teppanyaki grill that lacks hood suppression? That one is a decline on the BOP.": a
#: risk asked as a bare noun phrase, then answered with what it is.
_ASKED_ANSWERED = re.compile(
    r"(?:^|(?<=[.!:]\s))(?P<what>(?!(?:Is|Are|Does|Do|Has|Have|What|How|Why|When|Where|Who|"
    r"Which|Can|Could|Should|Would|Will|Did|And|But|Any|Anything)\b)[A-Z][^?.!\n:;]{5,150})\?"
    r"\s+(?:That(?: one)?|It|This(?: one)?)(?:['\u2019]s|\s+is)\s+"
    r"(?=(?:an?\s+)?(?:decline|declination|referral|exclusion|flag)\b)",
)

#: A class said as what the insured is: "Where the tenant of a lessor's building is an
#: earthworm farm or a frog farm, refer" is "For an earthworm farm or a frog farm, refer".
_ROLE_IS_CLASS = re.compile(
    r"(?:(?<=^)|(?<=[.;:]\s)|(?<=\n))(?:Where|If|When|Whenever)\s+the\s+(?:named\s+)?"
    r"(?:insured|tenant|risk|applicant|business|account|occupant|client)"
    r"(?:\s+of\s+[^,.;:]{1,40}?)?\s+is\s+(?P<what>an?\s+[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}"
    r"(?:\s*,?\s+or\s+an?\s+[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})?),\s+",
)
#: What the speaker wants done is what is done: "I want someone to verify how it's stored"
#: is "we verify how it's stored" ("to verify" after a wish is no purpose of another act).
_WANT_TO_CHECK = re.compile(
    r"\b(?:I|we)\s+(?:want|need|would like|['\u2019]d like)\s+"
    r"(?:(?:someone|somebody|the desk|you|them|us)\s+)?to\s+(?=(?:verify|confirm|check)\b)",
    re.I,
)
#: A rule given as the reason of a case: "the underwriter referred it, since any farm
#: carrying more than $750,000 of oil goes to referral" states "Any farm carrying ...".
_SINCE_ANY = re.compile(r"[,;]\s+(?:since|because|as)\s+(?P<any>any|every|all)\s+", re.I)
#: A verdict said alone, the product after it: "Refer, GL." "Decline. Property." "Flag it".
_VERDICT = (
    r"(?:Refer|Decline|Verify|Exclude|Flag(?:\s+it)?)(?:red|d|ed)?"
    r"(?:\s*[,.]\s*(?:GL|BOP|LRO|Property|property))?\s*[.!]"
)
#: Call notes asking and answering in one breath: "Function room over 120 seated? Refer,
#: GL." is "Function room over 120 seated - Refer, GL.".
_ASKED_VERDICT = re.compile(
    r"(?:^|(?<=[.!:]\s)|(?<=\n))(?P<what>(?!(?:Is|Are|Does|Do|Has|Have|What|How|Why|When|"
    r"Where|Who|Which|Can|Could|Should|Would|Will|Did|And|But|Any|Anything)\b)[A-Z]"
    rf"[^?.!\n:;]{{5,150}})\?\s+(?={_VERDICT})"
)
#: The product a verdict names after it, as its own sentence or in lower case: "Refer. GL."
#: and "refer, property" are "Refer, GL" and "refer, Property".
_VERDICT_PRODUCT = re.compile(
    r"\b(?P<verdict>refer|decline|verify|exclude|flag\s+it)(?P<ed>red|d|ed)?\s*[,.]\s+"
    r"(?P<product>GL|BOP|LRO|Property|property)(?=\s*[.!]|\s*$)",
    re.I,
)


def _verdict_product(match: re.Match[str]) -> str:
    product = canonical_product(match.group("product"))
    return f"{match.group('verdict')}{match.group('ed') or ''}, {product}"


def _if_so(text: str) -> str:
    """Spell "If so" out as the yes-or-no question before it asked.

    "Ask whether the fridge has a dial-out alarm. If it doesn't, ..." likewise: "If the
    fridge does not have a dial-out alarm, ...".
    """
    text = _IF_SO.sub(
        lambda m: f"{m.group(0)[: m.start('so') - m.start()]}If {m.group('body')}", text
    )
    return _ASK_WHETHER.sub(_asked_answered_if, text) if "whether" in text else text


#: "Ask whether X. If it doesn't, ...", "Check whether X; if not, ...".
_ASK_WHETHER = re.compile(
    r"\b(?:Ask|Check|Confirm|Find out|Establish)\s+(?:whether|if)\s+(?P<body>[^?.!;]{5,150})"
    r"[.?;]\s+(?P<if>If (?:so|not|it (?:doesn't|does not|does|isn't|is not|is|hasn't|has not|"
    r"has)|they (?:don't|do not|do|aren't|are not|are|haven't|have not|have)|there is(?:n't| "
    r"not)?))\b",
    re.I,
)
#: The first auxiliary of a statement and how it is denied.
_DENIED_AUXILIARY = {
    "has": "does not have",
    "have": "do not have",
    "is": "is not",
    "are": "are not",
    "can": "cannot",
    "will": "will not",
    "does": "does not",
    "do": "do not",
}


def _asked_answered_if(match: re.Match[str]) -> str:
    said = match.group("if").lower()
    body = match.group("body")
    kept = match.group(0)[: match.start("if") - match.start()]
    if not re.search(r"n't|\bnot\b", said):  # "If so", "If it does"
        return f"{kept}If {body}"
    words = body.split()
    at = next((i for i, w in enumerate(words) if w.lower() in _DENIED_AUXILIARY), None)
    if at is None:
        return match.group(0)
    words[at] = _DENIED_AUXILIARY[words[at].lower()]
    return f"{kept}If {' '.join(words)}"


def _had_a_loss(match: re.Match[str]) -> str:
    """A loss or claim had, counted: "has had one or more losses"."""
    what = "losses" if match.group("what").lower() == "loss" else "claims"
    return f"{match.group('have')} had one or more {what}"


#: A rule named by where it is written, with what it says in a parenthesis: "the all-lines
#: referral in General Manual Section 4.6 (tuition above half of revenue) is withdrawn".
_RULE_IN_PARENTHESES = re.compile(
    r"\b(?P<rule>referral|decline|declination|exclusion|rule|flag|verification)\s+"
    r"(?:in|under|of|at|from)\s+(?:[^().;:]|(?<=\d)\.(?=\d)){0,60}?\("
    r"(?P<what>[^()]{0,60}?\b(?:above|over|more than|in excess of|under|below|less than|"
    r"fewer than|at least|beyond)\b[^()]{1,60})\)\s+"
    r"(?=(?:is|are|has been|have been|will be)\b)",
    re.I,
)
#: "we still write the BOP, but with the spoilage warranty attached": written on terms.
_BUT_WITH = re.compile(
    r"(?P<done>\b(?:write|writes|bind|binds|quote|quotes|written|bound|quoted)"
    r"(?:\s+(?:it|them|the\s+(?:BOP|GL|risk|account|policy)))?),?\s+but\s+with(?=\s+(?:an?|the)\s)",
    re.I,
)


#: "A venue with a foam pit is declined, and no mitigant changes that": the rule has no
#: mitigant, said after it (no part of the rule's clause).
_NO_MITIGANT_AFTER = re.compile(
    r"(?:,\s*(?:and|but)|;)\s+(?:no|nothing)\s+(?:mitigants?|exceptions?|waivers?|"
    r"protections?)?\s*(?:changes?|alters?|lifts?|moves?)\s+(?:that|this|it)\b",
    re.I,
)
#: "no new or renewal Businessowners policy may be bound for a venue with a foam pit": a
#: refusal of what follows, on the product named (a class alone is read as it stands:
#: "no new policy may be bound for a fertility clinic").
_NO_POLICY_BOUND = re.compile(
    r"\b(?i:no)\s+(?:new\s+(?:or\s+renewal\s+)?|renewal\s+)?(?P<product>(?:[A-Z][\w']*\s+){0,2}?)"
    r"polic(?:y|ies)\s+(?:may|will|can|shall|is\s+to|are\s+to)\s+be\s+(?:bound|written|issued)"
    r"\s+(?:for|on|to)\s+(?P<rest>an?\s[\w\s-]+?\swith\s[^.;]+)",
)


def _refused(match: re.Match[str]) -> str:
    product = match.group("product").strip()
    return f"{match.group('rest')} is declined{' on ' + product if product else ''}"


#: "come closer to bystanders than 150 feet": the comparison said whole, before its object
#: ("closer than 150 feet to bystanders").
_SPLIT_COMPARATIVE = re.compile(
    r"\b(closer|nearer|farther|further)\s+((?:to|from)\s+[^,.;]{1,40}?)\s+than\s+"
    r"([\d$][\d,.]*\s*(?:feet|foot|ft|miles?|yards?|meters?|metres?|m)\b)",
    re.I,
)
#: "What drove the decline was the pairing: sessions after 2 a.m. together with two or
#: more complaints": the action's reason, said as the rule it is.
_WHAT_DROVE = re.compile(
    r"\bwhat\s+(?:drove|triggered|caused|prompted)\s+the\s+(?P<act>decline|referral)\s+"
    r"(?:was|is)\s+(?:the\s+(?:pairing|combination|pair|two\s+together)\s*)?:\s*"
    r"(?P<what>[^.;:]{10,200})",
    re.I,
)


def _what_drove(match: re.Match[str]) -> str:
    done = "declined" if match.group("act").lower() == "decline" else "referred"
    return f"{match.group('what')} is {done}"


#: "book says 60 gal max. have gone to 75 for ...": a maximum stated with no action, which
#: practice then bends, is a referral point ("book says 60 gal max, refer above that").
_BENT_MAXIMUM = re.compile(
    r"(?P<max>\b(?:book|manual|guide|guideline|rule|rulebook|program)\s+says\s+\$?\d[\d,.]*"
    r"\s*(?:[a-z%]+\.?\s+)?max(?:imum)?)(?=\.\s+(?:(?:we|i)\s+)?(?:have|'ve|has|had)\s+"
    r"(?:gone|written|approved|allowed|stretched|taken)\b)",
    re.I,
)


#: Wordings said plainer, in this order: "What drove the decline was the pairing: X" is "X is
#: declined"; "closer to X than N feet" is "closer than N feet to X"; "no new policy may be
#: bound for a Y with X" is "a Y with X is declined"; ", and no mitigant changes that" goes;
#: "turning over $4 million" is "with turnover $4 million"; "in total" is "altogether"; "less
#: often than every 90 days" is "at intervals of more than 90 days"; "half the year (call it
#: 26 weeks)" is "26 weeks"; "X? That one is a decline" is "X is a decline"; "except where the
#: risk is located in" is "except in"; "Referred: any X" is "Refer any X"; "has had a loss" is
#: "has had one or more losses"; "write it, but with a warranty" is "write it with a
#: warranty"; "the referral in Section 4.6 (X above N) is" is "the referral for X above N is";
#: "book says 60 gal max" before practice bends it is "book says 60 gal max, refer above that".
_SAID_PLAINER: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (_WHAT_DROVE, _what_drove),
    (_SPLIT_COMPARATIVE, r"\1 than \3 \2"),
    (_NO_POLICY_BOUND, _refused),
    (_NO_MITIGANT_AFTER, ""),
    (_TURNING_OVER, "with turnover"),
    (_IN_TOTAL, "altogether"),
    (_LESS_OFTEN, _interval),
    (_PERIOD_RESTATED, r"\g<fig>"),
    (_ASKED_ANSWERED, r"\g<what> is "),
    (_ASKED_VERDICT, r"\g<what> - "),
    (_VERDICT_PRODUCT, _verdict_product),
    (_SINCE_ANY, lambda m: f". {m.group('any').capitalize()} "),
    (_WANT_TO_CHECK, "we "),
    (_ROLE_IS_CLASS, r"For \g<what>, "),
    (_EXCEPT_LOCATED, r"\g<except> in"),
    (_ACTION_LABEL, lambda m: f"{_ORDERS[m.group('act')]} "),
    (_HAD_A_LOSS, _had_a_loss),
    (_BUT_WITH, r"\g<done> with"),
    (_RULE_IN_PARENTHESES, r"\g<rule> for \g<what> "),
    (_BENT_MAXIMUM, r"\g<max>, refer above that"),
)


#: Classes a requirement is said not to apply to: "The alarm requirement does not apply to
#: santa grottos, chili cook-off organizers or bamboo growers: ...".
_NOT_APPLIED_TO = re.compile(
    r"\b(?:requirement|rule|referral|condition|warranty)s?\s+(?:does|do)\s+not\s+apply\s+to\s+"
    r"(?P<list>[^.;:]{5,160}?)(?=\s*[.;:])",
    re.I,
)
#: The other classes a later sentence holds to it: "Every other class in the program is
#: subject to it - ...".
_EVERY_OTHER_CLASS = re.compile(
    r"\b(?:Every|All|Each|Any) other (?:class|classes|business|businesses|occupancy|"
    r"occupancies|risk|risks)\b[^.;:]{0,60}?\b(?:is|are) (?:subject|held) to (?:it|them|this|"
    r"that)\s*(?:[-\u2013\u2014:,]\s*)",
    re.I,
)


def _others_held(text: str) -> str:
    """Say "Except for X, Y or Z, ..." where a requirement's exempt classes were listed."""
    exempt = _NOT_APPLIED_TO.search(text)
    if exempt is None:
        return text
    later = _EVERY_OTHER_CLASS.search(text, exempt.end())
    if later is None:
        return text
    return f"{text[: later.start()]}Except for {exempt.group('list')}, {text[later.end() :]}"


#: "Every class except tower clock winding services is subject to this paragraph; ...":
#: the paragraph's rules spare the classes named.
_EXCEPT_PARAGRAPH = re.compile(
    r"\b(?:Every|All|Each) (?:class|classes|business|businesses|risk|risks) except "
    r"(?P<list>[^.;:]{3,80}?) (?:is|are) subject to this (?:paragraph|section|subsection|rule)"
    r"[^.]*\.\s*",
    re.I,
)
#: Where a numbered paragraph ends: the next one's number ("1.3 Frequency ...").
_NEXT_PARAGRAPH = re.compile(r"\s\d+(?:\.\d+)+\s+[A-Z]")
#: Between two sentences: split on it, the sentences stand at the even places.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(\s+)")


def _paragraph_spared(text: str) -> str:
    """Say "Except for X, ..." before each sentence of a paragraph that spares X."""
    spared = _EXCEPT_PARAGRAPH.search(text)
    if spared is None:
        return text
    rest = text[spared.end() :]
    ends = _NEXT_PARAGRAPH.search(rest)
    body, after = (rest[: ends.start()], rest[ends.start() :]) if ends else (rest, "")
    said = " ".join(
        f"Except for {spared.group('list')}, {s[:1].lower()}{s[1:]}"
        for s in _SENTENCE_BREAK.split(body.strip())[::2]
        if s
    )
    return f"{text[: spared.start()]}{said}{after}"


#: A memo's figure replaced in its own words: "the 40 in section 3 now reads 35".
_NOW_READS = re.compile(
    r"\b[Tt]he\s+(?P<old>\d[\d,]*(?:\.\d+)?)(?:%| percent)?\s+(?:in\s+[^.;:]{1,40}?\s+)?"
    r"(?:now\s+)?(?:reads|becomes|is replaced by|is changed to|changes to)\s+"
    r"(?P<new>\d[\d,]*(?:\.\d+)?)\b"
)


def _figure_replaced(text: str) -> str:
    """The text with a figure its memo replaces said as it now reads.

    "Section 3 says a polisher holding more than 40 gallons is referred ... the 40 in
    section 3 now reads 35": the rule is stated with 35.
    """
    said = _NOW_READS.search(text)
    if said is None or said.group("old") == said.group("new"):
        return text
    old = re.compile(rf"(?<![\d.,$]){re.escape(said.group('old'))}(?![\d]|[.,]\d)")
    before, after = text[: said.start()], text[said.end() :]
    return f"{old.sub(said.group('new'), before)}{said.group(0)}{after}"


#: "I clear it", "we can clear it": what is cleared is the referral just stated.
_CLEAR_IT = re.compile(r"\b((?:I|we)\s+(?:can\s+|will\s+|'ll\s+)?clear)\s+it\b", re.I)
_REFERRAL_SAID = re.compile(r"\b(?:referral|referred|refer)\b", re.I)


def _cleared_referral(text: str) -> str:
    """Say "I clear the referral" where "I clear it" follows, within two sentences, a referral."""
    parts = _SENTENCE_BREAK.split(text)  # sentences at even places, their breaks between
    for i in range(2, len(parts), 2):
        if any(_REFERRAL_SAID.search(p) for p in parts[max(0, i - 4) : i : 2]):
            parts[i] = _CLEAR_IT.sub(r"\1 the referral", parts[i])
    return "".join(parts)


def said_plainly(body: str) -> str:
    """The body with what its sentences point at said in place.

    Case ids go; "is amended: it now applies where" states the rule; "provided that the
    referral may be waived" is "but the referral may be waived"; "wants X referred" says
    "X is referred"; the terms listed after "with conditions:" go; "care, custody and
    control" loses its commas; a withdrawn part named between dashes is the rule it is;
    "If so" repeats its question; "more than twice" is "more than two times"; a lead's
    bulleted conditions are a sentence each; "under X but larger than Y" is "and"; "one
    load in ten" is "10% of loads"; a log's shorthand ("ref'd") is spelled out; and the
    plainer wordings `_SAID_PLAINER` lists ("turning over $4 million", "in total", "less
    often than every 90 days", "half the year (call it 26 weeks)", "X? That one is a
    decline", "except where the risk is located in", "Referred: any X", "has had a loss",
    "write it, but with a warranty", "book says 60 gal max. have gone to 75").
    """
    text = _AMENDED_TO.sub(" ", strip_case_ids(_spelled_shorthand(body)))
    text = _cleared_referral(text) if _CLEAR_IT.search(text) else text
    text = _figure_replaced(text) if "the " in text.lower() else text
    text = _PROVIDED_WAIVED.sub(", but ", text)
    for pattern, said in _SAID_PLAINER:
        text = pattern.sub(said, text)
    text = _ONE_IN.sub(_one_in, _BUT_BOUND.sub(r"\1 and ", text))
    text = _N_IN_M_OF.sub(_n_in_m, text)
    text = _TERMS_LISTED.sub(lambda m: m.group(1) if _only_terms(m) else m.group(0), text)
    text = _WANTS_DONE.sub(r"says \g<what> is \g<done>", text)
    text = _others_held(text) if "apply to" in text else text
    text = _paragraph_spared(text) if "subject to this" in text else text
    text = listed_conditions(
        _if_so(_withdrawn_part(_CARE_CUSTODY.sub("care custody and control", text)))
    )
    return _TWICE.sub(r"\1 two times", text)


__all__ = ["said_plainly"]
