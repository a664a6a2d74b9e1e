"""A match whose every call to a bot is reported as the referee judged it.

``arena bot check`` needs, per call, what was asked, the time the referee measured and how the
answer was judged. Rather than a second referee, this drives the referee's own match generator
(``_Referee.match_ops``, the same seats, clocks, fault policy and engine as ``play_match``) with
a driver like ``play._drive`` that also tells an ``Observer`` about each call. Two differences,
both on the notices that do not decide anything: the driver times the notices (the referee
records only decisions), and EndMatch is sent as the other notices are so that its outcome can
be told (the referee still does not judge it).
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any, Protocol

from arena.referee.clock import ClockConfig
from arena.referee.play import _drive, _Fault, _Referee, new_match_id
from arena.referee.policy import FaultPolicy
from arena.referee.record import MatchResult
from arena.referee.session import ARENA_CLOSED, DECIDE, END_MATCH, NOTICE
from arena.rules import Match
from arena.rules.decisions import Action
from arena.rules.ruleset import RuleSet

__all__ = ["Call", "Observer", "play_observed"]


@dataclass(frozen=True, slots=True)
class Call:
    """One call to one seat, as the referee judged it."""

    seat: int
    rpc: str
    """``StartMatch``, ``DecideDoubleNil``, ``Draw``, ``Exchange``, ``Bid``, ``Play``,
    ``EndHand`` or ``EndMatch``."""
    elapsed_ns: int
    """The time the referee measured (for a decision, the time its clock was charged)."""
    answered: bool
    """An answer came within the call's deadline."""
    legal: bool
    """A decision: the referee applied the answer (no fault). A notice: it was answered."""
    session: bool
    """Asked on the seat's PlaySession stream (else by a unary RPC)."""
    action: Action | None = None
    """A legal decision's action (the engine's value: bool, int or a tuple of cards)."""
    fault: str = ""
    """A notice's fault, in the referee's words (a decision's is in the match's result)."""


class Observer(Protocol):
    def asking(self, seat: int, rpc: str, match: Match) -> None:
        """Called before each call, with the match as it stands when the seat is asked."""

    def called(self, call: Call) -> None:
        """Called after each call has been judged."""


_NOTICE_NAMES = {"StartMatch", "EndHand", "EndMatch"}


def play_observed(
    bots: tuple[Any, Any],
    *,
    seed: int,
    observer: Observer,
    rules: RuleSet = RuleSet(),  # noqa: B008 - frozen value
    clock: ClockConfig = ClockConfig(),  # noqa: B008 - frozen value
    policy: FaultPolicy = FaultPolicy(),  # noqa: B008 - frozen value
    match_id: str | None = None,
    sessions: bool = True,
) -> MatchResult:
    """Play one match as ``play_match`` does (blocking calls in this thread), telling
    ``observer`` about every call; ``sessions=False`` plays both seats over unary RPCs."""
    referee = _Referee(
        bots, seed, rules, clock, policy, match_id or new_match_id(), None, None, sessions
    )
    try:
        return _drive_observed(referee, observer)
    except BaseException:
        try:
            _drive(referee.aborted_ops())
        finally:
            referee.cancel_sessions()
        raise
    finally:
        referee.cancel_sessions()


def _drive_observed(referee: _Referee, observer: Observer) -> MatchResult:
    ops = referee.match_ops()
    match = referee.match
    decisions = referee.decisions
    try:
        op = next(ops)
        while True:
            kind = op[0]
            if kind is DECIDE:
                seat, decision, data, limit_ns = op[1], op[2], op[3], op[4]
                rpc = seat.rpcs[decision]
                observer.asking(seat.index, rpc, match)
                on_session = seat.session is not None
                before = len(decisions)
                got, elapsed = seat.decide(decision, data, limit_ns)
                op = ops.send((got, elapsed))
                answered = (
                    type(got) is not _Fault and got is not ARENA_CLOSED and elapsed <= limit_ns
                )
                # The decision's (seat, decision, action, elapsed_us, fault), once judged.
                record = decisions[before] if len(decisions) > before else None
                legal = record is not None and record[4] is None
                observer.called(
                    Call(
                        seat.index, rpc, elapsed, answered, legal,
                        on_session and (seat.session is not None or not answered),
                        record[2] if legal and record is not None else None,
                    )
                )  # fmt: skip
            elif kind is NOTICE or kind is END_MATCH:
                seat = op[1]
                name, data, limit_ns = (
                    (op[2], op[3], op[4]) if kind is NOTICE else ("EndMatch", op[2], op[3])
                )
                assert name in _NOTICE_NAMES
                observer.asking(seat.index, name, match)
                on_session = seat.session is not None
                t0 = perf_counter_ns()
                got = seat.notice(name, data, limit_ns)
                elapsed = perf_counter_ns() - t0
                ok = got is None
                # A session turned down on its first request was not used (unary instead).
                on_session = on_session and (seat.session is not None or not ok)
                if kind is END_MATCH:
                    seat.close_session()
                fault = got.detail if type(got) is _Fault else ""
                # Told before the generator goes on: the last EndMatch ends it.
                observer.called(Call(seat.index, name, elapsed, ok, ok, on_session, None, fault))
                op = ops.send(None if kind is END_MATCH else got)
            else:
                op = ops.send(op[1].open_session())
    except StopIteration as done:
        return done.value
