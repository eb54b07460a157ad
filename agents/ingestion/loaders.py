"""Input handling: raw texts and files (.txt, .md, knowledge.jsonl, rules.jsonl).

Everything is validated before anything is written: a bad line names its file and
line number, a non-UTF-8 file names the file, an oversized text names the limit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agents.jsonl import load_models, read_text
from schemas.errors import describe_validation_error
from schemas.ingestion import KnowledgeText

MAX_TEXT_CHARS = 50_000
"""Longest text accepted (characters). Longer texts are refused: split them by section."""

TEXT_SUFFIXES = (".txt", ".md")
RawInput = str | KnowledgeText | Sequence[str | KnowledgeText] | Mapping[str, str]


def text_id(text: str) -> str:
    """Return a stable id for a text given without one (a hash of its content)."""
    return "text-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def check_size(text: KnowledgeText) -> None:
    """Refuse a text over `MAX_TEXT_CHARS`.

    Raises:
        ValueError: The text is too long; the message names the limit.
    """
    if len(text.text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"text {text.id!r} has {len(text.text):,} characters; the limit is "
            f"{MAX_TEXT_CHARS:,} per text. Split it into smaller texts (e.g. by section)."
        )


def normalise_texts(
    raw: RawInput,
    *,
    source: str | None = None,
    source_type: str | None = None,
    source_id: str | None = None,
    check_sizes: bool = True,
) -> list[KnowledgeText]:
    """Turn a string, a list of strings or a dict of strings (key = id) into texts.

    List items may also be `{text, source, source_type, id}` objects.

    Args:
        raw: The input; `KnowledgeText`s pass through.
        source: Document name for texts that have none.
        source_type: manual, training, sme, production or compliance.
        source_id: Conversation or document id; a list's texts get `id:1`, `id:2`...
        check_sizes: Refuse texts over `MAX_TEXT_CHARS` (off for the source episodes
            of pre-extracted rules, which are not extracted from).

    Raises:
        ValueError: An item is not a string or holds control characters, or a text
            is over the size limit.
    """
    items: list[tuple[str | None, Any]]
    if isinstance(raw, str | KnowledgeText):
        items = [(source_id, raw)]
    elif isinstance(raw, Mapping):
        items = [(str(k), v) for k, v in raw.items()]
    elif isinstance(raw, Sequence):
        items = [(f"{source_id}:{i}" if source_id else None, v) for i, v in enumerate(raw, 1)]
    else:
        raise ValueError(
            f"cannot ingest a {type(raw).__name__}; give a string, a list of strings "
            "or a dict of strings keyed by source id"
        )
    texts = []
    for key, value in items:
        if isinstance(value, KnowledgeText):
            texts.append(value)
            continue
        if isinstance(value, Mapping) and isinstance(value.get("text"), str):
            # A {text, source, source_type[, id]} object (e.g. from LangGraph Studio).
            doc = {"source": source, "source_type": source_type, **value}
            doc["id"] = str(doc.get("id") or key or text_id(value["text"]))
            try:
                texts.append(KnowledgeText.model_validate(doc))
            except ValidationError as exc:
                why = describe_validation_error(exc, KnowledgeText)
                raise ValueError(f"text {doc['id']!r} is not a knowledge text: {why}") from exc
            continue
        if not isinstance(value, str):
            raise ValueError(
                f"text {key or len(texts) + 1!r} is a {type(value).__name__}; texts must be strings"
            )
        doc = {"id": key or text_id(value), "text": value, "source": source}
        try:
            texts.append(KnowledgeText.model_validate({**doc, "source_type": source_type}))
        except ValidationError as exc:
            why = describe_validation_error(exc, KnowledgeText)
            raise ValueError(f"text {doc['id']!r}: {why}") from exc
    if check_sizes:
        for text in texts:
            check_size(text)
    return texts


def _line_of(body: str) -> int:
    """The line of `body` holding the first character a text may not hold."""
    from schemas.text import text_problem

    for number, line in enumerate(body.splitlines(), 1):
        if text_problem(line):
            return number
    return 1


def is_rules_file(path: Path) -> bool:
    """True for a `rules.jsonl`-style file (by name)."""
    return path.suffix == ".jsonl" and "rules" in path.stem.lower()


def load_texts(path: str | Path) -> list[KnowledgeText]:
    """Read a .txt / .md file (one text, id = file name) or a knowledge.jsonl file.

    Raises:
        ValueError: Unsupported suffix, non-UTF-8 content, a bad line or an oversized text.
    """
    path = Path(path)
    if path.suffix in TEXT_SUFFIXES:
        body = read_text(path)
        try:
            texts = [KnowledgeText(id=path.name, text=body, source=path.name)]
        except ValidationError as exc:
            why = describe_validation_error(exc, KnowledgeText)
            raise ValueError(f"{path}:{_line_of(body)}: {why}") from exc
    elif path.suffix == ".jsonl":
        texts = load_models(
            path,
            KnowledgeText,
            "knowledge text",
            hint=lambda row: (
                "rule_name" in row
                and "this line is a rule: pass --rules (or name the file *rules*.jsonl)"
            ),
        )
    else:
        raise ValueError(
            f"{path}: unsupported file type {path.suffix or '(none)'!r}; "
            "allowed: .txt, .md, knowledge .jsonl, rules .jsonl"
        )
    for text in texts:
        check_size(text)
    return texts
