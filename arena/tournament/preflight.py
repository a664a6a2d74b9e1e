"""A bot author's pre-flight: play a bot through every RPC kind, judged as a tournament judges.

``check_bot`` plays a few short matches of the bot against a scripted opponent (a real gRPC
bot served from this process) through the referee (``arena.referee.observed``: the referee's
own match, clocks, fault policy and engine), on both seats, over its PlaySession stream when
it serves one and over the unary RPCs. The deals are searched from the check's seed so that the
bot gets a weak hand (where Nil is worth a thought) and a strong one; the opponent leads the
suits the bot is void in (so it must answer a lead it cannot follow, R-4.3) and declares Double
Nil in one hand (so the bot meets a declared opponent and its exchange, R-3.3, R-3.4). Whether
the bot itself declares Double Nil, keeps or rejects, bids Nil, is its own choice: the report
counts what it did, and an RPC it was never asked (Exchange, when it never declares) is shown
as not exercised, not as a failure.

The first fault ends the check (a tournament's default policy, ``forfeit``): the verdict is
``FAIL:`` with the referee's own account of it.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.referee import ClockConfig, FaultPolicy, MatchResult, Termination
from arena.referee.observed import Call, play_observed
from arena.referee.session import serves_session
from arena.rules import Match
from arena.rules.cards import NUM_CARDS
from arena.rules.match import stock_order
from arena.rules.ruleset import RuleSet
from arena.sdk import Bot, View
from arena.sdk import start as start_sdk_server

__all__ = [
    "RPC_ORDER",
    "CheckReport",
    "RpcTally",
    "ScriptError",
    "check_bot",
    "scripted_opponent",
    "start_for_check",
]

RPC_ORDER = (
    "StartMatch", "DecideDoubleNil", "Draw", "Exchange", "Bid", "Play", "EndHand", "EndMatch",
)  # fmt: skip
SESSION_ROW = "PlaySession"
OPPONENT_NAME = "scripted"
DEFAULT_HANDS = 3
"""Hands per check match (``max_hands``): enough for both roles and the scripted Double Nil."""
OPPONENT_DOUBLE_NIL_HAND = 2
"""The hand of each match in which the scripted opponent declares Double Nil."""
_SEARCH = 64
"""Seeds tried per match when looking for a weak or a strong hand."""


@dataclass
class RpcTally:
    """One row of the report: an RPC kind (or the PlaySession stream)."""

    asked: int = 0
    answered: int = 0
    legal: int = 0
    times_ns: list[int] = field(default_factory=list)
    situations: dict[str, int] = field(default_factory=dict)

    def note(self, situation: str, n: int = 1) -> None:
        self.situations[situation] = self.situations.get(situation, 0) + n

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times_ns) / 1e6 if self.times_ns else None

    @property
    def max_ms(self) -> float | None:
        return max(self.times_ns) / 1e6 if self.times_ns else None


@dataclass
class CheckReport:
    """What ``check_bot`` found; ``passed`` and ``reason`` make the verdict line."""

    bot: str
    clock: ClockConfig
    rules: RuleSet
    seed: int
    sandbox: bool | None = None
    """Whether the bot ran in the sandbox; None for a bot the arena did not start."""
    rows: dict[str, RpcTally] = field(default_factory=lambda: {r: RpcTally() for r in RPC_ORDER})
    session: RpcTally | None = None
    """The calls made on the PlaySession stream; None when the bot does not serve it."""
    matches: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    passed: bool = True
    reason: str = ""

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else f"FAIL: {self.reason}"

    def not_exercised(self) -> dict[str, str]:
        """The RPC kinds never asked, each with why."""
        out = {}
        for rpc, row in self.rows.items():
            if row.asked:
                continue
            if rpc in ("DecideDoubleNil", "Exchange") and not self.rules.double_nil_allowed:
                out[rpc] = "the rules say double_nil_allowed = false, so it is never asked (R-3.3)"
            elif rpc == "Exchange" and not self.rows["DecideDoubleNil"].situations.get("declared"):
                out[rpc] = "the bot never declared Double Nil, so Exchange was not asked"
            elif not self.passed:
                out[rpc] = "the check stopped at the failure before it was asked"
            else:
                out[rpc] = "never asked"
        return out

    def to_dict(self) -> dict[str, Any]:
        def row(t: RpcTally) -> dict[str, Any]:
            return {
                "asked": t.asked,
                "answered": t.answered,
                "legal": t.legal,
                "median_ms": t.median_ms,
                "max_ms": t.max_ms,
                "situations": dict(t.situations),
            }

        return {
            "bot": self.bot,
            "verdict": self.verdict,
            "passed": self.passed,
            "reason": self.reason,
            "seed": self.seed,
            "sandbox": self.sandbox,
            "clock": {
                "move_time_ms": self.clock.move_time_ms,
                "time_bank_ms": self.clock.time_bank_ms,
            },
            "rules": self.rules.to_dict(),
            "rpcs": {name: row(t) for name, t in self.rows.items()},
            "play_session": None if self.session is None else row(self.session),
            "not_exercised": self.not_exercised(),
            "matches": self.matches,
            "notes": self.notes,
        }


def start_for_check(
    directory: Path, *, seed: int, sandbox: str | None, startup_timeout: float | None
) -> Any:
    """Start the bot in ``directory`` as a tournament's ``BotPool`` starts an entrant: its
    manifest, ``ARENA_BOT_SEED`` set (unless the manifest sets it), the sandbox mode, its own
    start-up timeout unless one is given. Raises ``BotStartError`` (with its last output)."""
    from arena.runtime import load_manifest, start_bot
    from arena.tournament.workers import with_bot_seed

    kwargs: dict[str, Any] = {"sandbox": sandbox}
    if startup_timeout is not None:
        kwargs["startup_timeout"] = startup_timeout
    return start_bot(with_bot_seed(load_manifest(directory), seed), **kwargs)


# -- the scripted opponent -------------------------------------------------------------------


class ScriptError(ArenaError):
    """The scripted opponent itself failed: the check says nothing about the bot then."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"the check's scripted opponent failed ({detail}); is the machine overloaded, or "
            "--move-timeout too small for it? The bot was not judged"
        )


class _Script(Bot):
    """The opponent: simple, legal, and steering the bot into the situations to check.

    It knows the bot's hand (``table``, the referee's match, read while the referee waits for
    this answer): a script, not a player, so it may look."""

    name = OPPONENT_NAME

    def __init__(self) -> None:
        self.table: Match | None = None
        self.bot_seat = 0

    def decide_double_nil(self, view: View) -> bool:
        return view.hand_number == OPPONENT_DOUBLE_NIL_HAND

    def draw(self, view: View) -> bool:
        assert view.looking_at is not None
        # Low cards when it has declared Double Nil, else what comes.
        return not view.seats[view.seat].double_nil or view.looking_at % 13 < 7

    def exchange(self, view: View) -> Iterable[int]:
        return sorted(view.hand, key=lambda c: c % 13)[-min(2, view.max_cards) :]

    def bid(self, view: View) -> int:
        return 3 if 3 in view.legal_bids else view.legal_bids[0]

    def play(self, view: View) -> int:
        legal = sorted(view.legal_cards, key=lambda c: c % 13)
        current = view.current_trick
        following = current is not None and current.winner is None
        if view.seats[view.seat].double_nil:
            if not following:
                return legal[0]
            assert current is not None
            led = current.cards[0]
            losing = [c for c in legal if not _beats(c, led)]
            return losing[-1] if losing else legal[0]  # its best try at no trick
        if following:
            return legal[0]  # follow low: the bot wins tricks, and leads them
        table = self.table
        if table is not None:
            bot_suits = {c // 13 for c in table.hand(self.bot_seat)}
            void = [c for c in legal if c // 13 not in bot_suits]
            if void:
                return void[0]  # a lead the bot cannot follow
        by_suit: dict[int, list[int]] = {}
        for c in legal:
            by_suit.setdefault(c // 13, []).append(c)
        return max(by_suit.values(), key=len)[0]


def _beats(card: int, led: int) -> bool:
    """Whether ``card`` played to ``led`` wins the trick (R-4.6)."""
    if card // 13 == led // 13:
        return card % 13 > led % 13
    return card // 13 == 3


@contextmanager
def scripted_opponent() -> Iterator[tuple[_Script, Any]]:
    """The scripted opponent served over gRPC on a Unix socket: (its script, a connection)."""
    from arena.runtime import RemoteBot

    script = _Script()
    with tempfile.TemporaryDirectory(prefix="arena-check-") as folder:
        target = f"unix:{Path(folder) / 'opponent.sock'}"
        server = start_sdk_server(script, target, max_workers=4)
        try:
            bot = RemoteBot(OPPONENT_NAME, target)
            try:
                if not bot.serving(timeout=5.0):
                    raise ScriptError("the scripted opponent did not start")
                yield script, bot
            finally:
                bot.stop()
        finally:
            server.stop(0)


# -- deals -----------------------------------------------------------------------------------


def _strength(seed: int, bot_seat: int) -> int:
    """High cards (queen up, or any spade) among the cards the bot can end up with in hand 1:
    one of each of its draw turns' two cards (R-2.1; seat 0 draws first in hand 1)."""
    stock = stock_order(seed, 1)
    first = 0 if bot_seat == 0 else 2
    seen = [stock[p] for t in range(first, NUM_CARDS, 4) for p in (t, t + 1)]
    return sum(1 for c in seen if c // 13 == 3 or c % 13 >= 10)


def _deal(rng: random.Random, bot_seat: int, strong: bool) -> int:
    """A seed whose first hand is as strong (or as weak) as ``_SEARCH`` tries find."""
    seeds = [rng.randrange(2**31) for _ in range(_SEARCH)]
    pick = max if strong else min
    return pick(seeds, key=lambda s: _strength(s, bot_seat))


# -- the check -------------------------------------------------------------------------------


class _Tally:
    """The observer: counts each call of the bot's seat into the report."""

    def __init__(self, report: CheckReport, bot_seat: int, script: _Script) -> None:
        self.report = report
        self.bot_seat = bot_seat
        self.script = script
        self.situation: str | None = None
        self.on_stream = 0
        """The bot's calls made on its PlaySession stream in this match."""

    def asking(self, seat: int, rpc: str, match: Match) -> None:
        self.script.table = match
        self.situation = None
        if seat != self.bot_seat:
            return
        if rpc == "Play":
            obs = match.observation(seat)
            trick = obs.tricks[-1] if obs.tricks else None
            if trick is None or trick.winner is not None:
                self.situation = "led"
            else:
                led = trick.cards[0] // 13
                self.situation = (
                    "followed" if any(c // 13 == led for c in obs.hand) else "void in the suit led"
                )
        elif rpc == "Bid":
            obs = match.observation(seat)
            other = obs.seats[1 - seat]
            if other.double_nil:
                self.situation = "opponent in Double Nil"
            elif other.bid is not None:
                self.situation = "after the opponent's bid"
            else:
                self.situation = "first to bid"

    def called(self, call: Call) -> None:
        if call.seat != self.bot_seat:
            if not call.legal and call.rpc != "EndMatch":
                raise ScriptError(f"{call.rpc}: {call.fault or 'no legal answer in time'}")
            return
        report = self.report
        self.on_stream += call.session
        for row in (report.rows[call.rpc], report.session if call.session else None):
            if row is None:
                continue
            row.asked += 1
            row.answered += call.answered
            row.legal += call.legal
            if call.answered:
                row.times_ns.append(call.elapsed_ns)
        row = report.rows[call.rpc]
        if self.situation is not None:
            row.note(self.situation)
        if call.legal and call.action is not None:
            what = _answer_kind(call.rpc, call.action)
            if what:
                row.note(what)
        if call.fault and call.rpc == "EndMatch":
            report.notes.append(f"{call.fault} (a tournament does not judge EndMatch)")


def _answer_kind(rpc: str, action: Any) -> str:
    if rpc == "DecideDoubleNil":
        return "declared" if action else "declined"
    if rpc == "Draw":
        return "kept" if action else "rejected"
    if rpc == "Bid":
        return "Nil" if action == 0 else "non-Nil"
    if rpc == "Exchange":
        n = len(tuple(action))
        return f"{n} card{'s' if n != 1 else ''} put aside"
    return ""


def check_bot(
    bot: Any,
    *,
    seed: int,
    clock: ClockConfig = ClockConfig(),  # noqa: B008 - frozen value
    rules: RuleSet = RuleSet(),  # noqa: B008 - frozen value
    hands: int = DEFAULT_HANDS,
    matches: int = 4,
) -> CheckReport:
    """Check ``bot`` (a started bot or a remote connection: ``.name``, ``.channel``).

    Plays ``matches`` matches of at most ``hands`` hands each (the bot in seat 0, then 1, and
    so on; over its stream in the first half and the unary RPCs in the rest when it serves
    PlaySession), each on a deal searched from ``seed``; stops at the first fault."""
    rules = replace(rules, max_hands=min(rules.max_hands, hands))
    sandboxed = getattr(bot, "sandboxed", None)
    report = CheckReport(
        bot.name, clock, rules, seed, sandbox=None if sandboxed is None else bool(sandboxed)
    )
    served = _serves_session(bot)
    if served:
        report.session = RpcTally()
    rng = random.Random(f"spades-arena/bot-check/{seed}")
    with scripted_opponent() as (script, opponent):
        for i in range(matches):
            bot_seat = i % 2
            strong = (i // 2) % 2 == 1
            deal = _deal(rng, bot_seat, strong)
            sessions = served and i < (matches + 1) // 2
            script.bot_seat = bot_seat
            seats = (bot, opponent) if bot_seat == 0 else (opponent, bot)
            tally = _Tally(report, bot_seat, script)
            result = play_observed(
                seats, seed=deal, observer=tally, rules=rules,
                clock=clock, policy=FaultPolicy("forfeit"), match_id=_match_id(seed, i),
                sessions=sessions,
            )  # fmt: skip
            transport = "PlaySession" if tally.on_stream else "unary"
            if sessions and not tally.on_stream:
                transport = "unary (the bot turned its PlaySession down)"
            report.matches.append(_match_summary(result, bot_seat, transport, strong))
            failure = _failure(result, bot_seat)
            if failure:
                report.passed = False
                report.reason = failure
                break
    alive = getattr(bot, "alive", None)
    if report.passed and callable(alive) and not alive():
        how = getattr(bot, "exit_description", None)
        report.passed = False
        if getattr(bot, "pid", None) is None:  # not ours: we only see its health check
            report.reason = f"{bot.name}: stopped answering its health check after EndMatch"
        else:
            report.reason = (
                f"{bot.name}: its process has exited{f' ({how})' if how else ''} after the "
                "last EndMatch"
            )
    if report.passed:
        for rpc in ("DecideDoubleNil", "Draw", "Exchange", "Bid", "Play"):
            row = report.rows[rpc]
            missing = _missing(rpc, row)
            if missing and row.asked:
                report.notes.append(f"{rpc}: {missing}")
    return report


def _match_id(seed: int, i: int) -> str:
    """The id the bot sees, from the check's seed: a bot that seeds its choices by the match id
    (the sample bots with ARENA_BOT_SEED) plays the same check again for the same seed."""
    return hashlib.sha256(f"spades-arena/bot-check/{seed}/{i}".encode()).hexdigest()[:32]


def _serves_session(bot: Any) -> bool:
    alive = getattr(bot, "alive", None)
    if callable(alive) and not alive():
        return False
    try:
        return serves_session(bot.channel)
    except ValueError:
        return False


def _missing(rpc: str, row: RpcTally) -> str:
    """What a decision row never showed (the bot's own choice, said, not failed)."""
    wanted = {
        "DecideDoubleNil": ("declared", "declined"),
        "Draw": ("kept", "rejected"),
        "Bid": ("Nil", "non-Nil"),
        "Play": ("led", "followed", "void in the suit led"),
    }.get(rpc, ())
    gone = [w for w in wanted if not row.situations.get(w)]
    return f"never {', '.join(gone)} in this check" if gone else ""


def _failure(result: MatchResult, bot_seat: int) -> str:
    """The bot's fault that ended the match, in the referee's words; '' when it played on."""
    if result.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT):
        return ""
    if result.termination is Termination.ABORTED:
        return result.detail or "the match was aborted"
    if result.winner == bot_seat:
        raise ScriptError(result.detail)
    return result.detail


def _match_summary(
    result: MatchResult, bot_seat: int, transport: str, strong: bool
) -> dict[str, Any]:
    return {
        "match_id": result.match_id,
        "seed": result.seed,
        "bot_seat": bot_seat,
        "transport": transport,
        "deal": "strong first hand" if strong else "weak first hand",
        "hands": result.hands_played,
        "termination": result.termination.value,
        "scores": list(result.scores),
    }
