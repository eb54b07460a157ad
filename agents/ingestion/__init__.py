"""The ingestion agent: raw underwriting knowledge -> ontology-correct graph memory.

report = await IngestionPipeline(memory, "agent:athena").run(texts)
report = await ingest_rules(memory, "agent:athena", load_rules("rules.jsonl"))

The pipeline (LangGraph, the model factories) is imported on first use: the bulk
path of pre-extracted rules (`agents.ingestion.bulk`) does without it.
"""

from typing import TYPE_CHECKING, Any

from agents.ingestion.loaders import MAX_TEXT_CHARS, load_texts, normalise_texts
from agents.jsonl import load_rules

if TYPE_CHECKING:
    from agents.ingestion.pipeline import IngestionPipeline, ingest_rules, ingest_texts

_LAZY = {"IngestionPipeline", "ingest_rules", "ingest_texts"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from agents.ingestion import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'agents.ingestion' has no attribute {name!r}")


__all__ = [
    "MAX_TEXT_CHARS",
    "IngestionPipeline",
    "ingest_rules",
    "ingest_texts",
    "load_rules",
    "load_texts",
    "normalise_texts",
]
