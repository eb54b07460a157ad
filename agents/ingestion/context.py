"""Run settings of the ingestion graph (its `context_schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic.json_schema import SkipJsonSchema

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from agents.models import RuleExtractor
    from memory import GraphMemory, Settings
    from schemas.fields import DataDictionary

    # Live objects injected by Python callers: precise types for the type checker ...
    InjectedSettings = Settings | None
    InjectedMemory = GraphMemory | None
    InjectedFields = DataDictionary | None
    InjectedExtractor = RuleExtractor | None
    InjectedChatModel = BaseChatModel | None
else:
    # ... and left out of the JSON schema Studio renders as the run's settings form.
    InjectedSettings = InjectedMemory = InjectedFields = SkipJsonSchema[Any]
    InjectedExtractor = InjectedChatModel = SkipJsonSchema[Any]

MAX_ITERATIONS = 10
Mode = Literal["auto", "offline", "llm"]
MODES = ("auto", "offline", "llm")
VECTOR_MATCH_LABELS = ("RiskFactor", "Mitigant")


@dataclass(frozen=True)
class Context:
    """What one ingestion run needs besides its input.

    Everything is optional: unset values come from the settings (`load_settings()`),
    and a graph memory is opened for the run when none is injected.

    Attributes:
        namespace: Namespace to write to (text form); None uses `settings.namespace`.
        mode: ``auto`` (LLM when `OPENAI_API_KEY` is set, else offline), ``offline``
            (deterministic extractor and planner) or ``llm`` (needs a key or a chat model).
        llm_model: Model of the relationship agent (LLM mode); None uses the settings'.
        extraction_model: Model of the extraction step (LLM mode); None uses the settings'.
        settings: Run settings; None loads them from the environment.
        memory: A connected graph memory (injected by the pipeline).
        fields: Data dictionary; None loads `settings.fields_path` or the packaged one.
        extractor: Rule extractor; None picks the mode's (see `agents.models`).
        chat_model: A chat model for both extraction and the agent (LLM mode); None
            uses ChatOpenAI when `OPENAI_API_KEY` is set, else the offline models.
        max_iterations: Most agent turns (model call + its tool calls).
        similarity_threshold: Vector match threshold; None uses the settings'.
        vector_match_labels: Labels matched by name similarity (others by key / name);
            pre-extracted rules are never vector-matched (their names are curated).
        skip_ingested: Skip texts whose source episode already holds the same content
            (a re-run redoes only the texts that failed).
    """

    namespace: str | None = None
    mode: Mode = "auto"
    llm_model: str | None = None
    extraction_model: str | None = None
    settings: InjectedSettings = None
    memory: InjectedMemory = None
    fields: InjectedFields = None
    extractor: InjectedExtractor = None
    chat_model: InjectedChatModel = None
    max_iterations: int = MAX_ITERATIONS
    similarity_threshold: float | None = None
    vector_match_labels: tuple[str, ...] = VECTOR_MATCH_LABELS
    skip_ingested: bool = True

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}; got {self.mode!r}")
        if self.max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, got {self.max_iterations}")
