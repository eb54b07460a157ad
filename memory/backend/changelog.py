"""The per-namespace change log: what every commit changed, for other processes to follow.

Each namespace graph has, beside it on the server and in the same cluster slot
(keys hash-tagged with the graph name):

* ``athena:{<group_id>}:log``: a Redis Stream with one entry per commit, naming
  the node and edge uuids the commit wrote or invalidated;
* ``athena:{<group_id>}:epoch``: a random token set by the graph's first commit
  and replaced when the graph is cleared, so a reader never mixes the log of a
  deleted graph with a new one (nor a server started over a removed data dir);
* ``athena:{<group_id>}:trimmed``: the newest entry id the log was trimmed past.

A commit appends its entry in the same MULTI/EXEC transaction as its graph
queries (`commit_commands`), so a reader that sees the entry sees the change,
and a writer killed before EXEC leaves neither. Readers (`poll`) keep an offset
and read only entries after it; an offset older than the trim point, or an
epoch that changed, means the reader must rebuild what it derived.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

START = "0-0"  # the offset before any entry
# Trim once the log is this much longer than it should keep, not on every commit.
TRIM_SLACK = 0.1
_TRIM = """
local keep = tonumber(ARGV[1])
local slack = tonumber(ARGV[2])
local n = redis.call('XLEN', KEYS[1])
if n <= keep + slack then return 0 end
local cut = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', n - keep + 1)
redis.call('XTRIM', KEYS[1], 'MINID', cut[#cut][1])
redis.call('SET', KEYS[2], cut[#cut - 1][1])
return #cut - 1
"""


def log_key(group_id: str) -> str:
    """The stream key of a graph's change log (same cluster slot as the graph)."""
    return f"athena:{{{group_id}}}:log"


def epoch_key(group_id: str) -> str:
    """The key of a graph's epoch token."""
    return f"athena:{{{group_id}}}:epoch"


def trimmed_key(group_id: str) -> str:
    """The key holding the newest entry id the log was trimmed past."""
    return f"athena:{{{group_id}}}:trimmed"


def entry_id(value: Any) -> tuple[int, int]:
    """Parse a stream id (``"1700000000000-3"``) into a comparable pair."""
    text = value.decode() if isinstance(value, bytes) else str(value or START)
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


@dataclass(frozen=True)
class Change:
    """What one or more commits changed: node and edge uuids, written or invalidated.

    Nodes include the endpoints of changed edges, so anything derived from a node
    and its edges (such as whether a rule is still current) is refreshed too.
    """

    nodes: frozenset[str] = field(default_factory=frozenset)
    edges: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, nodes: Iterable[str] = (), edges: Iterable[str] = ()) -> Change:
        """Build a change from any iterables of uuids."""
        return cls(frozenset(nodes), frozenset(edges))

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges)

    def __or__(self, other: Change) -> Change:
        return Change(self.nodes | other.nodes, self.edges | other.edges)

    def fields(self) -> dict[str, str]:
        """The stream entry's fields."""
        return {"nodes": " ".join(sorted(self.nodes)), "edges": " ".join(sorted(self.edges))}

    @classmethod
    def from_fields(cls, fields: dict[Any, Any]) -> Change:
        """Parse a stream entry's fields."""
        values = {_text(k): _text(v) for k, v in fields.items()}
        return cls.of(values.get("nodes", "").split(), values.get("edges", "").split())


@dataclass(frozen=True)
class Poll:
    """What a reader learns from the log: the epoch and the entries after its offset."""

    epoch: str
    offset: str  # the newest entry read (the reader's offset when nothing is new)
    change: Change
    gap: bool  # entries after the reader's offset were trimmed away: rebuild


def commit_commands(group_id: str, change: Change, *, keep: int) -> list[tuple[Any, ...]]:
    """The commands a commit runs after its graph queries, inside its transaction.

    They give the graph an epoch if it has none, append the change, and trim the
    log back to `keep` entries once it has grown past that by `TRIM_SLACK`.
    """
    slack = max(int(keep * TRIM_SLACK), 1)
    return [
        ("SET", epoch_key(group_id), uuid.uuid4().hex, "NX"),
        ("XADD", log_key(group_id), "*", *[x for kv in change.fields().items() for x in kv]),
        ("EVAL", _TRIM, 2, log_key(group_id), trimmed_key(group_id), keep, slack),
    ]


def clear_commands(group_id: str) -> list[tuple[Any, ...]]:
    """The commands that retire a cleared graph's log and give it a new epoch."""
    return [
        ("DEL", log_key(group_id), trimmed_key(group_id)),
        ("SET", epoch_key(group_id), uuid.uuid4().hex),
    ]


def trim_commands(group_id: str, keep: int) -> list[tuple[Any, ...]]:
    """The commands that trim the log to its newest `keep` entries now."""
    return [("EVAL", _TRIM, 2, log_key(group_id), trimmed_key(group_id), keep, 0)]


def poll_commands(group_id: str, offset: str, count: int) -> list[tuple[Any, ...]]:
    """The commands `poll` sends in one round trip."""
    return [
        ("GET", epoch_key(group_id)),
        ("GET", trimmed_key(group_id)),
        (
            "XRANGE",
            log_key(group_id),
            "-" if offset == START else f"({offset}",
            "+",
            "COUNT",
            count,
        ),
    ]


def parse_poll(replies: Sequence[Any], offset: str) -> tuple[str, bool, list[tuple[str, Change]]]:
    """Parse `poll_commands`' replies: (epoch, gap, [(entry id, change), ...])."""
    epoch, trimmed, entries = replies
    gap = trimmed is not None and entry_id(trimmed) > entry_id(offset)
    parsed = [
        (_text(eid), Change.from_fields(dict(_pairs(fields)))) for eid, fields in entries or []
    ]
    return _text(epoch), gap, parsed


def head_commands(group_id: str) -> list[tuple[Any, ...]]:
    """The commands that read the epoch and the newest entry id (before a full build)."""
    return [
        ("GET", epoch_key(group_id)),
        ("XREVRANGE", log_key(group_id), "+", "-", "COUNT", 1),
    ]


def parse_head(replies: Sequence[Any]) -> tuple[str, str]:
    """Parse `head_commands`' replies: (epoch, newest entry id or START)."""
    epoch, last = replies
    return _text(epoch), _text(last[0][0]) if last else START


def _pairs(fields: Any) -> Iterable[tuple[Any, Any]]:
    """Stream entry fields as pairs, whether the client gave a dict or a flat list."""
    if isinstance(fields, dict):
        return fields.items()
    items = list(fields)
    return zip(items[::2], items[1::2], strict=True)


__all__ = [
    "START",
    "Change",
    "Poll",
    "clear_commands",
    "commit_commands",
    "entry_id",
    "epoch_key",
    "head_commands",
    "log_key",
    "parse_head",
    "parse_poll",
    "poll_commands",
    "trim_commands",
    "trimmed_key",
]
