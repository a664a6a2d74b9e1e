"""Create a tournament, play its schedule K matches at a time, and resume it after any stop.

The whole schedule is stored before the first match (``create_tournament``); each match is
recorded as soon as it ends, with its rating update and the mark that its scheduled game is done,
and the matches that ended together share one transaction (group commit:
``Store.record_matches``, which refuses a game recorded before). So whatever kills the arena, at
any moment, the database holds every finished match exactly once and ``run_tournament`` on the
same id plays exactly the games still pending.

Matches are played by an executor (``arena.tournament.execution``): by default a pool of K
threads whose referees talk gRPC to the bots' processes, each started once per run and lane and
shared by the matches of its lane (a bot serves many matches at once, but no process plays a
deal twice: ``arena.tournament.lanes``); ``arena.distributed`` plays them on a Ray cluster
instead. The main thread alone writes to the store, as results come in: what arrived while it
wrote goes in its next transaction.

A match cut short by the arena itself (``stop``/``abort``, Ctrl-C) is not a result and is not
recorded: its game stays pending and a resume plays it again from the start, under the same match
id, so a bot that seeds itself from the match id plays it as it would have.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ratings import Rater, RatingConfig
from arena.referee import ClockConfig, FaultPolicy, MatchResult, Termination
from arena.rules.ruleset import RuleSet
from arena.store import (
    AlreadyRecordedError,
    GameStatus,
    MatchToRecord,
    ScheduleEntry,
    Store,
    StoreError,
    TournamentGameInfo,
    TournamentInfo,
    TournamentStatus,
)
from arena.tournament.compare import CompareSpec, CompareState, SequentialTest
from arena.tournament.entrants import TournamentEntrant, check_unchanged, resolve_entrants
from arena.tournament.execution import LocalExecutor, MatchExecutor, MatchJob
from arena.tournament.lanes import assign_lanes, play_order
from arena.tournament.progress import QuietReporter, Reporter
from arena.tournament.schedule import (
    DEFAULT_DEALS,
    DealMode,
    build_schedule,
    deal_seed,
    validate,
)
from arena.tournament.standings import (
    STANDINGS_FORM,
    GameRecord,
    Standings,
    compute_standings,
    standings_from_dict,
    standings_to_dict,
)

DEFAULT_GAMES = 10
DEFAULT_CONCURRENCY = 2
DEFAULT_MOVE_TIMEOUT_MS = 1000
CONFIG_FORMAT = 1
_START_POLL_S = 0.05
"""How often the runner looks again for a game whose bots have become ready."""

ExecutorFactory = Callable[[int, threading.Event], MatchExecutor]
"""Makes the executor of one run from its K and its stop event (default: ``LocalExecutor``)."""


@dataclass(frozen=True)
class TournamentSettings:
    """What the organiser asks for (``arena tournament run``'s options)."""

    bots: list[str]
    """Bot directories or registered names."""
    games: int = DEFAULT_GAMES
    """Deal seeds per pair; each is played twice, seats swapped."""
    concurrency: int = DEFAULT_CONCURRENCY
    seed: int | None = None
    """The tournament seed (deal seeds and bot seeds derive from it); None draws one."""
    move_timeout_ms: int | None = None
    time_bank_ms: int = 0
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    rules: RuleSet = field(default_factory=RuleSet)
    deals: DealMode = DEFAULT_DEALS
    """How deal seeds are given out (``arena.tournament.schedule``); a stored tournament keeps
    its own."""
    names_only: bool = False
    """Take ``bots`` as bot names only, never as directories (names sent to a server)."""
    compare: CompareSpec | None = None
    """A comparison of two bots (``arena compare``): ``games`` is then ``max_pairs``."""
    origin: str = "local"
    """Who plays it: ``local`` (the CLI) or ``service`` (a server resumes its own after a
    restart)."""
    anonymous_opponents: bool = False
    """Tell no bot its opponent's name (``StartMatchRequest.opponent`` empty): rated play
    through the service and the ladder; an organiser's local tournament tells names."""


@dataclass(frozen=True)
class TournamentConfig:
    """What is stored with the tournament: everything a resume needs to play the rest."""

    entrants: list[TournamentEntrant]
    games: int
    seed: int
    concurrency: int
    clock: ClockConfig
    policy: FaultPolicy
    rules: RuleSet
    deals: DealMode
    bot_seed: int
    """Given to every bot as ``ARENA_BOT_SEED``: seeded bots repeat themselves run after run."""
    compare: CompareSpec | None = None
    """Set for a comparison (tournament kind ``compare``): its stop rule."""
    origin: str = "local"
    anonymous_opponents: bool = False
    """Bots are not told whom they play (``TournamentSettings.anonymous_opponents``)."""

    @property
    def kind(self) -> str:
        return "compare" if self.compare is not None else "round_robin"

    def to_dict(self) -> dict[str, Any]:
        extra = {}
        if self.compare is not None:
            extra = {"kind": "compare", "compare": self.compare.to_dict()}
        return {
            "format": CONFIG_FORMAT,
            "bots": [e.to_dict() for e in self.entrants],
            "games": self.games,
            "seed": self.seed,
            "concurrency": self.concurrency,
            "move_timeout_ms": self.clock.move_time_ms,
            "time_bank_ms": self.clock.time_bank_ms,
            "policy": {"kind": self.policy.kind, "max_faults": self.policy.max_faults},
            "rules": self.rules.to_dict(),
            "deals": self.deals.value,
            "bot_seed": self.bot_seed,
            "origin": self.origin,
            "anonymous_opponents": self.anonymous_opponents,
            **extra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        if data.get("format") != CONFIG_FORMAT:
            raise ArenaError(
                f"tournament config format {data.get('format')!r} is not one this arena reads"
            )
        return cls(
            entrants=[TournamentEntrant.from_dict(b) for b in data["bots"]],
            games=int(data["games"]),
            seed=int(data["seed"]),
            concurrency=int(data["concurrency"]),
            clock=ClockConfig(int(data["move_timeout_ms"]), int(data["time_bank_ms"])),
            policy=FaultPolicy(data["policy"]["kind"], int(data["policy"]["max_faults"])),
            rules=RuleSet.from_dict(data["rules"]),
            deals=DealMode(data["deals"]),
            bot_seed=int(data["bot_seed"]),
            compare=CompareSpec.from_dict(data["compare"]) if data.get("compare") else None,
            origin=str(data.get("origin", "local")),
            anonymous_opponents=bool(data.get("anonymous_opponents", False)),
        )

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]


def check_concurrency(concurrency: int) -> None:
    if concurrency <= 0:
        raise ArenaError(f"--concurrency must be at least 1 (matches at once), got {concurrency}")


def create_tournament(
    store: Store, settings: TournamentSettings, *, extra: dict[str, Any] | None = None
) -> int:
    """Check the request, register its bots, store the tournament and its whole schedule
    (``extra``: keys of the caller's own in the stored config, as ``create_tournament_of``)."""
    validate(len(settings.bots), settings.games)
    check_concurrency(settings.concurrency)
    if settings.compare is not None and len(settings.bots) != 2:
        raise ArenaError(f"a comparison is of two bots, got {len(settings.bots)}")
    entrants = resolve_entrants(
        store, settings.bots, names_only=settings.names_only,
        allow_twice=settings.compare is not None,
    )  # fmt: skip
    return create_tournament_of(store, entrants, settings, extra=extra)


def create_tournament_of(
    store: Store,
    entrants: list[TournamentEntrant],
    settings: TournamentSettings,
    *,
    extra: dict[str, Any] | None = None,
) -> int:
    """Store a tournament of bot versions already known to the store (``settings.bots`` is not
    read); ``extra`` adds keys of the caller's own to the stored config (the ladder's mark)."""
    validate(len(entrants), settings.games)
    check_concurrency(settings.concurrency)
    move_ms = settings.move_timeout_ms
    clock = ClockConfig(
        DEFAULT_MOVE_TIMEOUT_MS if move_ms is None else move_ms, settings.time_bank_ms
    )
    # Drawn from the OS's cryptographic source, 63 bits: a bot is told a seed derived from it
    # (ARENA_BOT_SEED), and a small seed could be found from that by trying them all, which
    # would give away every deal of the tournament.
    seed = settings.seed if settings.seed is not None else secrets.randbits(63)
    config = TournamentConfig(
        entrants=entrants,
        games=settings.games,
        seed=seed,
        concurrency=settings.concurrency,
        clock=clock,
        policy=settings.policy,
        rules=settings.rules,
        deals=settings.deals,
        bot_seed=deal_seed(seed, "bots") % 2**31,
        compare=settings.compare,
        origin=settings.origin,
        anonymous_opponents=settings.anonymous_opponents,
    )
    schedule = build_schedule(len(entrants), settings.games, seed, settings.deals)
    entries = [
        ScheduleEntry(
            ordinal=g.index,
            seed=g.seed,
            seat_versions=(entrants[g.seats[0]].version_id, entrants[g.seats[1]].version_id),
            pair_id=g.pair_id,
        )
        for g in schedule
    ]
    stored = config.to_dict()
    for key, value in (extra or {}).items():
        if key in stored:
            raise ArenaError(f"tournament config key {key!r} is the arena's own")
        stored[key] = value
    return store.create_tournament(stored, entries)


def load_config(store: Store, tournament_id: int) -> tuple[TournamentInfo, TournamentConfig]:
    info = store.get_tournament(tournament_id)
    return info, TournamentConfig.from_dict(info.config)


def match_id(tournament_id: int, ordinal: int, attempt: int = 0) -> str:
    """``t12-g34``: the same for a game however often the arena is restarted, and the id its
    bots see on every attempt (a bot seeded from the match id plays it as it would have).

    An attempt cut short by a server shutting down is recorded as aborted under
    ``aborted_match_id`` (``t12-g34-a1``…), so the game's own id stays free for its result. (A
    database written before that kept an aborted attempt under the game's id; its next attempts
    are ``-rN``, as they were then.)"""
    base = f"t{tournament_id}-g{ordinal}"
    return base if attempt == 0 else f"{base}-r{attempt}"


def aborted_match_id(mid: str, attempt: int) -> str:
    """The id an aborted attempt is recorded under: ``t12-g34-a1`` for the first."""
    return f"{mid}-a{attempt}"


def run_tournament(
    store: Store,
    tournament_id: int,
    *,
    concurrency: int | None = None,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
    abort: threading.Event | None = None,
    start_bot: Callable[..., Any] | None = None,
    record_aborted: bool = False,
    sandbox: str | None = None,
    executor: ExecutorFactory | None = None,
    log_dir: Path | None = None,
) -> Standings:
    """Play every pending game of the tournament, K at a time; return its standings.

    ``stop`` (set by another thread) starts no further match; ``abort`` also cuts short the
    matches in play. Either way the games not played stay pending, for a later resume.
    Ctrl-C in the main thread does both. ``record_aborted`` keeps the matches cut short by
    ``abort`` as ABORTED records (unrated; the game stays pending), as a shutting-down server
    does. ``sandbox`` (auto, on, off; default ``$ARENA_SANDBOX`` or auto) is how the bots run
    (``arena.sandbox``). ``executor`` plays the matches elsewhere (``arena.distributed``); by
    default they are played here, on K threads. ``log_dir`` keeps each bot's log there, one
    folder per bot (``arena.tournament.botlogs``); without it the logs go away with the bots.
    """
    reporter = reporter or QuietReporter()
    info, config = load_config(store, tournament_id)
    if info.status is TournamentStatus.CANCELLED:
        raise ArenaError(f"tournament {tournament_id} was cancelled; start a new one")
    k = config.concurrency if concurrency is None else concurrency
    check_concurrency(k)
    with store.tournament_player_lock(tournament_id):
        pending = store.pending_games(tournament_id)
        if config.compare is not None:
            test = comparison_test(store, tournament_id)
            if test.state().finished:
                pending = []
            else:
                stop = stop or threading.Event()
                reporter = _StopWhenDecided(reporter, test, stop)
        if pending:
            store.check_rating_settings()  # a mismatch refused before play, not after it
            _play(
                store, info, config, pending, k, reporter, stop, abort, start_bot,
                record_aborted, sandbox, executor, log_dir,
            )  # fmt: skip
        if (
            config.compare is not None
            and comparison_test(store, tournament_id).state().finished
            and store.get_tournament(tournament_id).status is TournamentStatus.RUNNING
        ):
            store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
    return tournament_standings(store, tournament_id)[2]


class _StopWhenDecided:
    """A reporter in front of the caller's: feeds each recorded game to the comparison's test,
    tells the caller's ``pair_done`` (if it has one) of each pair counted, and stops the
    tournament (no further match; those in play finish) once the test is finished."""

    def __init__(self, inner: Reporter, test: SequentialTest, stop: threading.Event) -> None:
        self.inner = inner
        self.test = test
        self.stop_event = stop

    def start(self, tournament_id: int, bots: Any, done: int, total: int) -> None:
        self.inner.start(tournament_id, bots, done, total)

    def bot_failed(self, bot: str, reason: str) -> None:
        self.inner.bot_failed(bot, reason)

    def match_done(self, game: GameRecord) -> None:
        self.inner.match_done(game)
        pair_done = getattr(self.inner, "pair_done", None)
        for state in self.test.add(game):
            if pair_done is not None:
                pair_done(state)
        if self.test.state().finished:
            self.stop_event.set()

    def stop(self) -> None:
        self.inner.stop()


def comparison_test(store: Store, tournament_id: int) -> SequentialTest:
    """The comparison's test fed with every recorded game (raises for another kind)."""
    _, config, records, _ = tournament_records(store, tournament_id)
    if config.compare is None:
        raise ArenaError(f"tournament {tournament_id} is a round robin, not a comparison")
    test = SequentialTest(config.compare, independent=config.deals is DealMode.INDEPENDENT)
    test.add_all(records)
    return test


def comparison_state(store: Store, tournament_id: int) -> CompareState:
    return comparison_test(store, tournament_id).state()


def _play(
    store: Store,
    info: TournamentInfo,
    config: TournamentConfig,
    pending: list[TournamentGameInfo],
    concurrency: int,
    reporter: Reporter,
    stop: threading.Event | None,
    abort: threading.Event | None,
    start_bot: Callable[..., Any] | None,
    record_aborted: bool = False,
    sandbox: str | None = None,
    executor: ExecutorFactory | None = None,
    log_dir: Path | None = None,
) -> None:
    stop = stop or threading.Event()
    abort = abort or threading.Event()
    schedule = {
        g.index: g
        for g in build_schedule(len(config.entrants), config.games, config.seed, config.deals)
    }
    seats_of = {ordinal: g.seats for ordinal, g in schedule.items()}
    # The order games are handed out in: at K > 1 the matches in play at once share lanes,
    # two deals a process (``arena.tournament.lanes.play_order``).
    by_ordinal = {g.ordinal: g for g in pending}
    pending = [
        by_ordinal[g.index] for g in play_order([schedule[g.ordinal] for g in pending], concurrency)
    ]
    needed = sorted({i for g in pending for i in seats_of[g.ordinal]})
    for i in needed:
        check_unchanged(config.entrants[i])
    attempts = _aborted_attempts(store, info.id)
    taken = {m.match_id for m in store.list_matches(tournament_id=info.id)}
    # Which process of each bot plays each game: never one that has played the game's deal, in
    # either seat (a deal's twin included), in this run. Fixed here, in play order, before
    # anything is played, so that the order in which games end cannot change it.
    lanes_of = dict(
        zip(
            (g.ordinal for g in pending),
            assign_lanes((seats_of[g.ordinal], g.seed) for g in pending),
            strict=True,
        )
    )

    def job(game: TournamentGameInfo) -> MatchJob:
        mid = match_id(info.id, game.ordinal)
        if mid in taken:  # an aborted attempt recorded under the game's id (an older arena)
            mid = match_id(info.id, game.ordinal, attempts.get(game.id, 0))
        return MatchJob(mid, seats_of[game.ordinal], game.seed, lanes_of[game.ordinal])

    def playable(game: TournamentGameInfo) -> bool:
        # Both seats asked (a list, not a short-cut): a lane not yet started starts now.
        ready = [
            ex.ready(i, lane)
            for i, lane in zip(seats_of[game.ordinal], lanes_of[game.ordinal], strict=True)
        ]
        return all(ready)

    def report_failures() -> None:
        for i, reason in ex.given_up():
            reporter.bot_failed(config.entrants[i].name, reason)

    if executor is None:
        ex: MatchExecutor = LocalExecutor(
            concurrency, stop=stop, start_bot=start_bot, sandbox=sandbox, log_dir=log_dir
        )
    else:
        ex = executor(concurrency, stop)
    try:
        for i, reason in ex.start(config, needed, abort).items():
            reporter.bot_failed(config.entrants[i].name, reason)
        reporter.start(info.id, config.names, info.games_total - len(pending), info.games_total)
        # Games wait here, in schedule order, and go to the match threads as slots free up:
        # first those whose bots are ready, so that a bot slow to start (or that never serves)
        # holds up only its own games. A stop leaves nothing queued behind it.
        waiting = list(pending)
        running: dict[Future[MatchResult | None], TournamentGameInfo] = {}
        while waiting or running:
            report_failures()
            # The lanes of the next games are asked for ahead of their turn, so that a lane's
            # start-up overlaps the matches in play rather than holding a free slot.
            for ahead in waiting[: 2 * ex.capacity()]:
                playable(ahead)
            while (
                waiting and len(running) < ex.capacity() and not (stop.is_set() or abort.is_set())
            ):
                game = next((g for g in waiting if playable(g)), None)
                if game is None:
                    break
                waiting.remove(game)
                running[ex.submit(job(game))] = game
            if stop.is_set() or abort.is_set():
                waiting.clear()
            if not running:
                if waiting:
                    time.sleep(_START_POLL_S)  # every game waits for a bot still starting
                continue
            done, _ = wait(running, timeout=_START_POLL_S, return_when=FIRST_COMPLETED)
            # Group commit: every result that arrived meanwhile goes into one transaction.
            arrived: list[tuple[TournamentGameInfo, MatchResult]] = []
            try:
                for fut in done:
                    game = running.pop(fut)
                    result = fut.result()
                    if result is not None:
                        arrived.append((game, result))
            finally:
                report_failures()
                _record(store, arrived, seats_of, reporter, abort, record_aborted)
    except BaseException:
        # Ctrl-C or a store error: end the matches in play (and the bots still starting);
        # their games stay pending.
        stop.set()
        abort.set()
        raise
    finally:
        ex.close()
        reporter.stop()


def _record(
    store: Store,
    arrived: list[tuple[TournamentGameInfo, MatchResult]],
    seats_of: dict[int, tuple[int, int]],
    reporter: Reporter,
    abort: threading.Event,
    record_aborted: bool = False,
) -> None:
    """Record the results that arrived together in one transaction (``Store.record_matches``):
    each with its rating update and game mark, each once or not at all."""
    games: list[TournamentGameInfo] = []
    items: list[MatchToRecord] = []
    attempts: dict[int, int] | None = None
    for game, result in arrived:
        if result.termination is Termination.ABORTED and abort.is_set() and not record_aborted:
            continue  # cut short by the arena: not a result; the game stays pending
        if result.termination is Termination.ABORTED:
            # Kept under an id of its own: the game's id is for its result, on any attempt.
            if attempts is None:
                attempts = _aborted_attempts(store, game.tournament_id)
            n = 1 + attempts.get(game.id, 0)
            result = dataclasses.replace(result, match_id=aborted_match_id(result.match_id, n))
        games.append(game)
        items.append(
            MatchToRecord(
                result, game.seat_versions, tournament_game_id=game.id, pair_id=game.pair_id
            )
        )
    if not items:
        return
    failed: StoreError | None = None
    for game, item, recorded in zip(games, items, store.record_matches(items), strict=True):
        if isinstance(recorded, AlreadyRecordedError):
            continue  # another arena process playing the same tournament got there first
        if isinstance(recorded, StoreError):
            failed = failed or recorded
            continue
        if item.result.termination is not Termination.ABORTED:
            reporter.match_done(_game_record(game, item.result, seats_of, recorded.rated))
    if failed is not None:
        raise failed  # the others of its group are recorded


def schedule_seats(config: TournamentConfig) -> dict[int, tuple[int, int]]:
    """Per scheduled game (by ordinal), the entrant indices in seats 0 and 1.

    Taken from the schedule (a pure function of the config), not from the seats' bot versions:
    a comparison may play one bot version against itself, as two entrants."""
    schedule = build_schedule(len(config.entrants), config.games, config.seed, config.deals)
    return {g.index: g.seats for g in schedule}


def _game_record(
    game: TournamentGameInfo, match: Any, seats_of: dict[int, tuple[int, int]], rated: bool
) -> GameRecord:
    """A scheduled game and its match (a ``MatchResult`` or the store's ``MatchSummary``)."""
    return GameRecord(
        index=game.ordinal,
        pair_id=game.pair_id if game.pair_id is not None else game.ordinal,
        seats=seats_of[game.ordinal],
        winner=match.winner,
        scores=match.scores,
        termination=match.termination.value,
        faults=match.faults,
        rated=rated,
    )


def _aborted_attempts(store: Store, tournament_id: int) -> dict[int, int]:
    """Per game, how many attempts were recorded as aborted (each took a match id)."""
    counts: dict[int, int] = {}
    for m in store.list_matches(tournament_id=tournament_id):
        if m.tournament_game_id is not None and m.termination is Termination.ABORTED:
            counts[m.tournament_game_id] = counts.get(m.tournament_game_id, 0) + 1
    return counts


def tournament_records(
    store: Store, tournament_id: int
) -> tuple[TournamentInfo, TournamentConfig, list[GameRecord], int]:
    """The tournament's recorded games in schedule order, and how many are scheduled."""
    info, config = load_config(store, tournament_id)
    games = store.tournament_games(tournament_id)
    matches = {m.match_id: m for m in store.list_matches(tournament_id=tournament_id)}
    seats_of = schedule_seats(config)
    records = []
    for g in games:
        if g.status is not GameStatus.DONE or g.match_id is None:
            continue
        m = matches[g.match_id]
        records.append(_game_record(g, m, seats_of, m.rated))
    return info, config, records, len(games)


def standings_basis(store: Store, tournament_id: int, settings: RatingConfig) -> str:
    """What a tournament's standings are computed from: its recorded state (status, matches,
    highest sequence) and the rating settings, in the form of the kept standings."""
    state = store.tournament_match_state(tournament_id)
    return json.dumps([STANDINGS_FORM, *state, settings.to_dict()], sort_keys=True)


def tournament_standings(
    store: Store, tournament_id: int
) -> tuple[TournamentInfo, TournamentConfig, Standings]:
    """The tournament as stored: its info, config and standings (ratings in schedule order).

    A tournament that is over never changes: its standings (TrueSkill replayed over its
    matches) are computed once, stored with what they were computed from (its recorded state
    and the rating settings), and read back after (``Store.tournament_summary``); the run that
    finishes a tournament stores them, and an older one's first view does."""
    info, config = load_config(store, tournament_id)
    # The stored settings, which the ratings were computed with, not the shell's variables.
    settings = store.effective_rating_config()
    basis = None
    if info.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        basis = standings_basis(store, tournament_id, settings)
        kept = store.tournament_summary(tournament_id, basis)
        standings = None if kept is None else standings_from_dict(kept)
        if standings is not None:
            return info, config, standings
    info, config, records, total = tournament_records(store, tournament_id)
    bots = [(e.name, e.version) for e in config.entrants]
    standings = compute_standings(bots, records, Rater(settings), total=total)
    if basis is not None:
        # Kept for the next reader; a database this process may not write (a read-only
        # copy) still gets its standings, computed each time.
        with contextlib.suppress(StoreError):
            store.keep_tournament_summary(tournament_id, basis, standings_to_dict(standings))
    return info, config, standings
