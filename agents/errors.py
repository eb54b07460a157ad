"""The command line's error boundary: any exception -> one redacted line and an exit code.

Exit codes: 2 for bad input (arguments, files, settings, data), 1 for what the
environment did (the database or the model API unreachable or refusing, the
embedded server exiting while it starts or loads, a file system error, an internal
error). Credentials never reach the output: every
message goes through `memory.settings.redact`, and so does every log record
(`RedactingFilter`).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from pydantic import ValidationError

from memory.settings import redact
from schemas.errors import describe_validation_error

INPUT_ERROR = 2
ENVIRONMENT_ERROR = 1


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _os_error(exc: OSError) -> str:
    what = exc.strerror or str(exc) or type(exc).__name__
    name = exc.filename
    if isinstance(exc, IsADirectoryError):
        return f"{name} is a directory, not a file"
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return f"{name}: {what} (a path expected to be a directory is a file, or the reverse)"
    if isinstance(exc, FileNotFoundError):
        return str(exc.args[0]) if name is None and exc.args else f"no such file or folder: {name}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {name}"
    return f"{what}: {name}" if name else f"{what}"


def _redis_error(exc: Exception) -> tuple[str, int] | None:
    from redis import exceptions as rx

    text = str(exc)
    if "NOAUTH" in text or "must be called with the client already authenticated" in text:
        return (
            "FalkorDB requires a password and none was given: add it as the password "
            "part of FALKORDB_URL",
            ENVIRONMENT_ERROR,
        )
    if isinstance(exc, rx.AuthenticationError) or text.startswith("WRONGPASS"):
        return (
            "FalkorDB refused the credentials in FALKORDB_URL (wrong user or password)",
            ENVIRONMENT_ERROR,
        )
    if isinstance(exc, rx.ConnectionError | rx.TimeoutError):
        return f"cannot reach FalkorDB: {_one_line(str(exc))}", ENVIRONMENT_ERROR
    if isinstance(exc, rx.RedisError):
        return f"FalkorDB error: {_one_line(str(exc))}", ENVIRONMENT_ERROR
    return None


def _server_error(exc: Exception) -> tuple[str, int] | None:
    """The embedded server exited while starting or loading (`ServerError`): environment."""
    server = sys.modules.get("memory.backend.serverlog")  # not loaded: not its error
    if server is not None and isinstance(exc, server.ServerError):
        return str(exc), ENVIRONMENT_ERROR
    return None


def _model_error(exc: Exception) -> tuple[str, int] | None:
    from agents.llm import ModelError

    if isinstance(exc, ModelError):  # already one line: what failed and the server's answer
        return str(exc), ENVIRONMENT_ERROR
    try:
        import openai
    except ImportError:  # pragma: no cover - openai ships with the project
        return None
    if isinstance(exc, openai.APIStatusError):
        detail = _one_line(getattr(exc, "message", "") or str(exc))
        return f"model API error (HTTP {exc.status_code}): {detail}", ENVIRONMENT_ERROR
    if isinstance(exc, openai.APIConnectionError):
        where = getattr(getattr(exc, "request", None), "url", None)
        at = f" at {where}" if where else ""
        return f"cannot reach the model API{at}: {_one_line(str(exc))}", ENVIRONMENT_ERROR
    if isinstance(exc, openai.OpenAIError):
        return f"model API error: {_one_line(str(exc))}", ENVIRONMENT_ERROR
    return None


def describe(exc: BaseException) -> tuple[str, int]:
    """Return one line saying what went wrong (credentials redacted) and the exit code."""
    message, code = _describe(exc)
    return redact(_one_line(message)), code


def _describe(exc: BaseException) -> tuple[str, int]:
    if isinstance(exc, ValidationError):
        return describe_validation_error(exc), INPUT_ERROR
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text ({exc.reason} at byte {exc.start})", INPUT_ERROR
    if isinstance(exc, Exception):
        for known in (_redis_error(exc), _server_error(exc), _model_error(exc)):
            if known is not None:
                return known
    if isinstance(exc, FileNotFoundError | IsADirectoryError | NotADirectoryError):
        return _os_error(exc), INPUT_ERROR
    if isinstance(exc, ConnectionError | TimeoutError):
        return str(exc) or type(exc).__name__, ENVIRONMENT_ERROR
    if isinstance(exc, OSError):
        return _os_error(exc), ENVIRONMENT_ERROR
    if isinstance(exc, ValueError | RuntimeError):
        return str(exc) or type(exc).__name__, INPUT_ERROR
    return (
        f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)",
        ENVIRONMENT_ERROR,
    )


class RedactingFilter(logging.Filter):
    """Hide credentials in every log record (message and arguments)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message with credentials redacted; never drops a record."""
        if record.args:
            try:
                record.msg = record.getMessage()
            except (TypeError, ValueError):
                record.msg = f"{record.msg} {record.args!r}"
            record.args = None
        record.msg = redact(str(record.msg))
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Add `RedactingFilter` to every handler of `logger` (default: the root logger)."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def exception_summary(exc: Any) -> str:
    """One redacted line for an exception stored or shown outside the CLI (jobs, tools)."""
    return describe(exc)[0] if isinstance(exc, BaseException) else redact(str(exc))
