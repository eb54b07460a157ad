"""What a node resolves from the run context: settings, namespace, dictionary, mode, memory.

Everything here is read when a node runs, never at import time.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from agents import models
from agents.ingestion.context import Context
from agents.memory_use import memory_for
from memory import GraphMemory, Namespace, Settings, load_settings
from schemas.fields import DataDictionary, load_data_dictionary

__all__ = [
    "chat_model_of",
    "fields_of",
    "memory_of",
    "mode_of",
    "model_settings_of",
    "namespace_of",
    "settings_of",
]


def settings_of(ctx: Context) -> Settings:
    """Return the run's settings (loaded from the environment when not given)."""
    return ctx.settings or load_settings()


def namespace_of(ctx: Context) -> Namespace:
    """Return the run's namespace."""
    return Namespace.parse(ctx.namespace or settings_of(ctx).namespace)


def fields_of(ctx: Context) -> DataDictionary:
    """Return the run's data dictionary."""
    return ctx.fields or load_data_dictionary(settings_of(ctx).fields_path)


def model_settings_of(ctx: Context) -> Settings:
    """Return the settings the model factories see: the run's mode and model names applied.

    Raises:
        ValueError: `mode` is ``llm`` but there is neither an `OPENAI_API_KEY` nor a chat model.
    """
    settings = settings_of(ctx)
    update: dict[str, Any] = {}
    if ctx.mode == "offline":
        update["openai_api_key"] = None  # the models only; the memory keeps its embedder
    elif ctx.mode == "llm" and ctx.chat_model is None and not settings.llm_enabled:
        raise ValueError("ingestion mode 'llm' needs OPENAI_API_KEY or an injected chat_model")
    if ctx.llm_model:
        update["llm_model"] = ctx.llm_model
    if ctx.extraction_model:
        update["extraction_model"] = ctx.extraction_model
    return settings.model_copy(update=update) if update else settings


def mode_of(ctx: Context) -> str:
    """Return `llm` or `offline` for the run."""
    if ctx.extractor is not None:
        return ctx.extractor.mode
    if ctx.chat_model is not None and ctx.mode != "offline":
        return "llm"
    return models.mode(model_settings_of(ctx))


def chat_model_of(ctx: Context) -> Any:
    """Return the injected chat model unless the run is forced offline."""
    return None if ctx.mode == "offline" else ctx.chat_model


def memory_of(ctx: Context) -> AbstractAsyncContextManager[GraphMemory]:
    """The injected memory, or one opened from the run's settings for this node."""
    return memory_for(ctx.memory, lambda: settings_of(ctx))
