"""Forming memories: the formation gates, the session's parties, episodes and formers.

*Forming memories* turns a session's messages since the last formation into an
episode summary, user directives and facts. `should_form_memories` is the gate
(`FormationPolicy`); a `MemoryFormer` (an LLM, or the deterministic
`RuleBasedFormer`) does the forming. `SessionRef` names who is talking and the
namespaces their memories go to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from memory.model.namespaces import Namespace

MEMORY_FORMATION_MSG_INTERVAL = 10
"""Form memories once this many messages arrived since the last formation."""
MEMORY_FORMATION_TOKEN_INTERVAL = 1500
"""... or once this many tokens (about 4 characters each) arrived since then."""
NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES = 4
"""Sessions shorter than this never form memories (not even from the cold sweep)."""
CONSIDER_COLD_AFTER_MINUTES = 30.0
"""A session idle this long is cold: the sweep forms its pending memories."""

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by for from has have i if in is it its of on or our so that the "
    "this to was we were what when which will with you your do does can".split()
)


@dataclass(frozen=True)
class FormationPolicy:
    """The formation gates (defaults: the module constants; every value can be set)."""

    msg_interval: int = MEMORY_FORMATION_MSG_INTERVAL
    token_interval: int = MEMORY_FORMATION_TOKEN_INTERVAL
    min_messages: int = NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES
    cold_after_minutes: float = CONSIDER_COLD_AFTER_MINUTES

    def __post_init__(self) -> None:
        for name in ("msg_interval", "token_interval", "min_messages"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.cold_after_minutes < 0:
            raise ValueError(f"cold_after_minutes must be >= 0, got {self.cold_after_minutes}")


def count_tokens(text: str) -> int:
    """Approximate the tokens of a text (about four characters each)."""
    return math.ceil(len(text) / 4) if text else 0


def should_form_memories(
    total_messages: int,
    messages_since: int,
    tokens_since: int,
    policy: FormationPolicy | None = None,
) -> bool:
    """Return whether a session should form memories now.

    Args:
        total_messages: Messages in the session so far.
        messages_since: Messages since the last formation.
        tokens_since: Tokens since the last formation.
        policy: The gates; None uses the defaults.
    """
    policy = policy or FormationPolicy()
    if total_messages < policy.min_messages or messages_since < 1:
        return False
    return messages_since >= policy.msg_interval or tokens_since >= policy.token_interval


@dataclass(frozen=True)
class SessionRef:
    """Who is talking: the agent, the user, the session and the shard its facts go to."""

    agent_id: str
    user_id: str
    session_id: str
    shard_id: str = "general"

    def __post_init__(self) -> None:
        for ns in (self.session, self.user, self.shard):  # validates every part
            _ = ns.group_id

    @property
    def agent(self) -> Namespace:
        """Namespace of the agent's rules."""
        return Namespace.agent(self.agent_id)

    @property
    def session(self) -> Namespace:
        """Namespace of the session's episodes."""
        return Namespace.session(self.session_id)

    @property
    def user(self) -> Namespace:
        """Namespace of the user's directives."""
        return Namespace.user(self.agent_id, self.user_id)

    @property
    def shard(self) -> Namespace:
        """Namespace of the shard's facts."""
        return Namespace.shard(self.agent_id, self.shard_id)


@dataclass(frozen=True)
class Episode:
    """One stored episode: a message, a summary, a directive or a fact."""

    source_id: str
    memory_type: str
    content: str
    role: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FormedMemories:
    """What forming memories over some messages produced."""

    summary: str
    directives: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)


class MemoryFormer(Protocol):
    """Forms memories from messages (an LLM, or the deterministic `RuleBasedFormer`)."""

    async def form(self, messages: Sequence[Episode]) -> FormedMemories:
        """Return the summary, directives and facts of the messages."""
        ...


_DIRECTIVE = re.compile(
    r"^(?:please\s+)?(?:always|never|don't|do not|from now on|remember to|make sure|"
    r"i prefer|i want you to|i'd like you to)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


class RuleBasedFormer:
    """Deterministic former (no model).

    Directives are the user's sentences with an imperative opening ("always ...",
    "never ..."), facts the user's other declarative sentences; the summary says
    who said what.
    """

    async def form(self, messages: Sequence[Episode]) -> FormedMemories:
        """Return the memories of the messages."""
        user = [m for m in messages if m.role == "user"]
        directives, facts = [], []
        for message in user:
            for sentence in _sentences(message.content):
                if _DIRECTIVE.match(sentence):
                    directives.append(sentence)
                elif not sentence.endswith("?") and len(_terms(sentence)) >= 3:
                    facts.append(sentence)
        topics = [m.content.split("\n")[0][:80] for m in user[:3]]
        summary = (
            f"{len(messages)} message(s), {len(user)} from the user. "
            + (f"The user raised: {'; '.join(topics)}." if topics else "")
        ).strip()
        return FormedMemories(summary, list(dict.fromkeys(directives)), list(dict.fromkeys(facts)))


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}
