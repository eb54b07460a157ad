"""The page templates and how a page is rendered (what every page is given)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from agents.ui.auth import may_write

PACKAGE = resources.files("agents.ui")


def templates() -> Environment:
    """The page templates (autoescaped)."""
    env = Environment(
        loader=FileSystemLoader(str(PACKAGE / "templates")),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["words"] = lambda s: str(s or "").replace("_", " ")
    return env


def render(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """Render a template with what every page needs (namespace, write access)."""
    env: Environment = request.app.state.templates
    page = env.get_template(name).render(
        request=request,
        namespace=str(request.app.state.namespace),
        can_write=may_write(request),
        **values,
    )
    return HTMLResponse(page, status_code=status)


__all__ = ["PACKAGE", "render", "templates"]
