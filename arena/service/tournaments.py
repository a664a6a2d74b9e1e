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

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grpc import aio

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.bot_protocol.messages import ruleset_from_pb
from arena.errors import ArenaError
from arena.ladder import LADDER_KEY
from arena.referee.fault_policy import FaultPolicy
from arena.referee.record import Termination
from arena.rules.ruleset import RuleSet
from arena.service.auth import Caller
from arena.service.convert import (
    deal_mode_from_pb,
    match_to_pb,
    policy_from_pb,
    standings_to_pb,
    tournament_to_pb,
)
from arena.service.deals import secret_tournament_seed
from arena.service.permissions import (
    PolicyError,
    QuotaError,
    Quotas,
    TournamentLimits,
    check_bot_name,
    check_may_control,
    check_may_start,
    check_tournament_bounds,
)
from arena.service.visibility import MatchView
from arena.stats import DEFAULT_SPRT, Sprt
from arena.store import MatchSummary, Store, TournamentInfo, TournamentStatus
from arena.tournament import (
    DEFAULT_CONCURRENCY,
    DEFAULT_GAMES,
    GameRecord,
    TournamentSettings,
    create_tournament,
    load_config,
    run_tournament,
    tournament_standings,
)
from arena.tournament.botlogs import tournament_log_dir
from arena.tournament.compare import DEFAULT_MAX_PAIRS_SPRT, CompareSpec
from arena.tournament.entrants import check_unchanged, sample_bot_dirs
from arena.tournament.runner import ExecutorFactory

log = logging.getLogger(__name__)

WATCH_POLL_S = 5.0
"""A watcher looks again at least this often, even without a progress event."""


class ShuttingDownError(ArenaError):
    """The server is shutting down and starts nothing new."""


class TournamentStateError(ArenaError):
    """The tournament is not in a state that allows the request (FAILED_PRECONDITION): finished,
    cancelled, already being played, or not running when asked to stop."""


OWNER_KEY = "service_owner_token_id"
"""Stored in the config of a tournament the service created: the token that asked for it, who
(with an admin) may cancel or resume it, also after a restart."""


@dataclass
class _Running:
    tournament_id: int
    owner_token_id: int | None = None
    """The token that started it: it (or an admin) may cancel it."""
    cancelled: bool = False
    thread: threading.Thread | None = None
    stop_starting: threading.Event = field(default_factory=threading.Event)
    """Set on shutdown: start no further match."""
    abort: threading.Event = field(default_factory=threading.Event)
    """Set when the grace period is over: matches in play end as ABORTED."""
    changed: threading.Condition = field(default_factory=threading.Condition)
    failures: list[str] = field(default_factory=list)
    waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=set)
    """The watchers' wake-ups, set from the runner's thread."""
    version: int = 0
    """Bumped on every change; the cached snapshot is of ``_cached_version``."""
    _cache_lock: threading.Lock = field(default_factory=threading.Lock)
    _cached_version: int = -1
    _cached: tuple[TournamentInfo, list[MatchSummary]] | None = None

    def notify(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()
        for loop, wake in list(self.waiters):
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(wake.set)

    def snapshot(self, store: Store) -> tuple[TournamentInfo, list[MatchSummary]]:
        """The tournament and its matches, read once per change for every watcher."""
        with self._cache_lock:
            version = self.version
            if self._cached is None or self._cached_version != version:
                self._cached = _read_matches(store, self.tournament_id)
                self._cached_version = version
            return self._cached


def compare_from_pb(request: pb.StartTournamentRequest) -> CompareSpec:
    """A comparison's stop rule from the request: two bots, A first; an SPRT with the CLI's
    defaults for what is left at 0 (``arena compare --sprt``)."""
    if len(request.bots) != 2:
        raise ArenaError(
            f"a comparison is of exactly two bots (A, then B), not {len(request.bots)}"
        )
    c = request.compare
    if c.max_pairs < 0:
        raise ArenaError(
            f"max_pairs must be >= 0 (0 for {DEFAULT_MAX_PAIRS_SPRT}), not {c.max_pairs}"
        )
    sprt = Sprt(
        elo0=c.elo0, elo1=c.elo1, alpha=c.alpha or DEFAULT_SPRT["alpha"],
        beta=c.beta or DEFAULT_SPRT["beta"],
    )  # fmt: skip
    return CompareSpec(max_pairs=c.max_pairs or DEFAULT_MAX_PAIRS_SPRT, sprt=sprt)


def _present(view: MatchView | None, matches: list[MatchSummary]) -> list[pb.Match]:
    if view is None:
        return [match_to_pb(m) for m in matches]
    view.forget_seals()  # the tournament moved on: seals are read afresh
    return [view.match(m) for m in matches]


def _read_matches(store: Store, tournament_id: int) -> tuple[TournamentInfo, list[MatchSummary]]:
    return store.get_tournament(tournament_id), store.list_matches(tournament_id=tournament_id)


def _owner_of(info: TournamentInfo) -> int | None:
    owner = info.config.get(OWNER_KEY)
    return owner if isinstance(owner, int) and not isinstance(owner, bool) else None


class _WatchReporter:
    """A tournament Reporter that wakes the tournament's watchers."""

    def __init__(self, running: _Running) -> None:
        self._running = running

    def _notify(self) -> None:
        self._running.notify()

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
        self,
        store: Store,
        *,
        max_concurrency: int = 8,
        watch_max_s: float = 3600.0,
        limits: TournamentLimits | None = None,
        quotas: Quotas | None = None,
        sandbox: str | None = None,
        executor: ExecutorFactory | None = None,
        logs_dir: Path | None = None,
    ) -> None:
        self._store = store
        self.watch_max_s = watch_max_s
        self.limits = limits or TournamentLimits()
        self.quotas = quotas or Quotas()
        self._starting = threading.Lock()
        self._sandbox = sandbox
        self._executor = executor
        self.logs_dir = logs_dir
        """Where the bots' logs are kept (``arena.tournament.botlogs``); None keeps none."""
        self._max_concurrency = max_concurrency
        self._lock = threading.Lock()
        self._running: dict[int, _Running] = {}
        self._closing = False

    # -- starting ------------------------------------------------------------------------------

    def start(self, request: pb.StartTournamentRequest, caller: Caller | None = None) -> int:
        """Check the request against the bounds, the policy and the quotas
        (arena.service.permissions), create the tournament with a secret seed (its whole schedule
        stored), start playing."""
        caller = caller or Caller()
        with self._lock:
            if self._closing:
                raise ShuttingDownError("the server is shutting down; start the tournament later")
        if len(request.bots) > self.limits.max_bots:
            raise ArenaError(
                f"{len(request.bots)} bots; a tournament here takes at most {self.limits.max_bots}"
            )
        names = []
        for spec in request.bots:
            # Only bots the arena knows by name: never a path on the server's file system.
            name, _, version = spec.partition("@")
            try:
                if len(version) > 64 or not version.isprintable():
                    raise ArenaError("a bot version is at most 64 printable characters")
                check_bot_name(name)
            except ArenaError:
                shown = spec if len(spec) <= 40 else spec[:40] + "…"
                raise ArenaError(
                    f"bad bot {shown!r}: name a submitted bot (name or name@version)"
                ) from None
            names.append(name)
        if request.reveal_opponents and not caller.admin:
            raise PolicyError(
                "only an admin may tell bots their opponents' names in a rated tournament (a "
                "bot that knows whom it plays can throw its matches to a friend): leave "
                "reveal_opponents unset"
            )
        if request.HasField("seed") and not caller.admin:
            raise PolicyError(
                "the server chooses the deal seed of a rated tournament (a seed known in "
                "advance gives away every hand): leave seed unset"
            )
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
        compare = compare_from_pb(request) if request.HasField("compare") else None
        games = compare.max_pairs if compare is not None else request.games or DEFAULT_GAMES
        deals = deal_mode_from_pb(request.deals)
        check_tournament_bounds(
            self.limits,
            num_bots=len(request.bots),
            games=games,
            move_timeout_ms=request.move_timeout_ms,
            time_bank_ms=request.time_bank_ms,
            max_faults=request.max_faults,
        )
        owners = {b.name: b.owner_token_id for b in self._store.list_bots() if b.name in names}
        samples = sample_bot_dirs()
        for name in names:
            if name in samples:
                owners.setdefault(name, None)
        check_may_start(
            admin=caller.admin, token_id=caller.token_id, owners=owners, sample_names=samples
        )
        rules = ruleset_from_pb(request.rules) if request.HasField("rules") else RuleSet()
        settings = TournamentSettings(
            bots=list(request.bots),
            games=games,
            concurrency=concurrency,
            # An admin may replay a known schedule (research); everyone else gets a secret one.
            seed=request.seed if request.HasField("seed") else secret_tournament_seed(),
            move_timeout_ms=request.move_timeout_ms or None,
            time_bank_ms=request.time_bank_ms,
            policy=FaultPolicy(
                policy_from_pb(request.policy) or "forfeit",  # type: ignore[arg-type]
                request.max_faults or 3,
            ),
            rules=rules,
            deals=deals,
            names_only=True,
            origin="service",
            anonymous_opponents=not request.reveal_opponents,
            compare=compare,
        )
        with self._starting:  # one start at a time: the running counts below stay true
            self._check_running_quota(caller)
            tournament_id = create_tournament(
                self._store, settings, extra={OWNER_KEY: caller.token_id}
            )
            thread = self._register(tournament_id, caller.token_id)
        thread.start()
        return tournament_id

    def owner_of(self, tournament_id: int) -> int | None:
        """The token that started a tournament here (None for one no token started)."""
        return _owner_of(self._store.get_tournament(tournament_id))

    def resume_interrupted(self) -> list[str]:
        """Play again the tournaments this service was playing when it stopped (created here,
        not finished, and played by nobody now); says which, for the server's log. Each counts
        against its creator's quota again (``OWNER_KEY``; none for a tournament created before
        the creator was stored)."""
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
            self._register(info.id, _owner_of(info)).start()
        return said

    def resume(self, tournament_id: int, caller: Caller) -> None:
        """Play the rest of an interrupted tournament here, with the server's own runner (as
        ``resume_interrupted`` does after a restart): its creator's token or an admin's; the
        running-tournament quotas apply, counted against the creator."""
        with self._lock:
            if self._closing:
                raise ShuttingDownError("the server is shutting down; resume the tournament later")
        info, config = load_config(self._store, tournament_id)  # NotFoundError
        owner = _owner_of(info)
        check_may_control(
            admin=caller.admin, token_id=caller.token_id, owner_token_id=owner,
            tournament_id=tournament_id, verb="resume",
        )  # fmt: skip
        with self._lock:
            ending = self._running.get(tournament_id)
        if ending is not None and ending.cancelled:
            info = dataclasses.replace(info, status=TournamentStatus.CANCELLED)
        if info.status is not TournamentStatus.RUNNING:
            raise TournamentStateError(
                f"tournament {tournament_id} is {info.status.value}: nothing is left to resume"
            )
        if config.compare is not None:
            raise TournamentStateError(
                f"tournament {tournament_id} is a comparison (arena compare): resume it on the "
                f"arena's database, `arena tournament resume {tournament_id}`"
            )
        if LADDER_KEY in info.config:
            raise TournamentStateError(
                f"tournament {tournament_id} is a ladder pair: the ladder plays its own"
            )
        for entrant in config.entrants:  # refused now, not in the runner after the reply
            try:
                check_unchanged(entrant)
            except ArenaError as exc:
                raise TournamentStateError(
                    str(exc)
                    if caller.admin  # a member is not shown the server's paths
                    else f"bot {entrant.name}: its stored files are gone or changed on the "
                    "server; ask the arena's admin"
                ) from None
        with self._starting:  # one start at a time: the running counts stay true
            if self.is_running(tournament_id):
                raise TournamentStateError(
                    f"tournament {tournament_id} is already being played on this server"
                )
            if self._store.tournament_player_active(tournament_id):
                raise TournamentStateError(
                    f"tournament {tournament_id} is already being played by another process on "
                    "the arena's database (`arena tournament watch` follows it)"
                )
            self._check_running_quota(Caller(token_id=owner, role=caller.role))
            thread = self._register(tournament_id, owner)
        log.info(
            "resuming tournament %s on request: %s of %s matches left",
            tournament_id, info.games_total - info.games_done, info.games_total,
        )  # fmt: skip
        thread.start()

    def _register(self, tournament_id: int, owner_token_id: int | None) -> threading.Thread:
        running = _Running(tournament_id, owner_token_id=owner_token_id)
        thread = threading.Thread(
            target=self._run, args=(running,), name=f"tournament-{tournament_id}", daemon=True
        )
        running.thread = thread
        with self._lock:
            self._running[tournament_id] = running
        return thread

    def _check_running_quota(self, caller: Caller) -> None:
        with self._lock:
            runs = list(self._running.values())
        # A cancelled tournament whose last matches are still ending counts in the server's
        # total (its bots still run) but no longer against its token: cancelling frees a place.
        mine = sum(1 for r in runs if r.owner_token_id == caller.token_id and not r.cancelled)
        if len(runs) >= self.quotas.running_total:
            raise QuotaError(
                f"{len(runs)} tournaments are running, as many as this server runs at once; "
                "start yours when one has ended"
            )
        if not caller.admin and mine >= self.quotas.running_per_token:
            raise QuotaError(
                f"your token has {mine} tournaments running, its limit: wait for one to end, "
                "or cancel one (`arena tournament cancel ID --server …`)"
            )

    def _run(self, running: _Running) -> None:
        try:
            run_tournament(
                self._store,
                running.tournament_id,
                reporter=_WatchReporter(running),
                stop=running.stop_starting,
                abort=running.abort,
                record_aborted=True,
                sandbox=self._sandbox,
                executor=self._executor,
                log_dir=(
                    None
                    if self.logs_dir is None
                    else tournament_log_dir(self.logs_dir, running.tournament_id)
                ),
            )
        except ArenaError as exc:  # e.g. another process took its lock in the meantime
            log.error("tournament %s not played: %s", running.tournament_id, exc)
        except Exception:
            log.exception("tournament %s failed", running.tournament_id)
        finally:
            if running.cancelled:
                with contextlib.suppress(Exception):
                    self._store.set_tournament_status(
                        running.tournament_id, TournamentStatus.CANCELLED
                    )
            with self._lock:
                self._running.pop(running.tournament_id, None)
            running.notify()

    def is_cancelled(self, tournament_id: int) -> bool:
        """Cancelled here, its last matches still ending (stored CANCELLED when they have)."""
        with self._lock:
            running = self._running.get(tournament_id)
        return running is not None and running.cancelled

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
        with self._lock:
            here = self._running.get(tournament_id)
        if here is not None and here.cancelled:
            # Cancelled, its last matches still ending: it is never resumed, whatever they do.
            msg.state = pb.TOURNAMENT_STATE_CANCELLED
        msg.standings.CopyFrom(standings_to_pb(standings))
        return msg

    # -- watching ------------------------------------------------------------------------------

    async def watch(
        self,
        tournament_id: int,
        context: aio.ServicerContext,
        run_blocking: Callable[..., Awaitable[Any]],
        view: MatchView | None = None,
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        """The tournament's recorded matches, then each new one, then its final state.

        A coroutine on the event loop, waiting on the runner's progress events: an idle watch
        holds no thread. The store is read on a worker, once per change however many watch
        (``_Running.snapshot``). After ``watch_max_s`` the stream ends with the tournament's
        state, RUNNING: a client still interested watches again."""
        loop = asyncio.get_running_loop()
        await run_blocking(self._store.get_tournament, tournament_id)  # NotFoundError
        ends_at = loop.time() + self.watch_max_s
        sent: set[str] = set()
        done = 0
        first = True
        seen_version = -1
        wake = asyncio.Event()
        waiter = (loop, wake)
        with self._lock:
            running = self._running.get(tournament_id)
            if running is not None:
                running.waiters.add(waiter)
        try:
            while True:
                with self._lock:
                    running = self._running.get(tournament_id)
                wake.clear()
                # Another process playing it (a local resume) is followed by reading the store.
                external = running is None and await run_blocking(
                    self._store.tournament_player_active, tournament_id
                )
                # Read after checking: once the runner is gone, this read holds every result.
                if running is not None and running.version == seen_version:
                    matches = []  # nothing changed since the last read
                elif running is not None:
                    seen_version = running.version
                    info, matches = await run_blocking(running.snapshot, self._store)
                else:
                    info, matches = await run_blocking(_read_matches, self._store, tournament_id)
                new = [m for m in matches if m.match_id not in sent]
                shown = await run_blocking(_present, view, new) if new else []
                for m, msg in zip(new, shown, strict=True):
                    sent.add(m.match_id)
                    if m.termination is not Termination.ABORTED:
                        done += 1
                    snapshot = tournament_to_pb(info, running_here=running is not None or external)
                    snapshot.matches_done = min(done, info.games_done)
                    first = False
                    yield pb.WatchTournamentResponse(tournament=snapshot, match=msg)
                if running is None and not external:
                    final = await run_blocking(self.describe, tournament_id)
                    yield pb.WatchTournamentResponse(tournament=final)
                    return
                if first or loop.time() >= ends_at:
                    first = False
                    yield pb.WatchTournamentResponse(
                        tournament=tournament_to_pb(info, running_here=True)
                    )
                if loop.time() >= ends_at or context.done():
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), WATCH_POLL_S)
        finally:
            if running is not None:
                with self._lock:
                    running.waiters.discard(waiter)

    # -- stopping ------------------------------------------------------------------------------

    def cancel(self, tournament_id: int, caller: Caller) -> pb.Tournament:
        """Stop a running tournament, and return at once: nothing more is started, the matches
        in play are aborted (recorded ABORTED, unrated) and their bots stopped behind this call,
        as each match notices (a bot asleep in a decision holds its match until its deadline,
        never the caller). The answer shows it CANCELLED; the runner's thread stores that
        status when it ends, so a match recorded meanwhile is counted as it always is."""
        self._store.get_tournament(tournament_id)  # NotFoundError for an unknown id
        with self._lock:
            running = self._running.get(tournament_id)
        if running is None:
            raise TournamentStateError(
                f"tournament {tournament_id} is not running on this server; only a running "
                "tournament can be cancelled"
            )
        check_may_control(
            admin=caller.admin, token_id=caller.token_id, owner_token_id=running.owner_token_id,
            tournament_id=tournament_id, verb="cancel",
        )  # fmt: skip
        running.cancelled = True
        running.stop_starting.set()
        running.abort.set()
        running.notify()
        return self.describe(tournament_id)

    def shutdown(self, grace_s: float) -> None:
        """Stop starting matches, give those in play ``grace_s`` to end, then abort them."""
        with self._lock:
            self._closing = True
            runs = list(self._running.values())
        for r in runs:
            r.stop_starting.set()
            r.notify()
        deadline = time.monotonic() + grace_s
        for r in runs:
            if r.thread is not None:
                r.thread.join(max(0.0, deadline - time.monotonic()))
        for r in runs:
            r.abort.set()
        for r in runs:
            if r.thread is not None:
                r.thread.join()
