"""Session memory: messages as episodes, formation gates, the memory context XML, cold sweep.

Every message of a conversation is an episode (an observation) in the session's
namespace. *Forming memories* turns the messages since the last formation into
an episode summary (session namespace), user directives (user namespace) and
facts (shard namespace); it runs when `should_form_memories` opens the gate, or
from `sweep_cold_sessions` for sessions idle longer than a window.
`assemble_memory_context` renders what a prompt needs as one XML block.
The gates and formers live in `memory.sessions.formation`, the XML in
`memory.sessions.context`.

Session counters (messages, tokens, what was formed, last activity) live in a
Redis hash on the FalkorDB server (``athena:{<session graph>}:session``: hash-tagged
like the session's graph, so in a cluster both live on the same node) with a sorted
set of sessions by last activity (``athena:{sessions}:index``), so any process can
sweep.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from memory.model.namespaces import Namespace
from memory.sessions.context import Rules, memory_context_xml
from memory.sessions.formation import (
    Episode,
    FormationPolicy,
    FormedMemories,
    MemoryFormer,
    RuleBasedFormer,
    SessionRef,
    count_tokens,
    should_form_memories,
)

if TYPE_CHECKING:
    from memory.graph.store import GraphMemory

SESSIONS_INDEX = "athena:{sessions}:index"


def session_key(session_id: str) -> str:
    """The key of a session's counters (in the cluster slot of the session's graph)."""
    return f"athena:{{{Namespace.session(session_id).group_id}}}:session"


def _episode_body(memory_type: str, content: str, **metadata: Any) -> str:
    return json.dumps(
        {"memory_type": memory_type, "content": content, "metadata": metadata},
        sort_keys=True,
        ensure_ascii=False,
    )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


class SessionStore:
    """Reads and writes session memory through a connected `GraphMemory`.

    Args:
        memory: A connected graph memory.
        policy: The formation gates.
        former: Forms memories; None uses the deterministic `RuleBasedFormer`.
        clock: Wall clock in seconds (tests inject one).
    """

    def __init__(
        self,
        memory: GraphMemory,
        *,
        policy: FormationPolicy | None = None,
        former: MemoryFormer | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.memory = memory
        self.policy = policy or FormationPolicy()
        self.former: MemoryFormer = former or RuleBasedFormer()
        self.clock = clock

    async def _redis(self, call: Callable[[Any], Awaitable[Any]]) -> Any:
        return await self.memory.backend.redis(call)

    async def state(self, session_id: str) -> dict[str, str]:
        """Return the session's counters (empty for an unknown session)."""
        raw = await self._redis(lambda r: r.hgetall(session_key(session_id)))
        return {_s(k): _s(v) for k, v in (raw or {}).items()}

    async def set_counter(self, session_id: str, name: str, value: int) -> None:
        """Set one counter of the session (e.g. the last message a caller has handled)."""
        await self._redis(lambda r: r.hset(session_key(session_id), name, value))

    async def record_message(self, ref: SessionRef, role: str, content: str) -> Episode:
        """Store one message as an episode of the session and count it.

        Raises:
            ValueError: An empty message or an unknown role.
        """
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', got {role!r}")
        if not isinstance(content, str) or not content.strip():
            raise ValueError("a message needs non-empty text")
        key = session_key(ref.session_id)
        number = int(await self._redis(lambda r: r.hincrby(key, "messages", 1)))
        now = self.clock()
        fields = {"agent": ref.agent_id, "user": ref.user_id, "shard": ref.shard_id, "last_at": now}
        await self._redis(lambda r: r.hsetnx(key, "started_at", now))
        await self._redis(lambda r: r.hset(key, mapping=fields))
        await self._redis(lambda r: r.hincrby(key, "tokens", count_tokens(content)))
        await self._redis(lambda r: r.zadd(SESSIONS_INDEX, {ref.session_id: now}))
        episode = Episode(f"msg:{number:06d}", "message", content.strip(), role, {"n": number})
        await self.memory.add_source(
            ref.session,
            _episode_body("message", episode.content, role=role, n=number),
            source_id=episode.source_id,
            description=f"{role} message {number} of session {ref.session_id}",
        )
        return episode

    async def episodes(self, namespace: Namespace, memory_type: str | None = None) -> list[Episode]:
        """Return a namespace's episodes (optionally of one type) in id order."""
        out = []
        for source in await self.memory.sources(namespace):
            try:
                body = json.loads(source.content)
            except json.JSONDecodeError:
                continue
            if not isinstance(body, dict) or (
                memory_type and body.get("memory_type") != memory_type
            ):
                continue
            meta = body.get("metadata") or {}
            out.append(
                Episode(
                    source.source_id,
                    str(body.get("memory_type")),
                    str(body.get("content", "")),
                    meta.get("role"),
                    meta,
                )
            )
        return out

    async def messages(self, ref: SessionRef) -> list[Episode]:
        """Return the session's messages in order."""
        return await self.episodes(ref.session, "message")

    async def transcript(self, ref: SessionRef, roles: Sequence[str] = ("user",)) -> str:
        """Return the messages of the given roles as text, one per line."""
        lines = [m.content for m in await self.messages(ref) if m.role in roles]
        return "\n".join(lines)

    async def maybe_form_memories(self, ref: SessionRef) -> FormedMemories | None:
        """Form memories when the gates say so; return them, else None."""
        st = await self.state(ref.session_id)
        total = int(st.get("messages", 0))
        since = total - int(st.get("formed_messages", 0))
        tokens = int(st.get("tokens", 0)) - int(st.get("formed_tokens", 0))
        if not should_form_memories(total, since, tokens, self.policy):
            return None
        return await self.form_memories(ref)

    async def form_memories(self, ref: SessionRef) -> FormedMemories | None:
        """Form memories of the messages since the last formation (None if there are none).

        The summary goes to the session, directives to the user and facts to the shard
        namespace, each as an episode keyed by its content (forming twice is a no-op).
        """
        st = await self.state(ref.session_id)
        done = int(st.get("formed_messages", 0))
        messages = [m for m in await self.messages(ref) if int(m.metadata.get("n", 0)) > done]
        if not messages or int(st.get("messages", 0)) < self.policy.min_messages:
            return None
        formed = await self.former.form(messages)
        last = int(messages[-1].metadata.get("n", 0))
        origin = {"session_id": ref.session_id, "user_id": ref.user_id, "agent_id": ref.agent_id}
        await self.memory.add_source(
            ref.session,
            _episode_body("episode", formed.summary, upto=last, **origin),
            source_id=f"summary:{last:06d}",
            description=f"summary of session {ref.session_id} up to message {last}",
        )
        for kind, ns, items in (
            ("directive", ref.user, formed.directives),
            ("fact", ref.shard, formed.facts),
        ):
            for text in items:
                await self.memory.add_source(
                    ns,
                    _episode_body(kind, text, **origin),
                    source_id=f"{kind}:{_digest(text.casefold())}",
                    description=f"{kind} from session {ref.session_id}",
                )
        key = session_key(ref.session_id)
        mapping = {"formed_messages": last, "formed_tokens": st.get("tokens", 0)}
        await self._redis(lambda r: r.hset(key, mapping=mapping))
        return formed

    async def sweep_cold_sessions(
        self, *, now: float | None = None, cold_after_minutes: float | None = None
    ) -> list[str]:
        """Form the pending memories of sessions idle longer than the cold window.

        Returns:
            The ids of the sessions that formed memories.
        """
        window = (
            self.policy.cold_after_minutes if cold_after_minutes is None else cold_after_minutes
        )
        cutoff = (self.clock() if now is None else now) - window * 60
        ids = await self._redis(lambda r: r.zrangebyscore(SESSIONS_INDEX, "-inf", cutoff))
        formed = []
        for sid in map(_s, ids or []):
            st = await self.state(sid)
            if int(st.get("messages", 0)) <= int(st.get("formed_messages", 0)):
                continue
            ref = SessionRef(st["agent"], st["user"], sid, st.get("shard") or "general")
            if await self.form_memories(ref) is not None:
                formed.append(sid)
        return formed

    async def assemble_memory_context(
        self, ref: SessionRef, latest_message: str, *, rules: Rules | None = None
    ) -> str:
        """Return the memory context XML of a prompt (see `memory.sessions.context`).

        Sections: the user's directives, the agent's rules relevant to the latest
        message (`rules(text)`; None shows none), the shard's facts that share words
        with it, and the session's recent episodes.
        """
        return await memory_context_xml(self.episodes, ref, latest_message, rules)


async def assemble_memory_context(
    memory: GraphMemory, ref: SessionRef, latest_message: str, **kwargs: Any
) -> str:
    """Return the memory context XML of a prompt (see `SessionStore.assemble_memory_context`)."""
    return await SessionStore(memory).assemble_memory_context(ref, latest_message, **kwargs)


async def maybe_form_memories(
    memory: GraphMemory,
    ref: SessionRef,
    *,
    policy: FormationPolicy | None = None,
    former: MemoryFormer | None = None,
) -> FormedMemories | None:
    """Form memories when the gates say so (see `SessionStore.maybe_form_memories`)."""
    return await SessionStore(memory, policy=policy, former=former).maybe_form_memories(ref)


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


__all__ = ["SessionStore", "assemble_memory_context", "maybe_form_memories"]
