"""The review application's writes (token required) and its decisions.

Every write goes through the one commit path (`memory.underwriting.reviews`) and
answers with a redirect to the page that shows what changed; bad input raises a
`ValueError` the application shows as a message, with nothing written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agents.ui.auth import COOKIE, check_write, token_matches
from schemas.fields import FieldSpec

if TYPE_CHECKING:
    from schemas.fields import DataDictionary
    from schemas.rules import ExtractedRule

MAX_FORM_BYTES = 1_000_000
_SOFT_LIMIT = FieldSpec(type="float", description="The limit a soft rule was approved up to.")


async def _form(request: Request) -> FormData:
    size = int(request.headers.get("content-length") or 0)
    if size > MAX_FORM_BYTES:
        raise ValueError(f"the form is {size} bytes; at most {MAX_FORM_BYTES} are accepted")
    return await request.form()


def _text(form: FormData, key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


def _redirect(path: str) -> Response:
    return RedirectResponse(path, status_code=303)


def _rule_path(name: str) -> str:
    return "/rules/" + quote(name, safe="")


_YES_NO = {"true": True, "yes": True, "false": False, "no": False}


def _typed(text: str, field: str, spec: FieldSpec | None) -> Any:
    """A form value as its data-dictionary type, by `schemas.submission.coerce_value`.

    A form gives text: a yes/no field's words become a boolean and digits may be
    grouped with commas. Text of a text field, or of a field the dictionary lacks,
    is kept as typed.

    Raises:
        ValueError: The text does not fit the field's type.
    """
    from schemas.submission import SubmissionError, coerce_value

    if spec is None or spec.type == "str":
        return text
    if spec.type == "bool":
        value: Any = _YES_NO.get(text.lower(), text)
        expected = "yes or no"
    else:
        value = text.replace(",", "")
        expected = f"a number ({spec.type})"
    try:
        return coerce_value(field, value, spec)
    except SubmissionError:
        raise ValueError(f"{field} must be {expected}, got {text!r}") from None


def edited_rule(rule: ExtractedRule, form: FormData, fields: DataDictionary) -> ExtractedRule:
    """The rule as the edit form changes it (conditions' values, action, softness, outcome).

    Raises:
        ValueError: A value of the wrong type, or a rule the data dictionary refuses.
    """
    from agents.ingestion.checks import rule_problems

    conditions = []
    for i, condition in enumerate(rule.conditions):
        raw = _text(form, f"value_{i}")
        spec = fields.fields.get(condition.field)
        if condition.operator in ("in", "not_in"):
            value: Any = [_typed(v.strip(), condition.field, spec) for v in raw.split(",") if v]
        else:
            value = _typed(raw, condition.field, spec) if raw else condition.value
        conditions.append(condition.model_copy(update={"value": value}))
    update: dict[str, Any] = {"conditions": conditions}
    threshold = rule.threshold
    if threshold is not None:
        moved = next((c for c in conditions if c.field == threshold.field), None)
        if moved is not None:
            update["threshold"] = threshold.model_copy(update={"value": moved.value})
    for key, name in (
        ("rule_action", "action"),
        ("threshold_type", "threshold_type"),
        ("outcome_description", "outcome_description"),
    ):
        if _text(form, key):
            update[name] = _text(form, key)
    soft = _text(form, "soft_limit")
    update["soft_limit"] = _typed(soft, "soft_limit", _SOFT_LIMIT) if soft else None
    mitigants = [line.strip() for line in _text(form, "mitigants").splitlines() if line.strip()]
    update["mitigants"] = mitigants
    edited = type(rule).model_validate({**rule.model_dump(), **update})
    problems = rule_problems(edited, fields)
    if problems:
        raise ValueError("the edited rule is not accepted: " + "; ".join(problems))
    return edited


async def review_rule(request: Request) -> Response:
    """Accept, reject or edit a rule; the change is a new version sourced to the review."""
    from memory.underwriting.reviews import Review, apply_review, current_rule

    check_write(request)
    form = await _form(request)
    memory, namespace = request.app.state.memory, request.app.state.namespace
    name, action = _text(form, "rule_name"), _text(form, "action")
    edited = None
    if action == "edit":
        rule = await current_rule(memory, namespace, name)
        edited = edited_rule(rule, form, request.app.state.fields)
    review = Review(name, action, _text(form, "who"), _text(form, "why"), edited)
    result = await apply_review(memory, namespace, review)
    return _redirect(_rule_path(result.rule_name) + "#history")


async def _uploaded(form: FormData) -> str:
    """The text of an uploaded submission file ("" when none was chosen)."""
    from schemas.submission import SubmissionError

    upload = form.get("submission_file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return ""
    data = await upload.read()
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{upload.filename} is not UTF-8 text: {exc}") from exc


async def _submission(form: FormData, fields: DataDictionary) -> dict[str, Any]:
    """The submission of the decide form: the JSON text, else the fields filled in."""
    import json

    from schemas.submission import SubmissionError

    text = _text(form, "submission") or await _uploaded(form)
    if text:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SubmissionError(f"the submission is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise SubmissionError("a submission must be a JSON object of field -> value")
        return data
    given = {name: _text(form, f"field_{name}") for name in fields.fields}
    data = {name: _typed(v, name, fields.fields[name]) for name, v in given.items() if v}
    if not data:
        raise SubmissionError("fill in some fields, or paste a submission as JSON")
    return data


async def decide(request: Request) -> Response:
    """Decide a submission; a referral pauses for a person (resumable from its page)."""
    from agents.underwriting.review import start_review

    form = await _form(request)
    fields = request.app.state.fields
    submission = await _submission(form, fields)
    as_of = _text(form, "as_of") or None
    outcome = await start_review(
        request.app.state.memory,
        str(request.app.state.namespace),
        submission,
        fields,
        request.app.state.checkpointer,
        as_of=as_of,
    )
    return _redirect(f"/decide/{outcome.thread_id}")


async def resume(request: Request) -> Response:
    """Give a person's decision to a referral that paused."""
    from agents.underwriting.policy import SEVERITY
    from agents.underwriting.review import resume_review

    check_write(request)
    form = await _form(request)
    answer = {"decision": _text(form, "decision"), "note": _text(form, "note")}
    if answer["decision"] not in SEVERITY:
        raise ValueError(f"unknown decision {answer['decision']!r}; allowed: {', '.join(SEVERITY)}")
    thread = request.path_params["thread"]
    await resume_review(
        request.app.state.memory,
        str(request.app.state.namespace),
        thread,
        answer,
        request.app.state.fields,
        request.app.state.checkpointer,
    )
    return _redirect(f"/decide/{thread}")


async def sign_in(request: Request) -> Response:
    """Keep the token in an HttpOnly cookie when it is the server's."""
    form = await _form(request)
    token = _text(form, "token")
    if not token or not token_matches(request, token):
        raise ValueError("that is not this server's token; writes stay locked")
    back = _text(form, "next")
    response = _redirect(back if back.startswith("/") and not back.startswith("//") else "/")
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


async def sign_out(request: Request) -> Response:
    """Forget the token cookie."""
    response = _redirect("/")
    response.delete_cookie(COOKIE, path="/")
    return response


__all__ = ["decide", "edited_rule", "resume", "review_rule", "sign_in", "sign_out"]
