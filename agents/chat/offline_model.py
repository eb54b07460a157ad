"""The offline chat model: deterministic, answers from memory through the same tools.

On a new user message it calls `check_risk_appetite` with the message; once the
results are back it replies with the rules found (and, for a statement rather than
a question, that the session's learnings will be ingested when it ends). It speaks
the chat-model interface, so the offline run walks the same graph as the LLM mode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.chat.tools import CHECK_RISK_APPETITE
from agents.offline.tool_model import OfflineToolModel

MAX_RULES_IN_REPLY = 3
_QUESTION_WORDS = ("can ", "could ", "should ", "what", "how", "is ", "are ", "do ", "does ", "why")


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


def is_question(text: str) -> bool:
    """True for a question (a '?' or a leading question word)."""
    lowered = text.strip().lower()
    return lowered.endswith("?") or lowered.startswith(_QUESTION_WORDS)


def summarise_rules(results: Sequence[dict[str, Any]]) -> list[str]:
    """Return one line per rule found: name, action, limit kind and historical limit."""
    lines = []
    for r in results[:MAX_RULES_IN_REPLY]:
        extra = []
        if r.get("threshold_type"):
            extra.append(f"{r['threshold_type']} limit")
        if r.get("soft_limit") is not None:
            extra.append(f"approved up to {r['soft_limit']:g}")
        action = str(r.get("action") or "?").replace("_", " ")
        detail = f" ({', '.join(extra)})" if extra else ""
        lines.append(f"- {r['rule_name']}: {action}{detail}. {r.get('fact', '')}".strip())
    return lines


class OfflineChatModel(OfflineToolModel):
    """Calls `check_risk_appetite` with the user's message, then summarises the rules."""

    required_tool = CHECK_RISK_APPETITE

    @property
    def _llm_type(self) -> str:
        return "athena-offline-chat"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.answer(messages))])

    def answer(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """Return the next message: a tool call for a new question, else the summary."""
        last_human = max(
            (i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1
        )
        if last_human < 0:
            return AIMessage("How can I help?")
        question = _text(messages[last_human])
        results = [m for m in messages[last_human + 1 :] if isinstance(m, ToolMessage)]
        if not results:
            call = {
                "name": CHECK_RISK_APPETITE,
                "args": {"risk": question},
                "id": f"call_{CHECK_RISK_APPETITE}_{last_human}",
                "type": "tool_call",
            }
            return AIMessage("", tool_calls=[call])  # type: ignore[list-item]
        rules: list[dict[str, Any]] = []
        for message in results:
            try:
                found = json.loads(_text(message))
            except json.JSONDecodeError:
                continue
            rules += [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []
        lines = summarise_rules(rules)
        head = (
            ""
            if is_question(question)
            else ("Noted: I will add this to memory when the session ends. ")
        )
        if not lines:
            return AIMessage(f"{head}I found no rules in memory about that.".strip())
        return AIMessage(f"{head}Rules in memory on this:\n" + "\n".join(lines))
