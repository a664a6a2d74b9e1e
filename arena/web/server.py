"""Serving the web arena with uvicorn: in the foreground (``arena web``) or on a thread beside
the gRPC service (``arena serve --web``)."""

from __future__ import annotations

import asyncio
import socket
import threading

import uvicorn

from arena.errors import ArenaError
from arena.store import Store
from arena.web.app import WebConfig, create_app


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


class WebServer:
    """A uvicorn server for the web arena on a socket bound at construction (port 0 works)."""

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
        sock.listen(256)
        sock.set_inheritable(True)
        self._sock = sock
        self.host = host
        self.port = sock.getsockname()[1]
        self.app = create_app(store, config)
        self._server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                log_level="warning",
                access_log=False,
                lifespan="on",
                timeout_graceful_shutdown=2,
            )
        )
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def run(self) -> None:
        """Serve in this thread until SIGINT/SIGTERM (uvicorn's own handlers)."""
        try:
            self._server.run(sockets=[self._sock])
        finally:
            self._sock.close()

    def start(self) -> None:
        """Serve on a thread of its own (signals stay with the caller); ``stop`` ends it."""

        def serve() -> None:
            asyncio.run(self._server.serve(sockets=[self._sock]))

        self._thread = threading.Thread(target=serve, name="arena-web", daemon=True)
        self._thread.start()
        for _ in range(200):
            if self._server.started:
                return
            if not self._thread.is_alive():
                raise ArenaError("the web server failed to start")
            threading.Event().wait(0.025)

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._sock.close()
