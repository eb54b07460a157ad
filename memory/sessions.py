"""Session memory: messages as episodes, formation gates, the memory context XML, cold sweep.

Every message of a conversation is an episode (an observation) in the session's
namespace. *Forming memories* turns the messages since the last formation into
an episode summary (session namespace), user directives (user namespace) and
facts (shard namespace); it runs when `should_form_memories` opens the gate, or
from `sweep_cold_sessions` for sessions idle longer than a window.
`assemble_memory_context` renders what a prompt needs as one XML block.

Session counters (messages, tokens, what was formed, last activity) live in a
Redis hash on the FalkorDB server (``athena:session:<id>``) with a sorted set of
sessions by last activity (``athena:sessions``), so any process can sweep.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from xml.etree import ElementTree as ET

from memory.namespaces import Namespace

if TYPE_CHECKING:
    from memory.analytics import RuleHit
    from memory.store import GraphMemory

MEMORY_FORMATION_MSG_INTERVAL = 10
"""Form memories once this many messages arrived since the last formation."""
MEMORY_FORMATION_TOKEN_INTERVAL = 1500
"""... or once this many tokens (about 4 characters each) arrived since then."""
NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES = 4
"""Sessions shorter than this never form memories (not even from the cold sweep)."""
CONSIDER_COLD_AFTER_MINUTES = 30.0
"""A session idle this long is cold: the sweep forms its pending memories."""
RECENT_EPISODES = 6
"""Session episodes shown in the memory context."""
CONTEXT_RULES = 5
"""Agent rules shown in the memory context."""
CONTEXT_FACTS = 5
"""Shard facts shown in the memory context."""

SESSION_KEY = "athena:session:{}"
SESSIONS_INDEX = "athena:sessions"
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
        return await self.memory.db.call(lambda: call(self.memory.db.client.connection))

    async def state(self, session_id: str) -> dict[str, str]:
        """Return the session's counters (empty for an unknown session)."""
        raw = await self._redis(lambda r: r.hgetall(SESSION_KEY.format(session_id)))
        return {_s(k): _s(v) for k, v in (raw or {}).items()}

    async def record_message(self, ref: SessionRef, role: str, content: str) -> Episode:
        """Store one message as an episode of the session and count it.

        Raises:
            ValueError: An empty message or an unknown role.
        """
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', got {role!r}")
        if not isinstance(content, str) or not content.strip():
            raise ValueError("a message needs non-empty text")
        key = SESSION_KEY.format(ref.session_id)
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
        key = SESSION_KEY.format(ref.session_id)
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
        self,
        ref: SessionRef,
        latest_message: str,
        *,
        rules: Callable[[str], Awaitable[list[RuleHit]]] | None = None,
    ) -> str:
        """Return the memory context XML of a prompt.

        Sections: the user's directives, the agent's rules relevant to the latest
        message (`rules(text)`, default `GraphAnalytics.check_risk_appetite`), the
        shard's facts that share words with it, and the session's recent episodes.
        """
        if rules is None:
            from memory.analytics import GraphAnalytics

            analytics = GraphAnalytics(self.memory, ref.agent)
            rules = lambda text: analytics.check_risk_appetite(text, limit=CONTEXT_RULES)  # noqa: E731
        root = ET.Element(
            "memory_context", agent=ref.agent_id, user=ref.user_id, session=ref.session_id
        )
        section = ET.SubElement(root, "user_directives")
        for d in await self.episodes(ref.user, "directive"):
            ET.SubElement(section, "directive").text = d.content
        section = ET.SubElement(root, "agent_rules")
        hits = await rules(latest_message) if latest_message.strip() else []
        for hit in hits[:CONTEXT_RULES]:
            attrs = {k: str(hit.properties[k]) for k in _RULE_ATTRS if hit.properties.get(k)}
            ET.SubElement(section, "rule", {"name": hit.rule_name, **attrs}).text = hit.fact
        section = ET.SubElement(root, "shard_facts", shard=ref.shard_id)
        for fact in relevant(await self.episodes(ref.shard, "fact"), latest_message, CONTEXT_FACTS):
            ET.SubElement(section, "fact").text = fact.content
        section = ET.SubElement(root, "session_episodes")
        for ep in (await self.episodes(ref.session))[-RECENT_EPISODES:]:
            attrs = {"kind": ep.memory_type, **({"role": ep.role} if ep.role else {})}
            ET.SubElement(section, "episode", attrs).text = ep.content
        ET.indent(root)
        return ET.tostring(root, encoding="unicode")


_RULE_ATTRS = ("product_type", "action", "threshold_type", "soft_limit")


def relevant(episodes: Sequence[Episode], text: str, limit: int) -> list[Episode]:
    """Return the episodes sharing the most words with `text` (none share nothing)."""
    words = _terms(text)
    scored = [(len(words & _terms(e.content)), i, e) for i, e in enumerate(episodes)]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return [e for _, _, e in ranked[:limit]]


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


__all__ = [
    "CONSIDER_COLD_AFTER_MINUTES",
    "MEMORY_FORMATION_MSG_INTERVAL",
    "MEMORY_FORMATION_TOKEN_INTERVAL",
    "NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES",
    "Episode",
    "FormationPolicy",
    "FormedMemories",
    "MemoryFormer",
    "RuleBasedFormer",
    "SessionRef",
    "SessionStore",
    "count_tokens",
    "assemble_memory_context",
    "maybe_form_memories",
    "relevant",
    "should_form_memories",
]
