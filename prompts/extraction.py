"""The extraction prompt and the structured output it expects (`ExtractionOutput`)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from memory import OntologyDefinition
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ACTIONS, PRODUCT_TYPES, RISK_CATEGORIES, ExtractedRule

EXTRACTION_FILLED = ("text_id", "date", "valid_from", "valid_to", "sources", "conflicts")
"""Rule fields the model does not fill: the text's id and date, and what consolidation sets."""


class ExtractionOutput(BaseModel):
    """Every underwriting rule stated or implied in one knowledge text."""

    rules: list[ExtractedRule] = Field(
        default_factory=list, description="The rules; empty when the text states none."
    )


_GUIDE = """You extract underwriting rules from raw knowledge text into structured records.

How to read the text:
- Extract EVERY rule. One text often holds several (production case reviews 3-5+).
- Numeric thresholds hide in prose ("$75/sq ft", "0.25% rate", "more than 20 staff",
  "over a million"): turn each into a `threshold` and a machine-evaluable condition.
  Rates are decimals (0.25% -> 0.0025); fields named *_pct hold plain percents (20% -> 20);
  money is USD.
- Hard vs soft: "always", "must", "never", "automatic", "ineligible" -> threshold_type
  "hard". "generally", "usually", "typically", "may", "at discretion", or known exceptions
  -> "soft". For a soft threshold with exceptions granted up to a value, set `soft_limit`
  to that value (limit 20 employees, approved up to 23 -> soft_limit 23).
- Withdrawals: a text that lifts, rescinds or withdraws a rule (a moratorium lifted, a
  section withdrawn) gives that rule with its conditions and `withdrawn: true`.
- Practice (SME interviews, decision logs) about a stated limit keeps the limit and action
  as stated; what practice accepted goes in `soft_limit`, `historical_exceptions` and
  `mitigants`, never in the threshold.
- Compound triggers: when several conditions must combine, list every one in `conditions`
  (ALL must hold) and name them in `compound_trigger` ("a AND b AND c").
- Data-quality patterns (exposure discrepancies, address ranges, zero or missing values)
  are rules too: risk_category "data_quality", usually action "verify" or "flag_for_review".
- Geographic appetite (tier-1 counties, excluded states, coastal distance) ->
  "geographic_appetite" or "catastrophe"; pricing rules (rate minimums, TIV per sq ft) ->
  "pricing"; process rules (documents to collect, sign-offs, referrals to a desk) ->
  "process".
- Divergent decisions: when a case shows the decision differed from the stated rule,
  extract BOTH the stated rule AND the learned exception, set decision_quality
  ("aligned", "divergent", "partial") and describe the deviation in
  `historical_exceptions`.
- Mitigants: controls that waive or soften a rule go in `mitigants` (plain words) and, when
  a boolean field of the data dictionary shows them, in `mitigant_fields`.
- Conditions use ONLY canonical field names from the data dictionary below, with
  operators eq, neq, lt, lte, gt, gte, in, not_in (a list value for in / not_in).
  Text values are lower case, except `state` (two-letter upper-case code).
- `data_fields` lists every field the rule reads or mentions.
- rule_name: short, unique, descriptive (Title Case). Do not invent rules the text
  does not support; set confidence "low" when unsure.

Allowed values:
- risk_category: {categories}
- product_type: {products} (ALL when the text names no product)
- action: {actions}
- source_type: manual, training, sme, production, compliance
"""


def data_dictionary_context(fields: DataDictionary) -> str:
    """Render the data dictionary as one line per canonical field."""
    lines = ["## Data dictionary (canonical fields)"]
    for name, spec in fields.fields.items():
        unit = f", {spec.unit}" if spec.unit else ""
        synonyms = f"; also: {', '.join(spec.synonyms)}" if spec.synonyms else ""
        lines.append(f"- `{name}` ({spec.type}{unit}): {spec.description}{synonyms}")
    return "\n".join(lines) + "\n"


def extraction_system_prompt(ontology: OntologyDefinition, fields: DataDictionary) -> str:
    """Return the system prompt: the extraction guide, the ontology and the data dictionary."""
    guide = _GUIDE.format(
        categories=", ".join(RISK_CATEGORIES),
        products=", ".join(PRODUCT_TYPES),
        actions=", ".join(ACTIONS),
    )
    return "\n".join([guide, ontology.to_prompt_context(), data_dictionary_context(fields)])


def build_extraction_messages(
    text: KnowledgeText, ontology: OntologyDefinition, fields: DataDictionary
) -> list[BaseMessage]:
    """Return the messages that ask a model for the `ExtractionOutput` of one text."""
    meta = [f"text id: {text.id}"]
    if text.source:
        meta.append(f"source: {text.source}")
    if text.source_type:
        meta.append(f"source_type: {text.source_type}")
    return [
        SystemMessage(extraction_system_prompt(ontology, fields)),
        HumanMessage(
            "\n".join(meta) + "\n\n<knowledge_text>\n" + text.text + "\n</knowledge_text>\n\n"
            "Extract every underwriting rule in this text."
        ),
    ]
