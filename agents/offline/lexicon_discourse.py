"""Discourse cues of the offline extractor: how a speaker holds, asks or accepts.

Generic English only: "don't quote until you have confirmed ..." (a check the quote waits
on), "trainees ask whether ..." (a question reported, no rule), "..., fine" (a bare
acceptance closing a condition clause).
"""

from __future__ import annotations

import re

#: "don't quote until you have confirmed X": the quote waits on a check (a verification).
HOLD_UNTIL_CHECKED = re.compile(
    r"\b(?:do not|don't|never|must not|mustn't|shall not|should not|cannot|can't)\s+"
    r"(?:quote|bind|write|issue|offer)(?:\s+(?:it|them|this|that|the \w+))?\s*,?\s*"
    r"(?:until|unless|before)\s+(?:\w+\s+){0,3}?"
    r"(?:confirm|verif|validat|check|obtain|receiv|review|seen)\w*",
    re.I,
)

#: "Every air show submission is held to verify the waiver": a check before binding.
HELD_TO_CHECK = re.compile(
    r"\b(?:is|are) (?:held|pended|parked|put on hold) (?:to|until|for) (?:we |you |the desk )?"
    r"(?=verif|confirm|validat|check)",
    re.I,
)

#: "Where that detection is installed, this item needs nothing further": the other side of
#: the rule's condition (no action), not a mitigant of it.
NOTHING_FURTHER = re.compile(
    r"\b(?:needs?|requires?) nothing (?:further|more|else)\b|\bno further (?:action|review|"
    r"referral)\b|\bnothing (?:further|more) is (?:needed|required)\b",
    re.I,
)

#: "Trainees ask whether that's a referral": a question reported, not a rule.
INDIRECT_QUESTION = re.compile(
    r"\b(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|query|queries|queried)\s+"
    r"(?:\w+\s+){0,2}?(?:whether|if)\b|"
    # "Questions about the Idaho side go to the desk lead": who answers, not a rule
    r"^\W*(?:any\s+|all\s+|other\s+)?(?:questions?|queries|inquiries|enquiries)\s+"
    r"(?:about|on|regarding|concerning|over)\b",
    re.I,
)

#: "Clinics that use only smokeless rolls may be written without referral": what the
#: rule before spares.
SPARED = re.compile(
    r"\b(?:(?:written|bound|quoted|accepted) |"
    # "may write the site on the standard warranty without that referral" (not a case's
    # "the associate bound it without referral")
    r"(?:may|can|could) (?:write|bind|quote|accept)\b[^.;]{0,60}?\s)"
    r"without (?:a |the |that |this |any )?(?:referral|review)\b",
    re.I,
)
#: "a kennel that has one needs no referral", "with rails on every trolley it's fine":
#: what a protection the rule before lacked does once it is there.
SPARED_WHEN_HELD = re.compile(
    r"\bneeds? no (?:referral|review|flag)\b|\b(?:it's|it is|that's|they're|they are) fine\b|"
    r"\bstandard terms\b",
    re.I,
)
#: "a kennel that has one": the protection the rule before lacked, named by a pronoun.
HAS_ONE = re.compile(r"\b(?:has|have|with)\s+(?:one|it|them)\b|\bones?\s+(?:with|that has)\b", re.I)
#: "If they use X, fine": a bare acceptance closing a condition clause.
FINE = re.compile(
    r",\s*(?:that's |that is |then |it's |it is )?(?:fine|ok(?:ay)?|acceptable|no problem|"
    r"good|all good|no issue)\W*$",
    re.I,
)

#: Action cues read besides `lexicon.ACTION_CUES` (same (action, pattern) form, same
#: priorities): "is written with X excluded" leaves X out of the cover (an exclusion, not
#: a conditional approval); "is excluded from the BOP / the building's coverage";
#: "we approve only with the X endorsement added"; "approved with X as a condition".
MORE_ACTION_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "exclude",
        re.compile(
            r"\b(?:written|bound|quoted|issued|write|bind|quote|issue)\s+with\s+"
            r"(?:the\s+|an?\s+|its\s+|their\s+)?(?:[\w/&-]+\s+){1,4}?(?:excluded|carved out)\b|"
            r"\b(?:is|are|be)\s+excluded\s+(?:from|under|on)\s+(?:the\s+|this\s+|that\s+|its\s+|"
            r"their\s+|our\s+)?(?:[\w'-]+\s+){0,3}?(?:policy|coverage|cover|form|package|"
            r"bop|lro|gl|property)\b|"
            # "hot-tub bodily injury is excluded", "spoilage is excluded outright": a loss or
            # cover named before "excluded" (a class or a risk excluded is out of appetite)
            r"\b(?:injury|injuries|damage|liability|coverage|cover|spoilage|loss|losses|claims?|"
            r"theft|hazard|exposure|products|operations|payments|contents|equipment|units|"
            r"work|activit(?:y|ies))\s+(?:[\w-]+\s+){0,6}?(?:is|are)\s+(?:always\s+|simply\s+)?"
            r"excluded\b|"
            # "the care, custody and control exclusion for boarded horses is attached",
            # "the liquor liability exclusion goes on every one", "... stays on every ..."
            r"\bexclusion\b[^.;:]{0,50}?\b(?:is|are|must be|will be|shall be|should be)\s+"
            r"(?:always\s+|then\s+)?(?:attached|endorsed|added|applied|mandatory|required)\b|"
            r"\bexclusion\s+(?:endorsement\s+)?(?:goes|go|stays|stay|belongs|sits)\s+on\b|"
            r"\b(?:requires?|triggers?|receives?|signs?)\s+(?:an?\s+|the\s+|our\s+)?"
            r"[\w\s&/()'’,-]{0,50}?exclusion\b|"
            # "exclude them by endorsement", "exclude the vats from the property cover"
            r"\bexclude\b[^.;:]{0,60}?\b(?:by endorsement|from (?:the |its |their )?"
            r"(?:[\w-]+ ){0,3}?(?:cover|coverage|policy|form|schedule))\b|"
            # "spectator injury comes off the GL", "comes off the building coverage"
            r"\bcomes?\s+off\s+(?:the\s+)?(?:gl|bop|lro|property|(?:[\w-]+\s+){0,2}?"
            r"(?:coverage|cover|form|policy))\b",
            re.I,
        ),
    ),
    (
        "approve_with_conditions",
        re.compile(
            # "I approve it with a dry-suit and immersion-plan condition"
            r"\b(?:approv(?:e|ed|es)|writ(?:e|es|ten)|bind|bound|accept(?:ed|s)?)\s+"
            r"(?:it\s+|them\s+)?(?:only\s+)?with\s+(?:the\s+|an?\s+)?[\w\s,&/-]{0,60}?"
            r"(?:endorsement|warranty|deductible|condition|sublimit|surcharge)s?\b|"
            r"\b(?:approved|written|bound|quoted|accepted)\s+with\s+[\w\s,$.&/-]{0,60}?"
            r"\bas\s+(?:a|the|its)\s+conditions?\b",
            re.I,
        ),
    ),
)

#: "a risk using any other lining type is referred": the clause acts on everything except
#: what the clause before listed.
ANY_OTHER = re.compile(
    r"\b(?:any|all|every|each|an?)\s+other\s+(?!than\b)[a-z][\w-]*|\bother than\b", re.I
)

#: "a locked, fenced yard is the accepted mitigant": the clause names a mitigant of the
#: rule before it.
_SOFTENED = (
    r"\b(?:turns?|converts?|downgrades?|changes?)\s+(?:the|a|that)\s+"
    r"(?:decline|declination|referral|refer)\s+(?:in)?to\s+(?:a|an)\s+\w+|"
    # "I'll take a referral instead of a decline", "prepared to refer up rather than decline"
    r"\b(?:take|takes|accept|accepts|offer|offers)\s+(?:a|an)\s+referral\s+"
    r"(?:instead of|rather than)\s+(?:a\s+)?declin\w*|"
    r"\brefer\s+(?:it\s+|them\s+)?(?:up\s+|to\s+(?:me|us|[\w-]+(?:\s+[\w-]+)?)\s+)?"
    r"(?:instead of|rather than)\s+declin\w*|"
    # "I take it to committee instead of declining it", "send them up rather than decline"
    r"\b(?:take|takes|send|sends|bring|brings|put|puts|pass|passes)\s+(?:it|them)\s+"
    r"(?:up\s+)?(?:(?:to|before)\s+(?:the\s+|a\s+|my\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?\s+)?"
    r"(?:instead of|rather than)\s+declin\w*|"
    # "it comes to the desk as a referral rather than a decline"
    r"\bas\s+a\s+referral\s+(?:instead of|rather than)\s+(?:a\s+)?declin\w*|"
    # "the risk is not declined but goes to referral instead"
    r"\b(?:is|are)\s+not\s+declined\s+but\s+(?:goes|go|is|are)\s+(?:sent\s+)?(?:to\s+)?"
    r"(?:a\s+)?referr\w*|"
    # "The declination may be reconsidered by referral where ...": a referral instead
    r"\b(?:decline|declination)\s+(?:may|can|could|will)\s+(?:still\s+)?be\s+"
    r"(?:reconsidered|revisited|reviewed)\s+(?:by|on|through|via|as)\s+(?:a\s+)?referral\b|"
    # "the decline is lifted to a referral", "the declination drops to a referral"
    r"\b(?:decline|declination)\s+(?:is\s+|becomes\s+)?(?:lifted|softened|eased|reduced|"
    r"downgraded|drops?|moves?|steps?(?:\s+down)?)\s+(?:in)?to\s+(?:a\s+)?referral\b|"
    # "do not decline outright; send the file to the senior underwriter instead"
    r"\b(?:do not|don't|never)\s+decline\s+(?:it\s+|them\s+)?outright\b|"
    # "the decline is reconsidered only where ...; those go to the specialist as a referral
    # instead"
    r"\b(?:decline|declination)\s+is\s+(?:only\s+)?(?:reconsidered|revisited|reviewed|"
    r"set aside|waived)\b|\bas\s+a\s+referral\s+instead\b"
)
#: "cash recyclers turn the decline into a referral": what softens the rule's action.
SOFTENED_ACTION = re.compile(_SOFTENED, re.I)
NAMED_MITIGANT = re.compile(
    r"\b(?:is|are|counts? as|serves? as|qualif(?:y|ies) as|(?:accepted|recogni[sz]ed|"
    r"treated|taken) as)\s+(?:the\s+|a\s+|an\s+|our\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:mitigants?|mitigating factors?)\b|"
    # "X is the one thing that makes her comfortable", "treated that repair as the deciding
    # factor", "treats the setback concern as answered"
    r"\bmakes? (?:me|us|her|him|them) comfortable\b|"
    r"\btreat(?:s|ed)? (?:[\w-]+\s+){0,4}?as (?:answered|resolved|satisfied|sufficient|"
    r"adequate|enough|(?:the )?(?:deciding|decisive) factor)\b|"
    # "a sacrificial coating changes the picture for me whatever the count"
    r"\bchanges? the (?:picture|answer|calculus)\b|"
    # "A documented two-person rule ... is the control we expect at that volume"
    r"\b(?:is|are) the (?:control|protection|safeguard)s? (?:we|the desk|underwriting|you) "
    r"(?:expect|want|require|look for|ask for|need)\b|"
    # "What got it over the line was LEL monitoring", "what made the difference was ..."
    r"\bwhat (?:got|gets|pushed|put|tipped) (?:it|them|the (?:account|risk|file))\s+over "
    r"the (?:line|top)\b|\bwhat made (?:the|all the) difference\b|" + _SOFTENED,
    re.I,
)

#: "What makes you comfortable going past 60?", "What do you need to see?": a question
#: whose answer names what lets the rule give way.
ASKS_MITIGANT = re.compile(
    r"\b(?:what|anything|is there anything|which)\b[^?]*\b(?:comfortable|makes? it easy|"
    r"makes? it easier|need to see|want to see|look for|would help|helps?|change your mind|"
    r"mitigat\w*|make up for|offsets?|gets? (?:it|you) (?:over|past|there)|"
    r"let (?:it|them) through)\b[^?]*\?\s*$",
    re.I,
)

#: "If they don't have one": the one thing the sentence before named is missing.
LACKS_ONE = re.compile(
    r"\b(?:don't|doesn't|do not|does not|didn't|did not|can't|cannot)\s+"
    r"(?:have|confirm|show|include|provide|list|mention|demonstrate|evidence)\s+"
    r"(?:one|it|this|that)\b|"
    r"\bwithout (?:one|it)\b|"
    # "exhibitor license: if the application says it isn't held, verify"
    r"\b(?:it|they)\s+(?:isn't|aren't|wasn't|weren't|is not|are not|was not|were not)\s+"
    r"(?:\w+ed|held|kept|shown|done|given|in place|on file)\b|"
    # "... should be in force. Where it isn't, verify before binding."
    # "... if the application says they do not, confirm": what a document says of it
    r"\b(?:where|if|when)\s+(?:(?:the|its|their)\s+(?:[\w-]+\s+)?(?:application|file|"
    r"submission|form)\s+(?:says|shows|states|answers|indicates)\s+(?:that\s+)?)?"
    r"(?:it|they|one)\s+(?:isn't|aren't|is not|are not|doesn't|don't|"
    r"does not|do not)(?=\s*[,;:])|"
    # "expected to run a testing program; where the application says there is none, verify"
    r"\bthere(?:\s+is|'s|’s)\s+(?:none|not one|no such \w+)\b|\bnone (?:is|exists)\b",
    re.I,
)
#: "Many clinics dispense herbs. When they do, the herbs are excluded": a pro-verb that
#: points back at what the sentence before said some risks do.
PRO_VERB = re.compile(
    r"^\W*(?:when|if|where|whenever)\s+(?:they|it|one)\s+(?:do|does|did|are|is)\s*[,;:]", re.I
)
#: A check already done, as a clause's condition: "Where the permit is confirmed, ...".
CHECKED_STATE = re.compile(
    r"^\W*(?:where|if|when|once|whenever)\b[^,;]*\b(?:is|are|has been|have been|was|were)\s+"
    r"(?:\w+ly\s+)?(?:confirmed|verified|validated)\b[^,;]*,",
    re.I,
)


#: A turn that opens by denying what the other speaker just said: "No, that's too strong",
#: "Not refer - decline", "That's not right".
DENIES_TURN = re.compile(
    r"^(?:No|Nope)\s*[,.;:!\u2013\u2014-]|^Not (?:quite|really|exactly|so|at all)\b|"
    r"^Not (?:refer|declin|exclud|verif|flag|approv|writ)\w*\b|"
    r"^(?:That'?s|That is|That was) (?:not (?:right|correct|quite|how)|wrong)\b",
    re.I,
)
#: An approval pointing back at a protection just named: "With that in the file, ...".
WITH_THAT = re.compile(r"\b(?:with|given|on) (?:that|this|those|these|it|them)\b", re.I)
