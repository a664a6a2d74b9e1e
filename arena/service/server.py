"""``arena serve``: the gRPC server with health checking, reflection, auth, optional TLS, and a
graceful shutdown.

On SIGTERM (or SIGINT) the server stops taking calls (health turns NOT_SERVING, new RPCs are
refused), running tournaments stop starting matches and let the running ones finish, or record
them as aborted when they outlast the grace period (the tournament then stays resumable), the
watch streams end, and only then does the process exit: every result is either fully recorded
or not at all (the store writes a match and its rating update in one transaction).
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena._gen.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import ArenaError
from arena.service.archive import ArchiveLimits
from arena.service.auth import Caller, TokenAuthInterceptor
from arena.service.servicer import ArenaServicer
from arena.service.submission import BotSubmissions, default_data_dir
from arena.service.tournaments import TournamentManager
from arena.store import Store
from arena.tournament.botlogs import logs_root

log = logging.getLogger(__name__)

SERVICE_NAME = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
DEFAULT_LISTEN = "127.0.0.1:50051"


@dataclass
class ServerConfig:
    listen: str = DEFAULT_LISTEN
    db: str | None = None
    data_dir: Path | None = None
    resume_tournaments: bool = True
    """Play again, at start, the tournaments this service was playing when it stopped."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    auth_reads: bool = False
    limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    max_workers: int = 32
    shutdown_grace_s: float = 30.0
    """How long running matches may take to finish on shutdown before they are aborted."""


class ArenaServer:
    """A started server; ``stop()`` shuts it down gracefully (module docstring)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.resumed: list[str] = []
        """What ``start`` resumed (``TournamentManager.resume_interrupted``), for the log."""
        if (config.tls_cert is None) != (config.tls_key is None):
            raise ArenaError("TLS needs both --tls-cert and --tls-key")
        self.store = Store.open(config.db)
        try:
            data_dir = config.data_dir or default_data_dir(config.db)
            self.submissions = BotSubmissions(self.store, data_dir, config.limits)
            self.tournaments = TournamentManager(self.store, logs_dir=logs_root(data_dir))
            self._server = grpc.server(
                futures.ThreadPoolExecutor(
                    max_workers=config.max_workers, thread_name_prefix="arena-rpc"
                ),
                interceptors=[
                    TokenAuthInterceptor(self._verify_token, auth_reads=config.auth_reads)
                ],
                options=[
                    # Above the archive cap, so an oversized archive gets the service's own
                    # INVALID_ARGUMENT message rather than gRPC's RESOURCE_EXHAUSTED.
                    (
                        "grpc.max_receive_message_length",
                        max(2 * config.limits.max_archive_bytes, 8 * 1024 * 1024),
                    ),
                    ("grpc.max_send_message_length", 256 * 1024 * 1024),
                    ("grpc.so_reuseport", 0),
                ],
            )
            arena_pb2_grpc.add_ArenaServiceServicer_to_server(
                ArenaServicer(self.store, self.submissions, self.tournaments), self._server
            )
            self.health = health.HealthServicer()
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
            reflection.enable_server_reflection(
                (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server
            )
            self.port = self._bind(config)
        except BaseException:
            self.store.close()
            raise
        self._stopped = threading.Event()

    def _verify_token(self, token: str) -> Caller | None:
        info = self.store.verify_token(token)
        return None if info is None else Caller(token_id=info.id, name=info.name)

    def _bind(self, config: ServerConfig) -> int:
        if config.tls_cert is not None and config.tls_key is not None:
            try:
                key = Path(config.tls_key).read_bytes()
                cert = Path(config.tls_cert).read_bytes()
            except OSError as exc:
                raise ArenaError(f"cannot read TLS file {exc.filename}: {exc.strerror}") from None
            credentials = grpc.ssl_server_credentials([(key, cert)])
            port = self._bind_port(lambda: self._server.add_secure_port(config.listen, credentials))
        else:
            port = self._bind_port(lambda: self._server.add_insecure_port(config.listen))
        return port

    def _bind_port(self, add: object) -> int:
        try:
            port = add()  # type: ignore[operator]
        except RuntimeError as exc:
            raise ArenaError(f"cannot listen on {self.config.listen}: {exc}") from None
        if not port:
            raise ArenaError(
                f"cannot listen on {self.config.listen}: the address is taken or invalid"
            )
        return int(port)

    @property
    def address(self) -> str:
        host = self.config.listen.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    def start(self) -> None:
        self._server.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if self.config.resume_tournaments:
            self.resumed = self.tournaments.resume_interrupted()

    def stop(self) -> None:
        """Graceful shutdown: refuse new calls, let tournaments wind down, end the streams."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self.health.enter_graceful_shutdown()
        done = self._server.stop(grace=self.config.shutdown_grace_s + 10)
        self.tournaments.shutdown(grace_s=self.config.shutdown_grace_s)
        done.wait()
        self.store.close()

    def wait(self) -> None:
        self._server.wait_for_termination()


def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("arena: %(message)s"))
    logger = logging.getLogger("arena")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    server = ArenaServer(config)
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        tls = " (TLS)" if config.tls_cert else ""
        reads = "need a token" if config.auth_reads else "open"
        print(
            f"arena: serving arena.v1 on {server.address}{tls}; database {server.store.url}; "
            f"bots in {server.submissions.bots_dir}; reads {reads}",
            file=sys.stderr,
            flush=True,
        )
        for line in server.resumed:
            print(f"arena: {line}", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            pass
        print("arena: shutting down: finishing running matches", file=sys.stderr, flush=True)
        server.stop()
        print("arena: stopped", file=sys.stderr, flush=True)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
