"""Who may write from the review page: the holder of the `athena mcp --http` token.

Reading needs nothing (the server listens on loopback only). A write (a review, a
resumed referral) needs the same token as the MCP HTTP server, sent as
``Authorization: Bearer <token>`` or kept, once given on the sign-in form, in an
HttpOnly, SameSite=Strict cookie. A write whose ``Origin`` is another site is
refused whatever it carries.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from starlette.requests import Request

COOKIE = "athena_token"


class WriteRefused(PermissionError):
    """A write without the token, or from another site: nothing was changed."""


def given_token(request: Request) -> str | None:
    """The token a request carries (bearer header first, then the sign-in cookie)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE)


def may_write(request: Request) -> bool:
    """True when the request carries the server's token."""
    token: str = request.app.state.token
    given = given_token(request)
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def check_write(request: Request) -> None:
    """Refuse a write that lacks the token or comes from another site.

    Raises:
        WriteRefused: With a message naming what was missing.
    """
    origin = request.headers.get("origin")
    if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise WriteRefused(
            f"a write from {origin} is refused: this page takes writes only from itself"
        )
    if not may_write(request):
        raise WriteRefused(
            "this page is read-only without the token: sign in with the token of "
            "`athena mcp --http` (ATHENA_MCP_TOKEN, or the mcp-token file in the data dir)"
        )


def token_matches(request: Request, token: str) -> bool:
    """True when `token` is the server's token (constant-time)."""
    expected: str = request.app.state.token
    return hmac.compare_digest(token.strip().encode(), expected.encode())


__all__ = ["COOKIE", "WriteRefused", "check_write", "given_token", "may_write", "token_matches"]
