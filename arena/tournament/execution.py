"""Where a tournament's matches are played: the executor the runner hands its games to.

The runner decides what to play and alone records results; an executor only plays the matches
it is given and gives each ``MatchResult`` back. The default, ``LocalExecutor``, plays them on
this machine, K at a time on threads, against bot processes started once per run and lane
(``BotPool``; each job names the lane of each seat, ``arena.tournament.lanes``).
``arena.distributed`` plays them on a Ray cluster through the same interface.

A match cut short (``abort``) comes back ``ABORTED`` or as None (not started): never a result
the runner records as played.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.referee import MatchResult, play_match, unplayed_result
from arena.tournament.botlogs import mark_end, mark_start
from arena.tournament.workers import BotPool


class TournamentConfig(Protocol):
    """What playing a tournament's matches reads of its config (``runner.TournamentConfig``;
    named here as a protocol, so that this module does not import the runner that imports it)."""

    @property
    def entrants(self) -> Sequence[Any]: ...
    @property
    def bot_seed(self) -> int: ...
    @property
    def rules(self) -> Any: ...
    @property
    def clock(self) -> Any: ...
    @property
    def policy(self) -> Any: ...
    @property
    def anonymous_opponents(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class MatchJob:
    """One scheduled game to play: its match id, the entrants in each seat, the deal seed."""

    match_id: str
    seats: tuple[int, int]
    """Indices into the tournament's entrants."""
    seed: int
    lanes: tuple[int, int] = (0, 0)
    """The lane of each seat's bot (``arena.tournament.lanes``): which of its processes plays."""


class MatchExecutor(Protocol):
    """What the runner needs of whatever plays its matches."""

    def start(
        self, config: TournamentConfig, needed: list[int], abort: threading.Event
    ) -> dict[int, str]:
        """Get ready to play the entrants ``needed``; the ones that cannot start, with why."""
        ...

    def capacity(self) -> int:
        """How many matches may be in play at once now."""
        ...

    def ready(self, entrant: int, lane: int = 0) -> bool:
        """Whether the start-up of the entrant's lane is settled (it runs, or it failed), so
        that a game of it can be handed over without waiting on a bot still starting; a lane
        not asked for before may start now."""
        ...

    def submit(self, job: MatchJob) -> Future[MatchResult | None]:
        """Play the match; None when it was not started because the run is stopping."""
        ...

    def given_up(self) -> list[tuple[int, str]]:
        """Entrants given up on since the last call (they kept dying), with the reason."""
        ...

    def close(self) -> None:
        """Stop every match and bot process; called once, whatever happened."""
        ...


def play_game(
    pool: BotPool,
    config: TournamentConfig,
    job: MatchJob,
    abort: threading.Event,
) -> MatchResult:
    """Play one scheduled game with the pool's bots (or settle it if a bot cannot start)."""
    seats, seed, mid = job.seats, job.seed, job.match_id
    names = (config.entrants[seats[0]].name, config.entrants[seats[1]].name)
    # Each seat's bot in the game's lane: no process of a bot plays a deal twice.
    conns = [pool.connection(i, lane) for i, lane in zip(seats, job.lanes, strict=True)]
    failed = [seat for seat in (0, 1) if isinstance(conns[seat], str)]
    if failed:
        detail = "; ".join(f"{names[s]} could not start: {conns[s]}" for s in failed)
        # Neither started: a double forfeit, no winner, not rated, but the game is settled.
        return unplayed_result(
            names,
            seed=seed,
            forfeit_seat=failed[0] if len(failed) == 1 else None,
            detail=detail,
            rules=config.rules,
            match_id=mid,
        )
    c0, c1 = conns
    assert not isinstance(c0, str) and not isinstance(c1, str)  # both started (above)
    bots = (c0, c1)
    reveal = not config.anonymous_opponents
    # A line in each bot's log: which match its next lines belong to (and against whom, when
    # bots are told).
    mark_start(bots, mid, reveal_opponents=reveal)
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
            reveal_opponents=reveal,
        )
    finally:
        mark_end(bots, mid, result)
    return result


class LocalExecutor:
    """K matches at once on threads of this process, one process per bot and lane, shared by
    the lane's matches.

    Bots start on threads of their own (``BotPool``); the runner hands over first the games
    whose bots are ready, so one bot slow to start holds up only its own games."""

    def __init__(
        self,
        concurrency: int,
        *,
        stop: threading.Event,
        start_bot: Callable[..., Any] | None = None,
        sandbox: str | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self._k = concurrency
        self._log_dir = log_dir
        self._stop = stop
        self._start_bot = start_bot
        self._sandbox = sandbox
        self._abort = threading.Event()
        # The pool's own event (set by an abort, and by the pool's stop): the caller's
        # ``abort`` may be shared by several runs (the ladder's), and a run that ends must not
        # set it.
        self._cancel = threading.Event()
        self._pool: BotPool | None = None
        self._config: TournamentConfig | None = None
        self._threads = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="match")

    def start(
        self, config: TournamentConfig, needed: list[int], abort: threading.Event
    ) -> dict[int, str]:
        self._config, self._abort = config, abort
        self._pool = BotPool(
            config.entrants, bot_seed=config.bot_seed, start_bot=self._start_bot,
            sandbox=self._sandbox, cancel=self._cancel, log_dir=self._log_dir,
        )  # fmt: skip
        self._pool.start(needed)
        return {}

    def capacity(self) -> int:
        return self._k

    def ready(self, entrant: int, lane: int = 0) -> bool:
        if self._abort.is_set():
            self._cancel.set()  # bots still starting give up at once
        return self._pool is not None and self._pool.ready(entrant, lane)

    def submit(self, job: MatchJob) -> Future[MatchResult | None]:
        assert self._pool is not None and self._config is not None
        pool, config = self._pool, self._config

        def play() -> MatchResult | None:
            if self._stop.is_set() or self._abort.is_set():
                return None
            return play_game(pool, config, job, self._abort)

        return self._threads.submit(play)

    def given_up(self) -> list[tuple[int, str]]:
        if self._pool is None:
            return []
        return [*self._pool.failed_to_start(), *self._pool.given_up()]

    def close(self) -> None:
        self._cancel.set()
        self._threads.shutdown(wait=True, cancel_futures=True)
        if self._pool is not None:
            self._pool.stop()
