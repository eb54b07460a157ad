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

- Write the rules as they are with ONE `write_extracted_rules` call naming their ids
  (r1, r2, ...): it writes RiskFactor -TRIGGERS-> Rule -RESULTS_IN-> Outcome,
  Mitigant -OVERRIDES-> Rule and Rule -DERIVED_FROM-> Source for each. Use `write_rule`
  with the complete rule only for a rule you must correct (pass its text_id as source_id).
- Use `upsert_entity`, `upsert_relationship` and `add_mitigant` only for knowledge a rule
  record cannot hold; use `explore` and `traverse` to check what memory already has.
- Each rule is a claim: a rule another text already stated (same product, condition
  fields, directions and categorical values) is not duplicated; the write joins it, as
  a restatement, an amendment from the text's date, or practice that makes it soft.
  `same_rules` shows the stored rules a rule would join and what each text claimed;
  `rule_history` a rule's versions; `open_conflicts` what waits for a person.
- Entity names were matched to existing nodes already: keep the names as given.
- A tool error tells you what was wrong; fix the call or skip it. Do not repeat a call
  that succeeded.
"""


def relationship_system_prompt(ontology: OntologyDefinition) -> str:
    """Return the agent's system prompt with the ontology."""
    return _GUIDE + "\n" + ontology.to_prompt_context()


def render_rules(rules: Sequence[ExtractedRule]) -> str:
    """Render rules as the `<rules>` JSON block: one compact object per line, with its id."""
    docs = [
        json.dumps(
            {"ref": f"r{i}", **r.model_dump(mode="json", exclude_none=True, exclude_defaults=True)},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for i, r in enumerate(rules, start=1)
    ]
    return "<rules>\n[" + ",\n".join(docs) + "]\n</rules>"


def parse_rules_block(text: str) -> list[ExtractedRule]:
    """Return the rules of the `<rules>` block in a message (empty if there is none).

    Raises:
        ValueError: The block is not a JSON list of rules.
    """
    return [rule for _, rule in parse_rule_refs(text)]


def parse_rule_refs(text: str) -> list[tuple[str, ExtractedRule]]:
    """Return (id, rule) of every rule in the `<rules>` block of a message.

    Raises:
        ValueError: The block is not a JSON list of rules.
    """
    found = _RULES_BLOCK.search(text)
    if found is None:
        return []
    try:
        docs = json.loads(found.group(1))
        if not isinstance(docs, list):
            raise ValueError("expected a list")
        refs = [str(d.pop("ref", f"r{i}")) for i, d in enumerate(docs, start=1)]
        return list(zip(refs, _RULES.validate_python(docs), strict=True))
    except (ValueError, AttributeError) as exc:
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
