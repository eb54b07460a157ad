"""Structured underwriting rules: the shape extraction produces and memory stores."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
SourceType = Literal["manual", "training", "sme", "production", "compliance"]
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
STORED = "stored"
"""Validation context key: the data was checked when written (`{STORED: True}` skips the
control-character check, the types are still validated)."""
FREE_TEXT_FIELDS = frozenset({"outcome_description", "historical_exceptions", "compound_trigger"})
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
