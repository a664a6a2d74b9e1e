"""The ladder: the arena schedules rated duplicate pairs by itself, for ever, from the store.

Each pair the matchmaker chooses (``matchmaking.py``) is stored as a tournament of its own: two
bot versions, one deal seed drawn from the operating system's cryptographic source, both
seatings, marked ``{"ladder": …}`` in its config. So a ladder pair is played, recorded, rated and
resumed by exactly the machinery of tournaments: each match is recorded once, in one transaction
with its rating update, and a ladder killed at any moment resumes the pairs it had started
before it chooses new ones (nothing recorded is lost or counted twice).

Who takes part: the latest version of every registered bot (or of the bots named), less those
paused, and at most ``per_owner`` bots of one owner at once (the rest wait, and the status says
why); two bots of one owner are never paired. The house bots (``house.py``: the sample bots,
opponents for the others) take part too, never paired with each other. A version that could not
start is paused at once; one whose last ``pause_after`` ladder matches were all forfeited by it
(a crash, a timeout…) is paused with the reason. A new version of a bot takes part afresh,
except after a pause for not starting: it must first start once on its own
(``arena.runtime.start_check``). Old versions leave the ladder when a new one arrives; their
ratings stay. Bots are not told whom they play unless ``reveal_opponents``.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import random
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ladder.collusion import MatchFacts, collusion_flags
from arena.ladder.house import register_house
from arena.ladder.matchmaking import Choice, LadderEntrant, LadderField, Matchmaker, PairCounts
from arena.referee import FaultPolicy
from arena.referee.record import Termination
from arena.rules.ruleset import RuleSet
from arena.store import BotInfo, GameStatus, Store, TournamentStatus
from arena.store.rating_order import ORDER_KEY, RECORDED
from arena.tournament import TournamentSettings, create_tournament_of, run_tournament
from arena.tournament.botlogs import tournament_log_dir
from arena.tournament.entrants import TournamentEntrant

log = logging.getLogger(__name__)

LADDER_KEY = "ladder"
"""The key in a tournament's stored config that makes it a ladder pair."""
NOT_STARTED = "not_started"
"""A pause's kind: the version could not start (a new version must start once to play)."""
FAULTS = "faults"
"""A pause's kind: the version forfeited its last ``pause_after`` ladder matches."""
DAY_S = 24 * 3600.0
RATINGS_REFRESH_S = 30.0
"""The entrants are kept between choices, each changed as the ladder changes it (its pairs'
ratings and counts); the whole is read again when a bot or version is added, a pause changes,
or this many seconds have passed (ratings moved by other tournaments, an owner's token
revoked)."""


class LadderError(ArenaError):
    """A ladder setting a user can correct."""


@dataclass(frozen=True)
class LadderSettings:
    concurrency: int = 1
    """Pairs played at once (each pair plays its two matches at once)."""
    daily_budget: int | None = None
    """At most this many matches in any 24 hours; None for no limit."""
    bots: tuple[str, ...] = ()
    """Bot names taking part; empty for every registered bot."""
    pause_after: int = 3
    """Consecutive ladder matches forfeited by a version that pause it."""
    move_timeout_ms: int | None = None
    rules: RuleSet = field(default_factory=RuleSet)
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    seed: int | None = None
    """Seeds the matchmaker's tie-break only; deal seeds are always secret."""
    idle_s: float = 2.0
    """How long to wait before looking again when there is nothing to play."""
    max_pairs: int | None = None
    """Stop after this many new pairs (benchmarks and tests); None for ever."""
    sandbox: str | None = None
    """How the bots run (auto, on, off; ``arena.sandbox``), as in tournaments."""
    per_owner: int = 2
    """At most this many bots of one owner (a member token) take part at once."""
    reveal_opponents: bool = False
    """Tell each bot its opponent's name; off, rated play is anonymous (docs/protocol.md)."""
    house: tuple[str, ...] = ()
    """Sample bots that take part as house bots (``arena.ladder.house``): registered when the
    ladder starts, opponents for the submitted bots, never paired with each other."""

    def __post_init__(self) -> None:
        if not 1 <= self.concurrency <= 64:
            raise LadderError(f"ladder concurrency must be 1 to 64, got {self.concurrency}")
        if self.daily_budget is not None and self.daily_budget < 2:
            raise LadderError(
                f"ladder daily budget must be at least 2 matches (one pair), got "
                f"{self.daily_budget}"
            )
        if not 1 <= self.pause_after <= 1000:
            raise LadderError(f"ladder pause-after must be 1 to 1000, got {self.pause_after}")
        if not 1 <= self.per_owner <= 1000:
            raise LadderError(f"ladder bots per owner must be 1 to 1000, got {self.per_owner}")


@dataclass
class _Pair:
    tournament_id: int
    versions: tuple[int, int]
    names: tuple[str, str]
    reason: str


class Ladder:
    """Plays the ladder on ``store`` until ``stop`` is set (or ``max_pairs`` new pairs)."""

    def __init__(
        self,
        store: Store,
        settings: LadderSettings | None = None,
        *,
        start_bot: Callable[..., Any] | None = None,
        executor: Callable[..., Any] | None = None,
        logs: Path | None = None,
        start_check: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self._start_check = start_check
        """Starts a bot folder once and raises ``ArenaError`` if it cannot start; by default
        ``arena.runtime.start_check.check_starts`` with the ladder's sandbox."""
        self._cleared: set[int] = set()
        """New versions of bots paused for not starting that have since started once."""
        self._waiting: list[dict[str, Any]] = []
        self._flags: list[dict[str, Any]] = []
        self.settings = settings or LadderSettings()
        self._start_bot = start_bot
        self._executor = executor
        self._logs = logs
        """The logs folder (``arena.tournament.botlogs.logs_root``): each pair's bot logs in
        its tournament's folder there, as a tournament's; None keeps none."""
        self._matchmaker = Matchmaker(store.rating_config)
        self._rng = random.Random(
            self.settings.seed if self.settings.seed is not None else secrets.randbits(64)
        )
        self._lock = threading.Lock()
        self._playing: dict[int, _Pair] = {}
        self._played = PairCounts()
        self._pairs_of: Counter[int] = Counter()
        self._last_pair: dict[int, int] = {}
        self._pair_count = 0
        self._ladder_tournaments: set[int] = set()
        self._finished_at: deque[float] = deque()
        self._abort = threading.Event()
        self.new_pairs = 0
        self._house: dict[str, int] = {}
        """House bots by name, with the version registered from sample_bots/."""
        self._field: LadderField | None = None
        """The entrants as the last choice saw them, kept (``entrants``)."""
        self._roster_key: Any = None
        self._read_at = 0.0
        self._candidates: dict[int, Any] = {}
        """Versions that may take part, by id, in the bots' order (by name)."""
        self._place: dict[int, int] = {}
        self._owners: dict[int, int | None] = {}
        self._crowded: list[list[int]] = []
        """Per owner with more candidates than ``per_owner``: their version ids."""
        self._rating_of: dict[int, tuple[float, float]] = {}
        self._changed: set[int] = set()
        """Versions whose row changed since the last choice (a pair counted or finished)."""
        self.house_notes: list[str] = []

    # -- the loop ----------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        self._house, self.house_notes = register_house(self.store, self.settings.house)
        for note in self.house_notes:
            log.warning("ladder: %s", note)
        unfinished = self._load_history()
        self._update_flags()
        with ThreadPoolExecutor(
            max_workers=self.settings.concurrency, thread_name_prefix="ladder"
        ) as pool:
            running: dict[Future[None], _Pair] = {}
            try:
                for pair in unfinished:
                    log.info(
                        "ladder: resuming pair %s (tournament %d)", pair.names, pair.tournament_id
                    )
                    self._start(pool, running, pair, stop)
                    while len(running) >= self.settings.concurrency and not stop.is_set():
                        self._collect(running, timeout=self.settings.idle_s)
                while not stop.is_set():
                    if self._done_new_pairs():
                        if not running:
                            break
                    else:
                        while len(running) < self.settings.concurrency and not stop.is_set():
                            chosen = self._next_pair()
                            if chosen is None:
                                break
                            self._start(pool, running, chosen, stop)
                            if self._done_new_pairs():
                                break
                        if not running and self.settings.max_pairs is not None:
                            break  # a bounded run ends when there is nothing left to play
                    self._publish()
                    if running:
                        self._collect(running, timeout=self.settings.idle_s)
                    else:
                        stop.wait(self.settings.idle_s)
            finally:
                if stop.is_set():
                    self._abort.set()
                for fut in list(running):
                    fut.exception()  # wait: a match cut short leaves its game pending
                    self._finish(running.pop(fut))
                self._publish()

    def _done_new_pairs(self) -> bool:
        return self.settings.max_pairs is not None and self.new_pairs >= self.settings.max_pairs

    def _start(
        self,
        pool: ThreadPoolExecutor,
        running: dict[Future[None], _Pair],
        pair: _Pair,
        stop: threading.Event,
    ) -> None:
        with self._lock:
            self._playing[pair.tournament_id] = pair
        running[pool.submit(self._play, pair, stop)] = pair
        self._publish()

    def _collect(self, running: dict[Future[None], _Pair], *, timeout: float) -> None:
        done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
        for fut in done:
            pair = running.pop(fut)
            exc = fut.exception()
            if exc is not None and not isinstance(exc, ArenaError):
                raise exc
            self._finish(pair)

    def _play(self, pair: _Pair, stop: threading.Event) -> None:
        try:
            run_tournament(
                self.store,
                pair.tournament_id,
                concurrency=2,
                stop=stop,
                abort=self._abort,
                start_bot=self._start_bot,
                sandbox=self.settings.sandbox,
                executor=self._executor,
                log_dir=(
                    None
                    if self._logs is None
                    else tournament_log_dir(self._logs, pair.tournament_id)
                ),
            )
        except ArenaError as exc:
            # A bot whose files are gone, a tournament cancelled meanwhile: this pair cannot
            # be played; pause the bot it is about and leave the rest of the ladder running.
            log.warning(
                "ladder: pair %s (tournament %d) not played: %s",
                pair.names,
                pair.tournament_id,
                exc,
            )
            self._cancel(pair, str(exc))
            raise

    def _finish(self, pair: _Pair) -> None:
        with self._lock:
            self._playing.pop(pair.tournament_id, None)
        self._changed.update(pair.versions)  # rated: their rows are read again
        matches = self.store.list_matches(tournament_id=pair.tournament_id)
        now = time.time()
        for m in matches:
            if m.termination.value != "aborted":
                self._finished_at.append(now)
        for version in pair.versions:
            self._check_faults(version)
        self._update_flags()

    # -- choosing ----------------------------------------------------------------------------

    def entrants(self) -> list[LadderEntrant]:
        """The versions taking part now, with their ratings and ladder counts (at most
        ``per_owner`` of one owner: the rest wait, ``status()["waiting"]`` says why)."""
        return self._entrant_field().entrants()

    def _entrant_field(self) -> LadderField:
        """The entrants, kept between choices: only the rows the ladder changed since the last
        choice are read again, unless the roster itself changed (``RATINGS_REFRESH_S``)."""
        pauses = self.store.ladder_pauses()
        key = (
            self.store.bots_mark(),
            frozenset((v, str(p.get("kind"))) for v, p in pauses.items()),
        )
        stale = time.monotonic() - self._read_at > RATINGS_REFRESH_S
        if self._field is None or key != self._roster_key or stale:
            self._read_roster(pauses)
            self._roster_key = key
        else:
            self._apply_changes()
        assert self._field is not None
        return self._field

    def _read_roster(self, pauses: dict[int, dict[str, Any]]) -> None:
        """Everything from the store: bots, pauses, owners, ratings."""
        self._read_at = time.monotonic()
        wanted = set(self.settings.bots)
        ratings = self.store.ratings()
        mu0, sigma0 = self.store.rating_config.mu, self.store.rating_config.sigma
        candidates = []
        for bot in self.store.list_bots():
            house = self._house.get(bot.name)
            if (wanted and bot.name not in wanted and house is None) or not bot.versions:
                continue
            v = bot.latest
            if v.id in pauses or not self._may_start(bot, pauses):
                continue
            candidates.append(v)
        self._candidates = {v.id: v for v in candidates}
        self._place = {vid: i for i, vid in enumerate(self._candidates)}
        self._owners = self.store.fair_play_owners(self._candidates)
        self._rating_of = {}
        for vid in self._candidates:
            r = ratings.get(vid)
            self._rating_of[vid] = (r.mu, r.sigma) if r is not None else (mu0, sigma0)
        of_owner: dict[int, list[int]] = {}
        for vid in self._candidates:
            owner = self._owners.get(vid)
            if owner is not None:
                of_owner.setdefault(owner, []).append(vid)
        self._crowded = [vs for vs in of_owner.values() if len(vs) > self.settings.per_owner]
        taking_part = self._taking_part()
        self._field = LadderField(self._row(vid) for vid in self._candidates if vid in taking_part)
        self._changed.clear()

    def _taking_part(self) -> set[int]:
        """The candidates taking part now: all but one owner's beyond ``per_owner`` (those in
        play first, then those that played fewest pairs, then the oldest; the others take
        their turn as these play). Sets the waiting list the status shows."""
        with self._lock:
            busy = {v for p in self._playing.values() for v in p.versions}
        out = set(self._candidates)
        waiting = []
        n = self.settings.per_owner
        for vs in self._crowded:
            order = sorted(vs, key=lambda v: (v not in busy, self._pairs_of[v], v))
            for vid in order[n:]:
                out.discard(vid)
                waiting.append(vid)
        waiting.sort(key=lambda v: (v not in busy, self._pairs_of[v], v))
        self._waiting = [
            {
                "bot": self._candidates[vid].name, "version_id": vid,
                "why": f"its owner has {n} bots taking part already (at most {n} at once); it "
                "takes its turn as they play",
            }
            for vid in waiting
        ]  # fmt: skip
        return out

    def _row(self, vid: int) -> LadderEntrant:
        v = self._candidates[vid]
        mu, sigma = self._rating_of[vid]
        return LadderEntrant(
            vid, v.name, mu, sigma, self._pairs_of[vid], self._last_pair.get(vid, -1),
            self._owners.get(vid), house=self._house.get(v.name) == vid,
        )  # fmt: skip

    def _apply_changes(self) -> None:
        """The rows the ladder changed since the last choice, and one owner's bots taking
        turns; nothing else is read."""
        kept = self._field
        assert kept is not None
        changed, self._changed = self._changed, set()
        for vid in changed:
            if vid not in self._candidates:
                continue
            try:
                r = self.store.rating(vid)
                self._rating_of[vid] = (r.mu, r.sigma)
            except ArenaError:
                pass  # no rating row: the initial rating stays
        taking_part = self._taking_part() if self._crowded else set(self._candidates)
        for vs in self._crowded:
            for vid in vs:
                if vid not in taking_part and vid in kept:
                    kept.remove(vid)
        place = self._place
        for vid in changed | {v for vs in self._crowded for v in vs}:
            if vid not in taking_part:
                continue
            if vid in kept:
                if vid in changed:
                    kept.put(self._row(vid))
            else:
                at = bisect.bisect_left(kept, place[vid], key=lambda e: place[e.version_id])
                kept.put(self._row(vid), at)

    def _may_start(self, bot: BotInfo, pauses: dict[int, dict[str, Any]]) -> bool:
        """A new version of a bot paused for not starting plays once it has started alone
        (it is paused at once if it cannot): a new version does not lift a pause unearned."""
        v = bot.latest
        if v.id in self._cleared:
            return True
        if not any(pauses.get(old.id, {}).get("kind") == NOT_STARTED for old in bot.versions[:-1]):
            return True
        try:
            if self._start_check is not None:
                self._start_check(v.source)
            else:
                from arena.runtime.start_check import check_starts

                check_starts(v.source, sandbox=self.settings.sandbox)
        except ArenaError as exc:
            self._pause(v.id, v.name, f"could not start: {exc}", kind=NOT_STARTED)
            return False
        self._cleared.add(v.id)
        return True

    def _next_pair(self) -> _Pair | None:
        if self._over_budget():
            return None
        with self._lock:
            busy = frozenset(v for p in self._playing.values() for v in p.versions)
        choice = self._matchmaker.choose(
            self._entrant_field(),
            self._played,
            next_pair=self._pair_count,
            rng=self._rng,
            busy=busy,
        )
        if choice is None:
            return None
        return self._create(choice)

    def _over_budget(self) -> bool:
        budget = self.settings.daily_budget
        if budget is None:
            return False
        cutoff = time.time() - DAY_S
        while self._finished_at and self._finished_at[0] < cutoff:
            self._finished_at.popleft()
        with self._lock:
            in_play = 2 * len(self._playing)
        return len(self._finished_at) + in_play + 2 > budget

    def _create(self, choice: Choice) -> _Pair:
        a = self.store.get_bot_version(choice.a.version_id)
        b = self.store.get_bot_version(choice.b.version_id)
        entrants = [
            TournamentEntrant(v.name, v.version_label, v.id, v.content_hash, v.source)
            for v in (a, b)
        ]
        for e in entrants:
            if not Path(e.source).is_dir():
                reason = f"its files are gone ({e.source})"
                self._pause(e.version_id, e.name, reason)
                raise LadderError(f"bot {e.name}: {reason}")
        index = self._pair_count
        settings = TournamentSettings(
            bots=[],
            games=1,
            concurrency=2,
            seed=None,  # drawn by the tournament from the OS's cryptographic source
            move_timeout_ms=self.settings.move_timeout_ms,
            policy=self.settings.policy,
            rules=self.settings.rules,
            anonymous_opponents=not self.settings.reveal_opponents,
        )
        reason = choice.reason()
        tid = create_tournament_of(
            self.store,
            entrants,
            settings,
            # Rated as recorded: pairs played at once never make the ratings be rebuilt.
            extra={LADDER_KEY: {"pair": index, "why": reason}, ORDER_KEY: RECORDED},
        )
        self._count_pair(index, (a.id, b.id), tid)
        self.new_pairs += 1
        log.info("ladder: pair %d, tournament %d: %s", index, tid, reason)
        return _Pair(tid, (a.id, b.id), (a.name, b.name), reason)

    def _count_pair(self, index: int, versions: tuple[int, int], tid: int) -> None:
        self._changed.update(versions)
        self._ladder_tournaments.add(tid)
        self._played.add(frozenset(versions))
        for v in versions:
            self._pairs_of[v] += 1
            self._last_pair[v] = max(self._last_pair.get(v, -1), index)
        self._pair_count = max(self._pair_count, index + 1)

    # -- history, faults, status -------------------------------------------------------------

    def _load_history(self) -> list[_Pair]:
        """Count the ladder pairs already stored; the ones not finished, to resume first."""
        unfinished = []
        cutoff = time.time() - DAY_S
        for t in self.store.list_tournaments():
            mark = t.config.get(LADDER_KEY)
            if not isinstance(mark, dict):
                continue
            bots = t.config["bots"]
            versions = (int(bots[0]["version_id"]), int(bots[1]["version_id"]))
            self._count_pair(int(mark.get("pair", 0)), versions, t.id)
            if t.status is TournamentStatus.RUNNING:
                pending = [
                    g for g in self.store.tournament_games(t.id) if g.status is GameStatus.PENDING
                ]
                if pending:
                    names = (bots[0]["name"], bots[1]["name"])
                    unfinished.append(_Pair(t.id, versions, names, str(mark.get("why", ""))))
            for m in self.store.list_matches(tournament_id=t.id):
                finished = m.finished_at.replace(tzinfo=m.finished_at.tzinfo or UTC)
                if finished.timestamp() >= cutoff and m.termination.value != "aborted":
                    self._finished_at.append(finished.timestamp())
        self._finished_at = deque(sorted(self._finished_at))
        return unfinished

    def _check_faults(self, version_id: int) -> None:
        n = self.settings.pause_after
        recent = [
            m
            for m in self.store.list_matches(
                bot_version_id=version_id, newest_first=True, limit=max(50, 4 * n)
            )
            if m.tournament_id in self._ladder_tournaments and m.termination.value != "aborted"
        ][:n]
        if recent and recent[0].termination is Termination.FORFEIT_NO_START:
            m = recent[0]
            seat = 0 if m.seat_versions[0] == version_id else 1
            if m.faults[seat]:  # it is the one that did not start: paused at once
                self._pause(
                    version_id,
                    m.players[seat],
                    m.detail or "it could not start",
                    kind=NOT_STARTED,
                )
                return
        if len(recent) < n:
            return
        reasons = []
        for m in recent:
            seat = 0 if m.seat_versions[0] == version_id else 1
            if not (m.termination.is_forfeit and m.winner != seat):
                return
            reasons.append(m.detail or m.termination.value)
        name = recent[0].players[0 if recent[0].seat_versions[0] == version_id else 1]
        self._pause(
            version_id,
            name,
            f"forfeited its last {n} ladder matches; the last: {reasons[0]}",
        )

    def _pause(self, version_id: int, name: str, reason: str, *, kind: str = FAULTS) -> None:
        if version_id in self.store.ladder_pauses():
            return
        log.warning("ladder: %s paused: %s", name, reason)
        self.store.pause_ladder_version(
            version_id, reason, datetime.now(UTC).isoformat(timespec="seconds"), kind=kind
        )

    def _update_flags(self) -> None:
        """The collusion flags (``collusion.py``) over every recorded match, for the status."""
        facts = []
        for m in self.store.list_matches():
            if m.termination is Termination.ABORTED:
                continue
            bots = (m.players[0].split("@")[0], m.players[1].split("@")[0])
            by = None
            if m.termination.is_forfeit and m.winner is not None:
                by = 1 - m.winner
            facts.append(MatchFacts(bots, by))
        self._flags = [f.to_dict() for f in collusion_flags(facts)]

    def _cancel(self, pair: _Pair, reason: str) -> None:
        with contextlib.suppress(ArenaError):
            self.store.set_tournament_status(pair.tournament_id, TournamentStatus.CANCELLED)
        for v in pair.versions:
            try:
                info = self.store.get_bot_version(v)
            except ArenaError:
                continue
            if not Path(info.source).is_dir():
                self._pause(v, info.name, f"its files are gone ({info.source})")
        log.info("ladder: tournament %d cancelled: %s", pair.tournament_id, reason)

    def status(self) -> dict[str, Any]:
        """What is being played and why, who takes part, who is paused."""
        with self._lock:
            playing = [
                {"tournament_id": p.tournament_id, "bots": list(p.names), "why": p.reason}
                for p in self._playing.values()
            ]
        pauses = self.store.ladder_pauses()
        paused = []
        for vid, p in sorted(pauses.items()):
            try:
                v = self.store.get_bot_version(vid)
                label = f"{v.name}@{v.version_label}"
            except ArenaError:
                label = f"version {vid}"
            paused.append({"bot": label, "version_id": vid, **p})
        taking_part = self.entrants()
        entrants = [
            {
                "bot": e.name,
                "version_id": e.version_id,
                "mu": round(e.mu, 3),
                "sigma": round(e.sigma, 3),
                "pairs": e.pairs,
                "house": e.house,
            }
            for e in sorted(taking_part, key=lambda e: -e.sigma)
        ]
        return {
            "updated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "per_owner": self.settings.per_owner,
            "anonymous_opponents": not self.settings.reveal_opponents,
            "waiting": list(self._waiting),
            "flags": list(self._flags),
            "pairs_scheduled": self._pair_count,
            "matches_last_24h": len(self._finished_at),
            "daily_budget": self.settings.daily_budget,
            "concurrency": self.settings.concurrency,
            "playing": playing,
            "entrants": entrants,
            "paused": paused,
            "idle_reason": None if playing else self._idle_reason(taking_part, len(paused)),
        }

    def _idle_reason(self, entrants: list[LadderEntrant], paused: int) -> str:
        """Why nothing is being played: what a user reading ``ladder status`` can act on."""
        if self._done_new_pairs():
            n = self.settings.max_pairs
            return f"stopped after {n} new pair{'' if n == 1 else 's'} (--max-pairs)"
        if self._over_budget():
            return (
                f"the daily budget of {self.settings.daily_budget} matches is spent "
                f"({len(self._finished_at)} in the last 24 h); pairs start again as they age out"
            )
        aside = f"; {paused} paused (below)" if paused else ""
        if len(entrants) < 2:
            house = "" if self._house else ", or give the ladder house bots (--ladder-house sample)"
            return (
                f"{len(entrants)} bot{'' if len(entrants) == 1 else 's'} taking part, a pair "
                f"needs two: submit a bot{house}{aside}"
            )
        if all(e.house for e in entrants):
            return (
                "only house bots take part, and house bots do not play each other: the first "
                f"submitted bot is paired with them at once{aside}"
            )
        return "choosing the next pair"

    def _publish(self) -> None:
        try:
            self.store.set_ladder_status(self.status())
        except ArenaError as exc:  # a status that cannot be written stops no match
            log.warning("ladder: status not written: %s", exc)


def ladder_tournament_ids(store: Store) -> list[int]:
    """The tournaments that are ladder pairs, oldest first."""
    return [t.id for t in store.list_tournaments() if isinstance(t.config.get(LADDER_KEY), dict)]


def describe_status(status: dict[str, Any] | None) -> Sequence[str]:
    """``arena ladder status`` as lines of text."""
    if status is None:
        return ["no ladder has run on this database"]
    lines = [
        f"ladder status at {status['updated_at']}: {status['pairs_scheduled']} pairs scheduled, "
        f"{status['matches_last_24h']} matches in the last 24 h"
        + (f" (budget {status['daily_budget']})" if status.get("daily_budget") else ""),
    ]
    if status.get("idle_reason"):
        lines.append(f"nothing scheduled: {status['idle_reason']}")
    if status["playing"]:
        lines.append("playing:")
        lines += [
            f"  tournament {p['tournament_id']}: {p['bots'][0]} vs {p['bots'][1]} — {p['why']}"
            for p in status["playing"]
        ]
    else:
        lines.append("playing: nothing")
    lines.append("taking part (most uncertain first):")
    lines += [
        f"  {e['bot']:<20} mu {e['mu']:7.2f}  sigma {e['sigma']:5.2f}  pairs {e['pairs']}"
        + ("  (house)" if e.get("house") else "")
        for e in status["entrants"]
    ]
    if status.get("waiting"):
        lines.append("waiting (one owner's bots beyond its share):")
        lines += [f"  {w['bot']}: {w['why']}" for w in status["waiting"]]
    if status["paused"]:
        lines.append("paused:")
        lines += [f"  {p['bot']}: {p['reason']} (since {p['at']})" for p in status["paused"]]
    if status.get("flags"):
        lines.append("flagged for the organiser (forfeits concentrated on one opponent):")
        lines += [f"  {f['why']}" for f in status["flags"]]
    return lines
