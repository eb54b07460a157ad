"""The relationship-agent prompt: write extracted rules into memory with tools.

The rules travel in a `<rules>` JSON block of the human message; the offline
planner reads the same block, so both modes see one prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import TypeAdapter

from memory import OntologyDefinition
from schemas.ingestion import EntityMatch
from schemas.rules import ExtractedRule

_RULES_BLOCK = re.compile(r"<rules>\s*(.*?)\s*</rules>", re.DOTALL)
_RULES = TypeAdapter(list[ExtractedRule])

_GUIDE = """You maintain an underwriting knowledge graph. Write the extracted rules below
into memory with your tools, then reply with a one-line summary and no tool call.

- Prefer `write_rule` with the complete rule: it writes RiskFactor -TRIGGERS-> Rule
  -RESULTS_IN-> Outcome, Mitigant -OVERRIDES-> Rule and Rule -DERIVED_FROM-> Source in one
  call. Pass the rule's text_id as source_id.
- Use `upsert_entity`, `upsert_relationship` and `add_mitigant` only for knowledge a rule
  record cannot hold; use `explore` and `traverse` to check what memory already has.
- Entity names were matched to existing nodes already: keep the names as given.
- A tool error tells you what was wrong; fix the call or skip it. Do not repeat a call
  that succeeded.
"""


def relationship_system_prompt(ontology: OntologyDefinition) -> str:
    """Return the agent's system prompt with the ontology."""
    return _GUIDE + "\n" + ontology.to_prompt_context()


def render_rules(rules: Sequence[ExtractedRule]) -> str:
    """Render rules as the `<rules>` JSON block."""
    docs = [r.model_dump(mode="json", exclude_none=True) for r in rules]
    return "<rules>\n" + json.dumps(docs, ensure_ascii=False, indent=1) + "\n</rules>"


def parse_rules_block(text: str) -> list[ExtractedRule]:
    """Return the rules of the `<rules>` block in a message (empty if there is none).

    Raises:
        ValueError: The block is not a JSON list of rules.
    """
    found = _RULES_BLOCK.search(text)
    if found is None:
        return []
    try:
        return _RULES.validate_json(found.group(1))
    except ValueError as exc:
        raise ValueError(f"the <rules> block is not a JSON list of rules: {exc}") from exc


def build_relationship_messages(
    rules: Sequence[ExtractedRule],
    matches: Sequence[EntityMatch],
    ontology: OntologyDefinition,
) -> list[BaseMessage]:
    """Return the messages that start the relationship agent."""
    known = [f"- {m.label} '{m.matched_name}' ({m.method})" for m in matches if not m.is_new]
    existing = "\n".join(known) if known else "- none"
    return [
        SystemMessage(relationship_system_prompt(ontology)),
        HumanMessage(
            f"Entities already in memory:\n{existing}\n\n"
            f"Extracted rules ({len(rules)}):\n{render_rules(rules)}"
        ),
    ]
