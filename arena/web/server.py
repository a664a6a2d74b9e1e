"""Serving the web arena with Hypercorn: in the foreground (``arena web``) or on a thread beside
the gRPC service (``arena serve --web``).

Hypercorn, not uvicorn, because of slow request heads: a connection that has not sent a whole
request head within ``WebConfig.request_head_timeout_s`` is closed. Hypercorn's
``keep_alive_timeout`` runs from the moment a connection opens (and again after each response)
until a complete head has arrived, and bytes trickling in do not restart it; uvicorn has no such
limit for a connection's first request (docs/web.md, "Threat model").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig

from arena.errors import ArenaError
from arena.store import Store
from arena.web.app import WebConfig, create_app

MAX_HEAD_BYTES = 16 * 1024
"""The largest request head taken (Hypercorn's h11 limit): a bigger one is a 400."""


def parse_listen(listen: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) into its parts; one-line errors."""
    host, sep, port_text = listen.rpartition(":")
    if not sep or not host:
        raise ArenaError(f"--listen must be HOST:PORT, got {listen!r}")
    host = host.strip("[]")
    try:
        port = int(port_text)
    except ValueError:
        raise ArenaError(f"--listen port must be a number, got {port_text!r}") from None
    if not 0 <= port <= 65535:
        raise ArenaError(f"--listen port must be 0-65535, got {port}")
    return host, port


def hypercorn_config(config: WebConfig, fd: int) -> HypercornConfig:
    """Hypercorn's settings for the arena: serve the listening socket ``fd`` (Hypercorn takes
    it over), close a connection whose request head is not in within the head timeout, log
    only warnings (no access log)."""
    hc = HypercornConfig()
    hc.bind = [f"fd://{fd}"]
    hc.keep_alive_timeout = config.request_head_timeout_s
    hc.h11_max_incomplete_size = MAX_HEAD_BYTES
    hc.graceful_timeout = 2.0
    hc.accesslog = None
    hc.errorlog = logging.getLogger("arena.web.server")
    hc.loglevel = "WARNING"
    return hc


class WebServer:
    """A Hypercorn server for the web arena on a socket bound at construction (port 0 works)."""

    def __init__(self, store: Store, listen: str, config: WebConfig | None = None) -> None:
        host, port = parse_listen(listen)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise ArenaError(f"cannot listen on {listen}: {exc.strerror}") from None
        # Listening from here on: a connection made before the server runs waits in the queue.
        sock.listen(256)
        self._sock = sock
        self.host = host
        self.port = sock.getsockname()[1]
        self.config = config or WebConfig()
        self.app = create_app(store, self.config)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._failed: BaseException | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def _config(self) -> HypercornConfig:
        # Hypercorn closes the socket it is given: it gets a duplicate, this object keeps its own.
        return hypercorn_config(self.config, os.dup(self._sock.fileno()))

    def run(self) -> None:
        """Serve in this thread until SIGINT/SIGTERM (Hypercorn's own handlers)."""
        try:
            asyncio.run(hypercorn_serve(self.app, self._config()))  # type: ignore[arg-type]
        finally:
            self._sock.close()

    def start(self) -> None:
        """Serve on a thread of its own (signals stay with the caller); ``stop`` ends it."""
        ready = threading.Event()

        async def serve() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            ready.set()
            await hypercorn_serve(
                self.app,  # type: ignore[arg-type]
                self._config(),
                shutdown_trigger=self._stop.wait,
            )

        def run() -> None:
            try:
                asyncio.run(serve())
            except BaseException as exc:  # told by start(), or the log
                self._failed = exc
                ready.set()

        self._thread = threading.Thread(target=run, name="arena-web", daemon=True)
        self._thread.start()
        ready.wait(10)
        if self._failed is not None or not self._thread.is_alive():
            raise ArenaError(f"the web server failed to start: {self._failed}")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended already
                self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._sock.close()
