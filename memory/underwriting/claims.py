"""Claims on the commit path: what texts said about a rule -> the rule's stored versions.

Every writer of rules (bulk `athena ingest --rules`, the ingestion graph's commit,
session learning) hands its rules here as *claims* before mapping them to graph
writes. `plan_rules` finds the stored rules that are the same piece of knowledge
(the condition index by signature, and stored nodes of the claims' names, retired
ones included), merges the new claims with the claims those rules were derived
from, runs the one policy (`memory.underwriting.consolidate`) and returns what to
write: each affected rule's newest version, with its versions and claims kept on
the Rule node, or the version a withdrawal ended (written without edges, so its
edges are retired at its end date).

A text ingested again replaces what it said before about the same rule: the same
claims give the same versions, and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memory.backend import read_by_ids
from memory.model import WriteTally
from memory.model.keys import entity_key, stable_uuid
from memory.underwriting.condition_kind import condition_index
from memory.underwriting.consolidate import Lineage, consolidate, is_statement, signature, source_of
from memory.underwriting.rulebook import RuleGraph, apply_rule_graphs, rule_graph
from schemas.rules import HISTORY_KEYS, STORED, ExtractedRule

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

_STORED = {STORED: True}
_VERSION_ONLY: dict[str, Any] = {
    "valid_from": None,
    "valid_to": None,
    "sources": [],
    "conflicts": [],
}


@dataclass(frozen=True)
class RuleWrite:
    """One rule to write: its newest version and the history kept beside it.

    Attributes:
        rule: The newest version (current, or ended when `retired`).
        history: ``versions`` and ``claims`` to store on the Rule node (empty when
            the rule is exactly one claim with one version: nothing to add).
        retired: The rule holds no more: written without edges, which retires them.
    """

    rule: ExtractedRule
    history: Mapping[str, Any] = field(default_factory=dict)
    retired: bool = False

    @property
    def text_ids(self) -> set[str]:
        """The texts this version rests on (its sources, and the text that started it)."""
        found = {s.text_id for s in self.rule.sources} | {self.rule.text_id}
        return {t for t in found if t}


def now() -> str:
    """The time now (UTC ISO): the valid time of a claim whose text has no date."""
    return datetime.now(UTC).isoformat()


def claim_of(version: ExtractedRule) -> ExtractedRule:
    """The claim a one-claim rule was derived from (its stored document, less the merge)."""
    return version.model_copy(update={**_VERSION_ONLY, "date": version.date or version.valid_from})


def document_claims(document: Mapping[str, Any]) -> list[ExtractedRule]:
    """The claims a stored Rule node's document was derived from."""
    if "claims" in document:
        return [ExtractedRule.model_validate(c, context=_STORED) for c in document["claims"]]
    return [claim_of(ExtractedRule.model_validate(document, context=_STORED))]


def document_versions(document: Mapping[str, Any]) -> list[ExtractedRule]:
    """Every version a stored Rule node's document holds, oldest first."""
    if "versions" in document:
        return [ExtractedRule.model_validate(v, context=_STORED) for v in document["versions"]]
    return [ExtractedRule.model_validate(document, context=_STORED)]


def _dump(rule: ExtractedRule) -> dict[str, Any]:
    return rule.model_dump(mode="json")


def _claim_id(claim: ExtractedRule) -> str:
    return json.dumps(_dump(claim), sort_keys=True)


def _merge(
    existing: list[ExtractedRule], incoming: list[ExtractedRule], stamp: str
) -> list[ExtractedRule]:
    """Stored claims, less what the incoming texts said before, then the incoming ones.

    A claim of a text already heard keeps that text's date when it came without one.
    """
    texts = {c.text_id for c in incoming if c.text_id}
    dated = {c.text_id: c.date for c in existing if c.text_id in texts and c.text_id and c.date}
    kept = [c for c in existing if c.text_id not in texts]
    heard = {_practice_said(c): c for c in existing if c.text_id in texts and not is_statement(c)}
    fresh = []
    for claim in incoming:
        if claim.date is None:
            claim = claim.model_copy(update={"date": dated.get(claim.text_id or "") or stamp})
        if not is_statement(claim):
            # Practice heard again (the same text, the same rule, the same flexibility)
            # stays as first heard: it copies the rule as it stood then, not as it is now.
            claim = heard.get(_practice_said(claim), claim)
        fresh.append(claim)
    return kept + fresh


def _practice_said(claim: ExtractedRule) -> tuple[Any, ...]:
    """What a practice claim says: its text, the rule it bends (product, fields), how far."""
    fields = tuple(sorted((c.field, c.operator) for c in claim.conditions))
    return (claim.text_id, claim.product_type, claim.action, fields, claim.soft_limit)


def _writes(lineages: list[Lineage], stored: Mapping[str, Mapping[str, Any]]) -> list[RuleWrite]:
    """The rule writes of a signature's lineages, less those stored exactly so.

    A rule keeps its versions and the claims that made it; a rule of one claim and
    one version keeps neither (its document is both).
    """
    out = []
    for lineage in lineages:
        history: dict[str, Any] = {}
        if len(lineage.versions) > 1:
            history["versions"] = [_dump(v) for v in lineage.versions]
        if len(lineage.claims) > 1:
            history["claims"] = [_dump(c) for c in lineage.claims]
        last = lineage.versions[-1]
        if stored.get(last.rule_name) == {**_dump(last), **history}:
            continue  # this rule did not change
        out.append(RuleWrite(last, history, retired=lineage.current is None))
    return out


async def _stored(
    memory: GraphMemory, namespace: Namespace, names: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """Stored Rule documents by name (retired rules included), for names claims use."""
    group = namespace.group_id
    uuids = {stable_uuid(group, "entity", entity_key(group, "Rule", name)): name for name in names}
    if not uuids:
        return {}
    rows = await read_by_ids(
        memory.db,
        group,
        "MATCH (n:Entity) WHERE n.uuid IN $uuids AND n.label = 'Rule' "
        "RETURN n.name AS name, n.props_json AS props",
        uuids,
    )
    found = {}
    for row in rows:
        try:
            found[row["name"]] = json.loads(row["props"] or "{}")
        except ValueError:
            continue
    return found


@dataclass
class RulePlan:
    """What a batch of claims changes.

    Attributes:
        writes: The rules to write (changed pieces of knowledge only).
        joined: Each incoming claim's name -> the stored rule it is part of.
    """

    writes: list[RuleWrite] = field(default_factory=list)
    joined: dict[str, str] = field(default_factory=dict)


async def plan_rules(
    memory: GraphMemory, namespace: Namespace, rules: Sequence[ExtractedRule]
) -> RulePlan:
    """Consolidate incoming claims with the stored rules they restate, amend or bend.

    Args:
        memory: Connected graph memory.
        namespace: Where the rules live.
        rules: Incoming claims in ingestion order (a claim without `date` is valid
            from now, or from the date its text had when it was first heard).

    Returns:
        The rules to write (through `rule_graph` and the one commit), affected
        pieces of knowledge only (none for claims heard before), and the rule each
        claim joined.
    """
    groups: dict[str, list[ExtractedRule]] = {}
    for rule in rules:
        groups.setdefault(signature(rule.product_type, rule.conditions), []).append(rule)
    plan = RulePlan()
    if not groups:
        return plan
    stamp = now()  # one ingestion time: undated claims of one write are of one moment
    index = await condition_index(memory, namespace)
    by_name = await _stored(memory, namespace, {r.rule_name for r in rules})
    named = _by_signature(by_name.items())
    retired = await _retired(memory, namespace)
    for sig, given in groups.items():
        incoming = [_unclashed(c, by_name, sig) for c in given]
        first = incoming[0]
        documents: dict[str, dict[str, Any]] = {}
        # Only rules written as claims are merged with: a rule written another way
        # (before claims, or straight to the graph) is left as it is.
        for entry in index.same_rule(first.product_type, first.conditions):
            document = entry.whole_document()
            if document and document.get("valid_from"):
                documents[entry.name] = document
        for name, document in [*named.get(sig, []), *retired.get(sig, [])]:
            if document.get("valid_from"):
                documents.setdefault(name, document)
        # By name: the stored rules' claims fold in one order whatever the store's keys
        # (uuids of the namespace) would give; same-day claims of two rules keep it.
        writes, joined = _consolidated(dict(sorted(documents.items())), incoming, stamp)
        plan.writes += writes
        for claim, mine in zip(given, incoming, strict=True):
            plan.joined[claim.rule_name] = joined.get(_claim_key(mine), mine.rule_name)
    return plan


_RETIRED_RULES = (
    "MATCH (n:Rule) WHERE n.invalid_at IS NOT NULL "
    "RETURN n.name AS name, n.props_json AS props, n.created_at AS created ORDER BY n.name"
)


async def retired_rows(memory: GraphMemory, namespace: Namespace) -> list[dict[str, Any]]:
    """The stored Rule nodes no longer in force (withdrawn, settled): name, props, created.

    In name order. Read by the commit path (`plan_rules`) and by the practice reader
    (`memory.underwriting.history.retired_rules`).
    """
    rows: list[dict[str, Any]] = await memory.db.query(
        namespace.group_id, _RETIRED_RULES, {}, read_only=True
    )
    return rows


async def _retired(
    memory: GraphMemory, namespace: Namespace
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Retired rules (withdrawn, or settled) by signature.

    A text heard again about one of them must find it, though the condition index
    holds current rules only.
    """
    documents = []
    for row in await retired_rows(memory, namespace):
        try:
            documents.append((row["name"], json.loads(row["props"] or "{}")))
        except ValueError:
            continue
    return _by_signature(documents)


def _by_signature(
    documents: Iterable[tuple[str, dict[str, Any]]],
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Stored rule documents grouped by signature (documents of no whole rule left out)."""
    found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, document in documents:
        rule = _parsed(document)
        if rule is not None:
            key = signature(rule.product_type, rule.conditions)
            found.setdefault(key, []).append((name, document))
    return found


def _unclashed(
    claim: ExtractedRule, by_name: Mapping[str, Mapping[str, Any]], sig: str
) -> ExtractedRule:
    """A claim named like a stored rule of other content gets a name of its own."""
    stored = by_name.get(claim.rule_name)
    rule = _parsed(stored) if stored is not None else None
    if rule is None or not rule.valid_from or signature(rule.product_type, rule.conditions) == sig:
        return claim
    fields = ", ".join(sorted({c.field for c in claim.conditions}))
    return claim.model_copy(
        update={"rule_name": f"{claim.rule_name} ({claim.product_type}: {fields})"}
    )


def _parsed(document: Mapping[str, Any]) -> ExtractedRule | None:
    try:
        return ExtractedRule.model_validate(document, context=_STORED)
    except ValueError:
        return None


def _claim_key(claim: ExtractedRule) -> tuple[str | None, str]:
    return claim.text_id, claim.rule_name


def _consolidated(
    documents: dict[str, dict[str, Any]], incoming: list[ExtractedRule], stamp: str
) -> tuple[list[RuleWrite], dict[tuple[str | None, str], str]]:
    """The writes of one signature and the rule each claim is part of.

    The stored rules' claims are merged with the new ones and folded by the policy.
    """
    existing: dict[str, ExtractedRule] = {}
    joined: dict[tuple[str | None, str], str] = {}
    for name, document in documents.items():
        try:
            for claim in document_claims(document):
                existing.setdefault(_claim_id(claim), claim)
                joined.setdefault(_claim_key(claim), name)
        except ValueError:
            continue  # a Rule node without a whole rule: nothing to merge with
    claims = _merge(list(existing.values()), incoming, stamp)
    if existing and {_claim_id(c) for c in claims} == set(existing):
        return [], joined  # heard before: the same versions
    lineages = consolidate(claims)
    for lineage in lineages:
        for claim in lineage.claims:
            joined[_claim_key(claim)] = lineage.name
    writes = _writes(lineages, documents)
    held = {_claim_id(c) for lineage in lineages for c in lineage.claims}
    writes += [
        w
        for c in claims
        if c.withdrawn and _claim_id(c) not in held
        if (w := _unheard_withdrawal(c, documents)) is not None
    ]
    names = {lin.name for lin in lineages}
    for name, document in documents.items():
        if name in names:
            continue
        rule = _parsed(document)
        if rule is not None and rule.valid_to is None:  # no longer a lineage of its own
            ended = rule.model_copy(update={"valid_to": stamp})
            history = {k: document[k] for k in HISTORY_KEYS if k in document}
            writes.append(RuleWrite(ended, history, retired=True))
    return writes, joined


def _unheard_withdrawal(
    claim: ExtractedRule, stored: Mapping[str, Mapping[str, Any]]
) -> RuleWrite | None:
    """A withdrawal heard before the rule it ends, kept as a retired rule of no time.

    Texts may arrive in any order: a bulletin of 2025 withdrawing a rule may be ingested
    before the manual of 2022 that states it. Kept (valid from and to its own date, so it
    is never in force), its claim is folded with the statement when that arrives, and
    the rule ends on the withdrawal's date instead of staying current.
    """
    day = claim.date
    if not day:
        return None
    version = claim.model_copy(
        update={"valid_from": day, "valid_to": day, "sources": [source_of(claim)]}
    )
    history = {"claims": [_dump(claim)]}
    if stored.get(version.rule_name) == {**_dump(version), **history}:
        return None  # kept already
    return RuleWrite(version, history, retired=True)


def rule_graphs(writes: Iterable[RuleWrite]) -> list[RuleGraph]:
    """The subgraphs the one commit writes for consolidated rules (`rule_graph`)."""
    return [rule_graph(w.rule, history=w.history, retired=w.retired) for w in writes]


async def write_claims(
    memory: GraphMemory,
    namespace: Namespace,
    rules: Sequence[ExtractedRule],
    *,
    source: str | None = None,
) -> tuple[RulePlan, WriteTally, WriteTally]:
    """Consolidate claims with the stored rules and write what changed in one commit.

    Args:
        memory: Connected graph memory.
        namespace: Where the rules live.
        rules: The claims, in ingestion order.
        source: Provenance stamped on the writes (default: each rule's text id or source).

    Returns:
        The plan (what changed, which rule each claim joined) and the node and edge tallies.
    """
    plan = await plan_rules(memory, namespace, rules)
    if not plan.writes:
        return plan, WriteTally(), WriteTally()
    nodes, edges = await apply_rule_graphs(
        memory,
        namespace,
        rule_graphs(plan.writes),
        source=[source or w.rule.text_id or w.rule.source for w in plan.writes],
    )
    return plan, nodes, edges


__all__ = [
    "RulePlan",
    "RuleWrite",
    "claim_of",
    "document_claims",
    "document_versions",
    "plan_rules",
    "retired_rows",
    "rule_graphs",
    "write_claims",
    "now",
]
