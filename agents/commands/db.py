"""`athena db start | stop | status`: the embedded FalkorDB server."""

from __future__ import annotations

import argparse
from typing import Any

from agents.commands.common import add_common_options, print_json, settings_from
from memory.backend import server
from memory.settings import redact


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `db` command group."""
    parser = commands.add_parser("db", help="manage the embedded FalkorDB server")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, helptext in (
        ("start", "start the server of ATHENA_DATA_DIR (no-op if running)"),
        ("stop", "stop it"),
        ("status", "show whether it runs, its pid, memory and socket"),
    ):
        sub = actions.add_parser(name, help=helptext)
        add_common_options(sub, namespace=False)
        sub.set_defaults(handler=run)


def _remote_status(url: str) -> dict[str, Any]:
    """PING the server at `url`: reachability and version, the URL without credentials."""
    import redis

    status: dict[str, Any] = {"url": redact(url), "running": False, "version": None}
    client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        status["running"] = bool(client.ping())
        info = client.info("server")
        status["version"] = info.get("redis_version")
    finally:
        client.close()
    return status


def run(args: argparse.Namespace) -> int:
    """Carry out one `db` action and print the server status."""
    settings = settings_from(args)
    if settings.falkordb_url:
        url = redact(settings.falkordb_url)
        if args.action != "status":
            raise ValueError(f"FALKORDB_URL is set ({url}): that server is managed elsewhere")
        remote = _remote_status(settings.falkordb_url)
        if args.json:
            print_json(remote)
        else:
            print(f"FalkorDB running at {url} (FALKORDB_URL)  version {remote['version']}")
        return 0
    if args.action == "start":
        status = server.ensure_server(settings.data_dir)
    elif args.action == "stop":
        server.stop_server(settings.data_dir)
        status = server.server_status(settings.data_dir)
    else:
        status = server.server_status(settings.data_dir)
    if args.json:
        print_json(status.to_dict())
    else:
        state = "running" if status.running else "loading its data" if status.pid else "stopped"
        print(f"FalkorDB {state}  data dir {status.data_dir}")
        if status.running:
            mem = (status.used_memory_bytes or 0) / 1e6
            print(f"  pid {status.pid}  socket {status.socket_path}  FalkorDB {status.version}")
            print(
                f"  memory {mem:.1f} MB  append-only file {'on' if status.aof_enabled else 'off'}"
            )
    return 0 if status.running or args.action == "stop" else 1
