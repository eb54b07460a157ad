"""State of the chat graph: one user message in, one reply out."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class ChatInput(TypedDict, total=False):
    """What a turn is given: the user's message, as text or as chat messages.

    Attributes:
        messages: Chat messages (LangGraph Studio's chat); the last human one is the turn.
        message: The user's message as plain text (wins over `messages`).
    """

    messages: Annotated[list[AnyMessage], add_messages]
    message: str


class ChatState(TypedDict, total=False):
    """The working state of one turn."""

    message: str
    memory_context: str
    messages: Annotated[list[AnyMessage], add_messages]
    rounds: int
    reply: str


class ChatOutput(TypedDict):
    """What a turn returns: the reply, the memory context its prompt carried, the messages."""

    reply: str
    memory_context: str
    messages: Annotated[list[AnyMessage], add_messages]
