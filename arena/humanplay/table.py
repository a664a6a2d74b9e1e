"""One match of a person against a bot, played by the referee in a thread of this process.

The opponent is a real bot process, shared with other tables (``arena.humanplay.pool``); the
person's seat is a ``HumanSeat``. The referee plays them exactly as two bots, and the result is
recorded in the store like any match (replayable). A signed-in person plays as their own player
(``human:<account>``, kind ``human``) and may opt in to a rated match; an anonymous visitor
plays as ``guest:<name>``, never rated.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.humanplay.pool import OPPONENT_LANE, BotPool, twin_lanes
from arena.humanplay.seat import HumanSeat
from arena.referee import ClockConfig, FaultPolicy, MatchResult, new_match_id, play_match
from arena.referee.play import unplayed_result
from arena.rules.outcome import HandResult
from arena.rules.ruleset import RuleSet
from arena.runtime import BotStartError, ManifestError
from arena.store import Store
from arena.store.bots import GUEST_PREFIX

__all__ = ["RULE_SETS", "Opponent", "Table", "TableError", "Tables"]

RULE_SETS: dict[str, tuple[str, RuleSet]] = {
    "one-hand": ("One hand", RuleSet(max_hands=1)),
    "three-hands": ("Three hands", RuleSet(max_hands=3)),
    "to-200": ("First to 200", RuleSet(target_score=200)),
    "full": ("Full match, first to 500", RuleSet()),
}
"""The rule sets a person may choose (R-6.1, R-6.3: a shorter target or a hand limit)."""


@dataclass(frozen=True)
class Opponent:
    """A bot a person may play: its folder, and its stored version when it is one (a member's
    own bot); the sample bots are registered from their folder."""

    name: str
    directory: Path
    version_id: int | None = None
    content_hash: str | None = None
    """The stored version's: its folder must still hold exactly these files."""


class TableError(Exception):
    """A table that cannot be opened: a one-line reason the person can act on."""


@dataclass
class Table:
    """A person's match: its seat, its opponent and, once recorded, its match id."""

    table_id: str
    person: str
    """The player's name in the store: ``human:<account>`` or ``guest:<name>``."""
    opponent_dir: Path
    rules_key: str
    move_time_s: int
    person_seat: int
    seed: int
    bank_s: int = 0
    """The person's time bank for the match, beyond each decision's ``move_time_s``."""
    seat: HumanSeat = field(init=False)
    match_id: str = field(default_factory=new_match_id)
    result: MatchResult | None = None
    error: str | None = None
    finished_at: float | None = None
    """``time.monotonic()`` when the match ended (recorded or not)."""
    stop_event: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    reference_dir: Path | None = None
    """Beat the bot: this bot plays the same deal seed in the person's seat against the same
    opponent (both bots seeded alike), and the page compares the hands."""
    reference_hands: list[HandResult] = field(default_factory=list)
    reference_match_id: str | None = None
    reference_error: str | None = None
    person_done: threading.Event = field(default_factory=threading.Event)
    """Set when the person's match is over: the reference match, which shows the same deal, is
    recorded (and so shown anywhere) only then (``arena.visibility``: a deal still to be played
    is sealed)."""
    person_version_id: int | None = None
    """A signed-in person's player version; None for an anonymous visitor (a guest)."""
    opponent_version_id: int | None = None
    """The opponent's stored version when it is one (a member's own bot)."""
    rated: bool = False
    """The person opted in: the match is rated unless the fair-play rules say otherwise."""
    opponent_name: str = ""
    """How the page names the opponent (an offered bot's name, or ``name@version``)."""

    def __post_init__(self) -> None:
        self.seat = HumanSeat(self.person)

    @property
    def rules(self) -> RuleSet:
        return RULE_SETS[self.rules_key][1]

    def state(self) -> dict[str, Any]:
        state = self.seat.state()
        state.update(
            table=self.table_id, match_id=self.match_id, person_seat=self.person_seat,
            move_time_s=self.move_time_s, bank_s=self.bank_s,
            rules=RULE_SETS[self.rules_key][0],
            recorded=self.result is not None, error=self.error, reference=self.reference(),
            rated=self.rated, player=self.person,
        )  # fmt: skip
        return state

    def reference(self) -> dict[str, Any] | None:
        """The reference bot's hands on the same deal, in the person's seat: its points a hand
        beside the person's (only hands both played; a later hand is shown when it is done)."""
        if self.reference_dir is None:
            return None
        me = self.person_seat
        done = len(self.seat.hands)
        hands = [
            {"hand": h.hand_number, "points": h.points[me], "bid": h.bids[me],
             "double_nil": h.double_nil[me], "tricks_won": h.tricks_won[me]}
            for h in self.reference_hands[:done]
        ]  # fmt: skip
        return {
            "bot": self.reference_dir.name, "hands": hands, "match_id": self.reference_match_id,
            "error": self.reference_error,
        }  # fmt: skip

    def _opponent_version(self, store: Store, pool: BotPool, directory: Path) -> int:
        if directory == self.opponent_dir and self.opponent_version_id is not None:
            return self.opponent_version_id
        manifest, content_hash = pool.manifest(directory)
        return store.register_bot_version(
            manifest.name, manifest.version or "local", content_hash, str(manifest.directory)
        ).id

    def run(self, store: Store, pool: BotPool) -> None:
        """Play and record the match (in the calling thread)."""
        seat = self.seat
        manifest, _ = pool.manifest(self.opponent_dir)
        bot = None
        reference = None
        if self.reference_dir is not None:
            reference = threading.Thread(
                target=self._play_reference, args=(store, pool), daemon=True,
                name=f"reference-{self.table_id[:6]}",
            )  # fmt: skip
            reference.start()
        try:
            try:
                bot = pool.lease(self.opponent_dir, OPPONENT_LANE, cancel=self.stop_event)
            except BotStartError as exc:
                bot = None
                players = [seat.name, manifest.name]
                if self.person_seat == 1:
                    players.reverse()
                result = unplayed_result(
                    (players[0], players[1]), seed=self.seed, forfeit_seat=1 - self.person_seat,
                    detail=f"the opponent could not start: {exc}", rules=self.rules,
                    match_id=self.match_id,
                )  # fmt: skip
            else:
                bots: list[Any] = [seat, bot]
                if self.person_seat == 1:
                    bots.reverse()
                result = play_match(
                    (bots[0], bots[1]), seed=self.seed, rules=self.rules,
                    clock=ClockConfig(
                        move_time_ms=self.move_time_s * 1000, time_bank_ms=self.bank_s * 1000
                    ),
                    policy=FaultPolicy(), match_id=self.match_id, stop=self.stop_event,
                )  # fmt: skip
            person = self.person_version_id
            if person is None:
                person = store.register_guest(self.person.removeprefix(GUEST_PREFIX)).id
            versions = [person, self._opponent_version(store, pool, self.opponent_dir)]
            if self.person_seat == 1:
                versions.reverse()
            # Rated only by a signed-in person's choice, a guest's never; the store's fair-play
            # rules still apply (arena.store.rated: against their own bot it is same_owner).
            rate = self.rated and self.person_version_id is not None
            store.record_match(result, seat_versions=(versions[0], versions[1]), rate=rate)
            self.result = result
        except Exception as exc:  # the arena's own failure: shown on the page, not hidden
            self.error = f"the match could not be played or recorded: {exc}"
            raise
        finally:
            if bot is not None:
                bot.release()
            end: dict[str, Any] = {
                "winner": None, "scores": [0, 0], "termination": "error", "detail": "",
            }  # fmt: skip
            if self.result is not None:
                r = self.result
                end = {
                    "winner": r.winner, "scores": list(r.scores), "hands_played": r.hands_played,
                    "termination": r.termination.value, "detail": r.detail,
                }  # fmt: skip
            self.finished_at = time.monotonic()
            self.person_done.set()
            seat.finish(end)
            seat.touch()  # ``recorded`` or ``error`` changed
            seat.stop()
            if reference is not None:
                reference.join(timeout=60)

    def _play_reference(self, store: Store, pool: BotPool) -> None:
        """The reference match: the reference bot in the person's seat, the same seed, rules
        and opponent, recorded unrated beside the person's. Its processes are on other lanes
        than the person's opponent (``arena.humanplay.pool``): no process plays this deal twice."""
        assert self.reference_dir is not None
        started: list[Any] = []
        try:
            lanes = twin_lanes(self.reference_dir, self.opponent_dir)
            for directory, lane in zip((self.reference_dir, self.opponent_dir), lanes, strict=True):
                started.append(pool.lease(directory, lane, cancel=self.stop_event))
            bots: list[Any] = list(started)
            if self.person_seat == 1:
                bots.reverse()

            def on_hand(h: HandResult) -> None:
                self.reference_hands.append(h)
                self.seat.touch()

            result = play_match(
                (bots[0], bots[1]), seed=self.seed, rules=self.rules,
                clock=ClockConfig(move_time_ms=5000), policy=FaultPolicy(),
                stop=self.stop_event, on_hand=on_hand,
            )  # fmt: skip
            # Its record shows the person's deal whole: kept back until the person is done.
            self.person_done.wait()
            versions = [
                self._opponent_version(store, pool, d)
                for d in (self.reference_dir, self.opponent_dir)
            ]
            if self.person_seat == 1:
                versions.reverse()
            store.record_match(result, seat_versions=(versions[0], versions[1]), rate=False)
            self.reference_match_id = result.match_id
        except Exception as exc:  # shown on the page; the person's match goes on regardless
            self.reference_error = f"the reference match could not be played: {exc}"
        finally:
            for b in started:
                b.release()
            self.seat.touch()


class Tables:
    """The person tables of one web server: opened, looked up by id, stopped at shutdown."""

    def __init__(
        self,
        store: Store,
        opponents: dict[str, Path],
        *,
        max_tables: int = 50,
        sandbox: str | None = None,
        keep_s: float = 3600.0,
        reference: Path | None = None,
        matches_per_process: int = 64,
    ) -> None:
        self.store = store
        self.opponents = opponents
        self.max_tables = max_tables
        self.sandbox = sandbox
        self.keep_s = keep_s
        """A finished table's page is served this long after the end (then a 404)."""
        self.reference = reference
        """The bot that plays a person's deals for "beat the bot" (the expert by default)."""
        self.pool = BotPool(sandbox=sandbox, matches_per_process=matches_per_process)
        """The opponents' processes, shared by the tables (``arena.humanplay.pool``)."""
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()

    def open(
        self,
        person: str,
        opponent: str | Opponent,
        rules_key: str,
        move_time_s: int,
        person_seat: int,
        *,
        compare: bool = False,
        bank_s: int = 0,
        person_version_id: int | None = None,
        rated: bool = False,
    ) -> Table:
        """Open a table and start its match; ``TableError`` for a choice that is not offered.
        With ``compare``, the reference bot plays the same deal in the person's seat.
        ``person`` is a signed-in person's player name with their ``person_version_id``, or
        the name an anonymous visitor typed (played as ``guest:<name>``, never rated).
        ``opponent`` is the name of an offered bot, or an ``Opponent`` the caller checked (a
        member's own bot)."""
        if person_version_id is None:
            person = person.strip() or "guest"
            if len(person) > 40 or "@" in person or not person.isprintable():
                raise TableError("a name is 1-40 printable characters, no '@'")
            person = GUEST_PREFIX + person
            if rated:
                raise TableError("only a signed-in person plays rated: sign in, or play unrated")
        if isinstance(opponent, Opponent):
            chosen = opponent
        elif opponent in self.opponents:
            chosen = Opponent(opponent, self.opponents[opponent])
        else:
            raise TableError(f"unknown opponent {opponent!r}; offered: {', '.join(self.opponents)}")
        if rules_key not in RULE_SETS:
            raise TableError(f"unknown rule set {rules_key!r}; offered: {', '.join(RULE_SETS)}")
        if not 5 <= move_time_s <= 600:
            raise TableError("the clock is 5 to 600 seconds a decision")
        if not 0 <= bank_s <= 3600:
            raise TableError("the time bank is 0 to 3600 seconds")
        if person_seat not in (0, 1):
            raise TableError("the seat is 0 or 1")
        if compare and self.reference is None:
            raise TableError("no reference bot is configured to compare with")
        try:
            _, content_hash = self.pool.manifest(chosen.directory)
        except ManifestError as exc:
            raise TableError(f"opponent {chosen.name}: {exc}") from None
        if chosen.content_hash is not None and content_hash != chosen.content_hash:
            raise TableError(
                f"opponent {chosen.name}: the files in its folder are not the version it was "
                "registered with (changed since); submit it again"
            )
        with self._lock:
            now = time.monotonic()
            for key in [
                k for k, t in self._tables.items()
                if t.finished_at is not None and now - t.finished_at > self.keep_s
            ]:  # fmt: skip
                del self._tables[key]
            live = sum(1 for t in self._tables.values() if t.finished_at is None)
            if live >= self.max_tables:
                raise TableError(f"all {self.max_tables} tables are busy: try again in a while")
            table = Table(
                table_id=secrets.token_urlsafe(16), person=person,
                opponent_dir=chosen.directory, rules_key=rules_key,
                move_time_s=move_time_s, person_seat=person_seat,
                seed=secrets.randbelow(2**31),
                reference_dir=self.reference if compare else None, bank_s=bank_s,
                person_version_id=person_version_id, opponent_version_id=chosen.version_id,
                rated=rated, opponent_name=chosen.name,
            )  # fmt: skip
            self._tables[table.table_id] = table
        table.thread = threading.Thread(
            target=self._run, args=(table,), name=f"table-{table.table_id[:6]}", daemon=True
        )
        table.thread.start()
        return table

    def _run(self, table: Table) -> None:
        # A failure of the arena's own is on the table (``error``), shown by its page.
        with contextlib.suppress(Exception):
            table.run(self.store, self.pool)

    def get(self, table_id: str) -> Table | None:
        with self._lock:
            return self._tables.get(table_id)

    def close(self, wait_s: float = 10.0) -> None:
        """Stop every match at its next decision (``ABORTED``, recorded) and wait up to
        ``wait_s`` in all for them. A match waiting on a person's answer stops only when the
        answer comes or its clock runs out: one still waiting then is not recorded (its bot
        process dies with the server)."""
        with self._lock:
            tables = list(self._tables.values())
        for t in tables:
            t.stop_event.set()
        deadline = time.monotonic() + wait_s
        for t in tables:
            if t.thread is not None:
                t.thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self.pool.close()
