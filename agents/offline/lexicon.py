"""Clause vocabulary for the offline extractor: what a sentence does with a risk.

Generic English / insurance words, no dataset's fields (field-specific words come from
the data dictionary at run time). This module holds the action cues and their priority,
negation, narrative and tense cues, acceptance and proviso phrasing, mitigant and
exception cues, hedges, decision-quality cues and clause-structure patterns.

Comparator phrases live in `agents.offline.lexicon_comparators`; products, subject
words, state names, protective words and rule categories in
`agents.offline.lexicon_subjects`; discourse cues (holding a quote for a check, reported
questions, a bare "fine") in `agents.offline.lexicon_discourse`.
"""

from __future__ import annotations

import re

# --- actions ---------------------------------------------------------------------------------

#: What an allowance's figure opens with: "no more than", "at most", "up to".
_AT_MOST = r"(?:no more than|not more than|at most|up to|fewer than|less than|under)\b"

#: (action, pattern) pairs. Order inside one action does not matter; `ACTION_PRIORITY`
#: breaks ties between actions found in the same clause.
ACTION_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("verify", re.compile(r"\bflag\w*\b[^.;]{0,60}?\bfor (?:data )?verification\b", re.I)),
    (
        "decline",
        re.compile(
            r"\b(?:declin(?:e|es|ed|ing|ation)|ineligible|not (?:an? )?eligible|"
            r"(?:hard|flat) (?:stop|no)|says? no outright|"
            r"knock(?:ed|s)? out|prohibited|unacceptable|uninsurable|not insurable|"
            # (not "never written at the desk": the desk escalates, it does not decline)
            r"not acceptable|never (?:acceptable|eligible|insurable|accepted|written)"
            r"(?!\s+(?:at|by) the desk\b)|"
            r"(?:may|can|will|shall) not be (?:bound|written|quoted|accepted|offered)|"
            r"no (?:new )?(?:such )?(?:[\w-]+ ){0,2}?(?:policy|policies|business|submissions?|"
            r"risks?) (?:may|can|will|shall|is to|are to) be (?:bound|written|quoted|accepted)|"
            r"(?:is|are|be|been) suspended|moratorium|turn(?:ed|s)? down|"
            # (not "do not quote them yourself": the desk escalates, it does not decline)
            # ("the file goes to the team lead - the desk cannot quote it": it escalates)
            r"(?<!desk )(?:(?:do|does|will|shall|can) not|won't|don't|doesn't|cannot|can't) "
            r"(?:write|insure|accept|quote|bind|offer)"
            r"(?![\w ]{0,25}\b(?:yourself|yourselves|at the desk)\b)|"
            r"cannot be (?:bound|written)|out(?:side)? of (?:our |the )?appetite|"
            r"outside (?:our |the )?(?:appetite|program)|"
            r"excluded from (?:the |our )?[\w\s-]{0,40}?(?:program|appetite|class)\w*|"
            r"reject(?:ed|s)?|"
            # "Nothing carrying more than 49 passengers is acceptable": a denied subject
            r"^\s*(?:no|nothing|none)\b(?! (?:doubt|matter|one knows)\b)[^.;:]{0,80}?\b"
            r"(?:is|are|will be|may be|can be)\s+(?:acceptable|eligible|insurable|accepted|"
            r"written|bound)(?!\s+(?:unless|without|except)\b)|"
            # "more than sixty is out", "... is out on the BOP"
            r"(?:is|are) (?:flat |just |simply )?out(?=\s*(?:[.;:,)]|$|on (?:the )?(?:bop|gl|"
            r"property|all|any)\b)))\b",
            re.I,
        ),
    ),
    (
        "refer",
        re.compile(
            # (not "these referrals have routinely been approved": practice approving)
            # (not "send photographs of the bridge with the referral": what goes with one)
            r"\b(?:refer(?:s|red|ring)?|(?<!with the )(?<!with each )(?<!with your )"
            r"referrals?(?! (?:have |had |are |were )?(?:\w+ )?"
            r"(?:been )?approved)|escalat(?:e|es|ed|ion)|"
            r"senior (?:underwriter |uw )?(?:review|approval|sign-off)|"
            # "never written at the desk": it goes past the desk
            r"never (?:written|bound|quoted|approved) (?:at|by) the desk|"
            r"(?:send|sends|sent|route|routes|routed|forward|forwards|forwarded|pass|passes|"
            r"passed|goes|go) (?:\w+ ){0,3}?(?:up the line|"
            r"to (?:a |the |our |your |their )?(?:[\w-]+ )?(?:senior|team lead|manager|"
            r"underwriting manager|(?:[\w-]+ )?specialist|"
            r"branch manager|home office|cat desk|"
            r"specialty desk|[\w-]+ desk|\w+ underwriter|"
            # "goes to the property lead", "to the regional property officer"
            r"[\w-]+ lead|[\w-]+ officer)))\b|"
            # "above that it comes to me": the speaker is who it is referred to
            r"\b(?:it|they|that|those|these|this|which)\s+(?:then\s+|always\s+)?"
            r"(?:comes?|goes|go)\s+(?:straight\s+|directly\s+|up\s+)?to me\b|"
            # "the BOP team lead sees the file": who the file goes to sees it
            r"\b(?:senior|team lead|manager|[\w-]+ lead|referral desk|[\w-]+ underwriter)\s+"
            r"(?:sees|reviews|must see|must review|has to see|needs to see)\s+"
            r"(?:the|every|each|that|this)\s+(?:file|account|submission|risk|case)\b",
            re.I,
        ),
    ),
    (
        "exclude",
        re.compile(
            r"\b(?:must |shall |should |to )?(?:carry|carries|include|includes|attach|attaches|"
            r"add|adds|with|apply|applies|get|gets|take|takes|receive|receives) (?:an? |the )?"
            r"[\w\s&/()'’-]{0,50}?exclusion\b|\bmust exclude\b|\bexclusion (?:endorsement )?"
            r"(?:is |must be |will be )?(?:attached|required|mandatory|applies|applied|added|"
            r"included)\b|"
            r"\bexclude[sd]? (?:the )?"
            r"(?:wind|windstorm|hail|coverage|flood|liquor|abuse|earthquake)|"
            r"\b(?:coverage|cover|endorsement|peril)(?: parts?| sections?)? "
            r"(?:is |are |will be |must be )?excluded\b|"
            # "we exclude products liability for those items"
            r"\b(?:we|I|you|underwriters?)\s+(?:will\s+|would\s+|always\s+|then\s+|just\s+)?"
            r"exclude\b(?!\s+(?:it|them|that|those|these|this|the (?:account|risk|class|"
            r"business|submission))\b)|"
            r"\b(?:is|are|be) (?:excluded|removed) (?:from [\w\s-]{0,40}?)?by (?:an? |the )?"
            r"[\w\s-]{0,40}?(?:endorsement|exclusion)\b|"
            r"\b(?:is|are|be) excluded (?:from|under|on) (?:the |this |that )?(?:policy|coverage|"
            r"form|package|bop|gl|property|lro)\b|"
            # "a lens valued at more than $400,000 is excluded from the building limit"
            r"\b(?:is|are|be) excluded from (?:the |this |that |its )?(?:[\w-]+ )?"
            r"(?:limit|sum insured|cover)\b|"
            # "has hail and windstorm damage to outdoor inventory excluded by endorsement DP-22"
            r"\b(?:has|have|gets?)\s+(?:[\w-]+\s+){1,8}?excluded\s+by\s+(?:an?\s+|the\s+)?"
            r"(?:[\w-]+\s+){0,3}?(?:endorsement|exclusion|form)\b|"
            # "vandalism and glass breakage are excluded": perils a clause ends by excluding
            r"\b(?:vandalism|theft|glass breakage|water damage|mold|flood|wind|hail|"
            r"earthquake|liquor liability|products|completed operations)\b[^.;,]{0,30}?"
            r"\b(?:is|are) excluded\s*(?:[.;]|$)|"
            # "... are not covered by the GL policy": left out of the policy's cover
            r"\b(?:is|are) not covered (?:by|under) (?:the |this |that |our |its |their )?"
            r"(?:[\w-]+ ){0,2}?(?:policy|form|coverage part|coverage)\b",
            re.I,
        ),
    ),
    (
        "verify",
        re.compile(
            r"\b(?:verif(?:y|ies|ied|ication)|confirm(?:s|ed|ation)?|validat(?:e|es|ed|ion)|"
            r"need(?:s)? (?:an? |the )?[\w\s-]{0,20}?inspection|"
            r"inspection (?:is )?required|"
            # "needs a structural engineer's report on the roof trusses before we quote"
            r"(?:obtain|request|order|require|get|need)s? (?:an? |the )?[\w\s'’-]{0,40}?"
            r"(?:inspection|survey|report|appraisal|valuation|documentation|proof) "
            r"(?:(?:on|of|for) [\w\s'’-]{0,30}?)?"
            r"(?:before|prior to) (?:we |you )?(?:quot|bind|issu)\w*|"
            # "the permit must be obtained and checked against the applicant's name"
            r"check(?:s|ed)? (?:\w+ )?against|"
            # "find out why before quoting", "establish whether the alarm works"
            r"(?:find|finds|found) out (?:why|whether|if)|"
            r"(?:establish|ascertain)(?:es|ed)? (?:why|whether|if))\b",
            re.I,
        ),
    ),
    (
        "approve_with_conditions",
        re.compile(
            r"\b(?:subject to|(?:written|write(?: it| the account| the risk)?|"
            r"bind(?: it| the account)?|bound|binding) (?:only )?with(?! " + _AT_MOST + r")|"
            # (not "may be written with no more than 25 employees": an allowance)
            r"(?:may|can) (?:still )?be (?:written|bound)(?! with " + _AT_MOST + r")|"
            # (not "I'll write it without a second look": written as it is)
            r"write it(?! without (?:a |any )?(?:second look|question|hesitation|fuss))|"
            r"(?:is|are) (?:mandatory|required) on|"
            r"endorsement (?:is |must be |should be )?(?:attached|required|added)|"
            r"attach(?:ed)? the [\w\s-]{0,40}?endorsement|with (?:standard )?conditions|"
            r"binding subject|approv(?:e|ed|es|al)s? (?:it |them )?(?:only )?(?:with|subject to) "
            r"(?:\w+ )?conditions?|(?:written|bound|accepted|approved|quoted|acceptable|eligible|"
            r"write|approve|"
            r"bind|accept|quote) (?:it |them )?(?:only )?(?:if|provided|providing|as long as|"
            r"so long as|on condition)|(?:may|can) (?:still )?(?:write|bind|accept)|"
            r"carr(?:y|ies) (?!no\b|any\b)(?:an? |the )?[\w\s%&/-]{0,40}?"
            r"(?:deductible|warranty|endorsement|"
            r"surcharge)|(?:is|are) (?:written|bound|quoted|issued) (?:only )?(?:\w+ ){0,3}?with "
            r"(?:an? |the )?[\w\s%&/-]{0,40}?(?:deductible|warranty|endorsement|condition|"
            r"surcharge|sublimit)|"
            # "issue the policy with the 2% deductible", "write the mill with the ACV endorsement",
            # "the BOP goes out with the sublimit endorsement", "it goes on with a guard condition"
            r"(?:issue|write|bind)(?: the| this| that| such| every| each)? (?:[\w-]+ )?with "
            r"(?:an? |the )?[\w\s%&/-]{0,40}?(?:deductible|warranty|endorsement|condition|"
            r"sublimit)|"
            r"(?:goes|go) (?:out|on) with (?:an? |the )?[\w\s%&/-]{0,40}?(?:deductible|warranty|"
            r"endorsement|condition|sublimit)|"
            # "I attach the special-events condition", "gets the daily-deposit condition"
            r"(?:attach(?:es)?|gets?) the [\w\s%&/-]{0,40}?(?:condition|warranty|deductible)|"
            # "I'll write, but only with X", "are written, but with X and Y as conditions"
            r"(?:write|bind|quote|accept|take|written|bound|quoted|accepted)(?: it| them)?,? "
            r"but (?:only )?(?:with|if|on condition)|"
            r"as (?:the |a )?conditions? (?:of|for) (?:the |a )?(?:quote|binding|cover|coverage|"
            r"acceptance|policy)|"
            # "the policy is issued only once the tenant's certificate is obtained"
            r"(?:is|are) (?:issued|bound|written|quoted) only (?:once|after))\b",
            re.I,
        ),
    ),
    (
        "flag_for_review",
        re.compile(
            # ("paint and flags ahead of excavators", "Environmental flags:" are things)
            # ("including flag illumination fixtures", "of flag poles": the thing)
            r"(?<!\bincluding )(?<!\bof )(?<!\bits )(?<!\btheir )"
            # ("Flag and banner makers": a thing a trade makes)
            r"\b(?:flag(?!\s+and\s+[\w-]+\s+[\w-]*(?:ers|ors|shops?|stores?)\b)|flagged|"
            r"flags(?!\s*[.:,;]|\s+(?:are|is|were|was|ahead|and|or)\b)|"
            r"red[- ]flag)\b|"
            # "route the file for review before you quote": a second look, no referral
            r"\broute[sd]? (?:the |this |that |each )?(?:file|account|submission|risk|it|them) "
            r"(?:\w+ ){0,2}?for (?:a |an )?(?:second |further |manual |internal )?review\b|"
            # "goes to the loss control review queue", "I send it to review"
            r"\b(?:goes|go|going|went|sent|send|sends|sending|put|puts|placed?|routed?|routes|"
            r"passe[sd]|land|lands) (?:\w+ ){0,3}?(?:to|into|on|onto|for) (?:the |a |an |our |"
            r"their )?(?:[\w-]+ ){0,2}?review(?: (?:queue|list|pile|desk|team))?\b(?! of\b)|"
            r"\breview queue\b",
            re.I,
        ),
    ),
)

#: Lower is stronger when one clause holds cues for several actions.
ACTION_PRIORITY: dict[str, int] = {
    "decline": 0,
    "refer": 1,
    "exclude": 2,
    "verify": 3,
    "flag_for_review": 4,
    "approve_with_conditions": 5,
}

#: The verbs of an order ("verify the leases", "refer it"), as a pattern to embed.
ORDER_VERB = r"(?:verify|refer|decline|flag|exclude)\b"

#: Words that cancel an action cue found just after them.
NEGATORS = re.compile(
    r"\bno longer (?:requires?|needs?|calls? for)\W+(?:\w+\W+){0,3}$|"
    # "training does not change the prone-restraint decline": the rule named, not made
    r"(?:\bnot|n't|\bnever)\s+(?:change|changes|alter|alters|affect|affects)\s+(?:the\s+|that\s+|"
    r"this\s+|its\s+)?(?:[\w-]+\s+){0,3}$|"
    # "are not subject to the accumulation referral", "exempt from the review"
    r"\b(?:not subject to|exempt(?:ed)? from|outside the scope of)\W+(?:\w+\W+){0,3}$|"
    r"\b(?:don't|do not|doesn't|does not|never) (?:want|let)\W+(?:\w+\W+){0,3}$|"
    r"\b(?:cannot|can't|unable to)\s+(?:\w+\s+)?$|"
    r"\b(?:no|not|without|never|nor|instead of|rather than|don't|do not|does not|"
    r"doesn't|isn't|is not|won't|avoid|clear|clears|cleared|clearing|waive|waives|waived|"
    # the negation's reach ends at a comma: "No plan, I refer it" refers
    r"lift|lifts|remove|removes)[^\w,;:]+(?:\w+[^\w,;:]+){0,2}$|\bthan\s+(?:an?\s+)?$|"
    # "is not, by itself, a reason to refer": what is no ground for the action
    r"(?:\bnot\b|\bno\b|n't\b)[^.;:]{0,30}?\b(?:a |any |the )?(?:reason|ground|grounds|cause|"
    r"basis)\s+"
    r"(?:to|for)\s+(?:an?\s+)?$",
    re.I,
)

#: A past-tense action applied to a case (narrative, not a rule): "Intake declined it".
PASSIVE_AUX = re.compile(
    r"\b(?:is|are|be|been|being|get|gets|remain|remains|stay|stays|must|should|shall|will|"
    r"always|automatically|"
    r"generally|typically|usually|normally|then|often|"
    # "so it's flagged", "they're referred": a contracted "is" / "are"
    r"(?:it|that|this|which|they|those)['’](?:s|re))\W+(?:\w+\W+){0,1}$|"
    # a participle coordinated with a passive one: "is treated as vacant and declined"
    r"\b(?:is|are|be)\s+\w+ed\b[^.;:,]{0,40}\b(?:and|or)\s+$|"
    # a causative with its object: "needs its wiring verified", "must have the roof inspected"
    # ("a building older than 1850 still has its value verified")
    r"\b(?:needs?|must have|has to have|have to have|gets?|(?:still\s+)?(?:has|have))\s+"
    r"(?:its|their|the|his|her|this|"
    r"that|an?)\s+(?:[\w-]+\s+){0,3}$",
    re.I,
)
#: An elliptical rule ("above 25 declined"): a past participle right after a number/unit.
ELLIPTICAL = re.compile(
    r"(?:\d|%|\b(?:days|years|months|stories|feet|ft|miles|employees|losses|claims))\s*$", re.I
)
NARRATIVE = re.compile(
    r"\b(?:was|were|had been|wrote|(?:should|would|could|must) have (?:been|stayed|remained|"
    r"gone)|"
    # "Athena had recommended decline": what one case's reviewer said
    r"had (?:recommended|suggested|proposed|advised)|"
    # "evening hire has been accepted with conditions": what practice did, no rule
    r"(?:has|have) been (?:accepted|approved|written|bound) with conditions|"
    # "Athena recommended decline on the snub-nosed breed rule and the underwriter agreed"
    r"(?:recommended|suggested|proposed) (?:an? )?[\w-]+ (?:on|under|per) the [^.;]{0,40}?"
    r"\brule\b|"
    # "we approved those with conditions": the cases told before, not a rule
    r"(?:I|we)\s+(?:have\s+|had\s+)?(?:\w+ly\s+)?(?:approved|bound|accepted|wrote)\s+"
    r"(?:them|those|these|both|all of them|each of them|it (?:with|on|at|after|anyway)\b)|"
    # "22% of jobs at refineries; approved after referral": one case's outcome in a log
    r"(?:approved|written|bound|accepted|declined|quoted)\s+(?:after|on|following)\s+"
    r"(?:an?\s+|the\s+)?(?:referral|review)|"
    # "Roof questions cause more referrals than anything else": a count, not a rule
    r"(?:cause|causes|caused|generate|generates|account for|accounts for) more (?:[\w-]+ )?"
    r"(?:referrals|declines|declinations|exclusions|flags) than)\b",
    re.I,
)
#: What a rule used to say ("previously referred above 600 feet"): not the trigger.
FORMERLY = re.compile(r"\b(?:previously|formerly|used to|no longer|until now)\b", re.I)

#: A clause that accepts a risk as it is ("is acceptable", "needs no action", "rate normally").
ACCEPTANCE = re.compile(
    r"\b(?:(?:is|are|be) (?:acceptable|eligible|fine|ok(?:ay)?|standard)|acceptable|"
    # "six hundred feet or less is ordinary program business"
    r"(?:is|are) (?:an? )?(?:ordinary|standard|routine|normal|regular) (?:[\w-]+ ){0,2}?"
    r"(?:business|work|risks?|exposures?|accounts?)|"
    r"needs? no (?:further )?(?:action|review|referral)|no (?:further )?action|"
    r"needs? nothing (?:further|more|else)(?: from us)?|"
    r"without (?:a |any )?(?:second look|question|hesitation|fuss)|"
    r"(?:is|are|stays?|remains?) within (?:the |our |your )?(?:desk |underwriting |local )?"
    r"authority|"
    # (not "do not quote at the desk - refer it": a denied acceptance)
    r"(?<!not )(?<!n't )(?<!never )(?:rated?|written|write|quoted?) "
    r"(?:normally|as standard|at the desk)|"
    # "at twenty buses or fewer, rate the garage as a repair occupancy": classed, no rule
    r"\brated? (?:it |them |the [\w-]+ )?(?:as|under)\b|"
    r"(?:is|are) (?:written|bound|quoted) (?:normally|as standard|at the desk)|"
    # "roofs ten years old or newer are written without it": spared the rule before
    r"(?:is|are|be) (?:written|bound|quoted) without (?:it|them|that|this|(?:(?:a|an|the|any) )?"
    r"(?:exclusion|endorsement|referral|surcharge|warranty|condition|deductible)s?))\b",
    re.I,
)
#: What is left once an accepted range is stated: "anything closer", "otherwise".
OTHERWISE = re.compile(
    r"\b(?:otherwise|if not|any(?:thing|one|body) (?:else|closer|nearer|farther|further|more|"
    r"less|fewer|over|under|above|below|higher|lower|beyond|outside|inside|past|older|newer|"
    r"younger|"
    r"bigger|smaller|larger|longer|shorter|worse|taller|heavier|wider|deeper|lower|"
    r"slower|faster|sooner|later|earlier|tighter|looser|thinner|thicker|cheaper|steeper|"
    r"hotter|colder|louder|lighter|busier|quicker)|"
    # "at least 150 feet from the road; a field with less separation is declined"
    r"(?:an?|any) (?:[\w-]+ ){1,2}?with (?:less|more|fewer)(?: [\w-]+)?"
    r"(?= (?:is|are|will be|gets?|goes|go)\b)|"
    r"any(?:thing|one)? (?:beyond|outside|past) "
    r"(?:that|this|it)|beyond (?:that|this)|outside (?:that|this)(?: range)?|"
    # "an operation on a longer line than that": past the range just accepted
    r"(?:an?|any) (?:[\w-]+ ){0,3}?(?:closer|nearer|farther|further|more|less|fewer|"
    r"higher|lower|bigger|smaller|larger|longer|shorter|older|newer|taller|heavier|wider|"
    r"deeper|faster|slower)(?: [\w-]+){0,2} than (?:that|this|those|these)|"
    # "Up to six is standard; a seventh unit or more is flagged": the next one on
    r"an? (?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
    # "a seventh table means the account is referred": one past the range said
    r"twelfth)\b(?: [\w-]+){0,2} (?:or more|means|triggers|sends|tips|takes|puts|makes))\b",
    re.I,
)
#: "provided that Y", "as long as Y": what a conditional approval requires.
PROVISO = re.compile(
    r"\b(?:provided|providing|as long as|so long as|on (?:the )?condition that)\b(?: that)?",
    re.I,
)

#: What a proviso may follow: an acceptance or a conditional approval.
PROVISO_HEAD = re.compile(
    r"\b(?:acceptable|eligible|accepted|written|write|bound|bind|quoted?|approved?|"
    r"considered|consider|allowed|permitted|fine|ok(?:ay)?)\b[^;:]*$",
    re.I,
)

#: "from decline to referral" - the base action of an exception.
FROM_TO_ACTION = re.compile(
    r"\bfrom (?:a |an )?(declin\w*|refer\w*)\s+to (?:a |an )?(refer\w*|approv\w*|writ\w*)",
    re.I,
)
#: "declined it under the Tier 1 frame rule".
UNDER_THE_RULE = re.compile(
    r"\b(declined|referred|excluded|flagged)\b[^.;]*?\bunder the ([^.;]+?) "
    r"(?:rule|guideline|guidance)\b",
    re.I,
)
#: "..., because the guideline refers clinics boarding more than 20 animals": the written
#: rule quoted inside a case narrative (group 1: the action verb, group 2: its object).
RULE_QUOTED = re.compile(
    r"\b(?:because|since|as|where|while)\s+(?:the|our)\s+(?:[\w-]+\s+)?"
    r"(?:guideline|guide|manual|rule|rulebook|program)\s+(refers|declines|excludes|flags)\s+"
    r"([^.;]+)",
    re.I,
)

# --- mitigants and exceptions ----------------------------------------------------------------

#: Clause parts that describe what mitigates the rule.
#: (not "until further notice" or "until revoked": how long a rule lasts, no mitigant)
UNLESS = re.compile(
    r"\b(?:unless|except (?:that )?(?:when|where|if)|until(?! (?:further notice|revoked|rescinded|"
    r"withdrawn|(?:it is |this is )?(?:lifted|replaced|superseded)|the (?:next|end)\b)))\b",
    re.I,
)
#: "the referral can be waived" - the clause describes a mitigant, not a rule.
WAIVABLE = re.compile(
    r"\b(?:can|may|will|could) (?:still )?be (?:waived|cleared|lifted|removed|overridden)\b",
    re.I,
)
MITIGANT_CUE = re.compile(
    r"\b(?:waiv(?:e|ed|es|er)|clear(?:ed|s)? the (?:referral|decline)|"
    # "after they fitted winter tyres the file was cleared with conditions"
    r"(?:file|account|referral|risk) was cleared|"
    r"(?:referral|decline) can be (?:cleared|waived)|satisf(?:y|ies|ied)|cures?|offsets?|"
    r"accepted instead|may be accepted|in which case|exceptions?|only thing|"
    # "soldered in place", "bolted in place": where a thing sits, no protection present
    r"gets? it off|comfortable|(?<!ed )in place|installed|(?:is|are) fitted|on file|approved|"
    r"overturned|"
    r"accepted basis|if (?:they|the insured|the risk)\b|with it\b|mitigants?\b|mitigated\b|"
    # "A treated-post certificate ... settles it": what answers the check
    r"(?:settles?|resolves?|answers) (?:it|that|the (?:check|question|matter|verification))\b|"
    # "What turns that referral into an easy yes is the tenant's certificate"
    r"\bturns? (?:that|the|this|a) (?:referral|decline|refusal|no) into\b|"
    # "Where it bends is when the sponsoring master falconer is present at every show"
    r"(?:where|how|when) (?:it|the rule|that|this) bends\b|\bbends (?:when|where|if)\b|"
    # "Line authority if sprinklered throughout": the desk may write it when it is
    r"(?:line|desk|local) authority if\b)",
    re.I,
)
#: A mitigant that does NOT help ("mitigation does not cure ...", "neither X nor Y
#: helps"); "has neither X nor Y" says what a risk lacks, and is a trigger.
NOT_A_MITIGANT = re.compile(
    r"\b(?:does not cure|do not cure|doesn't cure|(?<!has )(?<!have )(?<!with )neither\b|"
    r"no matter|don't care|"
    r"does not offset|not offset|does not help|"
    # "Staff training in crisis holds does not change the prone-restraint decline"
    r"(?:does|do|will|would) not change|(?:doesn't|don't|won't) change)",
    re.I,
)
#: Spans that should not yield trigger conditions.
IGNORED_SPAN = re.compile(
    # opening the clause, the concession ends at its comma: "Regardless of product, X ..."
    r"^\W*(?:regardless of|even (?:when|if|though)|irrespective of|no matter|"
    r"whatever (?:the|its|their))\b[^,;:]*,|"
    # set off by commas, it ends at the second: "For every X, regardless of product, verify"
    r"(?<=,)\s*(?:regardless of|irrespective of|whatever (?:the|its|their))\b[^,;:.]{0,40},|"
    r"\b(?:regardless of|even (?:when|if|though)|irrespective of|no matter|"
    r"whatever (?:the|its|their))\b[^;:]*|"
    # "..., security contractor or not": whichever way the flag goes
    r",\s*(?:with or without\s+[\w\s-]{1,40}?|[\w\s-]{1,40}?\s+or not)(?=\s*[,.;:]|\s*$)|"
    # "..., whether or not their files are encrypted": whichever way the flag goes
    r",\s*whether or not\b[^,;:.]{1,60}|"
    # "a proper rail - a rail, not a rope - and a toe board": a contrast said in passing
    r"\s[-–—]\s(?:an?\s+|the\s+)?[\w\s]{1,30}?,\s*not\s+(?:an?\s+|the\s+)?[\w\s]{1,30}?"
    r"\s[-–—](?=\s)",
    re.I,
)
#: "The moratorium ... is lifted", "Team-lead referral of ... is discontinued": the
#: clause ends a rule rather than stating one.
WITHDRAWN = re.compile(
    r"\b(?:is|are|has been|have been)\s+(?:(?:hereby|now|therefore|accordingly|formally)\s+)?"
    r"(?:discontinued|withdrawn|"
    r"rescinded|lifted|repealed|retired|revoked)\b|"
    # "the manual review flag for a mismatch ... is no longer applied"
    r"\b(?:is|are) no longer (?:applied|in force|in effect|required|needed)\b|"
    # "Ice sculpture studios are removed from the BOP referral list"
    r"\b(?:is|are|has been|have been)\s+removed\s+from\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:referral|decline|exclusion|review)\s+list\b",
    re.I,
)
#: "Submissions whose address is a range no longer need to be flagged": the action named
#: stops, so the clause ends the rule on its conditions (group 1: the action's word).
NO_LONGER_ACTION = re.compile(
    r"\bno longer\s+(?:(?:need|needs|has|have)\s+to\s+be|(?:is|are)(?:\s+required\s+to\s+be)?)"
    r"\s+(declin\w*|referr\w*|exclud\w*|flagg\w*)",
    re.I,
)
#: "The moratorium does not apply to renewals": a clause that exempts states no rule.
EXEMPTION = re.compile(
    r"\b(?:(?:does|do|shall|will|would) not apply|(?:is|are) not affected|unaffected|"
    r"(?:is|are) exempt|"
    # "fleets of forty or fewer may be written at the desk": no conditions of its own
    r"(?:(?:may|can|will) be|are|is) (?:written|bound|quoted) (?:at the desk|normally|as standard)"
    r"(?![^.;]{0,25}\b(?:subject to|provided|on condition|as long as|so long as)\b)|"
    # "The desk may write a barn that books no more than 300 guests": the appetite inside
    # a limit, no conditions of its own
    r"\b(?:desk|underwriters?|we) (?:may|can) (?:write|bind|quote|accept)\b"
    r"(?=[^.;]{0,80}?\b(?:no more than|not more than|at most|up to|no fewer than|at least)\b)"
    r"(?![^.;]{0,100}\b(?:subject to|provided|on condition|as long as|so long as|with)\b)|"
    # "clinics that use only smokeless rolls may be written without referral"
    r"(?:written|bound|quoted|accepted) without (?:a |the |any )?(?:referral|review|decline)|"
    # "no more than forty-nine heads aboard may be bound without the marine GL underwriter"
    r"(?:written|bound|quoted|accepted) without (?:a |the |any )?(?:[\w-]+ ){0,3}?"
    r"(?:underwriter|team lead|specialist|manager)\b|"
    # "Oregon and Idaho are not part of the moratorium"
    r"(?:is|are) not (?:part of|covered by|subject to|included in|within) (?:the |this |that )?"
    r"(?:moratorium|bulletin|rule|restriction|ban|program|section))\b",
    re.I,
)
#: "Worked example: ...", "For instance, ...": an illustration, not a rule.
EXAMPLE = re.compile(
    r"^\s*(?:(?:a |another )?(?:worked |quick )?examples?|for (?:example|instance)|"
    r"e\.g\.|illustration|scenario)\b",
    re.I,
)
#: "... before it refers, and that figure is not a GL rule", "for orientation only": a
#: figure told for comparison is no rule of ours.
NOT_OUR_RULE = re.compile(
    r"\b(?:is|are) not (?:an? |our |the )?(?:[A-Z]{2,5} )?(?:rule|guideline|requirement)s?\b|"
    r"\bfor (?:orientation|reference|information|comparison) only\b|"
    # "That is a BOP eligibility question and is not governed by this manual."
    r"\b(?:is|are) not (?:governed|covered|addressed|set) (?:by|in) (?:this|the present|our) "
    r"(?:manual|guide|section|bulletin|document|note|chapter)\b|"
    # "... tolerates up to seventy-two hours; that figure has no standing here": another
    # form's figure, told for contrast
    r"\b(?:that|this|the|its) (?:figure|number|limit|threshold) (?:has|carries) no "
    r"(?:standing|force|weight|bearing)\b|"
    r"\bwhich (?:this company|the company|we|our company|(?:this|the|our) (?:program|"
    r"programme|desk|book)) (?:does|do) not write\b",
    re.I,
)
#: "Many carriers decline X; we do not": what other insurers do is no rule of ours.
OTHERS_PRACTICE = re.compile(
    r"^(?:many|most|some|several|a few|other|lots of)\s+(?:other\s+)?(?:carriers|insurers|"
    r"markets|companies|writers|competitors)\b",
    re.I,
)
#: A descriptive aside between commas (", common in buildings wired between 1965 and
#: 1973,"): background, no trigger.
DESCRIPTIVE_SPAN = re.compile(
    r",\s*(?:(?:most |very |fairly |quite )?(?:common|typical|usual|frequent|rare|popular|"
    r"widespread)|(?:often |usually |typically |commonly )?(?:found|seen|used))\b[^,;:]*,",
    re.I,
)
#: "verify that an SPCC plan is in place": what is to be verified is no trigger.
VERIFY_OBJECT = re.compile(
    r"\b(?:verify|verifies|confirm|confirms|check|checks|ensure|ensures|make sure)\s+"
    # "verify before binding that the equipment is lead-safe"
    r"(?:(?:before|prior to)\s+(?:binding|quoting|issuing|issue|bind|quote)\s+)?"
    r"(?:that|whether|if)\b[^;:]*",
    re.I,
)
#: ", who looks at door staff ...": what a person does describes no trigger.
PERSON_RELATIVE = re.compile(r",\s*who\b[^;:]*", re.I)
#: Reason clauses ("because ...", "due to ...") carry no trigger.
#: The nouns a text names a limit by: "the 400-placement referral point", "the 8,000 lb line".
LIMIT_NOUNS = r"(?:point|line|limit|rule|threshold|standard|trigger|cap|ceiling|guideline)s?"
#: Words that cite a written limit: "the 25-employee eligibility cap", "the guide says 20".
CITED_LIMIT = re.compile(
    r"\b(?:caps?|capped|limits?|guide|guideline|threshold|referral point|eligibility|"
    r"ceiling|printed|on paper)\b",
    re.I,
)
REASON_SPAN = re.compile(
    # (not "months since the most recent loss", "twelve months have gone by since": a time)
    r"(?:,\s*|(?<!\bmonths)(?<!\byears)(?<!\bweeks)(?<!\bdays)(?<!\bpassed)(?<!\bby)"
    # (not "we have since approved": "since" then, no reason)
    r"(?<!\belapsed)(?<!\bhave)(?<!\bhas)(?<!\bhad)(?<!\bhave not)(?<!\bhas not)\s)"
    r"(?:because|since|due to|as a result of|"
    # (not "re-covered so that more than two coverings are stacked": the result is the rule)
    r"so that(?![^;:.]{0,40}\b(?:more|less|fewer) than\b)|"
    r"so\b(?= (?:the |a |an |our |their )?(?:\w+ ){1,3}(?:can|could|may|will|would)\b)|"
    r"as lenders|given that|"
    # "... to verify the figure" is a purpose; "the guideline is to verify ..." is the rule
    r"(?<!\bis )(?<!\bare )(?:in order )?to (?:confirm|verify|check|ensure|determine|make sure))"
    r"\b[^;:]*",
    re.I,
)
#: A number starts here: digits, money, or a number word.
_NUMBER_AHEAD = (
    r"(?:\$|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|a hundred|half|a quarter)\b)"
)
#: Evidence of exceptions granted in practice (soft thresholds).
SOFT_LIMIT_CUE = re.compile(
    r"\b(?:(?:gone|go|went|going|stretch(?:ed)?|flex(?:es|ed)?|approved?|accept(?:ed)?|allowed|written|"
    r"write|wrote|bound|bind|taken|take|took|seen|cleared|clear|signed(?: off)?|"
    r"sign(?: off)?|signs(?: off)?|granted|extended|made|let|pushed|waved|okayed|tolerated|"
    r"renewed|lived with|treat(?:s|ed|ing)?)\s+"
    r"(?:[\w-]+\s+){0,5}?(?:up|down) to|"
    # "I've put my name to operators whose junior pilot sat at two hundred and fifty hours"
    r"\bput (?:my|our|his|her|their) names? to\b|"
    # "Do you ever go over fifty? A: I have, up to sixty-five thousand": the answer's reach
    r"\b(?:I|we)\s+(?:have|do|did)\s*,\s+(?:up|down) to|"
    # "the square-footage line is soft in practice, up to about 9,500 sq ft"
    r"\bsoft(?:\s+in\s+practice)?,?\s+(?:up|down) to|"
    # "I'll go to nine million on my own signature"
    # "the 20-foot rule has flexed to 24 ft in practice"
    # "I'll go higher when the bikes sit in a locked bay, but that tops out at $350k"
    r"\bgo (?:higher|further|past it|above it|over it)\b[^.;]{0,90}?\btops? out at(?=\s+"
    + _NUMBER_AHEAD
    + r")|"
    # "Have bound to 180 ft w/ ROV-assisted jointing"
    r"(?:go|gone|went|going|stretch|stretched|flex|flexed|flexes|bound|written|approved|"
    r"accepted|signed off)\s+to(?=\s+" + _NUMBER_AHEAD + r")|"
    # "I've stretched it to four hundred and eighty"
    r"(?:stretch|stretched|pushed|taken|took|flexed|extended)\s+(?:it|them|that|this)\s+(?:up\s+)?"
    r"to(?=\s+" + _NUMBER_AHEAD + r")|"
    # "accepted arches with as little as 30 inches to the studs", "as few as two staff"
    r"as (?:high|low|many|much|far|close|near|long|short|old|young|deep|big|small|little|few|"
    r"thin|narrow|tight) as|"
    # "I've taken a handful past that - the biggest was an outfit whose bypass ran about
    # 2,600 gpm": the furthest case practice took
    r"\bthe (?:biggest|largest|highest|furthest|farthest|oldest|longest|deepest|heaviest|"
    r"widest|tallest|lowest|smallest|shortest|youngest|closest|nearest)\s+(?:one\s+|case\s+)?"
    r"(?:was|is|were)\b[^.;]{0,80}?(?=\s+" + _NUMBER_AHEAD + r")|"
    # "gaps up to thirty percent have been accepted": the passive after the figure
    # "changes up to seventy-five percent were cleared routinely"
    r"(?:up|down) to(?=\s+[^.;]{1,30}?\b(?:(?:have|has|had) been|were|was) (?:\w+ly )?"
    r"(?:accepted|approved|written|bound|allowed|signed off|cleared|okayed))|"
    # "exceptions run up to 30", "approvals up to 80 have been accepted": their reach
    r"(?:exceptions?|approvals?|sign-offs?)\s+(?:\w+\s+){0,2}?(?:up|down) to|"
    # "we've signed off at seven and eight", "approved roofs of twenty-one to twenty-three
    # years", "bound several at 22 to 25 percent": the cases practice let through
    # "OK'd at 32", "passed at 118k", "appr'd at 14": a log's short words for it
    r"(?:approved|signed off|signed|bound|written|wrote|accepted|okayed|cleared|"
    r"OK['\u2019]?d|ok['\u2019]ed|appr['\u2019]d|passed)\s+"
    r"(?:[\w-]+\s+){0,4}?"
    # "signed off on plants holding char for sixty hours or more"
    r"(?:at|of|for)(?:\s+(?:about|around|roughly|nearly|some))?(?=\s+" + _NUMBER_AHEAD + r")|"
    # "pricing has approved two-year locks", "I've signed off a fourteen-chair practice": a
    # figure joined to what it measures
    r"(?:approved|accepted|written|wrote|bound|okayed|signed off on|signed off)"
    r"(?:\s+(?:a|an|one))?(?=\s+" + _NUMBER_AHEAD + r"-[a-z]+\s)|"
    r"signed off on(?=\s+" + _NUMBER_AHEAD + r")|"
    # "I've approved nine and ten paddlers per guide": figures said with what they count
    r"(?:approved|accepted|okayed|signed off on)(?=\s+" + _NUMBER_AHEAD + r"[\w,.-]*"
    r"(?:\s+(?:and|or|to)\s+" + _NUMBER_AHEAD + r"[\w,.-]*)?\s+"
    r"(?!(?:of|in|times?|cases?|accounts?|files?|risks?|submissions?|applications?|like|"
    r"such|similar|more|others?|this|these|those|last|over|before|so|already)\b)[a-z])|"
    # "I've signed off on a good number between 300 and 400": the range's far end
    r"(?:approved|signed off(?: on)?|signed|bound|written|wrote|accepted|okayed|cleared)\s+"
    r"(?:[\w-]+\s+){0,4}?between(?=\s+" + _NUMBER_AHEAD + r")|"
    # "I've let it run to half": how far practice let it go
    r"\blet (?:it|them|one|those) (?:run|go|stretch)\s+(?:up\s+)?to(?=\s+" + _NUMBER_AHEAD + r")|"
    # "I've let a few go at seventeen, eighteen percent under": the cases practice let by
    r"\blet (?:[\w-]+\s+){1,3}?(?:go|through)\s+at(?=\s+" + _NUMBER_AHEAD + r")|"
    # "seven quotes between 16% and 22% below minimum were approved": the run's far end
    r"\bbetween(?=\s+" + _NUMBER_AHEAD + r"[^.;]{0,30}?\band\s+[^.;]{0,60}?\b(?:were|was|have been|"
    r"had been)\s+(?:\w+ly\s+)?(?:approved|accepted|written|bound|signed off|cleared))|"
    # "Seen 150 go through, mind": a case practice watched pass
    r"\b(?:seen|watched|had)(?=\s+(?:about\s+|around\s+)?" + _NUMBER_AHEAD + r"[\w,.%$]*"
    r"\s+(?:go|get|come|went|got|gone)\s+through\b)|"
    # "I have put walks through with seventy-five minutes of margin"
    r"\bput (?:[\w-]+\s+){0,3}?through\s+(?:with|at)(?=\s+" + _NUMBER_AHEAD + r")|"
    # "Nothing above fifty-eight thousand was approved", "Nothing above 72 has gotten
    # through": how far practice went
    r"\bnothing\s+(?:above|over|past|beyond|higher than|more than)(?=\s+"
    + _NUMBER_AHEAD
    + r"(?:[^.;]|\.(?=\d)){0,25}?\b(?:(?:was|were|has been|have been|got)\s+(?:ever\s+)?"
    r"(?:approved|written|"
    r"bound|accepted|signed off)|(?:has|have) (?:gotten|got|gone) through))|"
    # "Past thirty-six nobody has approved one": thirty-six is how far practice went
    r"\b(?:past|beyond|above|over)(?=\s+" + _NUMBER_AHEAD + r"(?:[^.;]|\.(?=\d)){0,25}?\b"
    r"(?:nobody|no one|"
    r"none of us)\s+(?:has|have|had)\s+(?:ever\s+)?(?:approved|written|signed|cleared|bound|"
    r"accepted))|"
    # "we've routinely signed off homes with nine or ten"
    r"(?:approved|signed off|bound|written|accepted)\s+(?:[\w-]+\s+){0,2}?[\w-]+s\s+with"
    r"(?=\s+" + _NUMBER_AHEAD + r")|"
    # "seniors have taken eleven or twelve as referrals": the cases practice let through
    r"(?:taken|took|written|wrote|bound|approved|accepted|signed)(?=\s+"
    + _NUMBER_AHEAD
    + r"[^.;]{0,30}?\bas (?:referrals?|exceptions?)\b)|"
    # "we routinely write fourteen trucks without sending it up": the cases let through
    r"(?:write|wrote|written|bind|bound|approve|approved|accept|accepted)(?=\s+"
    + _NUMBER_AHEAD
    + r"[^.;]{0,40}?\bwithout (?:a |any )?(?:referr|sending|escalat|going up))|"
    # "the cap is effectively soft to 30"
    r"soft to(?=\s+" + _NUMBER_AHEAD + r")|"
    # "up to twenty-four cabins is accepted practice"
    r"(?:up|down) to(?=\s+[^.;]{1,30}?\b(?:is|are) (?:accepted|approved|written)))\s+",
    re.I,
)
#: Practice told after the figures: "nine or ten fields can go through".
PRACTICE_AFTER = re.compile(
    r"\b(?:can|may|will|could) (?:still )?(?:go through|get through|be written|be approved|"
    r"be accepted|be signed off)\b",
    re.I,
)
#: Practice's ceiling told after its figure.
PRACTICE_CEILING = re.compile(
    # "six is the ceiling for exceptions", "8 percent is the outer edge", "forty percent is
    # as far as the desk will go", "six thousand is the most he will accept"
    r"\b(?:is|was|remains)\s+(?:the\s+)?"
    r"(?:(?:practical|real|working|effective|actual|de facto)\s+)?(?:outer (?:edge|limit)|ceiling|"
    r"most (?:\w+\s+){0,2}?(?:will|would|can|could) (?:accept|approve|write|take|sign)|"
    r"as far as (?:\w+\s+){0,2}?(?:will|would|can|could) go|"
    # "520 is the highest approved", "22% is the deepest we have written"
    r"(?:highest|largest|biggest|furthest|farthest|deepest|oldest|most|lowest|longest)\s+"
    r"(?:(?:we|I)(?:'ve| have)?\s+)?(?:ever\s+)?(?:approved|accepted|written|bound|signed))\b",
    re.I,
)
AGE_EXCEPTION = re.compile(
    r"\b(?:written|wrote|approved|accepted|bound|taken)\s+(?:\w+\s+){0,2}?"
    r"([\w.-]+)-year-old\b",
    re.I,
)
EXCEPTION_EVIDENCE = re.compile(
    r"\bgo(?:ne)?\s+to(?=\s+" + _NUMBER_AHEAD + r")|"
    r"\b(?:approved|overturned|exceptions?|gone up to|went up to|we've written|"
    r"have written|we've gone|have gone|up to|down to|as high as|accepted)\b",
    re.I,
)
#: Conditions that must hold together ("the combination of X and no Y").
COMBINATION = re.compile(
    r"\b(?:combination|combined|together|coupled with|along with|both|neither\b[^.;]*\bnor)\b",
    re.I,
)
#: A clause that restates an existing rule's boundary ("it stays a referral").
#: "I'll still write it" is a concession (a rule of its own), not a continuation.
CONTINUATION = re.compile(
    r"\b(?:stays|remains|(?:is|are|it's|that's)\s+still)\b (?:a |an )?\w+|"
    r"\bthey (?:stay|remain) (?:on |in |a |an )?\w+",
    re.I,
)
#: "Where nobody can explain the lapse, the decline stands": the rule's own outcome, kept
#: when its protection is missing (with a figure, "past 200 the referral stands" is a rule).
STANDING = re.compile(
    r"\bthe (?:decline|declination|referral|exclusion|refusal) (?:still )?(?:stands|holds)\b|"
    # "without a drafting point I refer it up the line the way the guideline says"
    r"\b(?:the way|as) the (?:guideline|guide|manual|rule|rulebook) (?:says|requires|reads)\b",
    re.I,
)

# --- hedges ----------------------------------------------------------------------------------

SOFT_HEDGE = re.compile(
    r"\b(?:generally|typically|usually|normally|often|in practice|as a rule|"
    r"in most cases|ordinarily|mostly|rule of thumb)\b",
    re.I,
)
HARD_CUE = re.compile(
    r"\b(?:always|must|never|hard|automatic(?:ally)?|regardless|in all cases|mandatory|"
    r"required|period|no exceptions?|shall)\b",
    re.I,
)

# --- decision quality ------------------------------------------------------------------------

DIVERGENT_CUE = re.compile(
    r"\b(?:divergent|diverge[sd]?|overturned|contrary to|should have been|incorrect|"
    r"mistakenly|in error)\b",
    re.I,
)
ALIGNED_CUE = re.compile(
    r"\b(?:correct(?!ly)|agreed|aligned|consistent with|appropriately|right call)\b", re.I
)
#: The label a line recording one case gets ("GL-24-2210 | ... | approved").
CASE_RECORD = "Case record"
CASE_LABEL = re.compile(
    r"^\s*(?:decision|outcome|finding|reviewer|result|qa|disposition|case(?: record)?)\s*:", re.I
)

# --- clause structure ------------------------------------------------------------------------

_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
)
#: A calendar date: "March 9, 2026", "9 March 2026", "March 2026", "2026-03-09".
_DATE = (
    rf"(?:\d{{1,2}}\s+{_MONTH}(?:,?\s+\d{{4}})?|{_MONTH}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?"
    r"(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2})\b"
)
LEADING_CONNECTOR = re.compile(
    r"^\s*(?:(?:because of|due to|owing to|in light of|as a result of)\b[^,;:]{0,80},\s*|"
    # "Effective immediately and until further notice, ...": when the rule starts
    r"effective (?:immediately|today|now|at once)(?: and until further notice)?,?\s*|"
    # "From March 9, 2026, sea salt works ... are declined": when, not what
    r"(?:effective|from|as of|beginning|starting|since|on and after)\s+"
    + _DATE
    + r"(?:\s+and\s+until\s+further\s+notice)?,?\s*|(?:until\s+further\s+notice),?\s*|"
    r"(?:however|separately|also|additionally|likewise|similarly|in addition|"
    r"going forward|in practice|honestly|otherwise|then|finally|moreover|note|yeah|so|"
    r"but|and|taken alone|on its own|by contrast|in short|for the avoidance of doubt|"
    r"to be clear|for clarity)\b,?\s*|"
    # a one-word answer before the rule: "No. Pyrotechnics - we decline"
    r"(?:yes|no|nope|yep|sure|right|correct|exactly|absolutely)[.!]\s+)+",
    re.I,
)
SUBORDINATOR = re.compile(
    r"^\s*(?:if|when|whenever|where|unless|once|although|though|while|because|since|as|"
    r"now that|given that)\b",
    re.I,
)
SECTION_NUMBER = re.compile(
    r"^\s*(?:section\s+\d+(?:\.\d+)*[.)]?|\d+(?:\.\d+)+[.)]?|\d+[.)])\s+", re.I
)
LABEL_PREFIX = re.compile(r"^\s*([A-Z][\w&/' -]{0,30}?)\s*:\s+")
#: "the biggest I've signed off was 32", "the highest we have written is $8.75M".
SUPERLATIVE = (
    r"\b(?:biggest|largest|highest|most|furthest|farthest|lowest|smallest|oldest|youngest|"
    r"newest|longest|shortest|tallest|deepest|heaviest|widest|closest|nearest|fastest|"
    r"slowest|hottest|coldest|thickest|thinnest|steepest|loudest|busiest|greatest|least)\b"
)


#: A number that names a part of a document: "Section 5.4", "Class Note 41", "Table 12".
DOC_PART = re.compile(
    r"\b(?:sections?|chapters?|clauses?|articles?|paragraphs?|appendix|tables?|notes?|"
    r"bulletins?|manual|(?-i:Parts?|Modules?|Rules?|Items?|Steps?)|"
    # "the referral in Commercial Lines Underwriting Standards 2.7": a document's part
    r"(?-i:Standards|Guidelines|Handbook|Procedures)|\u00a7|"
    # "referred to a Property underwriter of grade 3 or above": who handles it, no limit
    r"\w*(?:writers?|viewers?|authority) (?:of |at )?(?:grade|level|tier))\s*$",
    re.I,
)
