"""The memory context of a prompt: one XML block of what the agent should know now.

Sections: the user's directives, the agent's rules relevant to the latest message
(from a `rules` callable the caller supplies: the domain decides what a rule is),
the shard's facts that share words with it, and the session's recent episodes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol
from xml.etree import ElementTree as ET

from memory.model.namespaces import Namespace
from memory.sessions.formation import Episode, SessionRef, _terms

RECENT_EPISODES = 6
"""Session episodes shown in the memory context."""
CONTEXT_RULES = 5
"""Agent rules shown in the memory context."""
CONTEXT_FACTS = 5
"""Shard facts shown in the memory context."""


class ContextRule(Protocol):
    """A rule shown in the memory context (e.g. `memory.underwriting.RuleHit`)."""

    @property
    def rule_name(self) -> str:
        """The rule's name."""
        ...

    @property
    def fact(self) -> str:
        """The rule's text."""
        ...

    @property
    def properties(self) -> dict[str, Any]:
        """The rule's properties; those named in `_RULE_ATTRS` become XML attributes."""
        ...


Rules = Callable[[str], Awaitable[Sequence[ContextRule]]]
Episodes = Callable[[Namespace, str | None], Awaitable[list[Episode]]]


async def memory_context_xml(
    episodes: Episodes, ref: SessionRef, latest_message: str, rules: Rules | None = None
) -> str:
    """Return the memory context XML of a prompt.

    Args:
        episodes: Reads a namespace's episodes of one memory type (None: all).
        ref: Who is talking.
        latest_message: The message the prompt answers.
        rules: The agent's rules relevant to a text; None shows none.
    """
    root = ET.Element(
        "memory_context", agent=ref.agent_id, user=ref.user_id, session=ref.session_id
    )
    section = ET.SubElement(root, "user_directives")
    for d in await episodes(ref.user, "directive"):
        ET.SubElement(section, "directive").text = d.content
    section = ET.SubElement(root, "agent_rules")
    hits = await rules(latest_message) if rules is not None and latest_message.strip() else []
    for hit in hits[:CONTEXT_RULES]:
        attrs = {k: str(hit.properties[k]) for k in _RULE_ATTRS if hit.properties.get(k)}
        ET.SubElement(section, "rule", {"name": hit.rule_name, **attrs}).text = hit.fact
    section = ET.SubElement(root, "shard_facts", shard=ref.shard_id)
    for fact in relevant(await episodes(ref.shard, "fact"), latest_message, CONTEXT_FACTS):
        ET.SubElement(section, "fact").text = fact.content
    section = ET.SubElement(root, "session_episodes")
    for ep in (await episodes(ref.session, None))[-RECENT_EPISODES:]:
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
