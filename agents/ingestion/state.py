"""State of the ingestion graph, split into input, working state and output."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from schemas.ingestion import (
    EntityMatch,
    IngestionReport,
    KnowledgeText,
    ModelUsage,
    TextFailure,
    UncoveredSentence,
    WriteCounts,
)
from schemas.rules import ExtractedRule


class IngestionInput(TypedDict, total=False):
    """What a run is given.

    Attributes:
        texts: Knowledge texts: plain strings or `{text, source, source_type, id}`
            objects (their ids are the source ids of provenance).
        rules: Pre-extracted rules; when given, extraction is skipped and `texts`
            only provide the source episodes.
    """

    texts: Sequence[str | KnowledgeText]
    rules: list[ExtractedRule]


class IngestionState(TypedDict, total=False):
    """The working state."""

    texts: list[KnowledgeText]
    rules: list[ExtractedRule]
    mode: str
    matches: list[EntityMatch]
    messages: Annotated[list[AnyMessage], add_messages]
    iterations: int
    sources: WriteCounts
    warnings: Annotated[list[str], operator.add]
    uncovered: list[UncoveredSentence]
    coverage: dict[str, list[str]]
    """Text id -> its rule-like sentences that yielded no rule, for every text whose
    extractor reports coverage (kept on the text's source episode)."""
    failed: Annotated[list[TextFailure], operator.add]
    skipped: list[str]
    aborted: str
    usage: Annotated[list[ModelUsage], operator.add]
    written: dict[str, Any]
    report: IngestionReport


class IngestionOutput(TypedDict):
    """What a run returns."""

    report: IngestionReport
