"""`ChatSession`: one conversation through the chat graph, enqueued for ingestion at its end."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.chat.context import Context
from agents.chat.transcripts import Turn
from agents.worker import enqueue_transcript, job_id_of
from memory.graph import RetrievalCache
from memory.sessions import FormationPolicy, JobQueue, SessionRef, SessionStore

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory import GraphMemory


INGESTED_THROUGH = "ingested_through"
"""Session counter: the last message number whose session end enqueued an ingestion."""


@dataclass(frozen=True)
class SessionEnd:
    """What ending a session did.

    Attributes:
        session_id: The conversation.
        job_id: The ingestion job (None when nothing was enqueued).
        enqueued: True when a new job was added (False: empty, or already enqueued).
        message: What happened, for people.
    """

    session_id: str
    job_id: str | None
    enqueued: bool
    message: str


class ChatSession:
    """A conversation of one user with the agent.

    Args:
        memory: Connected graph memory.
        agent_id: The agent (its rules live in `agent:<id>`).
        user_id: The underwriter.
        session_id: The conversation id; None makes a new one.
        shard_id: Shard of shared facts.
        chat_model: A chat model; None picks the mode's.
        queue: Job queue for the transcript; None uses the default queue on the server.
        policy: Memory formation gates.
        cache: Retrieval cache; None makes one attached to `memory`.
    """

    def __init__(
        self,
        memory: GraphMemory,
        *,
        agent_id: str = "athena",
        user_id: str = "underwriter",
        session_id: str | None = None,
        shard_id: str = "general",
        chat_model: BaseChatModel | None = None,
        queue: JobQueue | None = None,
        policy: FormationPolicy | None = None,
        cache: RetrievalCache | None = None,
    ) -> None:
        self.memory = memory
        self.ref = SessionRef(agent_id, user_id, session_id or uuid.uuid4().hex[:12], shard_id)
        self.queue = queue or JobQueue(memory.db)
        self.cache = cache or RetrievalCache().attach(memory)
        self.policy = policy
        self.context = Context(
            agent_id=agent_id,
            user_id=user_id,
            session_id=self.ref.session_id,
            shard_id=shard_id,
            settings=memory.settings,
            memory=memory,
            chat_model=chat_model,
            cache=self.cache,
            policy=policy,
        )
        self.ended: SessionEnd | None = None
        self._chat_model = chat_model

    async def __aenter__(self) -> ChatSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.ended is None:
            await self.end()

    async def turn(self, message: str) -> dict[str, Any]:
        """Run one turn; return ``{"reply", "memory_context"}``.

        Raises:
            ValueError: An empty message, or the session has ended.
        """
        from agents.chat.graph import graph

        if self.ended is not None:
            raise ValueError(f"session {self.ref.session_id} has ended")
        out: dict[str, Any] = await graph.ainvoke(
            {"message": message}, {"recursion_limit": 25}, context=self.context
        )
        return out

    async def send(self, message: str) -> str:
        """Run one turn and return the reply."""
        return str((await self.turn(message))["reply"])

    async def end(self) -> SessionEnd:
        """End the session: form pending memories and enqueue its new turns for ingestion.

        The user messages since the last ingestion of this session (all of them the
        first time; only the new ones when a session is resumed after its job ran)
        are enqueued as one job; long transcripts are chunked by the worker. No new
        user message with text enqueues nothing.
        """
        if self.ended is not None:
            return self.ended
        from agents import models

        # The mode's former: the model's in LLM mode, the rule-based one offline.
        former = models.memory_former(self.memory.settings, chat_model=self._chat_model)
        store = SessionStore(self.memory, policy=self.policy, former=former)
        sid = self.ref.session_id
        messages = await store.messages(self.ref)
        through = int((await store.state(sid)).get(INGESTED_THROUGH, 0) or 0)
        turns = [
            Turn(int(m.metadata.get("n", 0)), m.content)
            for m in messages
            if m.role == "user" and m.content.strip() and int(m.metadata.get("n", 0)) > through
        ]
        if not turns:
            why = "empty transcript" if not through else f"no new message since message {through}"
            self.ended = SessionEnd(sid, None, False, f"session {sid}: {why}, no job")
            return self.ended
        await store.form_memories(self.ref)
        added = await enqueue_transcript(
            self.queue,
            conversation_id=sid,
            namespace=self.ref.agent,
            transcript="\n".join(t.text for t in turns),
            user_id=self.ref.user_id,
            turns=turns,
        )
        last = max(int(m.metadata.get("n", 0)) for m in messages)
        await store.set_counter(sid, INGESTED_THROUGH, last)
        job = job_id_of(sid, turns[0].number)
        what = "enqueued" if added else "already enqueued"
        first, final = turns[0].number, turns[-1].number
        span = f"message {first}" if first == final else f"messages {first}-{final}"
        message = f"session {sid}: ingestion {what} (job {job}: {len(turns)} user turn(s), {span})"
        self.ended = SessionEnd(sid, job, added, message)
        return self.ended
