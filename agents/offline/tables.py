"""Tables written as text, rewritten into one sentence per rule-bearing row or cell.

Three shapes are read:

* a plain table: "PPC | Construction | Action" over "7-8 | frame | refer" reads
  "PPC 7-8, Construction frame: refer.";
* a table with several action columns: "Class | Refer when ... | Decline when ..." gives
  one sentence per action column;
* a grid: the header's columns after the first are ranges of one measured quantity
  ("| Glazing | Under 10,000 sq ft | 10,000 sq ft and over |") and each row names a
  value with an action per cell. Each cell that is not a plain acceptance becomes
  "Glazing glass, under 10,000 sq ft: refer to ...". "Write; X required" reads as a
  conditional acceptance ("write subject to X"); a bare "Write" states no rule.
"""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from memory.underwriting.paths import canonical_product

_CELL_SPLIT = re.compile(r"\s*\|\s*|\t+|\s{2,}")
#: A cell that accepts the risk as it is: "Write", "Accept", "OK", "Within authority", "-".
_PLAIN_ACCEPT = re.compile(
    r"^\s*(?:write|accept(?:able|ed)?|approve|eligible|bind|quote|ok|yes|standard|normal|"
    r"(?:write\s+|written\s+)?as\s+written|no\s+action|none|n/?a|[-–—]+|"
    r"(?:within|inside)\s+(?:\w+\s+)?(?:authority|appetite|guidelines?))\s*\.?\s*$",
    re.I,
)
#: A band's lower bound before its upper one: "over $2.5M to $5M", "above 10 up to 20".
_BAND = re.compile(
    r"^(?P<lo>(?:over|above|more\s+than|greater\s+than|exceeding|from)\s+\S+(?:\s+[a-z]+)?)"
    r"\s+(?:to|through|up\s+to|-|–)\s+(?P<hi>\S.*)$",
    re.I,
)
_LOWER_ONLY = re.compile(
    r"^(?:over|above|more\s+than|greater\s+than|exceeding)\b|\b(?:and|or)\s+(?:over|above|more)$|\+$",
    re.I,
)
_UPPER_ONLY = re.compile(
    r"^(?:up\s+to|under|below|less\s+than|not\s+over|at\s+most)\b|"
    r"\b(?:and|or)\s+(?:under|below|less)$",
    re.I,
)
#: Where a range header's quantity ends: its first comparator word or number.
_RANGE_START = re.compile(
    r"\b(?:up\s+to|under|below|less|over|above|more|greater|exceeding|from|at\s+most|"
    r"not\s+over)\b|[$\d]",
    re.I,
)
#: "Write; 5% deductible required": an acceptance with what it requires after it.
_ACCEPT_WITH = re.compile(
    r"^\s*(?:write|accept(?:able)?|approve|eligible|bind|quote)\s*[;,:-]+\s*(?P<rest>.+)$", re.I
)
#: "... required" after a conditional acceptance: what the condition is, not a check.
_REQUIRED = re.compile(r"\s+(?:is\s+|are\s+)?(?:required|needed|mandatory)\s*\.?\s*$", re.I)
_ACTION_WORD = re.compile(
    r"\b(?:write|accept\w*|approv\w*|eligible|ineligible|bind|quote|declin\w*|refer\w*|"
    r"exclud\w*|verif\w*|flag\w*|attach\w*|submit\w*)\b",
    re.I,
)


#: A line that only rules a table ("| --- | --- |", "+====+").
_SEPARATOR = re.compile(r"[\s|:+=-]+")
#: A last column that records what happened, not what to do.
_RECORD_COLUMN = re.compile(r"^\W*(?:outcomes?|results?|dispositions?|what happened)\W*$", re.I)
#: A log's column citing the rule each case was decided under: "| Guideline |".
_GUIDELINE_COLUMN = re.compile(
    r"^\W*(?:guidelines?|(?:guideline|manual|guide|rule)\s+(?:cited|applied|reference))\W*$", re.I
)
#: A cell citing no rule: "none stated", "n/a", "-".
_NONE_STATED = re.compile(
    r"^\W*(?:none(?:\s+(?:stated|cited|given|applies|applicable))?|n/?a|no\s+guideline|-+|—)\W*$",
    re.I,
)


#: A log's first column naming each case: "| Case |", "| Ref |", "| File |".
_RECORD_OF_CASES = re.compile(
    r"^\W*(?:case|ref(?:erence)?|file|log|decision|dl)\W*(?:no\.?|#|id)?\W*$", re.I
)
#: A log's first column dating each case: "| Date |".
_DATED_CASE = re.compile(r"^\W*(?:date|decided|decision date)\W*$", re.I)
#: A cell that is a date alone: "2024-07-09", "07/09/24", "9 Jul 2024", "Jul 9, 2024".
_DATE_CELL = re.compile(
    r"\W*(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\s+[A-Z][a-z]{2,8}\.?\s+\d{4}|"
    r"[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+\d{4})\W*"
)
#: A log's last column: what was decided on each case.
_DECISION_COLUMN = re.compile(r"^\W*(?:(?:uw|underwriter'?s?|our)\s+)?decisions?\W*$", re.I)
#: A column of a case's facts, which scope no rule: "| Key facts |".
_FACTS_COLUMN = re.compile(r"^\W*(?:(?:key\s+)?facts?|details?|notes?|summary|situation)\W*$", re.I)


def _cited_row(header: list[str], cells: list[str], rule: int) -> list[str]:
    """One case of a decision log: the rule it cites, then the case as evidence.

    "| DL-7 | commercial laundry | GL | 45% hospital goods; sharps line | refer when
    hospital goods exceed 30% | approved with conditions |" states the laundry's GL rule
    ("For commercial laundry on GL, refer when ...") and one case decided
    under it, whose facts and outcome are read for practice, never as a rule of their own.
    """
    scope = [
        c
        for k, (h, c) in enumerate(zip(header[:-1], cells[:-1], strict=True))
        if k not in {0, rule} and not _FACTS_COLUMN.match(h) and not re.search(r"\d", c)
    ]
    cited = f"For {' on '.join(scope)}, {cells[rule]}." if scope else f"{cells[rule]}."
    return [cited, _case_without(header, cells, rule)]


def _case_without(header: list[str], cells: list[str], column: int) -> str:
    """A log's row read as one case, without the column citing its rule."""
    kept = [k for k in range(len(header)) if k != column]
    return f"Outcome: {_plain_row([header[k] for k in kept], [cells[k] for k in kept])}"


def _guideline_column(header: list[str]) -> int | None:
    """The column of a decision log citing each case's rule, if the table has one."""
    return next((k for k, h in enumerate(header[:-1]) if _GUIDELINE_COLUMN.match(h)), None)


#: A first column that names each row's rule: "| Rule | ... |".
_NAME_COLUMN = re.compile(r"^\W*(?:rules?|rule names?)\W*$", re.I)
#: "| Rule | Applies to | Trigger | Result |", "| Program | Bale moisture trigger | Result |":
#: a table of rules, whose results are actions.
_RULE_COLUMN = re.compile(
    # (not "| Case | Written limit | Actual | Outcome |": a log of cases past a limit)
    r"^\W*(?:(?:[\w%/-]+\s+){0,4}(?:triggers?|thresholds?)|limits?|conditions?|when)\W*$",
    re.I,
)


#: A markdown rule inside a line ("... | Trigger | Action | | --- | --- | | ..."): a table
#: written without its line breaks.
_INLINE_RULE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|){2,}")


def unflatten(lines: list[str]) -> list[str]:
    """Put a table written on one line back on lines of its own.

    "Triggers. | Trigger | Action | | --- | --- | | Over 5 trucks | Refer | Notes: ..."
    becomes the prose before it, the header, the rule, one line per row and the prose
    after it. The rule's column count says where each row ends.

    Args:
        lines: The lines of a text.

    Returns:
        The lines, a one-line table split into its rows.
    """
    out: list[str] = []
    for line in lines:
        rule = _INLINE_RULE.search(line)
        if rule is None:
            out.append(line)
            continue
        width = rule.group(0).count("|") - 1
        pieces = line[: rule.start()].rstrip().split("|")
        if len(pieces) < width + 2 or pieces[-1].strip():
            out.append(line)  # no header of that many cells right before the rule
            continue
        prose, header = "|".join(pieces[: -(width + 1)]), pieces[-(width + 1) : -1]
        rows = [f"| {' | '.join(c.strip() for c in header)} |", "| --- " * width + "|"]
        row = re.compile(r"\s*\|" + r"([^|]*)\|" * width)
        rest = line[rule.end() :]
        while (match := row.match(rest)) is not None and any(g.strip() for g in match.groups()):
            rows.append(f"| {' | '.join(g.strip() for g in match.groups())} |")
            rest = rest[match.end() :]
        out.extend(part for part in (prose.strip(), *rows, rest.strip()) if part)
    return out


def _cells(line: str) -> list[str]:
    text = line.strip()
    if len(text) > 1 and text.startswith("|") and text.endswith("|"):
        return [c.strip() for c in text[1:-1].split("|")]  # a markdown row keeps empty cells
    return [c.strip() for c in _CELL_SPLIT.split(text.strip("|")) if c.strip()]


#: A cell of a table written with runs of spaces: words with single spaces inside.
_SPACED_CELL = re.compile(r"\S+(?: \S+)*")
#: A continuation line starts this far in: it goes on a cell of the row above.
_CONTINUED_INDENT = 8


def join_continuations(lines: list[str]) -> list[str]:
    """Put a spaced table's wrapped cells back on their rows.

    "Vintage stock   over $250K   Refer, unless kept in locked showcases" followed by a
    line indented to the last column ("or protected by a central-station alarm") is one
    row: the continuation joins the cell it starts under, and the row is written with
    pipes.
    """
    out: list[str] = []
    starts: list[int] = []  # where each cell of the row above starts ([] after no row)
    texts: list[str] = []  # and what it says, continuations joined
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if starts and line.strip() and indent >= _CONTINUED_INDENT:
            for part in _SPACED_CELL.finditer(line):
                under = [k for k, start in enumerate(starts) if start <= part.start() + 2]
                if under:
                    texts[under[-1]] = f"{texts[under[-1]]} {part.group(0)}"
            out[-1] = "| " + " | ".join(texts) + " |"
            continue
        parts = list(_SPACED_CELL.finditer(line)) if "  " in line.strip() else []
        starts = [m.start() for m in parts] if len(parts) >= 2 else []
        texts = [m.group(0) for m in parts] if len(parts) >= 2 else []
        out.append(line)
    return out


def table_rows(lines: list[str]) -> list[str]:
    """Rewrite tables written as text into one sentence per row (or grid cell).

    A table is a header line and at least one row with the same number (2 or more) of
    cells, separated by pipes, tabs or runs of spaces. Other lines are kept.

    Args:
        lines: The lines of a text.

    Returns:
        The lines with table rows rewritten.
    """
    lines = join_continuations(lines)
    # a row right above a markdown rule ("| --- |") is a header, digits or not
    ruled = {
        line for line, after in zip(lines, lines[1:], strict=False) if _SEPARATOR.fullmatch(after)
    }
    rows = [line for line in lines if not _SEPARATOR.fullmatch(line)]
    cells = [
        _cells(line) if ("|" in line or "\t" in line or "  " in line.strip()) else []
        for line in rows
    ]
    out: list[str] = []
    header: list[str] | None = None
    grid = False
    for i, line in enumerate(rows):
        width = len(cells[i])
        if header is not None and width == len(header):
            head, row = _checked_with_trigger(header, cells[i])
            if (old := _replaced_column(head)) is not None:
                # "| | Before this bulletin | From 15 July 2024 |": the row as it now reads
                out.append(" ".join(c for k, c in enumerate(row) if k != old) + ".")
                continue
            if (acted := _ACTION_PAST.match(head[-1])) is not None and len(head) == 2:
                # "| Class | Refer above |" over "| Bagpipe maker | 25 employees |"
                bound = "fewer than" if acted.group(2).lower() in _BELOW else "more than"
                out.append(f"{row[0]}, {bound} {row[1]}: {acted.group(1).lower()}.")
                continue
            if (done := _TRIGGER_HEADER.match(head[-1])) is not None:
                # "| Class | Measure | Referral trigger |": the last column's name acts
                out.append(_trigger_row(head, row, done.group(1).lower()))
                continue
            if (rule := _guideline_column(head)) is not None and _NONE_STATED.match(row[rule]):
                # "| Case | ... | Guideline | UW decision |" over "| ... | none stated |
                # declined |": one case decided with no rule to cite, evidence only
                out.append(_case_without(head, row, rule))
            elif rule is not None and _RECORD_OF_CASES.match(head[0]):
                out.extend(_cited_row(head, row, rule))
            elif (_DATED_CASE.match(head[0]) and _DECISION_COLUMN.match(head[-1])) or (
                _DATE_CELL.fullmatch(row[0]) and any(_DECISION_COLUMN.match(h) for h in head)
            ):
                # "| Date | Operator | MTOW | Decision |", "| referred | class | trucks |
                # decision | comment |" over "| 2024-07-09 | ...": one dated case a row
                out.append(f"Outcome: {_plain_row(head, row)}")
            elif grid:
                out.extend(_grid_cells(head, row))
            elif (status := _status_column(head)) is not None:
                out.extend(_status_row(head, row, status))
            elif _action_columns(head):
                out.extend(_action_column_rows(head, row))
            elif _IF_NOT_MET.match(head[-1]):
                out.append(_unmet_row(head, row))
            elif _PAST_LIMIT.search(head[-1]):
                out.append(_past_limit_row(head, row))
            elif _RECORD_COLUMN.search(head[-1]) and not any(_RULE_COLUMN.search(h) for h in head):
                # "| Losses | Referrals | Outcome |": a log's results, each row a case
                out.append(f"Outcome: {_plain_row(head, row)}")
            elif _NAME_COLUMN.match(head[0]) and len(head) > 2:
                # "| Rule | Applies to | Trigger | Result |": a rule's name is no subject
                out.append(_plain_row(head[1:], row[1:]))
            else:
                out.append(_plain_row(head, row))
            continue
        header, grid = None, False
        following = cells[i + 1 : i + 2]
        if width >= 2 and following and len(following[0]) == width:
            if _grid_header(cells[i], following[0]):
                header, grid = cells[i], True
                continue
            # a line that names columns: no figure, or figures only inside long names
            # ("Minimum door supervisors per 100 guests at peak"), not "PR-25-0311"
            if line in ruled or all(
                len(c.split()) >= _NAMING_WORDS for c in cells[i] if re.search(r"\d", c)
            ):
                header = cells[i]
                continue
        out.append(line)
    return out


#: A cell with a figure names a column only in this many words or more.
_NAMING_WORDS = 5
#: "| Class | What to check | Trigger | Action |": a column naming what is checked ...
_CHECK_COLUMN = re.compile(
    r"^\W*(?:what (?:to|we) (?:check|look at)|checks?|factors?|measures?|fields?)\W*$",
    re.I,
)
#: ... beside the column saying when it triggers.
_WHEN_COLUMN = re.compile(
    r"^\W*(?:triggers?|thresholds?|limits?|conditions?|when|values?|levels?|if)\W*$", re.I
)
_YES_CELL = re.compile(r"^\W*(?:yes|y|true|present|any)\W*$", re.I)
_NO_CELL = re.compile(r"^\W*(?:no|n|false|absent|none)\W*$", re.I)
#: A word of a cell, for telling whether the trigger repeats what is checked.
_WORD = re.compile(r"[a-z]{3,}")


def _checked_with_trigger(header: list[str], cells: list[str]) -> tuple[list[str], list[str]]:
    """A row whose "What to check" and "Trigger" cells say one condition, as one cell.

    "TIV" beside "over $5M" reads "TIV over $5M"; "fiber mill" beside "yes" reads "fiber
    mill", beside "no" "without fiber mill"; a trigger that says it all ("3 or more stories
    and no sprinklers") stands alone. The merged column has no name of its own. A checked
    item with a figure of its own ("Losses in the last 3 years") keeps its row as it is.
    """
    for k in range(len(header) - 2):
        what, when = cells[k], cells[k + 1]
        if (
            _CHECK_COLUMN.match(header[k])
            and _WHEN_COLUMN.match(header[k + 1])
            and not re.search(r"\d", what)  # "Losses in the last 3 years" | "5 or more"
        ):
            checked = set(_WORD.findall(what.lower()))
            if _YES_CELL.match(when):
                said = what
            elif _NO_CELL.match(when):
                said = f"without {what}"
            elif checked and checked <= set(_WORD.findall(when.lower())):
                said = when
            else:
                said = f"{what} {when}"
            return header[:k] + [""] + header[k + 2 :], cells[:k] + [said] + cells[k + 2 :]
    return header, cells


#: "| Exposure | Standard | If not met |": the last column acts when the standard fails.
_IF_NOT_MET = re.compile(
    # "If the standard is not met", "When it is not met"
    r"^\s*(?:(?:if|when|where)\s+(?:(?:the\s+\w+|it|this|that)\s+(?:is|are)\s+)?"
    r"(?:not\s+(?:met|so)|unmet|missing|absent|below\s+standard)|"
    r"otherwise|failing\s+that|below\s+(?:the\s+)?(?:minimum|standard)|"
    # "| Exposure | Acceptable | Action when outside |"
    r"(?:(?:action|result|outcome|response)\s+)?(?:if|when)\s+(?:outside|unacceptable|"
    r"not\s+acceptable)|"
    r"above\s+(?:the\s+)?maximum)\b",
    re.I,
)
#: A cell that states nothing: "n/a", "none", "-".
_EMPTY_CELL = re.compile(r"^\s*(?:n/?a|none|-+|—)?\s*$", re.I)


def _unmet_row(header: list[str], cells: list[str]) -> str:
    """A row of a standards table, as "<standard> is acceptable; otherwise <action>".

    "| Hull house | 100 ft or more from the shelling building | Refer |" under "If not
    met" refers what falls short of the standard. A row whose standard cell is empty
    ("n/a") acts on its first cell as a plain row does.
    """
    kept = list(zip(header[:-1], cells[:-1], strict=True))
    if any(_EMPTY_CELL.match(c) for _, c in kept):
        return _plain_row(
            [h for h, c in kept if not _EMPTY_CELL.match(c)] + header[-1:],
            [c for _, c in kept if not _EMPTY_CELL.match(c)] + cells[-1:],
        )
    said = ", ".join(_standard(h, c) for h, c in kept)
    return f"{said} is acceptable; otherwise {cells[-1]}."


#: "| Program | Buildings (limit) | What the desk does above the limit |": the last column
#: acts past each row's limit.
_PAST_LIMIT = re.compile(
    r"\b(?:above|over|beyond|past|exceeding)\s+(?:the\s+)?(?:limit|maximum|cap|threshold|ceiling)\b|"
    # "| Line | Hydrogen on site | Action when exceeded |": each row's figure is a limit
    r"\b(?:if|when)\s+(?:exceeded|breached)\b|"
    # "| Characteristic | Limit | When the limit is exceeded |"
    r"\b(?:if|when)\s+(?:the|a|its)\s+(?:limit|maximum|cap|threshold)\s+is\s+"
    r"(?:exceeded|breached|passed)\b|"
    # "| Program | Upright broilers allowed | What happens once you pass it |"
    r"\b(?:once|when|if)\s+(?:you\s+)?(?:pass|exceed|go past|go over)\s+(?:it|that|them)\b",
    re.I,
)
#: A cell that is a figure, in digits or words ("two", "$40,000").
_FIGURE_CELL = re.compile(
    r"^\s*(?:\$?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|hundred)\b)",
    re.I,
)
_LIMIT_MARK = re.compile(r"\s*\((?:limit|maximum|max\.?|cap|threshold)\)\s*", re.I)


def _past_limit_row(header: list[str], cells: list[str]) -> str:
    """A row whose figures are limits: "BOP package, buildings on the grounds above 3: refer"."""
    said = []
    for h, c in zip(header[:-1], cells[:-1], strict=True):
        name = _LIMIT_MARK.sub(" ", h).strip()
        if _FIGURE_CELL.match(c):
            said.append(f"{name} above {c}")
        elif re.search(r"\d", c):
            said.append(f"{name} {c}")  # "above 500 kg": the cell says its own comparison
        else:
            said.append(c)
    return f"{', '.join(said)}: {cells[-1]}."


#: A column naming the standard's bound: "Minimum door supervisors per 100 guests".
_BOUND_COLUMN = re.compile(r"^\s*(minimum|min\.?|maximum|max\.?)\s+(.+)$", re.I)


def _standard(header: str, cell: str) -> str:
    """One cell of a standard: "1" under "Minimum supervisors" is "supervisors of at least 1"."""
    bound = _BOUND_COLUMN.match(header)
    if bound and re.search(r"\d", cell):
        least = bound.group(1).lower().startswith("min")
        return f"{bound.group(2)} of {'at least' if least else 'at most'} {cell}"
    return cell


#: Columns of an amendment table: the figure before it, and the figure from its date.
_OLD_COLUMN = re.compile(r"^\W*(?:before|previous(?:ly)?|old|former(?:ly)?|until|prior)\b", re.I)
_NEW_COLUMN = re.compile(r"^\W*(?:from|after|new|now|effective|revised|amended|as of)\b", re.I)


def _replaced_column(header: list[str]) -> int | None:
    """The column an amendment table replaces (one old column beside one new), if any."""
    old = [k for k, h in enumerate(header) if _OLD_COLUMN.match(h)]
    new = [k for k, h in enumerate(header) if _NEW_COLUMN.match(h)]
    return old[0] if len(old) == 1 and len(new) == 1 and len(header) >= 3 else None


#: A column that acts past each row's figure: "Refer above", "Decline over", "Verify below".
_ACTION_PAST = re.compile(
    r"^\W*(refer|decline|exclude|verify|flag)\s+(above|over|beyond|past|below|under)\W*$",
    re.I,
)
_BELOW = frozenset({"below", "under"})
#: A last column named for what its figure triggers: "Referral trigger", "Decline point".
_TRIGGER_HEADER = re.compile(
    r"^\W*(referral|decline|declination|exclusion|review|verification)\s+"
    r"(?:triggers?|thresholds?|points?|lines?|limits?)\W*$",
    re.I,
)
_TRIGGERED = {
    "referral": "referred",
    "decline": "declined",
    "declination": "declined",
    "exclusion": "excluded",
    "review": "flagged for review",
    "verification": "verified",
}


def _trigger_row(header: list[str], cells: list[str], trigger: str) -> str:
    """One row of a table whose last column is what triggers its action, as a rule."""
    pairs = [
        f"{h} {c}" if re.search(r"\d", c) or len(h.split()) > 1 else c
        for h, c in zip(header[:-1], cells[:-1], strict=True)
    ]
    return f"{', '.join(pairs)}, {cells[-1]}: {_TRIGGERED[trigger]}."


def _plain_row(header: list[str], cells: list[str]) -> str:
    """One row as "<header 1> <cell 1>, ...: <last cell>." (the last cell is the action)."""
    # A number needs its column's name ("PPC 7-8"), and so does a cell under a phrase
    # ("Required protection"); a word under a one-word label stands alone.
    pairs = [
        f"{h} {c}" if (re.search(r"\d", c) or len(h.split()) > 1) and not _GENERIC.match(h) else c
        for h, c in zip(header[:-1], cells[:-1], strict=True)
        if not _EVERY_CASE.match(c)
    ]
    said = cells[-1]
    product = _PRODUCT_COLUMN.match(header[-1])
    if product is not None and not _PRODUCT_NAMED.search(" ".join(cells)):
        # "| Poults reared per year | Property treatment |": the column names the product
        said = f"{said} on {canonical_product(product.group(1))}"
    return f"{', '.join(pairs)}: {said}."


#: The action column named for the product it acts on: "GL treatment", "Property action".
_PRODUCT_COLUMN = re.compile(
    r"^\W*(GL|BOP|LRO|Property)\s+(?:treatment|action|outcome|decision|handling|response)s?\W*$",
    re.I,
)
_PRODUCT_NAMED = re.compile(r"\b(?:GL|BOP|LRO|Property)\b")


#: A cell that narrows nothing: "All submissions (wood-fired pans)", "Eligible; ...".
_EVERY_CASE = re.compile(
    r"^\W*(?:(?:all|any|every)(?:\s+(?:submissions?|risks?|accounts?|cases?|locations?))?"
    r"\s*(?:\([^()]*\))?\s*$|eligible\b)",
    re.I,
)


#: A column named for what its cells are ("Pattern on the loss run", "Situation"): the
#: cells say it all, the name adds no subject.
_GENERIC = re.compile(
    r"^\W*(?:patterns?|situations?|scenarios?|circumstances?|descriptions?|"
    r"what (?:you|we) (?:see|find))\b",
    re.I,
)


def _grid_header(header: list[str], first_row: list[str]) -> bool:
    """True for a grid: ranges across the header, a named value and actions in each row.

    Each cell of the first row is an action or a plain acceptance ("Within authority"),
    and at least one is an action.
    """
    return (
        len(header) >= 3
        and not re.search(r"\d", header[0])
        and all(re.search(r"\d", h) for h in header[1:])
        and not re.search(r"\d", first_row[0])
        and all(_ACTION_WORD.search(c) or _PLAIN_ACCEPT.match(c) for c in first_row[1:])
        and any(_ACTION_WORD.search(c) and not _PLAIN_ACCEPT.match(c) for c in first_row[1:])
    )


def _bands(header: list[str]) -> list[tuple[str | None, str | None]]:
    """Each range column as (lower bound, upper bound) phrases; None where it is open.

    The quantity the first range names ("TIV up to $2.5M" -> "TIV") is repeated in the
    columns that leave it out ("over $5M" -> "TIV over $5M"). A column whose bounds
    cannot be told apart keeps its text as both bounds.
    """
    first = header[1]
    start = _RANGE_START.search(first)
    measure = first[: start.start()].strip() if start else ""
    bands: list[tuple[str | None, str | None]] = []
    for column in header[1:]:
        word = column.split()[0]
        text = column if word.isupper() else column[0].lower() + column[1:]
        named = bool(measure) and measure.lower() in text.lower()
        prefix = "" if named or not measure else f"{measure} "
        band = _BAND.match(text)
        if band:
            hi = band.group("hi")
            bands.append((f"{prefix}{band.group('lo')}", f"{prefix}up to {hi}"))
        elif _LOWER_ONLY.search(text):
            bands.append((f"{prefix}{text}", None))
        elif _UPPER_ONLY.search(text):
            bands.append((None, f"{prefix}{text}"))
        else:
            bands.append((f"{prefix}{text}", f"{prefix}{text}"))
    return bands


def _grid_cells(header: list[str], cells: list[str]) -> list[str]:
    """One sentence per run of adjacent cells of a grid row with the same action.

    Plain acceptances state no rule. A run of equal actions over neighbouring ranges is
    one rule from the first range's lower bound to the last one's upper bound.
    """
    if re.search(r"\d", cells[0]):
        return []
    bands = _bands(header)
    sentences: list[str] = []
    runs: list[tuple[str, int, int]] = []  # (action cell, first column, last column)
    for i, cell in enumerate(cells[1:]):
        if _PLAIN_ACCEPT.match(cell) or not _ACTION_WORD.search(cell):
            continue
        if runs and runs[-1][2] == i - 1 and _same(runs[-1][0], cell):
            runs[-1] = (runs[-1][0], runs[-1][1], i)
        else:
            runs.append((cell, i, i))
    for cell, first, last in runs:
        lo, hi = bands[first][0], bands[last][1]
        rng = ", ".join(p for p in dict.fromkeys((lo, hi)) if p)
        accepted = _ACCEPT_WITH.match(cell)
        rest = _REQUIRED.sub("", accepted.group("rest")) if accepted else ""
        action = f"write subject to {rest}" if accepted else cell
        action = action.replace(";", ",").rstrip(" .")
        label = f"{header[0]} {cells[0].lower()}"
        sentences.append(f"{label}, {rng}: {action}." if rng else f"{label}: {action}.")
    return sentences


#: A column that gives each row's standing: "| Class | BOP status | Notes |".
_STATUS = re.compile(r"\b(?:status|eligibility|appetite|decision|treatment)\b", re.I)


#: A status said as an order: "Refer", "Decline".
_ORDERS = frozenset("refer decline exclude verify flag".split())


def _status_column(header: list[str]) -> int | None:
    """The one column, not the first or the last, that states each row's standing."""
    found = [i for i, h in enumerate(header[1:-1], start=1) if _STATUS.search(h)]
    return found[0] if len(found) == 1 else None


def _status_row(header: list[str], cells: list[str], at: int) -> list[str]:
    """A row as its standing ("Vinegar works are ineligible (BOP status).") and its notes.

    `at` is the status column (`_status_column`).
    """
    status = cells[at].strip().rstrip(".")
    ordered = status.split()[0].lower() in _ORDERS if status else False
    # "Vinegar works: decline (BOP status)." or "Vinegar works are ineligible (BOP status)."
    joint = ": " if ordered else " are "
    said = [f"{cells[0]}{joint}{status.lower()} ({header[at]})."]
    notes = [c for i, c in enumerate(cells) if i not in (0, at) and c and not _EMPTY_CELL.match(c)]
    said += [f"{cells[0]}: {note.rstrip('.')}." for note in notes]
    return said


def _same(a: str, b: str) -> bool:
    return re.sub(r"\W+", " ", a).strip().lower() == re.sub(r"\W+", " ", b).strip().lower()


def _action_columns(header: list[str]) -> list[int]:
    """Columns whose header states an action ("Refer when ... is above"), when 2 or more."""
    found = [
        i
        for i, h in enumerate(header)
        if i and any(pattern.search(h) for _, pattern in lx.ACTION_CUES)
    ]
    return found if len(found) >= 2 else []


#: A cell that sets no figure for its action: "none set", "n/a", "no limit".
_NONE_SET = re.compile(
    r"^\W*(?:none(?: set| given| stated)?|n/?a|not (?:set|applicable|used)|no (?:limit|figure|"
    r"threshold|decline|referral)|nil|never)\W*$",
    re.I,
)


def _action_column_rows(header: list[str], cells: list[str]) -> list[str]:
    """One sentence per action column: "Music festival: decline when ... is above 12,000"."""
    rows: list[str] = []
    acting = _action_columns(header)
    # "| Waxworks | visitors on the busiest day | 2,500 or more | 6,000 or more |": what
    # the figures measure is a column of its own
    measured = ", ".join(
        cells[i].strip()
        for i in range(1, len(cells))
        if i not in acting and re.search(r"\w", cells[i])
    )
    for i in acting:
        if not re.search(r"\w", cells[i]) or _NONE_SET.match(cells[i]):
            continue  # "-", "none set": no threshold for this action
        middle = f" {measured}," if measured else ""
        rows.append(f"{header[0]} {cells[0]},{middle} {header[i]} {cells[i]}.")
    return rows
