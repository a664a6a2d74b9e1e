"""Serving a bot over gRPC with one call: health checking, reflection, graceful shutdown."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent import futures
from types import FrameType
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena._gen.spades.v1 import bot_pb2_grpc
from arena.bot_protocol import messages
from arena.sdk.aio_service import AioBotServicer, HandlerMode, Handlers
from arena.sdk.bot import Bot
from arena.sdk.match_tags import tag_output

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
    """A running bot server. ``stop()`` drains in-flight requests for ``grace`` seconds.

    C-core's async server (``grpc.aio``) on an event loop of its own thread; the bot's methods
    run where ``handlers`` says (``arena.sdk.aio_service``: ``"auto"`` by default, a pool of
    ``max_workers`` threads for a bot that thinks, the loop itself for one that answers at
    once)."""

    def __init__(
        self,
        bot: Bot,
        address: str,
        max_workers: int = 64,
        handlers: HandlerMode = "auto",
    ) -> None:
        self.bot = bot
        self._pool = (
            None
            if handlers == "inline"
            else futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="bot")
        )
        self.handlers = Handlers(handlers, self._pool)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bot-grpc", daemon=True)
        self._thread.start()
        try:
            self.address = self._on_loop(self._start(address))
        except BaseException:
            self._close_loop()
            raise

    async def _start(self, address: str) -> str:
        self.server = grpc.aio.server()
        bot_pb2_grpc.add_BotServiceServicer_to_server(
            AioBotServicer(self.bot, self.handlers), self.server
        )
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (messages.SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self.server
        )
        try:
            port = self.server.add_insecure_port(address)
        except RuntimeError as exc:
            raise AddressError(f"cannot listen on {address!r}: {exc}") from exc
        if port == 0:
            raise AddressError(f"cannot listen on {address!r}")
        if not address.startswith("unix:") and address.rsplit(":", 1)[-1] == "0":
            address = f"{address.rsplit(':', 1)[0]}:{port}"
        await self.server.start()
        for service in ("", messages.SERVICE_NAME):
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        return address

    def _on_loop(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _close_loop(self) -> None:
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def stop(self, grace: float = 2.0) -> None:
        if self._loop.is_closed():
            return

        async def stop() -> None:
            await self.health.enter_graceful_shutdown()
            await self.server.stop(grace)

        try:
            self._on_loop(stop())
        finally:
            self._close_loop()

    def wait(self) -> None:
        if not self._loop.is_closed():
            self._on_loop(self.server.wait_for_termination())


def start(
    bot: Bot,
    address: str | None = None,
    max_workers: int = 64,
    handlers: HandlerMode = "auto",
) -> BotServer:
    """Start serving ``bot`` in background threads and return the running server."""
    return BotServer(bot, resolve_address(address), max_workers, handlers)


def serve(
    bot: Bot,
    address: str | None = None,
    max_workers: int = 64,
    handlers: HandlerMode = "auto",
) -> None:
    """Serve ``bot`` until SIGTERM or SIGINT, then shut down gracefully.

    The address is ``address``, else ``--listen ADDR``, else $ARENA_BOT_ADDRESS. One process
    serves many matches at once, on one event loop; ``handlers`` says where the bot's methods
    run: ``"auto"`` (the default) on a pool of ``max_workers`` threads while they take time and
    on the loop once they have shown they answer at once, ``"threads"`` always on the pool,
    ``"inline"`` always on the loop (``arena.sdk.aio_service``)."""
    tag_output()  # each line written during a call starts with its match's tag
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        server = start(bot, address, max_workers, handlers)
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
