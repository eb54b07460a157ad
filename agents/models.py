"""Model factory: the only place where the LLM and offline modes differ.

- LLM mode (`OPENAI_API_KEY` set): `ChatOpenAI` (honours `OPENAI_BASE_URL`) with
  structured output for extraction and bound tools for agents.
- Offline mode: the deterministic `OfflineExtractor` and `OfflinePlanner`, which
  speak the same interfaces.

Callers may inject any `BaseChatModel` (tests use scripted fakes) to get the LLM
code path without a network.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from memory import OntologyDefinition, Settings
from memory.underwriting import UNDERWRITING
from prompts.extraction import ExtractionOutput, build_extraction_messages
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

logger = logging.getLogger(__name__)

DEFAULT_EXTRACTION_ATTEMPTS = 3


class ExtractionError(RuntimeError):
    """A model kept returning output that is not a valid `ExtractionOutput`."""


class RuleExtractor(Protocol):
    """Turns one knowledge text into structured rules."""

    mode: str

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return every rule the text states."""
        ...


def mode(settings: Settings) -> str:
    """Return `llm` when an OpenAI-compatible model is configured, else `offline`."""
    return "llm" if settings.llm_enabled else "offline"


def openai_chat_model(settings: Settings, model: str | None = None) -> BaseChatModel:
    """Return a `ChatOpenAI` for the configured server (honours `OPENAI_BASE_URL`).

    Raises:
        ValueError: No `OPENAI_API_KEY` is configured.
    """
    if not settings.openai_api_key:
        raise ValueError("the LLM mode needs OPENAI_API_KEY")
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model or settings.llm_model,
        api_key=settings.openai_api_key,  # type: ignore[arg-type]
        base_url=settings.openai_base_url,
        temperature=0,
        max_retries=2,
    )


class OfflineRuleExtractor:
    """The deterministic extractor behind the `RuleExtractor` interface."""

    mode = "offline"

    def __init__(self, fields: DataDictionary) -> None:
        from agents.offline import OfflineExtractor

        self._extractor = OfflineExtractor(fields)
        #: text id -> sentences that read like rules but yielded none (coverage report).
        self.uncovered: dict[str, list[str]] = {}

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return the rules the offline extractor finds in the text."""
        rules, uncovered = self._extractor.extract_with_coverage(
            text.text, source=text.source, source_type=text.source_type, text_id=text.id
        )
        self.uncovered[text.id] = uncovered
        return rules


class LLMRuleExtractor:
    """Extraction with a chat model's structured output, retried on invalid output.

    Args:
        model: Any chat model that supports `with_structured_output`.
        fields: Data dictionary the conditions must use.
        ontology: Ontology rendered into the prompt.
        attempts: Calls per text before giving up.
    """

    mode = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        fields: DataDictionary,
        ontology: OntologyDefinition = UNDERWRITING,
        attempts: int = DEFAULT_EXTRACTION_ATTEMPTS,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        self._structured = model.with_structured_output(ExtractionOutput)
        self._fields = fields
        self._ontology = ontology
        self._attempts = attempts

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return the model's rules for one text.

        Raises:
            ExtractionError: Every attempt returned invalid structured output.
        """
        messages = build_extraction_messages(text, self._ontology, self._fields)
        last: Exception | None = None
        for attempt in range(1, self._attempts + 1):
            try:
                output = await self._structured.ainvoke(messages)
                if isinstance(output, dict):
                    output = ExtractionOutput.model_validate(output)
                if not isinstance(output, ExtractionOutput):
                    raise ValueError(f"expected ExtractionOutput, got {type(output).__name__}")
                return list(output.rules)
            except Exception as exc:  # noqa: BLE001 - any parse/validation failure is retried
                last = exc
                logger.warning(
                    "extraction of %s: invalid output (attempt %d/%d): %s",
                    text.id,
                    attempt,
                    self._attempts,
                    str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                )
        raise ExtractionError(
            f"text {text.id!r}: the model returned invalid structured output "
            f"{self._attempts} time(s); nothing from this batch was written. Last error: {last}"
        )


def rule_extractor(
    settings: Settings,
    fields: DataDictionary,
    *,
    chat_model: BaseChatModel | None = None,
    attempts: int = DEFAULT_EXTRACTION_ATTEMPTS,
) -> RuleExtractor:
    """Return the extractor of the run's mode (an injected chat model means LLM mode)."""
    if chat_model is not None:
        return LLMRuleExtractor(chat_model, fields, attempts=attempts)
    if settings.llm_enabled:
        model = openai_chat_model(settings, settings.extraction_model)
        return LLMRuleExtractor(model, fields, attempts=attempts)
    return OfflineRuleExtractor(fields)


def _bind(
    settings: Settings,
    tools: Sequence[BaseTool],
    chat_model: BaseChatModel | None,
    offline: Callable[[], BaseChatModel],
) -> Runnable[LanguageModelInput, AIMessage]:
    """Bind tools to the injected model, else ChatOpenAI (with a key), else `offline()`."""
    if chat_model is None and settings.llm_enabled:
        chat_model = openai_chat_model(settings, settings.llm_model)
    return (chat_model or offline()).bind_tools(list(tools))


def tool_calling_model(
    settings: Settings,
    tools: Sequence[BaseTool],
    *,
    chat_model: BaseChatModel | None = None,
) -> Runnable[LanguageModelInput, AIMessage]:
    """Return the ingestion agent's model with `tools` bound (offline: the planner)."""
    from agents.offline.planner import OfflinePlanner

    return _bind(settings, tools, chat_model, OfflinePlanner)


def chat_model(
    settings: Settings,
    tools: Sequence[BaseTool],
    *,
    chat_model: BaseChatModel | None = None,
) -> Runnable[LanguageModelInput, AIMessage]:
    """Return the chat agent's model with `tools` bound (offline: a deterministic model)."""
    from agents.chat.offline_model import OfflineChatModel

    return _bind(settings, tools, chat_model, OfflineChatModel)


def memory_former(settings: Settings, *, chat_model: BaseChatModel | None = None) -> Any:
    """Return the session memory former: the LLM one with a model, else the rule-based one."""
    from memory.sessions import RuleBasedFormer

    if chat_model is None and settings.llm_enabled:
        chat_model = openai_chat_model(settings, settings.llm_model)
    if chat_model is None:
        return RuleBasedFormer()
    from agents.chat.formation import LLMMemoryFormer

    try:
        return LLMMemoryFormer(chat_model)
    except (NotImplementedError, ValueError):  # no structured output (offline / scripted)
        return RuleBasedFormer()
