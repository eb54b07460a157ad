"""Run settings, from the environment or a YAML file with `${ENV_VAR}` expansion."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

EmbedderChoice = Literal["auto", "wordllama", "openai"]
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^@/\s]*)@")
SECRET_VARIABLES = ("OPENAI_API_KEY", "ATHENA_MCP_TOKEN")
"""Environment variables whose values are never printed."""


def _hide_userinfo(match: re.Match[str]) -> str:
    user, sep, _ = match.group("info").partition(":")
    return f"{match.group('scheme')}{user + ':***' if sep else '***'}@"


def redact(text: str, secrets: tuple[str, ...] | list[str] = ()) -> str:
    """Hide credentials in text: URL passwords (``redis://:***@host``) and known secrets.

    Args:
        text: Any text about to be printed or logged (an error, a URL, a report).
        secrets: Further values to hide; the values of `SECRET_VARIABLES` always are.
    """
    text = _URL_USERINFO.sub(_hide_userinfo, str(text))
    hidden = [*secrets, *(os.environ.get(name, "") for name in SECRET_VARIABLES)]
    for secret in sorted({s for s in hidden if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def default_data_dir() -> Path:
    """Where the embedded database lives when `ATHENA_DATA_DIR` is unset."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "athena-memory"


class Settings(BaseSettings):
    """Athena Memory settings.

    Every field reads the environment variable named in its alias; a YAML file
    may set the same keys (in lower case) and refer to variables as `${VAR}` or
    `${VAR:-default}`.
    """

    model_config = SettingsConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    falkordb_url: str | None = Field(
        default=None,
        repr=False,
        alias="FALKORDB_URL",
        description="redis:// or falkor:// URL of a FalkorDB server; unset starts an embedded one.",
    )
    falkordb_read_urls: str | None = Field(
        default=None,
        alias="FALKORDB_READ_URLS",
        description=(
            "Comma-separated URLs of read replicas of FALKORDB_URL for read-only queries "
            "(a process reads its own recent writes from the primary until a replica has them)."
        ),
    )
    falkordb_pool_size: int = Field(
        default=8,
        ge=1,
        le=1024,
        alias="FALKORDB_POOL_SIZE",
        description="Connections per server (per cluster node) a process may hold at once.",
    )
    data_dir: Path = Field(
        default_factory=default_data_dir,
        alias="ATHENA_DATA_DIR",
        description="Directory of the embedded FalkorDB (and local state).",
    )
    index_snapshots: bool = Field(
        default=True,
        alias="ATHENA_INDEX_SNAPSHOTS",
        description="Save in-process search indexes under the data dir for a warm start.",
    )
    change_log_keep: int = Field(
        default=10_000,
        ge=1,
        alias="ATHENA_CHANGE_LOG_KEEP",
        description="Commits each namespace's change log keeps for readers to catch up from.",
    )
    load_timeout: float = Field(
        default=300.0,
        gt=0,
        alias="ATHENA_LOAD_TIMEOUT",
        description=(
            "Seconds a command waits for the embedded server to load its data after a "
            "restart (it reports its progress meanwhile) before giving up with an error."
        ),
    )
    openai_api_key: str | None = Field(
        default=None,
        repr=False,
        alias="OPENAI_API_KEY",
        description="Enables the LLM mode when set.",
    )
    openai_base_url: str | None = Field(
        default=None, alias="OPENAI_BASE_URL", description="Any OpenAI-compatible server."
    )
    llm_model: str = Field(
        default="gpt-4o-mini", alias="ATHENA_LLM_MODEL", description="Chat model for agents."
    )
    extraction_model: str = Field(
        default="gpt-4o", alias="ATHENA_EXTRACTION_MODEL", description="Model for extraction."
    )
    embedder: EmbedderChoice = Field(
        default="auto",
        alias="ATHENA_EMBEDDER",
        description="auto (OpenAI with a key, else WordLlama), wordllama or openai.",
    )
    embedding_model: str = Field(
        default="text-embedding-3-small",
        alias="ATHENA_EMBEDDING_MODEL",
        description="OpenAI embedding model.",
    )
    namespace: str = Field(
        default="agent:athena", alias="ATHENA_NAMESPACE", description="Default namespace."
    )
    fields_path: Path | None = Field(
        default=None,
        alias="ATHENA_FIELDS",
        description="Data dictionary (fields.json); unset uses the packaged one.",
    )
    similarity_threshold: float = Field(
        default=0.86,
        alias="ATHENA_SIMILARITY_THRESHOLD",
        ge=0.0,
        le=1.0,
        description="Cosine similarity above which two entity names are the same entity.",
    )
    mcp_token: str | None = Field(
        default=None,
        repr=False,
        alias="ATHENA_MCP_TOKEN",
        description="Bearer token of `athena mcp --http`; unset: one generated in the data dir.",
    )
    query_timeout_ms: int = Field(
        default=5000, alias="ATHENA_QUERY_TIMEOUT_MS", gt=0, description="traverse() limit."
    )
    llm_concurrency: int = Field(
        default=8, alias="ATHENA_LLM_CONCURRENCY", ge=1, description="Model calls at once."
    )
    llm_timeout: float = Field(
        default=60.0, alias="ATHENA_LLM_TIMEOUT", gt=0, description="Seconds per model request."
    )
    llm_max_retries: int = Field(
        default=2,
        alias="ATHENA_LLM_MAX_RETRIES",
        ge=0,
        description="Client retries of a failed request (5xx, 429 after its Retry-After).",
    )
    llm_prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict,
        alias="ATHENA_LLM_PRICES",
        description="USD per million input and output tokens by model, e.g. "
        '{"gpt-4o": [2.5, 10]}; merged over the built-in prices.',
    )

    @field_validator(
        "falkordb_url",
        "falkordb_read_urls",
        "openai_api_key",
        "openai_base_url",
        "mcp_token",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def read_urls(self) -> list[str]:
        """The read replicas' URLs (empty without FALKORDB_READ_URLS)."""
        return [u.strip() for u in (self.falkordb_read_urls or "").split(",") if u.strip()]

    @property
    def llm_enabled(self) -> bool:
        """True when an OpenAI-compatible model is configured."""
        return bool(self.openai_api_key)

    @property
    def resolved_embedder(self) -> Literal["wordllama", "openai"]:
        """The embedder `auto` resolves to."""
        if self.embedder == "auto":
            return "openai" if self.llm_enabled else "wordllama"
        return self.embedder


def _expand(value: Any) -> Any:
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in os.environ:
                return os.environ[name]
            if default is not None:
                return default
            raise ValueError(f"settings file refers to ${{{name}}}, which is not set")

        return _ENV_REF.sub(sub, value)
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


def load_settings(path: str | Path | None = None, **overrides: Any) -> Settings:
    """Load settings from the environment, optionally layered under a YAML file.

    Args:
        path: A YAML file of settings (keys are field names, e.g. `data_dir`);
            None reads `ATHENA_CONFIG` if set, else only the environment.
        **overrides: Field values that win over both.

    Returns:
        The frozen settings.

    Raises:
        ValueError: The file cannot be read, is not a mapping, names an unknown
            setting, or refers to an unset variable.
    """
    path = path or os.environ.get("ATHENA_CONFIG") or None
    values: dict[str, Any] = {}
    if path is not None:
        import yaml  # only a settings file needs it: a command without one skips the import

        try:
            loaded = yaml.safe_load(Path(path).read_text("utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"cannot read settings file {path}: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ValueError(f"settings file {path} must hold a mapping of setting: value")
        known = set(Settings.model_fields)
        unknown = sorted(set(loaded) - known)
        if unknown:
            raise ValueError(
                f"settings file {path} has unknown keys {unknown}; allowed: {sorted(known)}"
            )
        values = _expand(loaded)
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        # Environment first, then file values (by field name) on top, then overrides.
        env = Settings()
        return Settings.model_validate({**env.model_dump(), **values})
    except ValidationError as exc:
        from schemas.errors import describe_validation_error

        why = describe_validation_error(exc)
        raise ValueError(redact(f"invalid settings: {why}")) from exc
