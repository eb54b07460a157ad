"""Subject vocabulary for the offline extractor: what a rule is about.

Generic English / insurance words, no dataset's fields (field-specific words come from
the data dictionary at run time). This module holds the product names and product-scope
phrasing, function words and the nouns that never name a business class, US state
names and codes, the words that mark a field as protective, and the keywords and cues
that put a rule in a category.
"""

from __future__ import annotations

import re

from memory.underwriting.fieldlink.states import US_STATES

# --- products --------------------------------------------------------------------------------

PRODUCT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "Businessowners (BOP)": the product's own one-word name, capitalised or not
    (
        "BOP",
        re.compile(
            r"\b(?:BOP|[Bb]usinessowners?'?s?(?: [Pp]olicy| [Pp]rogram)?|"
            r"business ?owners?'?s?(?: policy| program)?)\b"
        ),
    ),
    ("LRO", re.compile(r"\b(?:LRO|[Ll]essor'?s'? [Rr]isk(?: [Oo]nly)?)\b")),
    # "on the liability side": the GL, as the property side is the Property form
    (
        "GL",
        re.compile(
            r"\b(?:GL|CGL|[Gg]eneral [Ll]iability|(?:[Oo]n|[Ff]or) the liability side|"
            # "outside our liability appetite", "under the liability program"
            r"(?:our|the) liability (?:appetite|program|programme|policy|book|desk))\b"
        ),
    ),
    # "Property of storage tenants is never covered": ownership, no product
    (
        "Property",
        re.compile(
            r"\b(?:Property|PROPERTY|monoline property)\b(?!\s+(?:rate|data|of)\b)|"
            # "we don't write a bagpipe shop on property", "on the property side": the
            # product in lower case ("kept on the property" is the premises)
            r"\b(?:on|under) property\b(?!\s+(?:of|damage|owners?|values?)\b)|"
            r"\bproperty (?:side|policy|policies|form|line|program)\b|"
            # "is a property decline", "refer the property": the action on that product
            r"\ba property (?:decline|declination|referral|exclusion)\b|"
            r"\b(?:refer|decline|exclude|flag) the property\b(?!\s+(?:of|owner|to)\b)"
        ),
    ),
)
#: "Gyms may be written on the GL or the BOP": which product carries a class (followed by
#: a product name), not a conditional approval.
PRODUCT_PLACEMENT = re.compile(
    r"\b(?:may|can|could) (?:also )?be (?:written|placed|bound|quoted) (?:on|under|in) "
    r"(?:either )?(?:the |a |our )?(?=\S)",
    re.I,
)
ALL_PRODUCTS = re.compile(
    r"\b(?:every|all|any|each) (?:products?|lines?(?: of business)?|programs?)\b|"
    r"\bon (?:every|all) products?\b|"
    r"\b(?:whatever|whichever|regardless of|irrespective of|no matter)"
    r"(?: (?:the|its|their|which))? "
    r"(?:products?|lines?(?: of business)?|programs?)\b",
    re.I,
)
APPLIES_TO = re.compile(
    r"^\s*(?:this|that|it|these|the rule)\s*(?:'s|is|also)?\s*(?:applies|apply|is|'s|covers)\b",
    re.I,
)

# --- function words and generic nouns --------------------------------------------------------

DETERMINERS = frozenset(
    "a an the any all every each some such this that these those our their its his her no "
    "new existing several many few various numerous".split()
)
#: Comparison words: never evidence that a text talks about one field.
COMPARISON_WORDS = frozenset("below under over above vs versus per than more less".split())
STOPWORDS = frozenset(
    "a an the of and or to in on for with by at from as is are be that this its their our any "
    "all per than into".split()
)
#: Nouns that never name an occupancy on their own.
GENERIC_NOUNS = frozenset(
    """
    risk risks building buildings location locations premises submission submissions account
    accounts policy policies quote quotes property properties business businesses insured
    insureds applicant applicants class classes case cases anything everything something
    nothing one ones combination file item items maximum minimum max min back out up down
    rest remainder balance job jobs project projects
    off away over again outright bad good exposure exposures structure structures
    site sites unit units value values data figure figures address addresses program programs
    product products line lines coverage coverages entity entities operation operations
    operator operators owner owners customer customers agent agents venture ventures
    company companies firm firms thing things type types kind kinds occupancy occupancies
    tenant tenants landlord landlords it they them he she we you i that those these who
    both either neither
    commercial small large big mid-size new young old older aged existing standard other
    such certain high low hazardous habitational total overall single multiple combined
    county counties state states area areas zone zones region regions territory
    itself themselves underwriter underwriters agent broker brokers producer producers
    carrier carriers reviewer reviewers insurer insurers we us i you
    exclusion exclusions endorsement endorsements deductible deductibles limit limits
    premium premiums rate rates form forms filing filings warranty warranties condition
    conditions review reviews referral referrals decline declines approval approvals rule
    rules guideline guidelines manual manuals bulletin bulletins section sections note notes
    """.split()
)
#: What a desk or a program does to a class: "the desk writes brewers and cider makers".
WRITING_VERBS = frozenset(
    "writes insures covers accepts quotes binds underwrites handles considers".split()
)
#: Participles that do not end in -ed ("pomace kept inside", "a plan not met").
IRREGULAR_PARTICIPLES = frozenset(
    "kept held done given shown taken made seen written met set run put worn".split()
)
#: A sector, said alone before "accounts" or "risks", is no class ("GL food accounts",
#: "hospitality risks"); with a head of its own it may be one ("food truck").
SECTOR_WORDS = frozenset(
    "food retail service services commercial residential industrial hospitality habitational "
    "medical manufacturing wholesale agricultural healthcare specialty speciality".split()
)
#: "Retailers reporting more than 24 incidents": a whole sector's businesses, no class
#: (unless the dictionary lists the one class the word ends, "fireworks retailer").
SECTOR_NOUNS = frozenset("retailer wholesaler manufacturer merchant vendor".split())
#: Words that name documents, sections, teams, roles, dates or actions: never a business.
NON_BUSINESS_WORDS = frozenset(
    """
    folk folks team teams staff department departments desk desks committee roundtable
    underwriter underwriters broker brokers producer producers reviewer reviewers
    adjuster adjusters inspector inspectors surveyor surveyors trainee trainees
    instructor instructors auditor auditors
    however therefore moreover furthermore meanwhile instead nonetheless nevertheless
    attendee attendees chair lead leads manager managers head member members group groups
    log logs faq memo memos minutes item items table tables email e-mail thread threads
    file files record records
    subject reply message letter schedule matrix grid checklist deck guide guides
    appetite top number numbers total limit action actions class appetite effective effect
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday
    week weeks month months quarter quarters year years immediately
    refer decline write bind quote approve verify flag exclude
    anyone anybody everyone everybody someone somebody whoever whatever anywhere everywhere
    somewhere nowhere
    first second third fourth fifth sixth seventh eighth ninth tenth next last finally
    firstly secondly thirdly lastly alone only except unless besides
    senior seniors how what why which neither either example examples cap caps threshold
    thresholds answer answers question questions instruction instructions moratorium
    declination exception exceptions decision decisions guidance trigger triggers check
    checks criterion criteria characteristic characteristics
    even just also really honestly simply merely then there here
    picture situation outlook story standard standards period periods following
    manual manuals handbook handbooks supplement supplements bulletin bulletins guideline
    guidelines circular circulars section sections chapter chapters appendix
    renewal renewals term terms reinsurance insurance monoline package
    associate associates trainee trainees copy copies roster rosters record records
    reinsurer reinsurers regulator regulators actuary actuaries
    document documents report reports certificate certificates none neither
    application applications list lists
    reminder reminders most many some few several
    liability liabilities underwriting claim claims portfolio portfolios
    credit credits discount discounts surcharge surcharges premium premiums rating
    injury injuries damage damages call calls authority authorities
    """.split()
) | frozenset(
    # "Anything deeper is referred": a bare comparative is a bound, never a business
    """
    larger bigger longer higher greater taller heavier wider deeper farther further
    smaller shorter lower younger closer nearer fewer newer narrower shallower thinner
    thicker lighter slower faster steeper hotter colder cheaper busier louder weaker quicker
    """.split()
)
#: Adverbs of everyday speech that a dictionary may also list as a one-word synonym.
EVERYDAY_ADVERBS = frozenset("still even just also only yet well so then again ever".split())
#: Head nouns of a policy instrument: "the glue burn exclusion" names no business class.
INSTRUMENT_NOUNS = frozenset(
    "exclusion endorsement warranty sublimit deductible surcharge clause form".split()
)
PRONOUNS = frozenset("it they them these those this that he she".split())
#: Premises head nouns too general to name a business class alone ("a sprinklered
#: store", "big centres"); refused only as a one-word value.
GENERIC_HEADS = frozenset(
    """
    store stores shop shops facility facilities establishment establishments venue venues
    center centers centre centres outlet outlets place places space spaces plant plants
    yard yards lot lots
    """.split()
)
#: Pieces, sides and points of things: never the head of a business class ("parts for
#: aircraft", "the Property side", "the strongest point"), though they may qualify one
#: ("auto parts store").
PIECE_HEADS = frozenset(
    "part parts piece pieces component components side sides point points matter matters "
    "need needs view views".split()
)
#: Abstract nouns of discussion: a subject holding one names no business class ("the
#: concern is answered when ...", "the outcome diverges").
DISCOURSE_NOUNS = frozenset(
    """
    concern concerns issue issues problem problems reason reasons worry worries factor
    factors consideration considerations fact facts requirement requirements approach
    situation situations circumstance circumstances scenario scenarios aspect aspects
    outcome outcomes result results
    """.split()
)
#: Nouns ending in "-ly": not sentence adverbs ("Family, ..." opens a noun phrase).
LY_NOUNS = frozenset(
    "family assembly supply rally ally belly jelly anomaly monopoly butterfly firefly "
    "lily holly bully italy fly reply".split()
)

# --- states ----------------------------------------------------------------------------------

#: Two-letter codes that are also common English words; only accepted as names.
AMBIGUOUS_STATE_CODES = frozenset(
    {"IN", "OR", "ME", "OK", "HI", "AS", "US", "DE", "PA", "AL", "ID"}
)
STATE_NAME_RE = re.compile(
    r"\b(" + "|".join(sorted((n.title() for n in US_STATES), key=len, reverse=True)) + r")\b"
)
STATE_CODE_RE = re.compile(r"\b([A-Z]{2})\b")
NEGATED_LIST = re.compile(
    r"\b(?:except|other than|rather than|instead of|outside(?: of)?|excluding|besides)\s+"
    # "rather than in a marina slip or on a mooring buoy"
    r"(?:(?:in|on|at|into|a|an|the)\s+){0,2}$",
    re.I,
)

# --- protective words and rule categories ----------------------------------------------------

#: Words that mark a boolean field as protective (a mitigant) rather than a risk flag.
#: Words of trouble: a flag that says more of them than protective words flags the risk
#: ("appraisal or suit against the prior insurer" is a dispute, not an appraisal done; a
#: "signed settlement letter ending the dispute" still protects).
TROUBLE_WORDS = frozenset(
    """
    dispute disputes disputed disputing suit suits lawsuit lawsuits litigation violation
    violations citation citations complaint complaints rescinded rescission cancelled
    canceled nonpayment
    """.split()
)
PROTECTIVE_WORDS = frozenset(
    """
    obtained completed satisfactory signed letter certificates clean
    sprinkler sprinklered sprinklers alarm alarms suppression mitigation inspection
    inspected appraisal appraised permit shutters shutter protection protected installed
    verified monitored certified certificate guard guards security hydrant extinguisher
    extinguishers fence fenced camera cameras generator backup training trained
    maintenance maintained warranty compliant compliance updated upgraded retrofit
    retrofitted sprinklering detector detectors exemption exemptions accredited
    accreditation fingerprinted screened vetted alerts traceability protects protecting
    shield shields shielded spotter spotters
    """.split()
)

CATEGORY_KEYWORDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("pricing", frozenset("rate rates pricing premium minimum price priced tiv_per".split())),
    (
        "catastrophe",
        frozenset(
            "coast coastal tier flood wind hail hurricane storm quake earthquake "
            "wildfire cat catastrophe shoreline beach".split()
        ),
    ),
    (
        "construction",
        frozenset(
            "construction stories story floors roof year built square feet sqft "
            "frame masonry sprinklered".split()
        ),
    ),
    (
        "operations",
        frozenset("cooking liquor alcohol hood operations fryer receipts".split()),
    ),
    (
        "eligibility",
        frozenset(
            "loss losses claims employee employees revenue sales business vacancy "
            "vacant carrier nonrenewal".split()
        ),
    ),
)
DATA_QUALITY_CUE = re.compile(
    r"\b(?:discrepanc\w*|mismatch\w*|disagree\w*|differ(?:s|ence)?|third-party data|"
    r"address range|data vendor|data quality|inconsisten\w*)\b",
    re.I,
)
PROCESS_CUE = re.compile(
    r"\b(?:typo\w*|data correction|mis-?keyed|keying error|bad data|for correction|"
    r"reconcile)\b",
    re.I,
)
ELIGIBILITY_CUE = re.compile(r"\b(?:ineligible|eligib\w*|out of appetite|appetite)\b", re.I)
