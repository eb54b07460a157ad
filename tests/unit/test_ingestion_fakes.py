"""Scripted chat models for ingestion tests (no network)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChatModel(BaseChatModel):
    """Replies from two scripts: one for extraction calls, one for agent calls.

    Supports `bind_tools` (returns itself) and hence the default
    `with_structured_output`, which reads the first tool call's arguments.
    """

    extraction: list[AIMessage] = []
    agent: list[AIMessage] = []
    calls: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        system = str(messages[0].content)
        script = self.extraction if "You extract underwriting rules" in system else self.agent
        self.calls.append("extraction" if script is self.extraction else "agent")
        if not script:
            raise AssertionError("scripted model ran out of replies")
        return ChatResult(generations=[ChatGeneration(message=script.pop(0))])


def structured(rules: list[dict[str, Any]], call_id: str = "x1") -> AIMessage:
    """An AIMessage carrying an ExtractionOutput as a tool call."""
    return AIMessage(
        "",
        tool_calls=[
            {
                "name": "ExtractionOutput",
                "args": {"rules": rules},
                "id": call_id,
                "type": "tool_call",
            }
        ],
    )


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    """An AIMessage calling tools."""
    return AIMessage(
        "",
        tool_calls=[
            {"name": n, "args": a, "id": f"c{i}", "type": "tool_call"}
            for i, (n, a) in enumerate(calls)
        ],
    )
