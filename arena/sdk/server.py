"""Serving a bot over gRPC with one call: health checking, reflection, graceful shutdown."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent import futures
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena import protocol
from arena._gen.spades.v1 import bot_pb2_grpc
from arena.sdk.bot import Bot
from arena.sdk.service import BotServicer

ADDRESS_ENV = "ARENA_BOT_ADDRESS"
"""The environment variable that names the address to listen on (set by the arena's runtime)."""

log = logging.getLogger("arena.sdk")


class AddressError(ValueError):
    """No address to listen on, or one that cannot be bound."""


def resolve_address(address: str | None = None, argv: Sequence[str] | None = None) -> str:
    """The listen address: ``address`` if given, else ``--listen ADDR`` on the command line,
    else $ARENA_BOT_ADDRESS. ``unix:/path/to.sock`` or ``host:port``."""
    if address:
        return address
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--listen")
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    if known.listen:
        return str(known.listen)
    env = os.environ.get(ADDRESS_ENV, "").strip()
    if env:
        return env
    raise AddressError(
        f"no address to listen on: pass --listen ADDR or set {ADDRESS_ENV} "
        "(e.g. unix:/tmp/bot.sock or 127.0.0.1:50051)"
    )


class BotServer:
    """A running bot server. ``stop()`` drains in-flight requests for ``grace`` seconds."""

    def __init__(self, bot: Bot, address: str, max_workers: int = 64) -> None:
        self.bot = bot
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="bot")
        )
        bot_pb2_grpc.add_BotServiceServicer_to_server(BotServicer(bot), self.server)
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (protocol.SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self.server
        )
        try:
            port = self.server.add_insecure_port(address)
        except RuntimeError as exc:
            raise AddressError(f"cannot listen on {address!r}: {exc}") from exc
        if port == 0:
            raise AddressError(f"cannot listen on {address!r}")
        self.address = address
        if not address.startswith("unix:") and address.rsplit(":", 1)[-1] == "0":
            self.address = f"{address.rsplit(':', 1)[0]}:{port}"
        self.server.start()
        for service in ("", protocol.SERVICE_NAME):
            self.health.set(service, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float = 2.0) -> None:
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()

    def wait(self) -> None:
        self.server.wait_for_termination()


def start(bot: Bot, address: str | None = None, max_workers: int = 64) -> BotServer:
    """Start serving ``bot`` in background threads and return the running server."""
    return BotServer(bot, resolve_address(address), max_workers)


def serve(bot: Bot, address: str | None = None, max_workers: int = 64) -> None:
    """Serve ``bot`` until SIGTERM or SIGINT, then shut down gracefully.

    The address is ``address``, else ``--listen ADDR``, else $ARENA_BOT_ADDRESS. One process
    serves many matches at once (a pool of ``max_workers`` threads; a match played over
    ``PlaySession`` holds one thread for its length)."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        server = start(bot, address, max_workers)
    except AddressError as exc:
        print(f"{bot.name}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    log.info("%s listening on %s", bot.name, server.address)
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    while not stopping.wait(0.5):
        pass
    log.info("%s shutting down", bot.name)
    server.stop()
