"""A match whose every call to a bot is reported as the referee judged it.

``arena bot check`` needs, per call, what was asked, the time the referee measured and how the
answer was judged. Rather than a second referee, this is the referee itself (``_Referee``, the
same seats, clocks, fault policy and engine as ``play_match``) with its three calls to a bot
(``decide``, ``notice``, ``end_match``) wrapped to tell an ``Observer`` about each. A decision
is told once the referee has judged it, when its next call begins (or the match ends). Two
differences, both on the notices that do not decide anything: the notices are timed (the
referee records only decisions), and EndMatch is sent as the other notices are so that its
outcome can be told (the referee still does not judge it).
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any, Protocol

from arena.referee.answers import ArenaClosed, Fault, Reply
from arena.referee.clock import ClockConfig
from arena.referee.fault_policy import FaultPolicy
from arena.referee.play import _Referee, new_match_id
from arena.referee.record import MatchResult
from arena.referee.session import run
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
    """Play one match as ``play_match`` does (on the referee loop, the caller waiting), telling
    ``observer`` about every call; ``sessions=False`` plays both seats over unary RPCs."""
    referee = _ObservedReferee(
        bots, seed, rules, clock, policy, match_id or new_match_id(), None, None, sessions
    )
    referee.observer = observer
    return run(referee.run())


class _ObservedReferee(_Referee):
    observer: Observer
    _asked: tuple[Any, str, int, bool, bool, int] | None = None
    """The decision asked last, until it is told: (seat, rpc, elapsed ns, answered in time,
    asked on the session, how many decisions were recorded before it)."""

    async def run(self) -> MatchResult:
        try:
            return await super().run()
        finally:
            self._tell_decision()

    def _tell_decision(self) -> None:
        """Tell the decision asked last, now that the referee has judged it."""
        asked = self._asked
        if asked is None:
            return
        self._asked = None
        seat, rpc, elapsed, answered, on_session, before = asked
        # Its record's (seat, decision, action, elapsed_us, fault), once judged; none when the
        # fault forfeited the match.
        decisions = self.decisions
        record = decisions[before] if len(decisions) > before else None
        legal = record is not None and record[4] is None
        self.observer.called(
            Call(
                seat.index, rpc, elapsed, answered, legal,
                on_session and (seat.session is not None or not answered),
                record[2] if legal and record is not None else None,
            )
        )  # fmt: skip

    async def decide(
        self, seat: Any, decision: Any, data: bytes, limit_ns: int
    ) -> tuple[Reply | Fault | ArenaClosed, int]:
        self._tell_decision()
        rpc = seat.rpcs[decision]
        self.observer.asking(seat.index, rpc, self.match)
        on_session = seat.session is not None
        before = len(self.decisions)
        got, elapsed = await seat.decide(decision, data, limit_ns)
        answered = isinstance(got, Reply) and elapsed <= limit_ns
        self._asked = (seat, rpc, elapsed, answered, on_session, before)
        return got, elapsed

    async def notice(
        self, seat: Any, name: str, data: bytes, limit_ns: int
    ) -> Fault | ArenaClosed | None:
        self._tell_decision()
        assert name in _NOTICE_NAMES
        self.observer.asking(seat.index, name, self.match)
        on_session = seat.session is not None
        t0 = perf_counter_ns()
        got = await seat.notice(name, data, limit_ns)
        elapsed = perf_counter_ns() - t0
        ok = got is None
        # A session turned down on its first request was not used (unary instead).
        on_session = on_session and (seat.session is not None or not ok)
        if name == "EndMatch":
            await seat.close_session()
        fault = got.detail if isinstance(got, Fault) else ""
        self.observer.called(Call(seat.index, name, elapsed, ok, ok, on_session, None, fault))
        return got

    async def end_match(self, seat: Any, data: bytes, limit_ns: int) -> None:
        await self.notice(seat, "EndMatch", data, limit_ns)

    # Each notice on its own, one seat after the other, so that its time is its own.

    async def send_notices(
        self, name: str, requests: tuple[bytes, bytes], limit_ns: int
    ) -> list[Fault | ArenaClosed | None]:
        return [
            None if seat.dead else await self.notice(seat, name, data, limit_ns)
            for seat, data in zip(self.seats, requests, strict=True)
        ]

    async def send_end_matches(self, requests: dict[int, bytes], limit_ns: int) -> None:
        for index, data in requests.items():
            await self.end_match(self.seats[index], data, limit_ns)
