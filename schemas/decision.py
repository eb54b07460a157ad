"""What a chat model answers when it decides a submission (structured output)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from schemas.submission import DecisionLabel


class DecisionProposal(BaseModel):
    """A model's decision on one submission, citing the rules it rests on."""

    model_config = ConfigDict(extra="forbid")

    decision: DecisionLabel = Field(
        description="decline, refer, approve_with_conditions or approve."
    )
    cited_rules: list[str] = Field(
        default_factory=list,
        description="Exact names of the fired rules the decision rests on (empty for approve).",
    )
    rationale: str = Field(default="", description="Two or three sentences of reasoning.")
