"""A batch's writes and its source links commit together, after every model call.

The relationship agent's write tools are staged: a call is checked (arguments,
ontology, the rule mapping) and answered at once, but nothing is written until the
`commit` node replays the accepted calls. A model failure before that leaves the
graph untouched; a text whose rules were not all accepted is left out of the commit
(with its source episode), so a re-run redoes it. Source episodes are written last:
a text whose episode holds the same content is complete and is skipped on a re-run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memory import GraphMemory, Namespace, OntologyDefinition
from memory.model import SourceItem, WriteTally
from memory.underwriting import rule_graph
from memory.underwriting.claims import write_claims
from schemas.ingestion import EntityMatch, KnowledgeText, TextFailure, WriteCounts
from schemas.rules import ExtractedRule

WRITE_EXTRACTED_RULES = "write_extracted_rules"
WRITE_RULE = "write_rule"
STAGED_TOOLS = ("write_rule", "upsert_entity", "upsert_relationship", "add_mitigant")
RULE_WRITES = (WRITE_RULE, WRITE_EXTRACTED_RULES)


def rule_refs(rules: Sequence[ExtractedRule]) -> dict[str, ExtractedRule]:
    """Short references of a batch's rules (r1, r2, ...), in order."""
    return {f"r{i}": rule for i, rule in enumerate(rules, start=1)}


class WriteExtractedRulesArgs(BaseModel):
    """Arguments of `write_extracted_rules`."""

    rule_ids: list[str] = Field(description="References of the extracted rules, e.g. ['r1', 'r2'].")


def staging_tools(
    live: Sequence[BaseTool], refs: dict[str, ExtractedRule], ontology: OntologyDefinition
) -> list[BaseTool]:
    """The agent's tools: reads as they are, writes checked and staged until the commit."""
    tools: list[BaseTool] = []

    async def write_extracted_rules(rule_ids: list[str]) -> str:
        unknown = [r for r in rule_ids if r not in refs]
        if unknown:
            raise ValueError(f"unknown rule ids {unknown}; allowed: {sorted(refs)}")
        names = [refs[r].rule_name for r in dict.fromkeys(rule_ids)]
        return f"accepted {len(names)} rule(s), written when the batch commits: {names}"

    tools.append(
        StructuredTool.from_function(
            coroutine=write_extracted_rules,
            name=WRITE_EXTRACTED_RULES,
            description=(
                "Write extracted rules as they are, by their ids in the <rules> block (r1, "
                "r2, ...): the same graph as `write_rule`, without repeating the rules."
            ),
            args_schema=WriteExtractedRulesArgs,
        )
    )
    for tool in live:
        tools.append(_staged(tool, ontology) if tool.name in STAGED_TOOLS else tool)
    return tools


def _check(name: str, args: dict[str, Any], ontology: OntologyDefinition) -> None:
    """The checks a staged write can make before anything exists (labels, relations)."""
    if name == WRITE_RULE:
        rule_graph(ExtractedRule.model_validate(args["rule"]))  # the mapping's checks
    elif name == "upsert_entity":
        ontology.check_label(args["label"])
    elif name == "upsert_relationship":
        ontology.check_label(args["source_label"])
        ontology.check_label(args["target_label"])
        ontology.validate_edge(
            args["source_label"],
            args["relation"],
            args["target_label"],
            args.get("properties") or {},
        )


def _staged(tool: BaseTool, ontology: OntologyDefinition) -> BaseTool:
    """A write tool that checks its call and answers without writing."""

    async def stage(**kwargs: Any) -> str:
        _check(tool.name, kwargs, ontology)
        return f"accepted {tool.name}; written when the batch commits"

    return StructuredTool.from_function(
        coroutine=stage,
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,  # type: ignore[arg-type]
    )


def accepted_calls(messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
    """The write calls the staging tools accepted, in the order they were made."""
    ok = {m.tool_call_id for m in messages if isinstance(m, ToolMessage) and m.status != "error"}
    return [
        dict(call)
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call.get("id") in ok and call["name"] in (*STAGED_TOOLS, WRITE_EXTRACTED_RULES)
    ]


def staged_rules(
    calls: Sequence[dict[str, Any]], refs: dict[str, ExtractedRule]
) -> list[ExtractedRule]:
    """The rules the accepted calls write (by reference or in full), first call wins."""
    rules: dict[str, ExtractedRule] = {}
    for call in calls:
        if call["name"] == WRITE_EXTRACTED_RULES:
            for ref in call["args"].get("rule_ids") or []:
                rules.setdefault(refs[ref].rule_name, refs[ref])
        elif call["name"] == WRITE_RULE:
            rule = ExtractedRule.model_validate(call["args"]["rule"])
            source_id = call["args"].get("source_id")
            if source_id and not rule.text_id:
                rule = rule.model_copy(update={"text_id": source_id})
            rules.setdefault(rule.rule_name, rule)
    return list(rules.values())


def all_staged(messages: Sequence[AnyMessage], rules: Sequence[ExtractedRule]) -> bool:
    """True when the accepted calls write every rule of the batch."""
    staged = {r.rule_name for r in staged_rules(accepted_calls(messages), rule_refs(rules))}
    return {r.rule_name for r in rules} <= staged


@dataclass
class CommitResult:
    """What a commit wrote."""

    nodes: WriteCounts = field(default_factory=WriteCounts)
    edges: WriteCounts = field(default_factory=WriteCounts)
    sources: WriteCounts = field(default_factory=WriteCounts)
    rules_written: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    failed: list[TextFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cited: dict[str, list[str]] = field(default_factory=dict)
    """Text id -> the Rule nodes written with it among their sources."""
    joined: dict[str, str] = field(default_factory=dict)
    """Each rule written (a claim) -> the stored rule it is part of."""
    stored: list[str] = field(default_factory=list)
    """The stored rules written (new or changed), by name."""


def _add(counts: WriteCounts, tally: WriteTally | dict[str, int]) -> None:
    values = tally if isinstance(tally, dict) else vars(tally)
    for status in ("created", "updated", "unchanged"):
        counts.add(status, int(values.get(status, 0)))


async def commit(
    memory: GraphMemory,
    namespace: Namespace,
    *,
    texts: Sequence[KnowledgeText],
    rules: Sequence[ExtractedRule],
    matches: Sequence[EntityMatch],
    messages: Sequence[AnyMessage],
    live: Sequence[BaseTool],
    skip: set[str],
    uncovered: Mapping[str, Sequence[str]] | None = None,
) -> CommitResult:
    """Write the accepted calls of complete texts, then the texts' source episodes.

    Args:
        memory: Connected graph memory.
        namespace: Where to write.
        texts: The batch's texts.
        rules: The batch's rules (entity names resolved).
        matches: Entity matches of the batch (the episodes' MENTIONS).
        messages: The agent's conversation.
        live: The tools that really write (for calls other than rule writes).
        skip: Ids of texts that failed earlier (not written, no episode).
        uncovered: Text id -> its rule-like sentences that yielded no rule (kept on its
            episode); a text not named keeps what its unchanged episode holds.
    """
    out = CommitResult()
    calls = accepted_calls(messages) if rules else []
    staged = {r.rule_name: r for r in staged_rules(calls, rule_refs(rules))}
    incomplete = set(skip)
    for text in texts:
        mine = [r for r in rules if r.text_id == text.id]
        missing = [r.rule_name for r in mine if r.rule_name not in staged]
        if missing and text.id not in skip:
            incomplete.add(text.id)
            out.failed.append(
                TextFailure(
                    text_id=text.id,
                    error=f"the agent wrote {len(mine) - len(missing)} of {len(mine)} rule(s); "
                    f"not written: {missing[:3]}",
                )
            )
    to_write = [r for r in staged.values() if r.text_id not in incomplete]
    out.rules_written = await _write_rules(memory, namespace, to_write, out, incomplete)
    by_name = {t.name: t for t in live}
    for call in calls:
        if call["name"] in (WRITE_RULE, WRITE_EXTRACTED_RULES):
            continue
        source_id = call["args"].get("source_id")
        if source_id in incomplete:
            continue
        try:
            message = await by_name[call["name"]].ainvoke({**call, "type": "tool_call"})
        except Exception as exc:  # noqa: BLE001 - a failing write is reported, like a tool error
            out.tool_errors.append(f"{call['name']}: {str(exc)[:500]}")
            continue
        artifact = getattr(message, "artifact", None)
        if getattr(message, "status", None) == "error":
            out.tool_errors.append(f"{call['name']}: {str(message.content)[:500]}")
        elif isinstance(artifact, dict):
            _add(out.nodes, artifact.get("nodes") or {})
            _add(out.edges, artifact.get("edges") or {})
    await _link_sources(memory, namespace, texts, matches, incomplete, out, uncovered or {})
    return out


async def _write_rules(
    memory: GraphMemory,
    namespace: Namespace,
    rules: Sequence[ExtractedRule],
    out: CommitResult,
    incomplete: set[str],
) -> list[str]:
    """Write rules in one bulk write; if it fails, one by one to tell which failed.

    A rule that cannot be written is a tool error and fails its text (no episode).
    """
    if not rules:
        return []

    async def write(batch: Sequence[ExtractedRule]) -> None:
        # The rules are claims: each joins the stored rule it restates, amends or bends.
        plan, nodes, edges = await write_claims(memory, namespace, batch)
        out.joined.update(plan.joined)
        _add(out.nodes, nodes)
        _add(out.edges, edges)
        for w in plan.writes:
            if w.rule.rule_name not in out.stored:
                out.stored.append(w.rule.rule_name)
            key = memory.entity_key(namespace, "Rule", w.rule.rule_name)
            for tid in w.text_ids:
                out.cited.setdefault(tid, []).append(key)
        # A claim heard before writes nothing, yet its text still mentions the rule it
        # joined: a job redone after a crash between its two commits links as a clean run.
        for rule in batch:
            if rule.text_id:
                joined = plan.joined.get(rule.rule_name, rule.rule_name)
                key = memory.entity_key(namespace, "Rule", joined)
                if key not in out.cited.get(rule.text_id, []):
                    out.cited.setdefault(rule.text_id, []).append(key)

    try:
        await write(rules)
        return [r.rule_name for r in rules]
    except Exception:  # noqa: BLE001 - retried rule by rule below, errors reported there
        pass
    written = []
    for rule in rules:
        try:
            await write([rule])
        except Exception as exc:  # noqa: BLE001 - a failing write is reported, like a tool error
            error = " ".join(str(exc).split())[:300] or type(exc).__name__
            out.tool_errors.append(f"write_rule: {rule.rule_name}: {error}")
            if rule.text_id and rule.text_id not in incomplete:
                incomplete.add(rule.text_id)
                out.failed.append(
                    TextFailure(text_id=rule.text_id, error=f"rule {rule.rule_name!r}: {error}")
                )
            continue
        written.append(rule.rule_name)
    return written


async def _link_sources(
    memory: GraphMemory,
    namespace: Namespace,
    texts: Sequence[KnowledgeText],
    matches: Sequence[EntityMatch],
    incomplete: set[str],
    out: CommitResult,
    uncovered: Mapping[str, Sequence[str]],
) -> None:
    """Store each complete text as a source episode linked (MENTIONS) to what it yielded.

    The episode keeps the text's uncovered sentences when its extraction reported them.
    """
    done = [t for t in texts if t.text.strip() and t.id not in incomplete]
    cited = {k for keys in out.cited.values() for k in keys}
    existing = await memory.existing_keys(
        namespace, {m.matched_entity_key for m in matches} | cited
    )
    items = []
    for text in done:
        keys = list(dict.fromkeys(m.matched_entity_key for m in matches if m.text_id == text.id))
        # A claim merged into a rule of another name: the text mentions that rule instead.
        keys = [k for k in keys if k in existing] + out.cited.get(text.id, [])
        keys = list(dict.fromkeys(keys))
        missing = [k for k in keys if k not in existing]
        if missing:
            out.warnings.append(
                f"text {text.id!r}: {len(missing)} mentioned entit(y/ies) were not written"
            )
        where = " ".join(
            x for x in (text.source, f"({text.source_type})" if text.source_type else None) if x
        )
        found = uncovered.get(text.id)
        items.append(
            SourceItem(
                text.id,
                text.text,
                where,
                tuple(k for k in keys if k in existing),
                uncovered=None if found is None else tuple(found),
            )
        )
    for status in await memory.add_sources(namespace, items) if items else []:
        out.sources.add(status)
