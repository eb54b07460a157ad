"""Chat model factory: the only place where the LLM and offline modes differ."""

from __future__ import annotations

import logging

from langchain_core.language_models import BaseChatModel

from memory import Settings

logger = logging.getLogger(__name__)


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
