"""Structured underwriting rules: the shape extraction produces and memory stores."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from schemas.text import check_text

RiskCategory = Literal[
    "occupancy",
    "construction",
    "location",
    "operations",
    "eligibility",
    "pricing",
    "data_quality",
    "geographic_appetite",
    "catastrophe",
    "classification",
    "process",
]
ProductType = Literal["BOP", "LRO", "Property", "GL", "ALL"]
Action = Literal[
    "refer", "decline", "approve_with_conditions", "exclude", "verify", "flag_for_review"
]
# "review": a person's decision on the review page (it outranks every text).
SourceType = Literal["manual", "training", "sme", "production", "compliance", "review"]
Operator = Literal["eq", "neq", "lt", "lte", "gt", "gte", "in", "not_in"]
ThresholdType = Literal["hard", "soft"]
DecisionQuality = Literal["aligned", "divergent", "partial"]
Confidence = Literal["high", "medium", "low"]

Scalar = bool | int | float | str
ConditionValue = Scalar | list[Scalar]

RISK_CATEGORIES: tuple[str, ...] = RiskCategory.__args__  # type: ignore[attr-defined]
PRODUCT_TYPES: tuple[str, ...] = ProductType.__args__  # type: ignore[attr-defined]
ACTIONS: tuple[str, ...] = Action.__args__  # type: ignore[attr-defined]
SOURCE_TYPES: tuple[str, ...] = SourceType.__args__  # type: ignore[attr-defined]
OPERATORS: tuple[str, ...] = Operator.__args__  # type: ignore[attr-defined]
#: The operators that bound a number from one side.
ORDERING_OPERATORS: frozenset[str] = frozenset({"gt", "gte", "lt", "lte"})
STORED = "stored"
"""Validation context key: the data was checked when written (`{STORED: True}` skips the
control-character check, the types are still validated)."""
FREE_TEXT_FIELDS = frozenset({"outcome_description", "historical_exceptions", "compound_trigger"})
HISTORY_KEYS = ("versions", "claims")
"""Keys a stored Rule node keeps beside its current rule: its versions and the claims they
come from (`memory.underwriting.claims`); not fields of a rule, dropped when one is read."""


def iso_day(value: object) -> str:
    """A point in valid time as ISO text: ``YYYY-MM-DD`` for a day, UTC ISO for a time.

    Days and UTC times in this form sort as text in time order (a day sorts as its
    midnight), so versions and ``as_of`` compare as strings.

    Raises:
        ValueError: Anything but a date, a datetime or their ISO text, naming what is allowed.
    """
    if isinstance(value, datetime):
        return _utc(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 10:
            try:
                return date.fromisoformat(text).isoformat()
            except ValueError:
                pass
        try:
            return _utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            pass
    return _bad(value)


def _utc(when: datetime) -> str:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat()


def _bad(value: object) -> str:
    raise ValueError(
        f"a date must be an ISO day such as 2024-05-14 (or an ISO time), got {value!r}"
    )


"""Fields of a rule that may span lines; every other string is a one-line name."""


def _checked(value: object, *, multiline: bool = False) -> object:
    """Refuse control characters in a string, or in the strings of a list."""
    if isinstance(value, str):
        return check_text(value, multiline=multiline)
    if isinstance(value, list):
        for number, item in enumerate(value):
            try:
                _checked(item, multiline=multiline)
            except ValueError as exc:
                raise ValueError(f"item {number}: {exc}") from None
    return value


class _Printable(BaseModel):
    """Refuses strings holding control characters (see `schemas.text`)."""

    @field_validator("*", mode="after")
    @classmethod
    def _printable(cls, value: object, info: object) -> object:
        if (getattr(info, "context", None) or {}).get(STORED):
            return value  # checked when it was written; read back from the graph
        name = getattr(info, "field_name", "")
        return _checked(value, multiline=name in FREE_TEXT_FIELDS)


class Condition(_Printable):
    """One machine-evaluable clause of a rule's trigger."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="A canonical submission field (a key of the data dictionary).")
    operator: Operator = Field(description="Comparison applied as `submission[field] <op> value`.")
    value: ConditionValue = Field(
        description="Number, string or boolean; a list for `in` / `not_in`."
    )


class Threshold(_Printable):
    """The human-readable numeric boundary of a rule (the seed format's `threshold`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="The field the boundary applies to.")
    operator: Operator = Field(description="Comparison that crosses the boundary.")
    value: ConditionValue = Field(description="The boundary value.")
    unit: str | None = Field(default=None, description="Unit of the value, e.g. 'employees'.")


class RuleSource(_Printable):
    """One text a rule was learned from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(description="Document the text belongs to.")
    source_type: SourceType = Field(description="Kind of source.")
    text_id: str | None = Field(default=None, description="Id of the knowledge text.")
    date: str | None = Field(default=None, description="ISO day the text took effect.")


class RuleConflict(_Printable):
    """An open disagreement between this rule and another current rule of the same content."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule_name: str = Field(description="The other rule, current beside this one.")
    text_ids: list[str] = Field(description="The two texts that disagree (this rule's first).")
    fields: list[str] = Field(description="Condition fields the two disagree on.")
    date: str | None = Field(default=None, description="ISO day both statements took effect.")


class ExtractedRule(_Printable):
    """An underwriting rule in the dataset's `rules.jsonl` shape."""

    model_config = ConfigDict(extra="forbid")

    rule_name: str = Field(min_length=1, description="Short unique name of the rule.")
    risk_factor: str = Field(min_length=1, description="The risk the rule reacts to.")
    risk_category: RiskCategory = Field(description="Category of the risk factor.")
    product_type: ProductType = Field(default="ALL", description="Product the rule applies to.")
    action: Action = Field(description="What the rule prescribes when it fires.")
    outcome_description: str = Field(default="", description="Plain-language outcome and why.")
    mitigants: list[str] = Field(default_factory=list, description="Mitigants in plain words.")
    mitigant_fields: list[str] = Field(
        default_factory=list,
        description="Boolean data-dictionary fields; any true one mitigates the rule.",
    )
    source: str = Field(default="unknown", description="Document the rule came from.")
    source_type: SourceType = Field(default="manual", description="Kind of source.")
    confidence: Confidence = Field(default="medium", description="Extraction confidence.")
    threshold: Threshold | None = Field(default=None, description="Numeric boundary, if any.")
    threshold_type: ThresholdType | None = Field(default=None, description="hard or soft.")
    soft_limit: float | None = Field(
        default=None, description="For soft thresholds: the historical limit of exceptions."
    )
    historical_exceptions: str | None = Field(
        default=None, description="Real-world deviations from the stated rule."
    )
    decision_quality: DecisionQuality | None = Field(
        default=None, description="For production cases: aligned, divergent or partial."
    )
    compound_trigger: str | None = Field(
        default=None, description="Conditions that must combine, e.g. 'a AND b AND c'."
    )
    conditions: list[Condition] = Field(
        default_factory=list, description="The trigger: the rule fires when ALL hold."
    )
    data_fields: list[str] = Field(
        default_factory=list, description="Fields the rule reads or references."
    )
    text_id: str | None = Field(default=None, description="Id of the knowledge text it came from.")
    date: str | None = Field(
        default=None,
        description="ISO day (or time) the text took effect: its valid time (None: ingestion).",
    )
    withdrawn: bool = Field(
        default=False, description="The text lifts or withdraws this rule (from `date` on)."
    )
    valid_from: str | None = Field(
        default=None, description="Consolidated rule: ISO day this version took effect."
    )
    valid_to: str | None = Field(
        default=None,
        description="Consolidated rule: ISO day this version stopped; None if current.",
    )
    sources: list[RuleSource] = Field(
        default_factory=list, description="Consolidated rule: every text behind this version."
    )
    conflicts: list[RuleConflict] = Field(
        default_factory=list, description="Open conflicts with other current rules."
    )

    @field_validator("date", "valid_from", "valid_to", mode="before")
    @classmethod
    def _day(cls, value: object) -> object:
        return None if value is None else iso_day(value)

    @model_validator(mode="before")
    @classmethod
    def _drop_history(cls, data: Any, info: ValidationInfo) -> Any:
        """A stored Rule node's document holds its history too; a rule is read without it."""
        if isinstance(data, dict) and (info.context or {}).get(STORED):
            if any(k in data for k in HISTORY_KEYS):
                return {k: v for k, v in data.items() if k not in HISTORY_KEYS}
        return data
