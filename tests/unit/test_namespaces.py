import re

import pytest

from memory import Namespace

CASES = [
    Namespace.agent("athena"),
    Namespace.session("4f2a-91"),
    Namespace.user("athena", "jane.doe@example.com"),
    Namespace.user("athena", "jane_doe"),
    Namespace.user("athena_x", "doe"),
    Namespace.shard("athena", "property__east"),
]


@pytest.mark.parametrize("ns", CASES, ids=str)
def test_group_ids_are_valid_and_parse_back(ns: Namespace) -> None:
    assert re.fullmatch(r"[A-Za-z0-9_-]+", ns.group_id)
    assert Namespace.from_group_id(ns.group_id) == ns
    assert Namespace.parse(str(ns)) == ns


def test_group_ids_are_injective() -> None:
    tricky = [
        Namespace.user("a_b", "c"),
        Namespace.user("a", "b_c"),
        Namespace.user("a__b", "c"),
        Namespace.shard("a_b", "c"),
        Namespace.agent("a_5f"),
        Namespace.agent("a_"),
        Namespace.agent("a."),
    ]
    ids = [ns.group_id for ns in tricky]
    assert len(set(ids)) == len(ids)


def test_kinds_never_share_a_graph() -> None:
    assert Namespace.agent("x").group_id != Namespace.session("x").group_id
    assert Namespace.user("a", "b").group_id != Namespace.shard("a", "b").group_id


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Namespace.agent("has space"), "not allowed"),
        (lambda: Namespace.agent(""), "non-empty"),
        (lambda: Namespace.user("athena", "x/y"), "not allowed"),
        (lambda: Namespace.agent("a" * 65), "at most 64"),
        (lambda: Namespace("tenant", ("a",)), "allowed: agent, session, user, shard"),
        (lambda: Namespace("user", ("only-one",)), "takes 2 part"),
        (lambda: Namespace.parse("team:a"), "unknown namespace kind"),
        (lambda: Namespace.from_group_id("nope__x"), "does not start with a namespace kind"),
        (lambda: Namespace.from_group_id("agent__a_zz"), "bad escape"),
    ],
)
def test_bad_namespaces_are_rejected_with_a_clear_message(build, message) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_bare_name_means_an_agent() -> None:
    assert Namespace.parse("athena") == Namespace.agent("athena")
