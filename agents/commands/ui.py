"""`athena ui`: the review page, a local web application over the same memory."""

from __future__ import annotations

import argparse
import sys

from agents.commands.common import add_common_options, settings_from


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `ui` command."""
    parser = commands.add_parser(
        "ui",
        help="serve the review page: rules, sources, conflicts, focused graphs, decisions",
    )
    parser.add_argument("--port", type=int, default=8766, help="port (default 8766)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the process is stopped.

    Reading needs nothing; writes (reviews, resumed referrals) need the token of
    `athena mcp --http` (see `agents.mcp_http`).
    """
    import uvicorn

    from agents.commands.mcp import check_port_free
    from agents.mcp_http import http_token
    from agents.ui import create_app

    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be between 1 and 65535, got {args.port}")
    settings = settings_from(args)
    check_port_free(args.port, args.host)
    token, where = http_token(settings)
    app = create_app(settings, namespace=args.namespace, token=token)
    print(
        f"athena ui: http://{args.host}:{args.port}/ (read-only until you sign in with the "
        f"token from {where})",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
