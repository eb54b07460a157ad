"""`athena mcp`: serve graph memory over the Model Context Protocol."""

from __future__ import annotations

import argparse

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


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    from agents.mcp_server import build_server

    server = build_server(settings_from(args), read_only=args.read_only, namespace=args.namespace)
    if args.http:
        server.settings.host = "127.0.0.1"
        server.settings.port = args.port
        server.run("streamable-http")
    else:
        server.run("stdio")
    return 0
