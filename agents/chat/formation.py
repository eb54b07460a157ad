"""Memory formation with a chat model (the offline mode uses `RuleBasedFormer`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from agents.llm import StructuredCall, describe
from memory.sessions import Episode, FormedMemories, RuleBasedFormer

logger = logging.getLogger(__name__)

FORMATION_PROMPT = """You turn part of a conversation between an underwriter (user) and an
assistant into memories. Return: a summary of what was discussed (at most 100 words);
directives: standing instructions the user gave about how the assistant should behave;
facts: underwriting knowledge the user stated (one self-contained sentence each).
Do not invent anything that was not said."""


class FormationOutput(BaseModel):
    """What the model returns."""

    summary: str = Field(description="At most 100 words.")
    directives: list[str] = Field(default_factory=list, description="User instructions.")
    facts: list[str] = Field(default_factory=list, description="Knowledge the user stated.")


class LLMMemoryFormer:
    """Forms memories with a chat model's structured output; falls back to the rules.

    Args:
        model: A chat model supporting `with_structured_output`.
    """

    def __init__(self, model: BaseChatModel) -> None:
        self._call = StructuredCall(model, FormationOutput)

    async def form(self, messages: Sequence[Episode]) -> FormedMemories:
        """Return the memories of the messages (the rule-based ones if the model fails)."""
        lines = "\n".join(f"{m.role}: {m.content}" for m in messages)
        try:
            out, _ = await self._call([SystemMessage(FORMATION_PROMPT), HumanMessage(lines)])
        except Exception as exc:  # noqa: BLE001 - a failing model must not lose the session
            out = exc
        if not isinstance(out, FormationOutput):
            why = describe(out) if isinstance(out, BaseException) else type(out).__name__
            logger.warning("memory formation by the model failed (%s); rule-based", why)
            return await RuleBasedFormer().form(messages)
        return FormedMemories(out.summary, list(out.directives), list(out.facts))
