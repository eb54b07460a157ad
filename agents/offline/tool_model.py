"""The shared shape of the offline (deterministic) tool-calling chat models."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool


class OfflineToolModel(BaseChatModel):
    """A deterministic stand-in for an LLM that drives one named tool.

    Subclasses set `required_tool` and implement `_generate`; binding tools
    checks that the required one is among them and returns the model itself.
    """

    required_tool: ClassVar[str]

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Return the model itself after checking that `required_tool` is bound.

        Raises:
            ValueError: The required tool is not among `tools`.
        """
        names = {getattr(t, "name", None) for t in tools}
        if self.required_tool not in names:
            raise ValueError(
                f"{type(self).__name__} needs a {self.required_tool!r} tool; "
                f"got {sorted(map(str, names))}"
            )
        return self  # type: ignore[return-value]
