"""Connecting the coordinator to a Ray cluster, and a throwaway cluster on this machine."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from typing import Any

from arena.errors import ArenaError
from arena.runtime.supervisor import descendants, signal_pids

NAMESPACE = "spades-arena"
LOOPBACK = "127.0.0.1"
_SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
START_ATTEMPTS = 3
SYSTEM_CONFIG = {"kill_child_processes_on_worker_exit": False}
"""What a cluster for tournaments needs (docs/distributed.md): by default a raylet SIGKILLs a dead
worker's direct children, which are the bots' supervisors, so the bots below them would be left
running; without it each supervisor sees its worker go and kills its bot's whole process tree."""


def connect(address: str) -> None:
    """Join the cluster at ``address`` (``auto``: the one ``ray start`` runs here, or
    ``$RAY_ADDRESS``) as its driver; a second call in the same process keeps the connection.
    A cluster on the loopback interface (``127.0.0.1:PORT``) is joined over loopback."""
    if address != "auto":
        _check_reachable(address)
    if _on_loopback(address):
        _stay_on_loopback()
    import ray

    if ray.is_initialized():
        return
    if not address:
        raise ArenaError("--ray needs a cluster address (HOST:PORT of its head) or auto")
    try:
        ray.init(
            address=address,
            namespace=NAMESPACE,
            logging_level=logging.WARNING,
            log_to_driver=False,
            configure_logging=True,
        )
    except ConnectionError as exc:
        raise ArenaError(f"cannot join the Ray cluster at {address}: {_one_line(exc)}") from None
    except ValueError as exc:  # e.g. a malformed address
        raise ArenaError(f"bad Ray cluster address {address!r}: {_one_line(exc)}") from None


def local_cluster(nodes: int, cpus_per_node: int = 2, object_store_mb: int = 100) -> Any:
    """A cluster of ``nodes`` Ray nodes on this machine (``ray.cluster_utils.Cluster``), for
    benchmarks and tests; ``shutdown()`` it. Small memory, no dashboard."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    _stay_on_loopback()
    from ray.cluster_utils import Cluster

    node_args: dict[str, Any] = {
        "num_cpus": cpus_per_node,
        # Every node, and so all of Ray's traffic, on the loopback interface.
        "node_ip_address": LOOPBACK,
        "object_store_memory": object_store_mb * 1024 * 1024,
    }
    last: BaseException | None = None
    for _ in range(START_ATTEMPTS):
        before = set(descendants(os.getpid()))
        cluster = None
        try:
            cluster = Cluster(
                initialize_head=True,
                head_node_args={
                    **node_args,
                    **_agent_ports(),
                    "include_dashboard": False,
                    "_system_config": SYSTEM_CONFIG,
                },
            )
            for _ in range(nodes - 1):
                cluster.add_node(**node_args, **_agent_ports())
            cluster.wait_for_nodes()
            return cluster
        except Exception as exc:  # Ray raises bare Exception for a node that did not start
            last = exc
            # A raylet gives its agents a fixed 15 s to start and aborts past that, which a
            # loaded machine can overrun: clear away what this attempt started and try again.
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.shutdown()
            signal_pids(sorted(set(descendants(os.getpid())) - before), signal.SIGKILL)
    raise ArenaError(f"a local Ray cluster did not start in {START_ATTEMPTS} tries: {last}")


def add_local_node(cluster: Any, cpus: int = 2, object_store_mb: int = 100) -> Any:
    """Start one more node of ``cluster`` on this machine (a raylet joining its head, as
    ``ray start --address`` does on another machine) while it runs; the node, for
    ``cluster.remove_node``."""
    node = cluster.add_node(
        num_cpus=cpus,
        node_ip_address=LOOPBACK,
        object_store_memory=object_store_mb * 1024 * 1024,
        **_agent_ports(),
    )
    return node


def _agent_ports() -> dict[str, Any]:
    """Fixed ports for a node's agents. Given port 0, a raylet waits a fixed 15 s for its agents
    to report the ports they took and aborts past that, which a loaded machine overruns."""
    names = (
        "metrics_agent_port",
        "metrics_export_port",
        "dashboard_agent_listen_port",
        "runtime_env_agent_port",
    )
    socks = []
    try:
        for _ in names:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((LOOPBACK, 0))
            socks.append(sock)
        return {name: sock.getsockname()[1] for name, sock in zip(names, socks, strict=True)}
    finally:
        for sock in socks:
            sock.close()


def stop_local_cluster(cluster: Any) -> None:
    """Leave the cluster (if this process joined it), then stop its nodes."""
    import ray

    ray.shutdown()
    cluster.shutdown()


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail in one line, at once, when nothing listens at the head's address (Ray itself would
    retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ArenaError(
            f"bad Ray cluster address {address!r}: give HOST:PORT of its head, or auto"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ArenaError(
            f"cannot join the Ray cluster at {address}: nothing answers there "
            f"({exc.strerror or exc}); is `ray start --head` running, and is this its address "
            "and port?"
        ) from None


def _on_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


def _stay_on_loopback() -> None:
    """Ray turns a loopback address into the machine's default-route address (so that other
    machines could reach it) unless told the cluster is this machine alone; a cluster on the
    loopback interface then cannot be joined. The setting is read when ``ray`` is imported, so a
    process that imported it already has its module constant set instead."""
    os.environ.setdefault(_SINGLE_MACHINE_ENV, "0")
    if "ray" in sys.modules:
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."
