"""`athena mcp`: serve graph memory over the Model Context Protocol."""

from __future__ import annotations

import argparse
import sys
from typing import Any

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
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="HTTP: share the port with other `athena mcp --http --reuse-port` processes "
        "(the kernel spreads connections over them; requests are stateless)",
    )
    add_common_options(parser)
    parser.set_defaults(handler=run)


def check_port_free(port: int, host: str = "127.0.0.1") -> None:
    """Refuse a port already taken on `host`, before anything is printed or started.

    Raises:
        OSError: The port is in use (or not ours to bind).
    """
    import errno
    import socket

    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise OSError(
                errno.EADDRINUSE,
                f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port",
            ) from exc


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP).

    Over HTTP every request needs ``Authorization: Bearer <token>`` (see `agents.mcp_http`).
    """
    from agents.mcp_server import build_server

    settings = settings_from(args)
    reuse = bool(args.http and args.reuse_port)
    server = build_server(
        settings, read_only=args.read_only, namespace=args.namespace, stateless=reuse
    )
    if not args.http:
        server.run("stdio")
        return 0
    import uvicorn

    from agents.mcp_http import BearerAuth, http_token

    sock = _shared_socket(args.port) if reuse else None
    if sock is None:
        check_port_free(args.port)
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
    if sock is None:
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    else:
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
    return 0


def _shared_socket(port: int) -> Any:
    """A listening socket on 127.0.0.1:`port` that other processes may bind too.

    Raises:
        OSError: The port is held by a process that did not ask to share it.
    """
    import errno
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise OSError(
            errno.EADDRINUSE,
            f"cannot share 127.0.0.1:{port} ({exc.strerror}); choose another --port",
        ) from exc
    sock.listen(2048)
    sock.set_inheritable(False)
    return sock
