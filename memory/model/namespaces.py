"""Memory namespaces and their Graphiti group ids.

A namespace names whose memory a read or write touches:

| kind      | parts                  | text form                  |
| --------- | ---------------------- | -------------------------- |
| `agent`   | agent id               | `agent:athena`             |
| `session` | session id             | `session:4f2a`             |
| `user`    | agent id, user id      | `user:athena:jane.doe`     |
| `shard`   | agent id, shard id     | `shard:athena:property`    |

Graphiti on FalkorDB keeps each group id in its own graph, so a namespace can
never read another's data. Group ids allow only `[A-Za-z0-9_-]`; the mapping
below is injective: parts join with `__` and the characters `_ . @` inside a
part are escaped as `_5f _2e _40`, so no escaped part contains `__`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

NamespaceKind = Literal["agent", "session", "user", "shard"]

PARTS_BY_KIND: dict[str, tuple[str, ...]] = {
    "agent": ("agent_id",),
    "session": ("session_id",),
    "user": ("agent_id", "user_id"),
    "shard": ("agent_id", "shard_id"),
}
MAX_PART_LENGTH = 64
_PART_RE = re.compile(r"^[A-Za-z0-9._@-]+$")
_ESCAPES = {"_": "_5f", ".": "_2e", "@": "_40"}
_UNESCAPES = {code: char for char, code in _ESCAPES.items()}
_SEPARATOR = "__"
ALLOWED_PART_CHARS = "letters, digits, '-', '_', '.', '@'"


def _check_part(kind: str, name: str, value: str) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"namespace {kind}: {name} must be a non-empty string, got {value!r}")
    if len(value) > MAX_PART_LENGTH:
        raise ValueError(
            f"namespace {kind}: {name} {value[:20]!r}... is {len(value)} characters; "
            f"at most {MAX_PART_LENGTH} are allowed"
        )
    if not _PART_RE.match(value):
        bad = sorted({c for c in value if not re.match(r"[A-Za-z0-9._@-]", c)})
        raise ValueError(
            f"namespace {kind}: {name} {value!r} has characters {bad!r} that are not allowed; "
            f"allowed: {ALLOWED_PART_CHARS}"
        )


def _escape(part: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in part)


def _unescape(encoded: str, group_id: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(encoded):
        if encoded[i] == "_":
            code = encoded[i : i + 3]
            if code not in _UNESCAPES:
                raise ValueError(f"group id {group_id!r} has a bad escape {code!r}")
            out.append(_UNESCAPES[code])
            i += 3
        else:
            out.append(encoded[i])
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Namespace:
    """A memory namespace: a kind and its identifying parts.

    Attributes:
        kind: One of `agent`, `session`, `user`, `shard`.
        parts: The identifying parts, in the order `PARTS_BY_KIND[kind]` lists.
    """

    kind: NamespaceKind
    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in PARTS_BY_KIND:
            raise ValueError(
                f"unknown namespace kind {self.kind!r}; allowed: {', '.join(PARTS_BY_KIND)}"
            )
        names = PARTS_BY_KIND[self.kind]
        if len(self.parts) != len(names):
            raise ValueError(
                f"namespace {self.kind} takes {len(names)} part(s) ({', '.join(names)}), "
                f"got {len(self.parts)}: {self.parts!r}"
            )
        for name, value in zip(names, self.parts, strict=True):
            _check_part(self.kind, name, value)

    @classmethod
    def agent(cls, agent_id: str) -> Namespace:
        """The global rules of an agent, e.g. `agent:athena`."""
        return cls("agent", (agent_id,))

    @classmethod
    def session(cls, session_id: str) -> Namespace:
        """One conversation."""
        return cls("session", (session_id,))

    @classmethod
    def user(cls, agent_id: str, user_id: str) -> Namespace:
        """What an agent keeps about one user."""
        return cls("user", (agent_id, user_id))

    @classmethod
    def shard(cls, agent_id: str, shard_id: str) -> Namespace:
        """A collective shard of an agent."""
        return cls("shard", (agent_id, shard_id))

    @functools.cached_property
    def group_id(self) -> str:
        """The Graphiti group id (and FalkorDB graph name) of this namespace (made once)."""
        return _SEPARATOR.join([self.kind, *(_escape(p) for p in self.parts)])

    @property
    def agent_id(self) -> str | None:
        """The agent the namespace belongs to, when its kind has one."""
        return None if self.kind == "session" else self.parts[0]

    def __str__(self) -> str:
        return ":".join([self.kind, *self.parts])

    @classmethod
    def from_group_id(cls, group_id: str) -> Namespace:
        """Parse a group id made by `group_id` back into its namespace.

        Raises:
            ValueError: The text is not a group id of any namespace.
        """
        pieces = group_id.split(_SEPARATOR)
        kind = pieces[0]
        if kind not in PARTS_BY_KIND:
            raise ValueError(
                f"group id {group_id!r} does not start with a namespace kind "
                f"({', '.join(PARTS_BY_KIND)})"
            )
        return cls(kind, tuple(_unescape(p, group_id) for p in pieces[1:]))  # type: ignore[arg-type]

    @classmethod
    def parse(cls, text: str) -> Namespace:
        """Parse `kind:part[:part]` (e.g. `user:athena:jane`); a bare name means an agent.

        Raises:
            ValueError: The kind is unknown or a part is invalid.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("namespace must be a non-empty string like 'agent:athena'")
        pieces = text.strip().split(":")
        if len(pieces) == 1:
            return cls.agent(pieces[0])
        kind = pieces[0]
        if kind not in PARTS_BY_KIND:
            raise ValueError(
                f"unknown namespace kind {kind!r} in {text!r}; allowed: {', '.join(PARTS_BY_KIND)}"
            )
        return cls(kind, tuple(pieces[1:]))  # type: ignore[arg-type]


def as_namespace(value: Namespace | str) -> Namespace:
    """Accept a `Namespace` or its text form."""
    return value if isinstance(value, Namespace) else Namespace.parse(value)
