"""Ingestion data: knowledge texts going in, entity matches and the report coming out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.rules import SourceType, iso_day
from schemas.text import check_text

MatchMethod = Literal["key", "name", "vector", "new"]
IngestionMode = Literal["llm", "offline"]


class KnowledgeText(BaseModel):
    """One raw knowledge text with its provenance (a `knowledge.jsonl` line)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1, description="Source id: document, conversation or text id.")
    text: str = Field(description="The raw text (manual excerpt, SME note, case review...).")
    source: str | None = Field(default=None, description="Document name, e.g. a manual.")
    source_type: SourceType | None = Field(default=None, description="Kind of source.")
    date: str | None = Field(
        default=None,
        description="ISO day the text took effect: the valid time of the rules it states.",
    )

    @field_validator("date", mode="before")
    @classmethod
    def _day(cls, value: object) -> object:
        return None if value is None or value == "" else iso_day(value)

    @field_validator("id", "source", mode="after")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return None if value is None else check_text(value, multiline=False)

    @field_validator("text", mode="after")
    @classmethod
    def _printable(cls, value: str) -> str:
        return check_text(value)


class EntityMatch(BaseModel):
    """How an entity a rule mentions was matched to the graph."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(description="Ontology label.")
    name: str = Field(description="Name as extracted.")
    matched_name: str = Field(description="Name the writes use (the existing node's if matched).")
    matched_entity_key: str = Field(description="entity_key the writes go to.")
    method: MatchMethod = Field(description="key, name, vector, or new.")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence of the match.")
    is_new: bool = Field(description="True when no existing node matched.")
    text_id: str | None = Field(default=None, description="Text the mention came from.")


class WriteCounts(BaseModel):
    """Created / updated / unchanged counts of a kind of write."""

    model_config = ConfigDict(extra="forbid")

    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def add(self, status: str, n: int = 1) -> None:
        """Count `n` writes of one status (created, updated or unchanged)."""
        if status not in ("created", "updated", "unchanged"):
            raise ValueError(
                f"unknown write status {status!r}; allowed: created, updated, unchanged"
            )
        setattr(self, status, getattr(self, status) + n)

    def merge(self, other: WriteCounts) -> None:
        """Add another tally to this one."""
        for status in ("created", "updated", "unchanged"):
            self.add(status, getattr(other, status))


class UncoveredSentence(BaseModel):
    """A sentence that reads like a rule (an action and a condition) but produced none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text_id: str | None = Field(default=None, description="Text the sentence comes from.")
    sentence: str = Field(description="The sentence as written.")


class TextFailure(BaseModel):
    """A text that was not ingested, and why (one line)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text_id: str = Field(description="Id of the text.")
    error: str = Field(description="What went wrong, in one line.")


class ModelUsage(BaseModel):
    """Requests and tokens of one model in a run, with an estimated cost."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="Model name as the server reported it.")
    requests: int = Field(default=0, description="Requests answered.")
    input_tokens: int = Field(default=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, description="Completion tokens.")
    cost_usd: float | None = Field(
        default=None, description="Estimated USD (None when the model has no price)."
    )


class IngestionReport(BaseModel):
    """What one ingestion run did."""

    model_config = ConfigDict(extra="forbid")

    mode: IngestionMode = Field(description="llm or offline.")
    namespace: str = Field(description="Namespace written to.")
    texts_processed: int = Field(default=0, description="Texts read (empty ones included).")
    rules_extracted: int = Field(default=0, description="Rules extracted or given.")
    rules_written: int = Field(default=0, description="Rules the tools wrote successfully.")
    nodes: WriteCounts = Field(default_factory=WriteCounts, description="Node writes.")
    edges: WriteCounts = Field(default_factory=WriteCounts, description="Edge writes.")
    sources: WriteCounts = Field(default_factory=WriteCounts, description="Source episodes.")
    entities_matched: int = Field(default=0, description="Mentions matched to existing nodes.")
    entities_new: int = Field(default=0, description="Mentions with no existing node.")
    tool_calls: int = Field(default=0, description="Tool calls made by the agent.")
    tool_errors: list[str] = Field(default_factory=list, description="Tool error messages.")
    iterations: int = Field(default=0, description="Agent turns (model calls).")
    warnings: list[str] = Field(default_factory=list, description="Things worth a look.")
    rule_names: list[str] = Field(
        default_factory=list, description="Names of the stored rules written (new or changed)."
    )
    joined: dict[str, str] = Field(
        default_factory=dict,
        description="Each rule given or extracted (a claim) -> the stored rule it is part of "
        "(the same rule stated, amended or bent by another text keeps its first name).",
    )
    uncovered: list[UncoveredSentence] = Field(
        default_factory=list,
        description="Offline mode: rule-like sentences that yielded no rule (worth a look).",
    )
    failed_texts: list[str] = Field(
        default_factory=list, description="Ids of texts not ingested (a re-run redoes them)."
    )
    errors: list[str] = Field(default_factory=list, description="Why each text failed.")
    texts_skipped: int = Field(
        default=0, description="Texts already ingested with the same content (not redone)."
    )
    usage: list[ModelUsage] = Field(default_factory=list, description="Model use by model.")
    cost_usd: float | None = Field(default=None, description="Estimated USD of the model use.")
    seconds: float = Field(default=0.0, description="Wall time of the run.")

    def merge(self, other: IngestionReport) -> None:
        """Fold the report of another batch into this one."""
        self.texts_processed += other.texts_processed
        self.rules_extracted += other.rules_extracted
        self.rules_written += other.rules_written
        self.nodes.merge(other.nodes)
        self.edges.merge(other.edges)
        self.sources.merge(other.sources)
        self.entities_matched += other.entities_matched
        self.entities_new += other.entities_new
        self.tool_calls += other.tool_calls
        self.tool_errors += other.tool_errors
        self.iterations += other.iterations
        self.warnings += other.warnings
        self.rule_names += other.rule_names
        self.joined.update(other.joined)
        self.uncovered += other.uncovered
        self.failed_texts += other.failed_texts
        self.errors += other.errors
        self.texts_skipped += other.texts_skipped
        by_model = {u.model: u for u in self.usage}
        for row in other.usage:
            mine = by_model.get(row.model)
            if mine is None:
                by_model[row.model] = row.model_copy()
                continue
            mine.requests += row.requests
            mine.input_tokens += row.input_tokens
            mine.output_tokens += row.output_tokens
            if row.cost_usd is not None:
                mine.cost_usd = round((mine.cost_usd or 0.0) + row.cost_usd, 6)
        self.usage = [by_model[m] for m in sorted(by_model)]
        costs = [u.cost_usd for u in self.usage if u.cost_usd is not None]
        self.cost_usd = round(sum(costs), 6) if costs else None
