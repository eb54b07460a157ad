"""`create_app`: the review web application over one namespace of graph memory.

Server-rendered pages (Starlette + Jinja2); JavaScript only for the graph view
(the vendored cytoscape.js) and nothing loaded from outside the package. One
`GraphMemory` is opened when the server starts and kept; its indexes follow the
change log, so rules another process writes show on the next page load.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from agents.ui import actions, views
from agents.ui.auth import WriteRefused
from agents.ui.render import PACKAGE, render, templates
from memory import Settings

# No script, style, font or frame from anywhere but this server (the graph library sets
# inline styles on its canvas; scripts stay strictly our own files).
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; "
    "base-uri 'none'"
)


class SecurityHeaders:
    """ASGI middleware: the content security policy and no-sniff on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to HTTP responses."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers += [
                    (b"content-security-policy", _CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                ]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, sending)


async def _warm(app: Starlette) -> None:
    """Build the catalogue and the search indexes before the first page asks for them."""
    from memory.underwriting import GraphAnalytics
    from memory.underwriting.catalogue import catalogue

    memory, namespace = app.state.memory, app.state.namespace
    rows, _ = await catalogue(memory, namespace)
    if rows:
        await GraphAnalytics(memory, namespace, app.state.fields).query(rows[0].risk_factor)


async def _cytoscape(request: Request) -> Response:
    """The graph library, vendored once beside the visualizer that inlines it too."""
    from memory.underwriting.focused import CYTOSCAPE_JS

    return FileResponse(CYTOSCAPE_JS, media_type="text/javascript")


async def _problem(request: Request, exc: Exception) -> Response:
    """Bad input and refused writes: a clear message on a page, nothing changed."""
    if isinstance(exc, WriteRefused):
        return render(request, "problem.html", 403, title="Write refused", message=str(exc))
    if isinstance(exc, HTTPException):
        return render(
            request, "problem.html", exc.status_code, title="Not found", message=exc.detail
        )
    return render(request, "problem.html", 400, title="Not accepted", message=str(exc))


def create_app(settings: Settings, *, namespace: str | None = None, token: str) -> Starlette:
    """Return the review application.

    Args:
        settings: Where the memory lives (embedded data dir or FALKORDB_URL).
        namespace: The namespace to show; None uses the settings' one.
        token: The token writes must carry (the `athena mcp --http` one).
    """
    from memory import GraphMemory, Namespace
    from schemas.fields import load_data_dictionary

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        from agents.checkpoint import durable_checkpointer

        async with AsyncExitStack() as stack:
            app.state.memory = await stack.enter_async_context(GraphMemory(settings))
            app.state.checkpointer = await stack.enter_async_context(durable_checkpointer(settings))
            await _warm(app)
            yield

    app = Starlette(
        routes=[
            Route("/", views.rules_page),
            Route("/rules/{name:path}/edit", views.edit_page),
            Route("/rules/{name:path}", views.rule_page),
            Route("/graph", views.graph_page),
            Route("/review", views.review_page),
            Route("/review", actions.review_rule, methods=["POST"]),
            Route("/decide", views.decide_page),
            Route("/decide", actions.decide, methods=["POST"]),
            Route("/decide/{thread}", views.thread_page),
            Route("/decide/{thread}", actions.resume, methods=["POST"]),
            Route("/signin", views.signin_page),
            Route("/signin", actions.sign_in, methods=["POST"]),
            Route("/signout", actions.sign_out, methods=["POST"]),
            Route("/static/cytoscape.min.js", _cytoscape),
            Mount("/static", StaticFiles(directory=str(PACKAGE / "static")), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={ValueError: _problem, WriteRefused: _problem, HTTPException: _problem},
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.namespace = Namespace.parse(namespace or settings.namespace)
    app.state.token = token
    app.state.fields = load_data_dictionary(settings.fields_path)
    app.state.templates = templates()
    return app


__all__ = ["create_app"]
