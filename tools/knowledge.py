"""Tools over knowledge that accumulates: a rule's same rules, its versions, open conflicts."""

from __future__ import annotations

import json

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memory.model import as_namespace
from memory.underwriting.claims import document_claims
from memory.underwriting.condition_kind import condition_index
from memory.underwriting.history import open_conflicts, rule_history
from schemas.rules import Condition, ExtractedRule
from tools._common import ToolContext, dumps


class SameRulesArgs(BaseModel):
    """Arguments of `same_rules`."""

    product_type: str = Field(description="The rule's product: BOP, LRO, Property, GL or ALL.")
    conditions: list[Condition] = Field(
        min_length=1, description="The rule's conditions (field, operator, value)."
    )


class RuleNameArgs(BaseModel):
    """Arguments of `rule_history`."""

    rule_name: str = Field(min_length=1, description="The stored rule's exact name.")


def _brief(rule: ExtractedRule) -> dict[str, object]:
    return {
        "rule_name": rule.rule_name,
        "action": rule.action,
        "conditions": [c.model_dump(mode="json") for c in rule.conditions],
        "threshold_type": rule.threshold_type,
        "soft_limit": rule.soft_limit,
        "mitigant_fields": rule.mitigant_fields,
        "valid_from": rule.valid_from,
        "valid_to": rule.valid_to,
        "sources": [s.model_dump(mode="json") for s in rule.sources],
    }


def create_same_rules_tool(ctx: ToolContext) -> BaseTool:
    """Return `same_rules`: the stored rules a new rule would join, and their claims."""

    async def same_rules(product_type: str, conditions: list[Condition]) -> str:
        index = await condition_index(ctx.memory, as_namespace(ctx.namespace))
        found = []
        for entry in index.same_rule(product_type, conditions):
            if not entry.document:
                continue
            document = json.loads(entry.document)
            claims = document_claims(document)
            found.append(
                {
                    "rule_name": entry.name,
                    "claims": [
                        {**_brief(c), "text_id": c.text_id, "date": c.date, "source": c.source}
                        for c in claims
                    ],
                }
            )
        return dumps(found)

    return StructuredTool.from_function(
        coroutine=same_rules,
        name="same_rules",
        description=(
            "The current rules that are the same piece of knowledge as a rule (same product, "
            "condition fields, directions and categorical values, whatever the names or "
            "limits), with what each text claimed about them. A rule written for the same "
            "knowledge joins them (a restatement, an amendment, practice that bends it), "
            "never a duplicate."
        ),
        args_schema=SameRulesArgs,
    )


def create_rule_history_tool(ctx: ToolContext) -> BaseTool:
    """Return `rule_history`: a rule's versions in valid time, with their sources."""

    async def history(rule_name: str) -> str:
        versions = await rule_history(ctx.memory, as_namespace(ctx.namespace), rule_name)
        if not versions:
            raise ValueError(f"no rule named {rule_name!r} in {ctx.namespace}")
        return dumps([_brief(v) for v in versions])

    return StructuredTool.from_function(
        coroutine=history,
        name="rule_history",
        description="A rule's versions, oldest first: when each held, what it said, its sources.",
        args_schema=RuleNameArgs,
    )


def create_conflicts_tool(ctx: ToolContext) -> BaseTool:
    """Return `open_conflicts`: current rules that disagree and wait for a person."""

    async def conflicts() -> str:
        found = await open_conflicts(ctx.memory, as_namespace(ctx.namespace))
        return dumps([c.to_dict() for c in found])

    return StructuredTool.from_function(
        coroutine=conflicts,
        name="open_conflicts",
        description=(
            "Open conflicts: two current rules of one piece of knowledge that equal sources "
            "of the same date state differently (both fire; the more severe applies), with "
            "both texts and the fields they disagree on."
        ),
    )


__all__ = ["create_conflicts_tool", "create_rule_history_tool", "create_same_rules_tool"]
