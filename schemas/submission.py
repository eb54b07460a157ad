"""Insurance submissions and underwriting decisions: parsing and answer shapes."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.fields import DataDictionary, FieldSpec
from schemas.rules import PRODUCT_TYPES, Scalar
from schemas.text import text_problem

DecisionLabel = Literal["decline", "refer", "approve_with_conditions", "approve"]
RuleOutcome = Literal["decline", "refer", "approve_with_conditions"]

_ID_KEY = "id"
_UPPER_CASE_FIELDS = frozenset({"state"})
_UPPER_CASE_HINT = re.compile(r"\bupper[\s-]case\b", re.IGNORECASE)
_NUMERIC_TEXT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class SubmissionError(ValueError):
    """A submission that does not fit the data dictionary.

    The message names the field, the expected type and the offending value, e.g.
    ``field 'employee_count' expects int, got 'twenty' (str)``.
    """


class ParsedSubmission(BaseModel):
    """A submission validated against the data dictionary."""

    model_config = ConfigDict(extra="forbid")

    values: dict[str, Scalar] = Field(
        default_factory=dict,
        description="Canonical fields with values coerced to their dictionary type; "
        "absent (unknown) fields are left out.",
    )
    unknown_fields: dict[str, Any] = Field(
        default_factory=dict,
        description="Keys that are not data-dictionary fields, kept as given so they can be "
        "reported.",
    )
    id: str | None = Field(default=None, description="The submission's id, if it had one.")


class CitedRule(BaseModel):
    """A rule an underwriting decision rests on."""

    model_config = ConfigDict(extra="forbid")

    rule_name: str = Field(min_length=1, description="Name of the cited rule.")
    outcome: RuleOutcome = Field(description="What the rule yields on this submission.")
    why: str = Field(description="Human explanation: values vs thresholds, mitigants, soft zone.")
    source: str = Field(default="unknown", description="Document the rule came from.")
    sources: list[str] = Field(
        default_factory=list, description="Every document the rule was learned from."
    )


class Decision(BaseModel):
    """An underwriting decision on one submission, with its evidence."""

    model_config = ConfigDict(extra="forbid")

    decision: DecisionLabel = Field(description="The most severe outcome over the fired rules.")
    cited_rules: list[CitedRule] = Field(
        default_factory=list,
        description="Every fired rule whose outcome equals the decision (empty for approve).",
    )
    missing_fields: list[str] = Field(
        default_factory=list,
        description="Fields the applicable rules need that the submission lacks.",
    )
    reasoning_chain: list[str] = Field(
        default_factory=list, description="Ordered reasoning steps, one sentence each."
    )
    retrieved_rules: list[str] = Field(
        default_factory=list, description="Names of the rules considered (retrieved from memory)."
    )
    latency_ms: float = Field(default=0.0, ge=0.0, description="Wall time to decide, in ms.")
    notes: list[str] = Field(
        default_factory=list,
        description="Warnings, e.g. unknown submission fields or an empty rule memory.",
    )


def parse_submission(data: Mapping[str, Any], fields: DataDictionary) -> ParsedSubmission:
    """Validate and coerce a raw submission against the data dictionary.

    Keys are matched to canonical fields ignoring case, surrounding blanks, and
    spaces or hyphens in place of underscores. A key ``id`` is the submission's
    id. A ``None`` value means the field is unknown and is left out. Coercion is
    strict but humane: an int field takes integral floats (``22.0``) and
    integral numeric text (``"22"``); a float field takes ints and numeric
    text; a bool field takes only booleans; a str field takes only text, which
    is trimmed and lower-cased, except ``state`` and fields whose description
    says "upper case", which are upper-cased, and ``product_type``, which takes
    the canonical spelling (``"bop"`` -> ``"BOP"``).

    Args:
        data: The raw submission, e.g. one ``submission`` object of ``submissions.jsonl``.
        fields: The data dictionary the submission must follow.

    Returns:
        The coerced canonical values, the unknown fields and the id.

    Raises:
        SubmissionError: ``data`` is not a mapping, a key is not text, two keys name
            the same field, or a value does not fit its field's type.
    """
    if not isinstance(data, Mapping):
        raise SubmissionError(
            f"a submission must be a JSON object of field -> value, got "
            f"{_show(data)} ({type(data).__name__})"
        )
    lookup = {_key(name): name for name in fields.fields}
    values: dict[str, Scalar] = {}
    unknown: dict[str, Any] = {}
    seen: dict[str, str] = {}
    submission_id: str | None = None
    for raw_key, raw_value in data.items():
        if not isinstance(raw_key, str):
            raise SubmissionError(
                f"field names must be text, got {_show(raw_key)} ({type(raw_key).__name__})"
            )
        name = lookup.get(_key(raw_key))
        if name is None:
            if _key(raw_key) == _ID_KEY:
                submission_id = _parse_id(raw_value)
            else:
                unknown[raw_key] = raw_value
            continue
        if name in seen:
            raise SubmissionError(
                f"field '{name}' is given twice, as '{seen[name]}' and as '{raw_key}'"
            )
        seen[name] = raw_key
        if raw_value is None:
            continue
        values[name] = coerce_value(name, raw_value, fields.fields[name])
    return ParsedSubmission(values=values, unknown_fields=unknown, id=submission_id)


def coerce_value(name: str, value: Any, spec: FieldSpec) -> Scalar:
    """Coerce one value to its field's type.

    Args:
        name: The canonical field name (used in errors and for text casing).
        value: The raw value.
        spec: The field's data-dictionary entry.

    Returns:
        The value as the field's type.

    Raises:
        SubmissionError: The value does not fit the type.
    """
    if spec.type == "bool":
        if isinstance(value, bool):
            return value
    elif spec.type == "int":
        number = _as_number(value)
        if number is not None and float(number).is_integer():
            return int(number)
    elif spec.type == "float":
        number = _as_number(value)
        if number is not None:
            return float(number)
    elif isinstance(value, str) and value.strip():
        problem = text_problem(value, multiline=False)
        if problem is not None:
            raise SubmissionError(f"field '{name}' {problem}")
        return _normalise_text(name, value.strip(), spec)
    expected = "non-empty str" if spec.type == "str" else spec.type
    raise SubmissionError(
        f"field '{name}' expects {expected}, got {_show(value)} ({type(value).__name__})"
    )


def _as_number(value: Any) -> int | float | None:
    """Return `value` as a finite int or float, or None when it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value.strip()):
        number = float(value.strip())
        return number if math.isfinite(number) else None
    return None


def _normalise_text(name: str, text: str, spec: FieldSpec) -> str:
    """Apply the dataset's casing convention to a text value."""
    if name == "product_type":
        for product in PRODUCT_TYPES:
            if product.casefold() == text.casefold():
                return product
        return text
    if name in _UPPER_CASE_FIELDS or _UPPER_CASE_HINT.search(spec.description):
        return text.upper()
    return text.lower()


def _parse_id(value: Any) -> str | None:
    """Return a submission id as text (ints are accepted), None for null."""
    if value is None:
        return None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise SubmissionError(f"field 'id' expects str, got {_show(value)} ({type(value).__name__})")


def _key(name: str) -> str:
    """Normalise a field name for matching: trimmed, lower case, underscores."""
    return re.sub(r"[\s-]+", "_", name.strip().lower())


def _show(value: Any, limit: int = 80) -> str:
    """Return a short repr of a value for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
