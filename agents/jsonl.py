"""Reading JSONL files: the one loader behind every ``.jsonl`` the project reads.

Rules, knowledge texts, queries and submissions files are all read here. Blank
lines are skipped; every error names the file and the line (``path:line: ...``),
and nothing is returned from a file with a bad line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.rules import ExtractedRule

M = TypeVar("M", bound=BaseModel)


def read_text(path: str | Path, *, error: type[ValueError] = ValueError) -> str:
    """Return a UTF-8 file's text.

    Raises:
        ValueError: (or `error`) The file is missing, unreadable or not UTF-8.
    """
    try:
        return Path(path).read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_jsonl(
    path: str | Path, *, error: type[ValueError] = ValueError
) -> list[tuple[int, dict[str, Any]]]:
    """Return (line number, object) of every non-blank line of a JSONL file.

    Args:
        path: The file.
        error: The exception class to raise (a `ValueError`, e.g. `SubmissionError`).

    Raises:
        ValueError: (or `error`) The file cannot be read, or a line is not a JSON object.
    """
    rows = []
    for number, line in enumerate(read_text(path, error=error).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise error(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
        rows.append((number, row))
    return rows


def read_objects(path: str | Path) -> list[dict[str, Any]]:
    """Return the objects of a JSONL file, in order (see `read_jsonl`)."""
    return [row for _, row in read_jsonl(path)]


def load_models(path: str | Path, model: type[M], what: str) -> list[M]:
    """Validate every line of a JSONL file as `model`.

    Args:
        path: The file.
        model: The pydantic model of a line.
        what: What a line is, for errors (e.g. "rule").

    Raises:
        ValueError: The file cannot be read, or a line is not JSON or not a valid `what`.
    """
    items = []
    for number, row in read_jsonl(path):
        try:
            items.append(model.model_validate(row))
        except ValidationError as exc:
            raise ValueError(f"{path}:{number}: not a valid {what}: {exc}") from exc
    return items


def load_rules(path: str | Path) -> list[ExtractedRule]:
    """Read and validate a whole ``rules.jsonl`` file (one rule per line).

    Raises:
        ValueError: The file cannot be read, or a line is not JSON or not a rule.
    """
    return load_models(path, ExtractedRule, "rule")


__all__ = ["load_models", "load_rules", "read_jsonl", "read_objects", "read_text"]
