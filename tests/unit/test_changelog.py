"""Change-log entries and polls parse as the readers need them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memory.backend.changelog import (
    START,
    Change,
    commit_commands,
    entry_id,
    log_key,
    parse_head,
    parse_poll,
)


def test_keys_share_the_graphs_cluster_slot() -> None:
    assert log_key("agent_x") == "athena:{agent_x}:log"


def test_entry_ids_compare_by_time_then_sequence() -> None:
    assert entry_id("10-2") > entry_id("10-1") > entry_id("9-99") > entry_id(START)
    assert entry_id(b"10-0") == (10, 0)


def test_changes_union_and_round_trip_through_stream_fields() -> None:
    a, b = Change.of(["n1"], ["e1"]), Change.of(["n2"], ["e1", "e2"])
    both = a | b
    assert both == Change.of(["n1", "n2"], ["e1", "e2"])
    assert Change.from_fields({k.encode(): v.encode() for k, v in both.fields().items()}) == both
    assert not Change()


def test_a_commit_appends_its_change_and_sets_an_epoch_only_once() -> None:
    commands = commit_commands("g", Change.of(["n1"], ["e1"]), keep=100)
    assert commands[0][:2] == ("SET", "athena:{g}:epoch") and commands[0][-1] == "NX"
    assert commands[1][:3] == ("XADD", "athena:{g}:log", "*")


def test_a_poll_behind_the_trim_point_is_a_gap() -> None:
    entries = [(b"5-0", {b"nodes": b"n1", b"edges": b""}), (b"6-0", [b"edges", b"e9"])]
    epoch, gap, parsed = parse_poll([b"ep", b"4-0", entries], "3-0")
    assert (epoch, gap) == ("ep", True)
    assert [e for e, _ in parsed] == ["5-0", "6-0"]
    assert parsed[1][1] == Change.of([], ["e9"])
    assert parse_poll([b"ep", b"4-0", []], "4-0")[1] is False
    assert parse_poll([None, None, []], START)[:2] == ("", False)


def test_head_of_an_empty_log_is_the_start() -> None:
    assert parse_head([None, []]) == ("", START)
    assert parse_head([b"ep", [(b"7-1", {})]]) == ("ep", "7-1")


def test_a_new_snapshot_version_removes_the_older_ones(tmp_path: Path) -> None:
    """An index whose format changed (a new version) leaves no stale snapshot behind."""
    from memory.backend.derived import DerivedIndexes, _Held

    @dataclass
    class Kind:
        version: int
        name: str = "conditions"

        def dump(self, state: object) -> bytes:
            return repr(state).encode()

    class Reader:
        target = "unix:///nowhere.sock"

    indexes = DerivedIndexes(Reader(), tmp_path)  # type: ignore[arg-type]
    for version in (2, 3):
        held = _Held("e", "0-0", {"v": version})
        indexes._save("g", Kind(version), held)  # type: ignore[arg-type]
    other = Kind(1, name="lexical")
    indexes._save("g", other, _Held("e", "0-0", {}))  # type: ignore[arg-type]
    left = sorted(p.name for p in tmp_path.glob("*/g/*.snap"))
    assert left == ["conditions.v3.snap", "lexical.v1.snap"]
    (kept,) = tmp_path.glob("*/g/conditions.v3.snap")
    assert kept.read_bytes().endswith(b"{'v': 3}")
