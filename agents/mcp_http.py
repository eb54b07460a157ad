"""Bearer-token access to `athena mcp --http`.

The data dir is owner-only (0700), but a TCP port on 127.0.0.1 is open to every local
user: over HTTP each request must carry ``Authorization: Bearer <token>``. The token
is `ATHENA_MCP_TOKEN` (or ``mcp_token`` in a settings file) when set, else one
generated once into ``<data dir>/mcp-token`` with mode 0600. The stdio transport
needs no token: only the process that started the server can talk to it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from memory import Settings

TOKEN_FILE = "mcp-token"
MIN_TOKEN_CHARS = 16

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def token_path(settings: Settings) -> Path:
    """Where the generated token is kept."""
    return Path(settings.data_dir).expanduser() / TOKEN_FILE


def http_token(settings: Settings) -> tuple[str, str]:
    """Return the bearer token of the HTTP server and where it comes from.

    Raises:
        ValueError: A configured token is shorter than `MIN_TOKEN_CHARS`, or the
            token file is not a regular file owned by this user.
    """
    if settings.mcp_token:
        token = settings.mcp_token.strip()
        if len(token) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"ATHENA_MCP_TOKEN is {len(token)} characters; use at least {MIN_TOKEN_CHARS}"
            )
        return token, "ATHENA_MCP_TOKEN"
    path = token_path(settings)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path), str(path)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(secrets.token_urlsafe(32) + "\n")
    return _read_token(path), str(path)


def _read_token(path: Path) -> str:
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        raise ValueError(f"{path} must be a regular file owned by you (the MCP token)")
    if info.st_mode & 0o077:
        path.chmod(0o600)
    token = path.read_text("utf-8").strip()
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"{path} holds no usable token; delete it to generate a new one")
    return token


class BearerAuth:
    """ASGI middleware: HTTP requests without the right bearer token get 401.

    Args:
        app: The wrapped ASGI app (the MCP streamable HTTP app).
        token: The expected token (compared in constant time).
    """

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass authorised HTTP requests (and lifespan events) to the app."""
        if scope["type"] == "http" and not self._authorised(scope):
            body = json.dumps(
                {
                    "error": "invalid_token",
                    "error_description": "send 'Authorization: Bearer <token>'; the token is "
                    "ATHENA_MCP_TOKEN or the mcp-token file in the server's data dir",
                }
            ).encode("utf-8")
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="athena-mcp"'),
            ]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        for name, value in scope.get("headers") or []:
            if name.lower() == b"authorization":
                scheme, _, given = bytes(value).partition(b" ")
                if scheme.lower() == b"bearer":
                    return hmac.compare_digest(given.strip(), self.token)
        return False
