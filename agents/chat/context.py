"""Run settings of the chat graph (its `context_schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic.json_schema import SkipJsonSchema

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory import GraphMemory, Settings
    from memory.graph import RetrievalCache
    from memory.sessions import FormationPolicy

    InjectedSettings = Settings | None
    InjectedMemory = GraphMemory | None
    InjectedChatModel = BaseChatModel | None
    InjectedCache = RetrievalCache | None
    InjectedPolicy = FormationPolicy | None
else:
    InjectedSettings = InjectedMemory = InjectedChatModel = SkipJsonSchema[Any]
    InjectedCache = InjectedPolicy = SkipJsonSchema[Any]

MAX_TOOL_ROUNDS = 3
HISTORY_MESSAGES = 12


@dataclass(frozen=True)
class Context:
    """Who is talking and with what.

    Attributes:
        agent_id: The agent (its namespace `agent:<id>` holds the rules).
        user_id: The underwriter.
        session_id: The conversation.
        shard_id: Shard whose facts the agent shares across users.
        max_tool_rounds: Most model turns with tool calls per message.
        history_messages: Earlier messages of the session put in the prompt.
        settings: Run settings; None loads them from the environment.
        memory: A connected graph memory; None opens one per node.
        chat_model: A chat model; None picks the mode's (see `agents.models.chat_model`).
        cache: Retrieval cache for the memory tools and context.
        policy: Memory formation gates; None uses the defaults.
    """

    agent_id: str = "athena"
    user_id: str = "underwriter"
    session_id: str = "default"
    shard_id: str = "general"
    max_tool_rounds: int = MAX_TOOL_ROUNDS
    history_messages: int = HISTORY_MESSAGES
    settings: InjectedSettings = None
    memory: InjectedMemory = None
    chat_model: InjectedChatModel = None
    cache: InjectedCache = None
    policy: InjectedPolicy = None

    def __post_init__(self) -> None:
        if self.max_tool_rounds < 0:
            raise ValueError(f"max_tool_rounds must be >= 0, got {self.max_tool_rounds}")
