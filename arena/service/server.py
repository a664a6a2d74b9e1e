"""``arena serve``: the gRPC server with health checking, reflection, auth, optional TLS, and a
graceful shutdown.

On SIGTERM (or SIGINT) the server stops taking calls (health turns NOT_SERVING, new RPCs are
refused), running tournaments stop starting matches and let the running ones finish, or record
them as aborted when they outlast the grace period (the tournament then stays resumable), the
watch streams end, and only then does the process exit: every result is either fully recorded
or not at all (the store writes a match and its rating update in one transaction).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import signal
import sys
import threading
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc import aio
from grpc_health.v1 import _async as health_aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena._gen.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import ArenaError
from arena.ladder import Ladder, LadderSettings
from arena.runtime.archive import ArchiveLimits
from arena.runtime.start_check import check_starts
from arena.service.auth import Caller, TokenAuthInterceptor, caller_of
from arena.service.limits import ServiceLimits, StreamLimitInterceptor, transport_options
from arena.service.permissions import Quotas, TournamentLimits
from arena.service.servicer import ArenaServicer, run_blocking_on
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
    service_limits: ServiceLimits = field(default_factory=ServiceLimits)
    tournament_limits: TournamentLimits = field(default_factory=TournamentLimits)
    quotas: Quotas = field(default_factory=Quotas)
    max_workers: int = 32
    """Worker threads for the unary calls' store and disk work (streams hold none)."""
    shutdown_grace_s: float = 30.0
    """How long running matches may take to finish on shutdown before they are aborted."""
    web_listen: str | None = None
    """Also serve the web arena (arena.web) over the same store on this HOST:PORT."""
    web_behind_tls: bool = False
    """The web arena is reached over HTTPS through a proxy: Secure cookies and HSTS."""
    analysis_processes: int = 0
    """Low-priority processes analysing recorded matches (``arena.analysis_worker``); 0: none."""
    web_signup: str = "closed"
    """With ``web_listen``: who may sign up on the web arena (open, invite, closed)."""
    sandbox: str | None = None
    """auto, on or off (``arena.sandbox``); default ``$ARENA_SANDBOX``, else auto."""
    insecure_no_sandbox: bool = False
    """Run submitted bots even without the sandbox (a server refuses to, otherwise)."""
    ray: str | None = None
    """Play tournaments' matches on the Ray cluster at this address (``arena.distributed``)."""
    ray_worker_cpus: float = 2.0
    ladder: LadderSettings | None = None
    """Run the ladder (``arena.ladder``): rated pairs scheduled by the server itself."""


def sandbox_decision(config: ServerConfig) -> tuple[str, str]:
    """The mode the server's bots run in, and the line that says so at start-up. A server runs
    strangers' code: without the sandbox it refuses to start unless told it is insecure."""
    from arena.sandbox import SandboxMode, probe, resolve_mode

    mode = SandboxMode.parse(config.sandbox)
    if mode is not SandboxMode.OFF and probe().sandbox:
        return SandboxMode.ON.value, "bots run in the sandbox (`arena doctor` for its limits)"
    why = "--sandbox off" if mode is SandboxMode.OFF else probe().bwrap_error
    if mode is SandboxMode.ON:
        resolve_mode(mode)  # raises, saying why
    if not config.insecure_no_sandbox:
        raise ArenaError(
            f"arena serve runs submitted bots, and will not without the sandbox ({why}); "
            "install bubblewrap (`arena doctor`), or pass --insecure-no-sandbox to run them "
            "as plain processes with the server's rights"
        )
    return SandboxMode.OFF.value, (
        f"WARNING: bots run WITHOUT the sandbox ({why}; --insecure-no-sandbox): a submitted "
        "bot can read the database and reach the network"
    )


def bind_error(listen: str) -> str | None:
    """Why the operating system refuses to bind HOST:PORT ("Address already in use"), found by
    trying it with a plain socket once gRPC has failed to (its own message only says to turn
    its logging on); None when that bind works or the address does not parse."""
    import socket

    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except (OSError, ValueError) as exc:
        return getattr(exc, "strerror", None) or None
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


class ArenaServer:
    """A started server; ``stop()`` shuts it down gracefully (module docstring).

    The gRPC server is ``grpc.aio`` on an event loop of its own thread: streams are coroutines
    there, and every call's blocking work runs on a pool of ``max_workers`` threads."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.resumed: list[str] = []
        """What ``start`` resumed (``TournamentManager.resume_interrupted``), for the log."""
        if (config.tls_cert is None) != (config.tls_key is None):
            raise ArenaError("TLS needs both --tls-cert and --tls-key")
        self.sandbox, self.sandbox_note = sandbox_decision(config)
        self.store = Store.open(config.db)
        self._pool = futures.ThreadPoolExecutor(
            max_workers=config.max_workers, thread_name_prefix="arena-rpc"
        )
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(
            target=self._loop.run_forever, name="arena-grpc", daemon=True
        )
        self._loop_thread.start()
        try:
            data_dir = config.data_dir or default_data_dir(config.db)
            self.submissions = BotSubmissions(
                self.store,
                data_dir,
                config.limits,
                config.quotas,
                # A submission is started once in the sandbox its matches run in.
                start_check=functools.partial(check_starts, sandbox=self.sandbox),
            )
            executor = None
            if config.ray is not None:
                from arena.distributed import ray_executor_factory

                executor, _ = ray_executor_factory(config.ray, worker_cpus=config.ray_worker_cpus)
            self.tournaments = TournamentManager(
                self.store,
                watch_max_s=config.service_limits.watch_max_s,
                limits=config.tournament_limits,
                quotas=config.quotas,
                sandbox=self.sandbox,
                executor=executor,
                logs_dir=logs_root(data_dir),
            )
            self.port = self._on_loop(self._build(config))
            self.ladder: Ladder | None = None
            self._ladder_stop = threading.Event()
            self._ladder_thread: threading.Thread | None = None
            if config.ladder is not None:
                self.ladder = Ladder(
                    self.store,
                    dataclasses.replace(config.ladder, sandbox=self.sandbox),
                    executor=executor,
                    logs=logs_root(data_dir),
                )
            self.analysis = None
            if config.analysis_processes:
                from arena.analysis_worker import AnalysisWorkers
                from arena.store.database import resolve_url

                self.analysis = AnalysisWorkers(
                    resolve_url(config.db).render_as_string(False), config.analysis_processes
                )
            self.web = None
            if config.web_listen is not None:
                from arena.web import WebConfig, WebServer

                self.web = WebServer(
                    self.store,
                    config.web_listen,
                    WebConfig(
                        data_dir=data_dir,
                        secure_cookies=config.web_behind_tls,
                        signup=config.web_signup,
                        quotas=config.quotas,
                        submissions=self.submissions,
                        tournaments=self.tournaments,
                    ),
                )
        except BaseException:
            self._close_loop()
            self.store.close()
            raise
        self._stopped = threading.Event()

    def _on_loop(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def _build(self, config: ServerConfig) -> int:
        run_blocking = run_blocking_on(self._pool)
        limits = config.service_limits
        self._server = aio.server(
            interceptors=[
                StreamLimitInterceptor(limits),
                TokenAuthInterceptor(
                    self._verify_token, run_blocking, auth_reads=config.auth_reads
                ),
            ],
            # The transport's cap is the archive cap and a quarter, so an archive a little over
            # it gets the service's own message; every other method is held to
            # ServiceLimits.max_request_bytes by the interceptor, before parsing.
            options=transport_options(limits, config.limits.max_archive_bytes * 5 // 4 + 64 * 1024),
        )
        arena_pb2_grpc.add_ArenaServiceServicer_to_server(
            ArenaServicer(
                self.store,
                self.submissions,
                self.tournaments,
                run_blocking,
                max_submissions_at_once=limits.max_submissions_at_once,
            ),
            self._server,
        )
        self.health = health_aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server
        )
        return self._bind(config)

    def _verify_token(self, token: str) -> Caller | None:
        info = self.store.verify_token(token)
        return None if info is None else caller_of(info)

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
            why = bind_error(self.config.listen) or str(exc).split("; set GRPC_VERBOSITY", 1)[0]
            raise ArenaError(f"cannot listen on {self.config.listen}: {why}") from None
        if not port:
            why = bind_error(self.config.listen) or "the address is taken or invalid"
            raise ArenaError(f"cannot listen on {self.config.listen}: {why}")
        return int(port)

    @property
    def address(self) -> str:
        host = self.config.listen.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    def start(self) -> None:
        async def start() -> None:
            await self._server.start()
            for name in ("", SERVICE_NAME):
                await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

        self._on_loop(start())
        if self.web is not None:
            self.web.start()
        if self.analysis is not None:
            self.analysis.start()
        if self.config.resume_tournaments:
            self.resumed = self.tournaments.resume_interrupted()
        if self.ladder is not None:
            self._ladder_thread = threading.Thread(
                target=self._run_ladder, name="ladder", daemon=True
            )
            self._ladder_thread.start()

    def _run_ladder(self) -> None:
        assert self.ladder is not None
        try:
            self.ladder.run(self._ladder_stop)
        except Exception:
            log.exception("the ladder stopped on an error; the service goes on")

    def stop(self) -> None:
        """Graceful shutdown: refuse new calls, let tournaments wind down, end the streams."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._ladder_stop.set()  # its matches in play end; their games stay pending, resumed
        self._on_loop(self.health.enter_graceful_shutdown())
        done = asyncio.run_coroutine_threadsafe(
            self._server.stop(grace=self.config.shutdown_grace_s + 10), self._loop
        )
        self.tournaments.shutdown(grace_s=self.config.shutdown_grace_s)
        done.result()
        if self._ladder_thread is not None:
            self._ladder_thread.join()
        self._close_loop()
        if self.web is not None:
            self.web.stop()
        if self.analysis is not None:
            self.analysis.stop()
        self.store.close()

    def _close_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._loop_thread.join()
        self._loop.close()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def wait(self) -> None:
        self._on_loop(self._server.wait_for_termination())


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
            f"bots and their logs in {server.submissions.bots_dir.parent}; reads {reads}",
            file=sys.stderr,
            flush=True,
        )
        if server.web is not None:
            print(f"arena: web arena on {server.web.url}", file=sys.stderr, flush=True)
        print(f"arena: {server.sandbox_note}", file=sys.stderr, flush=True)
        for line in server.resumed:
            print(f"arena: {line}", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            pass
        print("arena: shutting down: finishing running matches", file=sys.stderr, flush=True)
        server.stop()
        print("arena: stopped", file=sys.stderr, flush=True)
    finally:
        for s, before in previous.items():
            signal.signal(s, before)
