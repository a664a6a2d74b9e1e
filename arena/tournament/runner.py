"""Create a tournament, play its schedule K matches at a time, and resume it after any stop.

The whole schedule is stored before the first match (``create_tournament``); each match is
recorded the moment it ends, in one transaction with its rating update and the mark that its
scheduled game is done (``Store.record_match`` with ``tournament_game_id``, which refuses a game
recorded before). So whatever kills the arena, at any moment, the database holds every finished
match exactly once and ``run_tournament`` on the same id plays exactly the games still pending.

Matches run in a pool of K threads; every thread's referee talks gRPC to the same bot
processes, each started once per run and shared by all the matches it plays (a bot serves many
matches at once). The main thread alone writes to the store, as results come in.

A match cut short by the arena itself (``stop``/``abort``, Ctrl-C) is not a result and is not
recorded: its game stays pending and a resume plays it again from the start, under the same match
id, so a bot that seeds itself from the match id plays it as it would have.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ratings import Rater
from arena.referee import (
    ClockConfig,
    FaultPolicy,
    MatchResult,
    Termination,
    play_match,
    unplayed_result,
)
from arena.rules.ruleset import RuleSet
from arena.store import (
    AlreadyRecordedError,
    GameStatus,
    ScheduleEntry,
    Store,
    TournamentGameInfo,
    TournamentInfo,
    TournamentStatus,
)
from arena.tournament.botlogs import mark_end, mark_start
from arena.tournament.entrants import Entrant, check_unchanged, resolve_entrants
from arena.tournament.progress import QuietReporter, Reporter
from arena.tournament.schedule import DealMode, build_schedule, deal_seed, validate
from arena.tournament.standings import GameRecord, Standings, compute_standings
from arena.tournament.workers import BotPool

DEFAULT_GAMES = 10
DEFAULT_CONCURRENCY = 2
DEFAULT_MOVE_TIMEOUT_MS = 1000
CONFIG_FORMAT = 1


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
    deals: DealMode = DealMode.DUPLICATE
    names_only: bool = False
    """Take ``bots`` as bot names only, never as directories (names sent to a server)."""
    origin: str = "local"
    """Who plays it: ``local`` (the CLI) or ``service`` (a server resumes its own after a
    restart)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What is stored with the tournament: everything a resume needs to play the rest."""

    entrants: list[Entrant]
    games: int
    seed: int
    concurrency: int
    clock: ClockConfig
    policy: FaultPolicy
    rules: RuleSet
    deals: DealMode
    bot_seed: int
    """Given to every bot as ``ARENA_BOT_SEED``: seeded bots repeat themselves run after run."""
    origin: str = "local"

    def to_dict(self) -> dict[str, Any]:
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
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        if data.get("format") != CONFIG_FORMAT:
            raise ArenaError(
                f"tournament config format {data.get('format')!r} is not one this arena reads"
            )
        return cls(
            entrants=[Entrant.from_dict(b) for b in data["bots"]],
            games=int(data["games"]),
            seed=int(data["seed"]),
            concurrency=int(data["concurrency"]),
            clock=ClockConfig(int(data["move_timeout_ms"]), int(data["time_bank_ms"])),
            policy=FaultPolicy(data["policy"]["kind"], int(data["policy"]["max_faults"])),
            rules=RuleSet.from_dict(data["rules"]),
            deals=DealMode(data["deals"]),
            bot_seed=int(data["bot_seed"]),
            origin=str(data.get("origin", "local")),
        )

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]


def check_concurrency(concurrency: int) -> None:
    if concurrency <= 0:
        raise ArenaError(f"--concurrency must be at least 1 (matches at once), got {concurrency}")


def create_tournament(store: Store, settings: TournamentSettings) -> int:
    """Check the request, register its bots, store the tournament and its whole schedule."""
    validate(len(settings.bots), settings.games)
    check_concurrency(settings.concurrency)
    move_ms = settings.move_timeout_ms
    clock = ClockConfig(
        DEFAULT_MOVE_TIMEOUT_MS if move_ms is None else move_ms, settings.time_bank_ms
    )
    entrants = resolve_entrants(store, settings.bots, names_only=settings.names_only)
    seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**31)
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
        origin=settings.origin,
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
    return store.create_tournament(config.to_dict(), entries)


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
    log_dir: Path | None = None,
) -> Standings:
    """Play every pending game of the tournament, K at a time; return its standings.

    ``stop`` (set by another thread) starts no further match; ``abort`` also cuts short the
    matches in play. Either way the games not played stay pending, for a later resume.
    Ctrl-C in the main thread does both. ``record_aborted`` keeps the matches cut short by
    ``abort`` as ABORTED records (unrated; the game stays pending), as a shutting-down server
    does. ``log_dir`` keeps each bot's log there, one folder per bot
    (``arena.tournament.botlogs``); without it the logs go away with the bots.
    """
    reporter = reporter or QuietReporter()
    info, config = load_config(store, tournament_id)
    if info.status is TournamentStatus.CANCELLED:
        raise ArenaError(f"tournament {tournament_id} was cancelled; start a new one")
    k = config.concurrency if concurrency is None else concurrency
    check_concurrency(k)
    with store.tournament_player_lock(tournament_id):
        pending = store.pending_games(tournament_id)
        if pending:
            store.check_rating_settings()  # a mismatch refused before play, not after it
            _play(
                store, info, config, pending, k, reporter, stop, abort, start_bot,
                record_aborted, log_dir,
            )
    return tournament_standings(store, tournament_id)[2]


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
    log_dir: Path | None = None,
) -> None:
    stop = stop or threading.Event()
    abort = abort or threading.Event()
    index_of = {e.version_id: i for i, e in enumerate(config.entrants)}
    needed = sorted({index_of[v] for g in pending for v in g.seat_versions})
    for i in needed:
        check_unchanged(config.entrants[i])
    attempts = _aborted_attempts(store, info.id)
    taken = {m.match_id for m in store.list_matches(tournament_id=info.id)}

    pool = BotPool(
        config.entrants, bot_seed=config.bot_seed, start_bot=start_bot, log_dir=log_dir
    )

    def play(game: TournamentGameInfo) -> MatchResult | None:
        if stop.is_set() or abort.is_set():
            return None
        seats = (index_of[game.seat_versions[0]], index_of[game.seat_versions[1]])
        mid = match_id(info.id, game.ordinal)
        if mid in taken:  # an aborted attempt recorded under the game's id (an older arena)
            mid = match_id(info.id, game.ordinal, attempts.get(game.id, 0))
        return _play_game(pool, config, seats, game.seed, mid, abort)

    ex = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="match")
    try:
        for i, reason in pool.start(needed, ex).items():
            reporter.bot_failed(config.entrants[i].name, reason)
        reporter.start(info.id, config.names, info.games_total - len(pending), info.games_total)
        queue = iter(pending)
        running: dict[Future[MatchResult | None], TournamentGameInfo] = {}
        # Only as many games are submitted as run at once: the rest wait here, in schedule
        # order, so a stop leaves nothing queued behind it.
        for game in queue:
            running[ex.submit(play, game)] = game
            if len(running) >= concurrency:
                break
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                game = running.pop(fut)
                result = fut.result()
                for i, reason in pool.given_up():
                    reporter.bot_failed(config.entrants[i].name, reason)
                if result is not None:
                    _record(store, game, result, index_of, reporter, abort, record_aborted)
                if not (stop.is_set() or abort.is_set()):
                    nxt = next(queue, None)
                    if nxt is not None:
                        running[ex.submit(play, nxt)] = nxt
    except BaseException:
        # Ctrl-C or a store error: end the matches in play; their games stay pending.
        stop.set()
        abort.set()
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        pool.stop()
        reporter.stop()


def _play_game(
    pool: BotPool,
    config: TournamentConfig,
    seats: tuple[int, int],
    seed: int,
    mid: str,
    abort: threading.Event,
) -> MatchResult:
    names = (config.entrants[seats[0]].name, config.entrants[seats[1]].name)
    conns = [pool.connection(i) for i in seats]
    failed = [seat for seat in (0, 1) if isinstance(conns[seat], str)]
    if failed:
        detail = "; ".join(f"{names[s]} could not start: {conns[s]}" for s in failed)
        # Neither started: a double forfeit, no winner, not rated, but the game is settled.
        return unplayed_result(
            names, seed=seed, forfeit_seat=failed[0] if len(failed) == 1 else None,
            detail=detail, rules=config.rules, match_id=mid,
        )
    bots = (conns[0], conns[1])
    mark_start(bots, mid)
    result = None
    try:
        result = play_match(
            bots,
            seed=seed,
            rules=config.rules,
            clock=config.clock,
            policy=config.policy,
            match_id=mid,
            stop=abort,
        )
    finally:
        mark_end(bots, mid, result)
    return result


def _record(
    store: Store,
    game: TournamentGameInfo,
    result: MatchResult,
    index_of: dict[int, int],
    reporter: Reporter,
    abort: threading.Event,
    record_aborted: bool = False,
) -> None:
    if result.termination is Termination.ABORTED and abort.is_set() and not record_aborted:
        return  # cut short by the arena: not a result; the game stays pending
    if result.termination is Termination.ABORTED:
        # Kept under an id of its own: the game's id is for its result, on any attempt.
        n = 1 + _aborted_attempts(store, game.tournament_id).get(game.id, 0)
        result = dataclasses.replace(result, match_id=aborted_match_id(result.match_id, n))
    try:
        recorded = store.record_match(
            result,
            seat_versions=game.seat_versions,
            tournament_game_id=game.id,
            pair_id=game.pair_id,
        )
    except AlreadyRecordedError:
        return  # another arena process playing the same tournament got there first
    if result.termination is Termination.ABORTED:
        return
    reporter.match_done(_game_record(game, result, index_of, recorded.rated))


def _game_record(
    game: TournamentGameInfo, match: Any, index_of: dict[int, int], rated: bool
) -> GameRecord:
    """A scheduled game and its match (a ``MatchResult`` or the store's ``MatchSummary``)."""
    return GameRecord(
        index=game.ordinal,
        pair_id=game.pair_id if game.pair_id is not None else game.ordinal,
        seats=(index_of[game.seat_versions[0]], index_of[game.seat_versions[1]]),
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
    index_of = {e.version_id: i for i, e in enumerate(config.entrants)}
    records = []
    for g in games:
        if g.status is not GameStatus.DONE or g.match_id is None:
            continue
        m = matches[g.match_id]
        records.append(_game_record(g, m, index_of, m.rated))
    return info, config, records, len(games)


def tournament_standings(
    store: Store, tournament_id: int
) -> tuple[TournamentInfo, TournamentConfig, Standings]:
    """The tournament as stored: its info, config and standings (ratings in schedule order)."""
    info, config, records, total = tournament_records(store, tournament_id)
    bots = [(e.name, e.version) for e in config.entrants]
    # The stored settings, which the ratings were computed with, not the shell's variables.
    rater = Rater(store.effective_rating_config())
    standings = compute_standings(bots, records, rater, total=total)
    return info, config, standings
