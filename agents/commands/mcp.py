"""`athena mcp`: serve graph memory over the Model Context Protocol."""

from __future__ import annotations

import argparse
import sys

from agents.commands.common import add_common_options, settings_from


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `mcp` command."""
    parser = commands.add_parser(
        "mcp",
        help="serve memory tools over MCP (stdio, or streamable HTTP on loopback)",
    )
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    parser.add_argument("--read-only", action="store_true", help="register no mutating tool")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _check_port_free(port: int) -> None:
    """Refuse a port already taken on 127.0.0.1, before anything is printed or started.

    Raises:
        OSError: The port is in use (or not ours to bind).
    """
    import errno
    import socket

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise OSError(
                errno.EADDRINUSE,
                f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); choose another --port",
            ) from exc


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP).

    Over HTTP every request needs ``Authorization: Bearer <token>`` (see `agents.mcp_http`).
    """
    from agents.mcp_server import build_server

    settings = settings_from(args)
    server = build_server(settings, read_only=args.read_only, namespace=args.namespace)
    if not args.http:
        server.run("stdio")
        return 0
    import uvicorn

    from agents.mcp_http import BearerAuth, http_token

    _check_port_free(args.port)
    token, where = http_token(settings)
    server.settings.host = "127.0.0.1"
    server.settings.port = args.port
    app = BearerAuth(server.streamable_http_app(), token)
    print(
        f"athena mcp: http://127.0.0.1:{args.port}/mcp; clients send "
        f"'Authorization: Bearer <token>' with the token from {where}",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    return 0
