"""A deterministic planner: the offline stand-in for the relationship agent's chat model.

It reads the `<rules>` block of the conversation's first human message and answers
with one `write_rule` tool call per rule; once tool results are back it replies with
a summary and no tool call. It speaks the chat-model interface (`bind_tools`,
`AIMessage.tool_calls`), so the offline run walks the same graph and tools as the
LLM mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.offline.tool_model import OfflineToolModel
from prompts.relationship import parse_rule_refs

WRITE_RULE = "write_rule"
WRITE_EXTRACTED_RULES = "write_extracted_rules"


def _text(message: BaseMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else str(content)


class OfflinePlanner(OfflineToolModel):
    """Emits `write_rule` calls for the rules in the prompt, then a final summary."""

    required_tool = WRITE_RULE
    bound_tools: tuple[str, ...] = ()

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """Check the tools (see `OfflineToolModel`) and remember their names."""
        super().bind_tools(tools, **kwargs)
        names = tuple(str(getattr(t, "name", "")) for t in tools)
        return self.model_copy(update={"bound_tools": names})

    @property
    def _llm_type(self) -> str:
        return "athena-offline-planner"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.plan(messages))])

    def plan(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """Return the next message: the tool calls of the first turn, else a summary."""
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if results:
            errors = sum(1 for m in results if m.status == "error")
            return AIMessage(
                f"Done: {len(results) - errors} tool call(s) succeeded, {errors} failed."
            )
        human = next((m for m in messages if isinstance(m, HumanMessage)), None)
        refs = parse_rule_refs(_text(human)) if human is not None else []
        rules = [rule for _, rule in refs]
        if not rules:
            return AIMessage("No rules to write.")
        if WRITE_EXTRACTED_RULES in self.bound_tools:
            call = {
                "name": WRITE_EXTRACTED_RULES,
                "args": {"rule_ids": [ref for ref, _ in refs]},
                "id": f"call_{WRITE_EXTRACTED_RULES}",
                "type": "tool_call",
            }
            return AIMessage("", tool_calls=[call])  # type: ignore[list-item]
        calls = [
            {
                "name": WRITE_RULE,
                "args": {
                    "rule": rule.model_dump(mode="json"),
                    "source_id": rule.text_id,
                },
                "id": f"call_{WRITE_RULE}_{i}",
                "type": "tool_call",
            }
            for i, rule in enumerate(rules)
        ]
        return AIMessage("", tool_calls=calls)  # type: ignore[arg-type]
