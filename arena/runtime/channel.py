"""The gRPC channel to a bot and the health check that says it is ready."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVING = "SERVING"

# A bot is local or a named endpoint: never reach it through an HTTP proxy from the environment.
# Each bot gets its own subchannel, so two bots at one target never share a connection. Reconnect
# quickly: a local bot that restarts should be reachable again within a second.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.enable_http_proxy", 0),
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
)


def open_channel(target: str) -> grpc.Channel:
    """An insecure channel to ``target`` (``unix:/path`` or ``host:port``)."""
    return grpc.insecure_channel(target, options=CHANNEL_OPTIONS)


def health_status(channel: grpc.Channel, timeout: float, *, wait_for_ready: bool = False) -> str:
    """The bot's overall health (service ``""``): ``SERVING``, another health status name, or the
    name of the gRPC status code the check failed with (``UNAVAILABLE``, ``UNIMPLEMENTED``, …)."""
    stub = health_pb2_grpc.HealthStub(channel)
    try:
        response = stub.Check(
            health_pb2.HealthCheckRequest(service=""),
            timeout=timeout,
            wait_for_ready=wait_for_ready,
        )
    except grpc.RpcError as exc:
        code = exc.code() if isinstance(exc, grpc.Call) else None
        return code.name if code is not None else "UNKNOWN_ERROR"
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
