"""LangChain tools over graph memory.

Every tool is built by a factory from a `ToolContext` (memory, namespace,
provenance default, write lock): infrastructure is injected, never an
argument the model fills in.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool

from tools._common import ToolContext
from tools.entities import (
    create_add_mitigant_tool,
    create_upsert_entity_tool,
    create_upsert_relationship_tool,
)
from tools.knowledge import (
    create_conflicts_tool,
    create_rule_history_tool,
    create_same_rules_tool,
)
from tools.reading import create_explore_tool, create_traverse_tool
from tools.rules import apply_rule, create_write_rule_tool


def create_memory_tools(ctx: ToolContext) -> list[BaseTool]:
    """Return every memory tool bound to one memory and namespace."""
    return [
        create_write_rule_tool(ctx),
        create_upsert_entity_tool(ctx),
        create_upsert_relationship_tool(ctx),
        create_add_mitigant_tool(ctx),
        create_explore_tool(ctx),
        create_traverse_tool(ctx),
        create_same_rules_tool(ctx),
        create_rule_history_tool(ctx),
        create_conflicts_tool(ctx),
    ]


__all__ = [
    "ToolContext",
    "apply_rule",
    "create_add_mitigant_tool",
    "create_conflicts_tool",
    "create_explore_tool",
    "create_memory_tools",
    "create_rule_history_tool",
    "create_same_rules_tool",
    "create_traverse_tool",
    "create_upsert_entity_tool",
    "create_upsert_relationship_tool",
    "create_write_rule_tool",
]
