"""Run settings of the underwriting graph (its LangGraph `context_schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic.json_schema import SkipJsonSchema

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory import GraphMemory
    from schemas.fields import DataDictionary

    # Live objects injected by Python callers: precise types for the type checker ...
    InjectedMemory = GraphMemory | None
    InjectedFields = DataDictionary | None
    InjectedChatModel = BaseChatModel | None
else:
    # ... and left out of the JSON schema Studio renders as the run's settings form.
    InjectedMemory = InjectedFields = InjectedChatModel = SkipJsonSchema[Any]

Mode = Literal["offline", "llm"]


@dataclass(frozen=True)
class Context:
    """Settings of one underwriting run.

    Plain values can come from JSON (LangGraph Studio); the object fields are for
    callers that inject live objects (the CLI, the eval, tests).

    Attributes:
        namespace: Namespace holding the rules, e.g. ``agent:athena``.
        mode: ``offline`` (the policy decides) or ``llm`` (a chat model decides,
            checked against the policy).
        model: Chat model name for the LLM mode; None uses the settings' model.
        allow_refer_interrupt: Pause on a ``refer`` for a human reviewer (needs a
            checkpointer).
        fields_path: Data dictionary file; None uses the settings' or the packaged one.
        search_limit: Rules kept per semantic query of a risk signal.
        max_llm_attempts: LLM answers tried before falling back to the policy.
        memory: An open `GraphMemory`; None opens one from the settings for the run.
        fields: A loaded data dictionary (wins over `fields_path`).
        chat_model: A chat model (wins over `model`).
    """

    namespace: str = "agent:athena"
    mode: Mode = "offline"
    model: str | None = None
    allow_refer_interrupt: bool = False
    fields_path: str | None = None
    search_limit: int = 5
    max_llm_attempts: int = 2
    memory: InjectedMemory = None
    fields: InjectedFields = None
    chat_model: InjectedChatModel = None

    def __post_init__(self) -> None:
        if self.mode not in ("offline", "llm"):
            raise ValueError(f"mode must be 'offline' or 'llm', got {self.mode!r}")
        if self.search_limit < 1:
            raise ValueError(f"search_limit must be at least 1, got {self.search_limit}")
        if self.max_llm_attempts < 1:
            raise ValueError(f"max_llm_attempts must be at least 1, got {self.max_llm_attempts}")

    def describe(self) -> dict[str, Any]:
        """Return the plain settings (no live objects), e.g. for logs."""
        return {
            "namespace": self.namespace,
            "mode": self.mode,
            "model": self.model,
            "allow_refer_interrupt": self.allow_refer_interrupt,
        }
