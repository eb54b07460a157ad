"""`write_rule`: write one whole underwriting rule with the rulebook's mapping."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memory.model import WriteTally, as_namespace
from memory.underwriting import RuleGraph, apply_rule_graph
from memory.underwriting.claims import plan_rules, rule_graphs
from schemas.rules import ExtractedRule
from tools._common import ToolContext, dumps, tally


class WriteRuleArgs(BaseModel):
    """Arguments of `write_rule`."""

    rule: ExtractedRule = Field(description="The complete structured rule, as extracted.")
    source_id: str | None = Field(
        default=None, description="Id of the knowledge text the rule came from (provenance)."
    )


async def apply_rule(
    ctx: ToolContext, graph: RuleGraph, *, source: str
) -> tuple[WriteTally, WriteTally]:
    """Apply `memory.underwriting.apply_rule_graph` under the context's write lock.

    Args:
        ctx: Memory, namespace and write lock.
        graph: What `memory.underwriting.rule_graph` maps the rule to.
        source: Provenance stamped on every node and edge.

    Returns:
        The node tally and the edge tally.
    """
    async with ctx.lock:
        return await apply_rule_graph(ctx.memory, ctx.namespace, graph, source=source)


def create_write_rule_tool(ctx: ToolContext) -> BaseTool:
    """Return the `write_rule` tool over the context's memory and namespace."""

    async def write_rule(rule: ExtractedRule, source_id: str | None = None) -> tuple[str, Any]:
        source = source_id or rule.text_id or ctx.default_source or rule.source
        claim = rule if rule.text_id else rule.model_copy(update={"text_id": source})
        # The rule is a claim: it joins the stored rule it restates, amends or bends.
        plan = await plan_rules(ctx.memory, as_namespace(ctx.namespace), [claim])
        nodes, edges = WriteTally(), WriteTally()
        for graph in rule_graphs(plan.writes):
            more_nodes, more_edges = await apply_rule(ctx, graph, source=source)
            nodes.merge(more_nodes)
            edges.merge(more_edges)
        artifact = tally(vars(nodes), vars(edges))
        joined = plan.joined.get(claim.rule_name, claim.rule_name)
        artifact["rule_name"] = joined
        return dumps({"rule": joined, **artifact}), artifact

    return StructuredTool.from_function(
        coroutine=write_rule,
        name="write_rule",
        description=(
            "Write one complete underwriting rule in a single call: the RiskFactor that "
            "TRIGGERS the Rule, the Outcome it RESULTS_IN, the Mitigants that OVERRIDE it and "
            "the Source it is DERIVED_FROM, with thresholds, conditions and exceptions kept in "
            "the edge properties and fact text. A rule another text already stated (same "
            "product, fields and directions) is not duplicated: this text joins it, amending, "
            "restating or bending it (see `same_rules`). Writing the same rule again changes "
            "nothing."
        ),
        args_schema=WriteRuleArgs,
        response_format="content_and_artifact",
    )
