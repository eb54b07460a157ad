"""The ingestion agent: raw underwriting knowledge -> ontology-correct graph memory.

report = await IngestionPipeline(memory, "agent:athena").run(texts)
report = await ingest_rules(memory, "agent:athena", load_rules("rules.jsonl"))
"""

from agents.ingestion.loaders import MAX_TEXT_CHARS, load_texts, normalise_texts
from agents.ingestion.pipeline import IngestionPipeline, ingest_rules, ingest_texts
from agents.jsonl import load_rules

__all__ = [
    "MAX_TEXT_CHARS",
    "IngestionPipeline",
    "ingest_rules",
    "ingest_texts",
    "load_rules",
    "load_texts",
    "normalise_texts",
]
