"""Session memory: formation, memory context, the session store, the job queue.

Formation gates and formers, the memory context XML, the session store with its
cold sweep, and the job queue with its worker loop (over the backend's key and
stream access).
"""

from memory.sessions.context import ContextRule, memory_context_xml, relevant
from memory.sessions.formation import (
    CONSIDER_COLD_AFTER_MINUTES,
    MEMORY_FORMATION_MSG_INTERVAL,
    MEMORY_FORMATION_TOKEN_INTERVAL,
    NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES,
    Episode,
    FormationPolicy,
    FormedMemories,
    MemoryFormer,
    RuleBasedFormer,
    SessionRef,
    count_tokens,
    should_form_memories,
)
from memory.sessions.queue import (
    DEFAULT_BACKOFF_SECONDS,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_PREFIX,
    DEFAULT_VISIBILITY_TIMEOUT,
    STATUSES,
    Delivery,
    Job,
    JobQueue,
)
from memory.sessions.store import SessionStore, assemble_memory_context, maybe_form_memories
from memory.sessions.worker import Handler, run_worker, worker_name

__all__ = [
    "CONSIDER_COLD_AFTER_MINUTES",
    "DEFAULT_BACKOFF_SECONDS",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_PREFIX",
    "DEFAULT_VISIBILITY_TIMEOUT",
    "MEMORY_FORMATION_MSG_INTERVAL",
    "MEMORY_FORMATION_TOKEN_INTERVAL",
    "NEVER_FORM_MEMORIES_LESS_THAN_N_MESSAGES",
    "STATUSES",
    "ContextRule",
    "Delivery",
    "Episode",
    "FormationPolicy",
    "FormedMemories",
    "Handler",
    "Job",
    "JobQueue",
    "MemoryFormer",
    "RuleBasedFormer",
    "SessionRef",
    "SessionStore",
    "assemble_memory_context",
    "count_tokens",
    "maybe_form_memories",
    "memory_context_xml",
    "relevant",
    "run_worker",
    "should_form_memories",
    "worker_name",
]
