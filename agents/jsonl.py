"""Reading JSONL files: the one loader behind every ``.jsonl`` the project reads.

Rules, knowledge texts, queries and submissions files are all read here. Blank
lines are skipped; every error names the file and the line (``path:line: ...``),
and nothing is returned from a file with a bad line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.errors import describe_validation_error
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from schemas.fields import DataDictionary

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


def load_labelled(
    path: str | Path,
    model: type[M],
    what: str,
    *,
    hint: Callable[[dict[str, Any]], str | bool] | None = None,
) -> list[tuple[str, M]]:
    """Validate every line of a JSONL file as `model`, each with its ``path:line``.

    Args:
        path: The file.
        model: The pydantic model of a line.
        what: What a line is, for errors (e.g. "rule").
        hint: Given a line that failed, a better explanation than the fields' errors
            (e.g. "this line is a rule"), or a false value.

    Raises:
        ValueError: One line naming file, line, field and what is allowed.
    """
    items = []
    for number, row in read_jsonl(path):
        try:
            items.append((f"{path}:{number}", model.model_validate(row)))
        except ValidationError as exc:
            why = (hint and hint(row)) or describe_validation_error(exc, model)
            raise ValueError(f"{path}:{number}: not a valid {what}: {why}") from exc
    return items


def load_models(
    path: str | Path,
    model: type[M],
    what: str,
    *,
    hint: Callable[[dict[str, Any]], str | bool] | None = None,
) -> list[M]:
    """Validate every line of a JSONL file as `model` (see `load_labelled`)."""
    return [item for _, item in load_labelled(path, model, what, hint=hint)]


def read_rules(path: str | Path) -> list[tuple[str, ExtractedRule]]:
    """Read and validate every line of a rules.jsonl file, each with its ``path:line``."""
    return load_labelled(path, ExtractedRule, "rule")


def load_rules(path: str | Path, fields: DataDictionary | None = None) -> list[ExtractedRule]:
    """Read and validate a whole ``rules.jsonl`` file (one rule per line).

    Args:
        path: The file.
        fields: With a data dictionary, also check the file as ingestion does:
            rule names unique, conditions possible (`agents.ingestion.checks`).
            Without one, only the shape of each line is checked (e.g. gold rules
            read for scoring).

    Raises:
        ValueError: The file cannot be read, a line is not JSON or not a rule, or
            (with `fields`) a rule name repeats or a condition can never hold; the
            message names file and line.
    """
    labelled = read_rules(path)
    rules = [rule for _, rule in labelled]
    if fields is not None:
        from agents.ingestion.checks import check_rules

        check_rules(rules, fields, [where for where, _ in labelled])
    return rules


__all__ = [
    "load_labelled",
    "load_models",
    "load_rules",
    "read_jsonl",
    "read_objects",
    "read_rules",
    "read_text",
]
