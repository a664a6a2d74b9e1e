"""Tournaments on the server: each runs in a thread of its own, and any number of callers may
watch it.

A watcher reads the tournament's matches from the store (the record is the truth: what a watcher
sees was committed) and is woken by the runner's progress events rather than polling blindly.
A tournament this server does not run (finished, or started by another process) is shown as it
is stored, and its watch ends at once.

Shutdown asks every runner to stop starting matches; matches in play get the grace period to
finish, then are aborted (recorded as ABORTED, unrated; the scheduled game stays pending, so the
tournament can be resumed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.errors import ArenaError
from arena.protocol import ruleset_from_pb
from arena.referee.policy import FaultPolicy
from arena.referee.record import Termination
from arena.rules.ruleset import RuleSet
from arena.service.convert import (
    deals_from_pb,
    match_to_pb,
    policy_from_pb,
    standings_to_pb,
    tournament_to_pb,
)
from arena.store import Store, TournamentStatus
from arena.tournament import (
    DEFAULT_CONCURRENCY,
    DEFAULT_GAMES,
    DealMode,
    GameRecord,
    TournamentSettings,
    create_tournament,
    run_tournament,
    tournament_standings,
)
from arena.tournament.botlogs import tournament_log_dir

log = logging.getLogger(__name__)

WATCH_POLL_S = 1.0
"""A watcher re-reads the store at least this often, even without a progress event."""


class ShuttingDownError(ArenaError):
    """The server is shutting down and starts nothing new."""


@dataclass
class _Running:
    tournament_id: int
    thread: threading.Thread | None = None
    stop_starting: threading.Event = field(default_factory=threading.Event)
    """Set on shutdown: start no further match."""
    abort: threading.Event = field(default_factory=threading.Event)
    """Set when the grace period is over: matches in play end as ABORTED."""
    changed: threading.Condition = field(default_factory=threading.Condition)
    failures: list[str] = field(default_factory=list)


class _WatchReporter:
    """A tournament Reporter that wakes the tournament's watchers."""

    def __init__(self, running: _Running) -> None:
        self._running = running

    def _notify(self) -> None:
        with self._running.changed:
            self._running.changed.notify_all()

    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None:
        self._notify()

    def bot_failed(self, bot: str, reason: str) -> None:
        log.warning(
            "tournament %s: bot %s could not start: %s", self._running.tournament_id, bot, reason
        )
        self._running.failures.append(f"{bot}: {reason}")
        self._notify()

    def match_done(self, game: GameRecord) -> None:
        self._notify()

    def stop(self) -> None:
        self._notify()


class TournamentManager:
    def __init__(
        self, store: Store, *, max_concurrency: int = 8, logs_dir: Path | None = None
    ) -> None:
        self._store = store
        self.logs_dir = logs_dir
        """Where the bots' logs are kept (``arena.tournament.botlogs``); None keeps none."""
        self._max_concurrency = max_concurrency
        self._lock = threading.Lock()
        self._running: dict[int, _Running] = {}
        self._closing = False

    # -- starting ------------------------------------------------------------------------------

    def start(self, request: pb.StartTournamentRequest) -> int:
        """Create the tournament (its whole schedule stored) and start playing it."""
        with self._lock:
            if self._closing:
                raise ShuttingDownError("the server is shutting down; start the tournament later")
        for spec in request.bots:
            # Only bots the arena knows by name: never a path on the server's file system.
            if not spec or "/" in spec or spec.startswith((".", "~")):
                raise ArenaError(f"bad bot {spec!r}: name a submitted bot (name or name@version)")
        concurrency = request.concurrency or DEFAULT_CONCURRENCY
        if concurrency > self._max_concurrency:
            raise ArenaError(
                f"concurrency {concurrency} is more than this server allows "
                f"({self._max_concurrency})"
            )
        if (
            min(request.games, request.move_timeout_ms, request.time_bank_ms, request.max_faults)
            < 0
        ):
            raise ArenaError("games, move_timeout_ms, time_bank_ms and max_faults must be >= 0")
        rules = ruleset_from_pb(request.rules) if request.HasField("rules") else RuleSet()
        settings = TournamentSettings(
            bots=list(request.bots),
            games=request.games or DEFAULT_GAMES,
            concurrency=concurrency,
            seed=request.seed if request.HasField("seed") else None,
            move_timeout_ms=request.move_timeout_ms or None,
            time_bank_ms=request.time_bank_ms,
            policy=FaultPolicy(
                policy_from_pb(request.policy) or "forfeit",  # type: ignore[arg-type]
                request.max_faults or 3,
            ),
            rules=rules,
            deals=DealMode(deals_from_pb(request.deals) or "duplicate"),
            names_only=True,
            origin="service",
        )
        tournament_id = create_tournament(self._store, settings)
        self._launch(tournament_id)
        return tournament_id

    def resume_interrupted(self) -> list[str]:
        """Play again the tournaments this service was playing when it stopped (created here,
        not finished, and played by nobody now); says which, for the server's log."""
        said = []
        for info in self._store.list_tournaments():
            if info.config.get("origin") != "service":
                continue
            if info.status is not TournamentStatus.RUNNING:
                continue
            if self._store.tournament_player_active(info.id) or self.is_running(info.id):
                continue
            said.append(
                f"resuming tournament {info.id}, interrupted when the server stopped: "
                f"{info.games_total - info.games_done} of {info.games_total} matches left"
            )
            log.info("%s", said[-1])
            self._launch(info.id)
        return said

    def _launch(self, tournament_id: int) -> None:
        running = _Running(tournament_id)
        thread = threading.Thread(
            target=self._run, args=(running,), name=f"tournament-{tournament_id}", daemon=True
        )
        running.thread = thread
        with self._lock:
            self._running[tournament_id] = running
        thread.start()

    def _run(self, running: _Running) -> None:
        try:
            run_tournament(
                self._store,
                running.tournament_id,
                reporter=_WatchReporter(running),
                stop=running.stop_starting,
                abort=running.abort,
                record_aborted=True,
                log_dir=(
                    None
                    if self.logs_dir is None
                    else tournament_log_dir(self.logs_dir, running.tournament_id)
                ),
            )
        except Exception:
            log.exception("tournament %s failed", running.tournament_id)
        finally:
            with self._lock:
                self._running.pop(running.tournament_id, None)
            with running.changed:
                running.changed.notify_all()

    def is_running(self, tournament_id: int) -> bool:
        with self._lock:
            return tournament_id in self._running

    def list_all(self) -> list[pb.Tournament]:
        """Every tournament, oldest first, in the state a process playing it gives it."""
        out = []
        for info in self._store.list_tournaments():
            live = self.is_running(info.id) or self._store.tournament_player_active(info.id)
            out.append(tournament_to_pb(info, running_here=live))
        return out

    def describe(self, tournament_id: int) -> pb.Tournament:
        """The tournament as stored, with its standings."""
        # Played here, or by another process holding its lock (a local `arena tournament resume`).
        running = self.is_running(tournament_id) or self._store.tournament_player_active(
            tournament_id
        )
        info, _, standings = tournament_standings(self._store, tournament_id)
        msg = tournament_to_pb(info, running_here=running)
        msg.standings.CopyFrom(standings_to_pb(standings))
        return msg

    # -- watching ------------------------------------------------------------------------------

    def watch(
        self, tournament_id: int, context: grpc.ServicerContext
    ) -> Iterator[pb.WatchTournamentResponse]:
        """The tournament's recorded matches, then each new one, then its final state."""
        self._store.get_tournament(tournament_id)  # NotFoundError for an unknown id
        sent: set[str] = set()
        done = 0
        first = True
        while True:
            with self._lock:
                running = self._running.get(tournament_id)
            # Another process playing it (a local resume): followed by polling the store.
            live = running is not None or self._store.tournament_player_active(tournament_id)
            # Read after checking: once the runner is gone, this read holds every result.
            info = self._store.get_tournament(tournament_id)
            matches = self._store.list_matches(tournament_id=tournament_id)
            for m in matches:
                if m.match_id in sent:
                    continue
                sent.add(m.match_id)
                if m.termination is not Termination.ABORTED:
                    done += 1
                snapshot = tournament_to_pb(info, running_here=live)
                snapshot.matches_done = min(done, info.games_done)
                first = False
                yield pb.WatchTournamentResponse(tournament=snapshot, match=match_to_pb(m))
            if not live:
                yield pb.WatchTournamentResponse(tournament=self.describe(tournament_id))
            elif first:
                first = False
                yield pb.WatchTournamentResponse(
                    tournament=tournament_to_pb(info, running_here=True)
                )
            if not live or not context.is_active():
                return
            if running is None:
                time.sleep(WATCH_POLL_S)
                continue
            with running.changed:
                running.changed.wait(WATCH_POLL_S)

    # -- stopping ------------------------------------------------------------------------------

    def shutdown(self, grace_s: float) -> None:
        """Stop starting matches, give those in play ``grace_s`` to end, then abort them."""
        with self._lock:
            self._closing = True
            runs = list(self._running.values())
        for r in runs:
            r.stop_starting.set()
            with r.changed:
                r.changed.notify_all()
        deadline = time.monotonic() + grace_s
        for r in runs:
            if r.thread is not None:
                r.thread.join(max(0.0, deadline - time.monotonic()))
        for r in runs:
            r.abort.set()
        for r in runs:
            if r.thread is not None:
                r.thread.join()
