"""Model factory: the only place where the LLM and offline modes differ.

- LLM mode (`OPENAI_API_KEY` set): `ChatOpenAI` (honours `OPENAI_BASE_URL`) with
  structured output for extraction and bound tools for agents.
- Offline mode: the deterministic `OfflineExtractor` and `OfflinePlanner`, which
  speak the same interfaces.

Callers may inject any `BaseChatModel` (tests use scripted fakes) to get the LLM
code path without a network.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from agents.llm import (
    ModelError,
    StructuredCall,
    Usage,
    as_model_error,
    first_line,
    message_text,
    model_errors,
)
from memory import OntologyDefinition, Settings
from memory.underwriting import UNDERWRITING
from prompts.extraction import EXTRACTION_FILLED, ExtractionOutput, build_extraction_messages
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

logger = logging.getLogger(__name__)

DEFAULT_EXTRACTION_ATTEMPTS = 3


class ExtractionError(RuntimeError):
    """A model kept returning output that is not a valid `ExtractionOutput`."""


__all__ = ["ExtractionError", "ModelError"]


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

    extra: dict[str, Any] = {}
    client = _loop_http_client(settings.llm_timeout)
    if client is not None:
        extra["http_async_client"] = client
    return ChatOpenAI(
        model=model or settings.llm_model,
        api_key=settings.openai_api_key,  # type: ignore[arg-type]
        base_url=settings.openai_base_url,
        temperature=0,
        max_retries=settings.llm_max_retries,  # the client honours 429 Retry-After
        timeout=settings.llm_timeout,
        **extra,
    )


_LOOP_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
    weakref.WeakKeyDictionary()
)


def _loop_http_client(timeout: float) -> Any:
    """One async HTTP client per event loop (a client cached across loops fails on the next)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    if loop not in _LOOP_CLIENTS:
        import httpx

        _LOOP_CLIENTS[loop] = httpx.AsyncClient(timeout=timeout)
    return _LOOP_CLIENTS[loop]


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


RETRY_PROMPT = (
    "Your answer was not valid: {error}\n"
    "Answer again with the complete JSON object for every rule of the text, fixing that."
)


class LLMRuleExtractor:
    """Extraction with a chat model's structured output, retried on invalid output.

    An OpenAI-compatible model gets a strict json_schema `response_format` (the schema
    checked against the strict-mode rules, `agents.llm.strict_json_schema`); other chat
    models their `with_structured_output`. An invalid answer is sent back with the
    validation error, so a deterministic model does not repeat it. Calls run at most
    `concurrency` at a time; requests and tokens are counted per text (`usage_by_text`).

    Args:
        model: Any chat model (OpenAI-compatible, or one with `with_structured_output`).
        fields: Data dictionary the conditions must use.
        ontology: Ontology rendered into the prompt.
        attempts: Calls per text before giving up.
        concurrency: Most calls in flight at once.
    """

    mode = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        fields: DataDictionary,
        ontology: OntologyDefinition = UNDERWRITING,
        attempts: int = DEFAULT_EXTRACTION_ATTEMPTS,
        concurrency: int = 8,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self._call = StructuredCall(model, ExtractionOutput, drop=EXTRACTION_FILLED)
        self._fields = fields
        self._ontology = ontology
        self._attempts = attempts
        self._concurrency = concurrency
        self._gate: asyncio.Semaphore | None = None
        self.usage_by_text: dict[str, Usage] = {}

    async def _ask(self, messages: list[BaseMessage], usage: Usage) -> tuple[Any, AIMessage | None]:
        """One call, at most `concurrency` at once."""
        if self._gate is None:
            self._gate = asyncio.Semaphore(self._concurrency)
        async with self._gate:
            return await self._call(messages, usage)

    async def extract(self, text: KnowledgeText) -> list[ExtractedRule]:
        """Return the model's rules for one text.

        Raises:
            ExtractionError: Every attempt returned invalid structured output.
            agents.llm.ModelError: The server failed (after the client's own retries).
        """
        messages = build_extraction_messages(text, self._ontology, self._fields)
        usage = self.usage_by_text.setdefault(text.id, Usage())
        last: Exception | None = None
        for attempt in range(1, self._attempts + 1):
            try:
                output, raw = await self._ask(messages, usage)
            except model_errors() as exc:
                raise as_model_error(exc, f"text {text.id!r}: extraction") from exc
            except (ValueError, ValidationError) as exc:  # a structured-output parser gave up
                output, raw = exc, None
            if isinstance(output, ExtractionOutput):
                return list(output.rules)
            last = output
            error = first_line(str(output)) or type(output).__name__
            logger.warning(
                "extraction of %s: invalid output (attempt %d/%d): %s",
                text.id,
                attempt,
                self._attempts,
                error,
            )
            answer = message_text(raw) if raw is not None else ""
            messages = [
                *messages,
                AIMessage(answer or "(no answer)"),
                HumanMessage(RETRY_PROMPT.format(error=_validation_summary(output))),
            ]
        raise ExtractionError(
            f"text {text.id!r}: the model returned invalid structured output "
            f"{self._attempts} time(s); nothing from this text was written. "
            f"Last error: {first_line(str(last))}"
        )


def _validation_summary(exc: Any, limit: int = 5) -> str:
    """The errors of an invalid answer, short enough to send back to the model."""
    if isinstance(exc, ValidationError):
        parts = [
            f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:limit]
        ]
        return "; ".join(parts)
    return first_line(str(exc)) or type(exc).__name__


def rule_extractor(
    settings: Settings,
    fields: DataDictionary,
    *,
    chat_model: BaseChatModel | None = None,
    attempts: int = DEFAULT_EXTRACTION_ATTEMPTS,
) -> RuleExtractor:
    """Return the extractor of the run's mode (an injected chat model means LLM mode)."""
    limit = settings.llm_concurrency
    if chat_model is not None:
        return LLMRuleExtractor(chat_model, fields, attempts=attempts, concurrency=limit)
    if settings.llm_enabled:
        model = openai_chat_model(settings, settings.extraction_model)
        return LLMRuleExtractor(model, fields, attempts=attempts, concurrency=limit)
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
