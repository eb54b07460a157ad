"""Stored rule documents <-> rules, made once and shared (the decision path's hot data).

A Rule node's document is the rule's JSON form plus its history; the condition index
parses each current rule once (`parse_document`) without validating what every write
already validated, and the JSON form of a rule or a decision path is made once per
object (`json_document`), so a decision reuses them instead of dumping and validating
rules between its graph's nodes.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel

from schemas.rules import (
    HISTORY_KEYS,
    STORED,
    Condition,
    ExtractedRule,
    RuleConflict,
    RuleSource,
    Threshold,
)

# The JSON form of a rule (or a decision path), made once per object: a reader holding the
# index's parsed rules (they live until the rule changes) and the read cache's paths (until
# the next commit) hands the same objects out decision after decision.
_DOCUMENTS_MAX = 1 << 16
_DOCUMENTS: OrderedDict[int, tuple[BaseModel, dict[str, Any]]] = OrderedDict()
_MODELS: dict[int, tuple[dict[str, Any], BaseModel]] = {}
# Rules parsed since the process's long-lived objects were last moved out of the cyclic
# GC's way (`gc.freeze`): the index parses rules lazily, after its own state was frozen.
FREEZE_AFTER = 2000
_unfrozen = 0


def json_document(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump(mode="json")``, made once per object and shared: do not change it.

    `model_of_document` gives the model back for the very dict returned here (a graph's
    state holds plain data; its next node needs the rule, not a re-validation of it).
    """
    entry = _DOCUMENTS.get(id(model))
    if entry is not None and entry[0] is model:
        _DOCUMENTS.move_to_end(id(model))
        return entry[1]
    document = model.model_dump(mode="json")
    _remember(model, document)  # (replaces an entry of a dead object whose id was reused)
    return document


def model_of_document(document: Any) -> BaseModel | None:
    """The model `json_document` made `document` from (that very dict), else None."""
    entry = _MODELS.get(id(document))
    return entry[1] if entry is not None and entry[0] is document else None


def parsed_more(count: int) -> None:
    """Count rules parsed; past `FREEZE_AFTER`, freeze what the process holds.

    As `memory.backend.derived` does with a state it built: full collections would
    otherwise rescan every parsed rule (pauses of 0.1-0.5 s at 100k rules).
    """
    global _unfrozen
    _unfrozen += count
    if _unfrozen >= FREEZE_AFTER:
        _unfrozen = 0
        gc.collect(0)
        gc.freeze()


_RULE_FIELDS = ExtractedRule.model_fields.keys()
_RULE_ORDER = tuple(_RULE_FIELDS)
_CONDITION_FIELDS = Condition.model_fields.keys()
_THRESHOLD_FIELDS = Threshold.model_fields.keys()
_SOURCE_FIELDS = RuleSource.model_fields.keys()
_CONFLICT_FIELDS = RuleConflict.model_fields.keys()
_LISTS = ("mitigants", "mitigant_fields", "data_fields")


def _remember(model: BaseModel, document: dict[str, Any]) -> None:
    """Take `document` as `model`'s JSON form (it must equal its ``model_dump(mode="json")``)."""
    old = _DOCUMENTS.pop(id(model), None)
    if old is not None:
        _MODELS.pop(id(old[1]), None)
    _DOCUMENTS[id(model)] = (model, document)
    _MODELS[id(document)] = (document, model)
    while len(_DOCUMENTS) > _DOCUMENTS_MAX:
        _, (_, dropped) = _DOCUMENTS.popitem(last=False)
        _MODELS.pop(id(dropped), None)


def parse_document(document: str | None) -> ExtractedRule | None:
    """The structured rule of an indexed document; None without one or if malformed.

    A Rule node's document is ``{**rule.model_dump(mode="json"), **history}``
    (`memory.underwriting.rulebook`), so without its history it is the rule's JSON form:
    it is kept as such (`json_document` then has nothing to make).
    """
    if document is None:
        return None
    try:
        data = orjson.loads(document)
    except orjson.JSONDecodeError:  # what only `json` writes (huge integers, NaN)
        data = None
    try:
        if not isinstance(data, dict):
            return ExtractedRule.model_validate_json(document, context={STORED: True})
        for key in HISTORY_KEYS:
            data.pop(key, None)
        if _whole(data):  # the rule's JSON form, checked when it was written
            # (`split_history` already put it in order: every field's dict is then too)
            whole = data if tuple(data) == _RULE_ORDER else _in_order(data)
            rule = _stored_rule(whole)
            _remember(rule, whole)
            return rule
        return ExtractedRule.model_validate(data, context={STORED: True})
    except ValueError:  # a Rule node without a whole rule (pydantic's errors are ValueErrors)
        return None


def split_history(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A stored rule document's JSON form and its history, apart.

    The JSON form is in ``model_dump`` order when the document is whole (as
    `parse_document` would make it), so parsing it later skips the reordering; the
    history is the document's `HISTORY_KEYS` (versions, claims), which a decision
    never reads and which is most of a consolidated rule's document.
    """
    history = {key: data[key] for key in HISTORY_KEYS if key in data}
    form = {key: value for key, value in data.items() if key not in history}
    return (_in_order(form) if _whole(form) else form), history


def _whole(data: dict[str, Any]) -> bool:
    """Whether a stored document holds every field of a rule and of its parts."""
    threshold = data.get("threshold")
    return (
        data.keys() == _RULE_FIELDS
        and all(isinstance(c, dict) and c.keys() == _CONDITION_FIELDS for c in data["conditions"])
        and (
            threshold is None
            or (isinstance(threshold, dict) and threshold.keys() == _THRESHOLD_FIELDS)
        )
        and all(isinstance(s, dict) and s.keys() == _SOURCE_FIELDS for s in data["sources"])
        and all(isinstance(c, dict) and c.keys() == _CONFLICT_FIELDS for c in data["conflicts"])
        and all(isinstance(data[k], list) for k in _LISTS)
        and (data["soft_limit"] is None or type(data["soft_limit"]) is float)
    )


def _in_order(data: dict[str, Any]) -> dict[str, Any]:
    """A whole stored document (written with sorted keys) in ``model_dump`` order.

    Fields in their declared order, its parts' too (as ``model_dump(mode="json")`` has them).
    """
    document = {key: data[key] for key in _RULE_FIELDS}
    document["conditions"] = [
        {key: c[key] for key in _CONDITION_FIELDS} for c in data["conditions"]
    ]
    if (threshold := data["threshold"]) is not None:
        document["threshold"] = {key: threshold[key] for key in _THRESHOLD_FIELDS}
    document["sources"] = [{key: s[key] for key in _SOURCE_FIELDS} for s in data["sources"]]
    document["conflicts"] = [{key: c[key] for key in _CONFLICT_FIELDS} for c in data["conflicts"]]
    return document


def _stored_rule(document: dict[str, Any]) -> ExtractedRule:
    """The rule of a whole stored document (`_in_order`), built without validating it again.

    Every write validated it (`memory.underwriting.rulebook` stores
    ``rule.model_dump(mode="json")``), so its values already have their types; this
    builds what `ExtractedRule.model_validate` would (equal, the same repr) at a
    fraction of its cost, as `model_construct` does with every field given. The rule
    shares nothing mutable with `document`.
    """
    values = dict(document)
    values["conditions"] = [_construct(Condition, dict(c)) for c in document["conditions"]]
    threshold = document["threshold"]
    values["threshold"] = None if threshold is None else _construct(Threshold, dict(threshold))
    values["sources"] = [_construct(RuleSource, dict(s)) for s in document["sources"]]
    values["conflicts"] = [
        _construct(
            RuleConflict, {**c, "text_ids": list(c["text_ids"]), "fields": list(c["fields"])}
        )
        for c in document["conflicts"]
    ]
    for key in _LISTS:  # its own lists, not the document's
        values[key] = list(document[key])
    return _construct(ExtractedRule, values)


_M = TypeVar("_M", bound=BaseModel)


def _construct(cls: type[_M], values: dict[str, Any]) -> _M:
    """`cls.model_construct(**values)` for values of every field (no defaults to fill)."""
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__pydantic_fields_set__", set(values))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


__all__ = [
    "json_document",
    "model_of_document",
    "parse_document",
    "parsed_more",
    "split_history",
]
