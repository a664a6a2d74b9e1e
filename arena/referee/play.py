"""Play one match between two bot connections: the referee, sole judge of time and legality.

Per decision the referee builds the request (``arena.referee.wire``, the fast twin of
``arena.protocol.build_request``), makes one gRPC call with the decision's deadline, measures it
on its own monotonic clock, converts the answer and applies it to the engine. Whatever goes
wrong on the bot's side becomes a fault of that seat (``FaultKind``), judged by the match's
``FaultPolicy``; the match always ends in a ``MatchResult`` and the referee itself never raises
because of a bot.

Notices (StartMatch, EndHand, EndMatch) go to seat 0, then seat 1, and are judged by their gRPC
deadline (the move limit): a timeout, an error status or a crash on StartMatch or EndHand is a
fault like any other, but a notice's content is never judged. EndMatch is a courtesy: nothing a
bot does with it can change a result already decided.
"""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from time import perf_counter_ns
from typing import Any, Protocol

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.protocol import (
    RPCS,
    SERVICE_NAME,
    MalformedAnswerError,
    action_from_response,
    end_hand_request,
    end_match_request,
    start_match_request,
)
from arena.referee.clock import ClockConfig, SeatClock
from arena.referee.policy import FaultPolicy
from arena.referee.record import DecisionRecord, FaultKind, MatchResult, Termination
from arena.referee.wire import RequestEncoder
from arena.rules import Match
from arena.rules.cards import card_name
from arena.rules.decisions import Action, Decision
from arena.rules.errors import RulesError
from arena.rules.outcome import HandResult
from arena.rules.outcome import Termination as RulesTermination
from arena.rules.ruleset import RuleSet

__all__ = ["BotConnection", "new_match_id", "play_match", "unplayed_result"]

_BID = Decision.BID
_PLAY = Decision.PLAY
_DEADLINE = grpc.StatusCode.DEADLINE_EXCEEDED
_UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
_CANCELLED = grpc.StatusCode.CANCELLED
_HEALTH_REQUEST = health_pb2.HealthCheckRequest(service="")


class BotConnection(Protocol):
    """What the referee needs of a bot: a name and a gRPC channel to it.

    ``RunningBot`` and remote bots of ``arena.runtime`` are such connections; an ``alive()``
    method, when present, lets the referee tell a dead process from a slow one."""

    @property
    def name(self) -> str: ...

    @property
    def channel(self) -> grpc.Channel: ...


def new_match_id() -> str:
    return uuid.uuid4().hex


class _Fault:
    """A seat's fault on one call: its kind and a readable account."""

    __slots__ = ("detail", "kind")

    def __init__(self, kind: FaultKind, detail: str) -> None:
        self.kind = kind
        self.detail = detail


class _Seat:
    """One seat's connection, clock and fault count for this match."""

    __slots__ = (
        "alive",
        "bot",
        "calls",
        "clock",
        "dead",
        "faults",
        "health",
        "index",
        "label",
        "name",
        "notices",
    )

    def __init__(self, index: int, bot: Any, clock: ClockConfig) -> None:
        self.index = index
        self.bot = bot
        self.name: str = bot.name
        self.label = f"seat {index} ({self.name})"
        self.alive: Callable[[], bool] | None = getattr(bot, "alive", None)
        self.clock = SeatClock(clock)
        self.faults = 0
        self.dead = False
        if not self.is_alive():
            # A bot already dead (and perhaps already stopped, its channel closed: grpc crashes
            # the process when asked for a registered call on a closed channel) is not called.
            self.dead = True
            self.calls = {}
            self.notices = {}
            self.health = None
            return
        channel: grpc.Channel = bot.channel
        # Requests go out serialized (so the clock runs from the call alone) and answers come
        # back as bytes: a body that does not parse is the bot's malformed answer, not a
        # gRPC-internal error.
        self.calls: dict[Decision, tuple[Any, Callable[[bytes], Any], str]] = {
            decision: (
                channel.unary_unary(rpc.path, _registered_method=True),
                rpc.response_type.FromString,
                rpc.name,
            )
            for decision, rpc in RPCS.items()
        }
        self.health = health_pb2_grpc.HealthStub(channel).Check
        self.notices = {
            name: channel.unary_unary(f"/{SERVICE_NAME}/{name}", _registered_method=True)
            for name in ("StartMatch", "EndHand", "EndMatch")
        }

    def is_alive(self) -> bool:
        if self.dead:
            return False
        return True if self.alive is None else bool(self.alive())

    def rpc_fault(self, rpc: str, exc: grpc.RpcError, elapsed_ns: int, limit_ns: int) -> _Fault:
        """Classify a failed call. A dead process or a lost connection is a crash whatever the
        status said; a call cancelled or UNAVAILABLE is one when the bot cannot be reached any
        more (a server shutting down cancels the calls it was serving), and otherwise the
        bot's own status (a handler may answer UNAVAILABLE and go on serving)."""
        code = exc.code() if isinstance(exc, grpc.Call) else None
        details = (exc.details() if isinstance(exc, grpc.Call) else None) or ""
        alive = self.is_alive()
        if alive and (code is _CANCELLED or code is _UNAVAILABLE):
            alive = self.reachable()
        if not alive:
            return self.crash(rpc, code, details)
        if code is _DEADLINE and elapsed_ns >= limit_ns:
            return _Fault(
                FaultKind.TIMEOUT, f"{self.label}: no answer to {rpc} within {_ms(limit_ns)}"
            )
        return _Fault(
            FaultKind.ERROR_STATUS,
            f"{self.label}: {rpc} failed with status {_status_text(code, details)}",
        )

    def crash(self, rpc: str, code: Any, details: str) -> _Fault:
        # A process that closed its socket by dying is reaped a moment later (after the
        # runtime's supervisor has killed what it left behind): wait for that a little, only to
        # say which it was. The match is lost either way; nothing waits on the bot's answer.
        stop_at = perf_counter_ns() + 500_000_000
        alive = self.is_alive()
        while alive and self.alive is not None and perf_counter_ns() < stop_at:
            time.sleep(0.005)
            alive = self.is_alive()
        self.dead = True
        why = "the connection was lost" if alive else self.exited()
        return _Fault(
            FaultKind.CRASH,
            f"{self.label}: {why} during {rpc} ({_status_text(code, details)})"
            f"{self.last_output()}",
        )

    def last_output(self) -> str:
        """``; its last output: …``, the bot's last lines, for a crash's recorded reason (the
        record keeps the whole text; a service shows it to the bot's owner only)."""
        tail = getattr(self.bot, "log_tail", None)
        text = tail(5) if callable(tail) else ""
        if not isinstance(text, str) or not text.strip():
            return ""
        line = " | ".join(text.splitlines())
        return f"; its last output: {line if len(line) <= 400 else '…' + line[-400:]}"

    def exited(self) -> str:
        returncode = getattr(self.bot, "returncode", None)
        return "its process has exited" + (
            f" ({_exit_text(returncode)})" if isinstance(returncode, int) else ""
        )

    def closed(self, rpc: str) -> _Fault | None:
        """The fault of a call refused because the arena closed the channel: the bot's crash
        when its process is gone (a tournament restarting a dead bot closes its old channel),
        None when the arena closed the connection of a living bot."""
        if self.is_alive():
            return None
        self.dead = True
        return _Fault(
            FaultKind.CRASH,
            f"{self.label}: {self.exited()} before {rpc} (its connection is closed)"
            f"{self.last_output()}",
        )

    def reachable(self) -> bool:
        """Whether the bot still answers a health check (a short one: this is a fault path)."""
        try:
            self.health(_HEALTH_REQUEST, timeout=0.25)
        except grpc.RpcError as exc:
            return isinstance(exc, grpc.Call) and exc.code() is not _UNAVAILABLE
        return True


def _closed_by_arena(seat: _Seat) -> str:
    return f"the arena closed its connection to {seat.label} during the match"


def _exit_text(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.0f} ms"


def _status_text(code: Any, details: str) -> str:
    name = code.name if isinstance(code, grpc.StatusCode) else str(code)
    details = details.strip().replace("\n", " ")
    if len(details) > 200:
        details = details[:200] + "..."
    return f"{name}: {details}" if details else name


def _describe_action(decision: Decision, action: Action) -> str:
    if decision is Decision.PLAY:
        return f"played {_card_text(action)}"
    if decision is Decision.BID:
        return f"bid {action}"
    if decision is Decision.DRAW:
        return "kept the card" if action else "rejected the card"
    if decision is Decision.DOUBLE_NIL:
        return "declared Double Nil" if action else "declined Double Nil"
    cards = tuple(action)  # type: ignore[arg-type]
    return f"exchanged {len(cards)} cards ({' '.join(_card_text(c) for c in cards) or 'none'})"


def _card_text(card: object) -> str:
    return card_name(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)


class _Referee:
    """The state of one match being refereed. Used by one thread, from ``play_match`` only."""

    def __init__(
        self,
        bots: tuple[Any, Any],
        seed: int,
        rules: RuleSet,
        clock: ClockConfig,
        policy: FaultPolicy,
        match_id: str,
        stop: threading.Event | None,
        on_hand: Callable[[HandResult], None] | None,
    ) -> None:
        if len(bots) != 2:
            raise ValueError(f"a match needs exactly two bots, got {len(bots)}")
        self.seed = seed
        self.rules = rules
        self.clock = clock
        self.policy = policy
        self.match_id = match_id
        self.stop = stop
        self.on_hand = on_hand
        self.seats = (_Seat(0, bots[0], clock), _Seat(1, bots[1], clock))
        self.match = Match(seed, rules)
        self.decisions: list[DecisionRecord] = []
        self.fault_notes: list[str] = []
        self.started_at = datetime.now(UTC)
        # Substitutes come from their own stream of the match seed: the same faults in the same
        # match give the same substitutes, and the deal is untouched.
        self.rng = random.Random(f"spades-arena/substitute/{seed}")

    # -- the match ------------------------------------------------------------------------

    def run(self) -> MatchResult:
        try:
            ended = None
            for seat in self.seats:
                if seat.dead:
                    fault = _Fault(
                        FaultKind.CRASH,
                        f"{seat.label}: {seat.exited()} before the match began{seat.last_output()}",
                    )
                    ended = self._fault(seat, fault)
                    break
            if ended is None:
                ended = self._notify_start()
            if ended is None:
                ended = self._play()
        except BaseException:
            self._send_end_match(None, Termination.ABORTED, "the referee stopped on an error")
            raise
        winner, termination, detail = ended
        result = self._result(winner, termination, detail)
        self._send_end_match(winner, termination, detail)
        return result

    def _play(self) -> tuple[int | None, Termination, str]:
        """The decision loop, kept lean: it is the referee's hot path."""
        m = self.match
        seats = self.seats
        encode = RequestEncoder(self.match_id, self.rules).encode
        append = self.decisions.append
        stop = self.stop
        while not m.is_over:
            if stop is not None and stop.is_set():
                return None, Termination.ABORTED, "the match was stopped by the arena"
            index = m.to_act
            assert index is not None
            decision = m.decision
            assert decision is not None
            seat = seats[index]
            clock = seat.clock
            legal = m.legal_actions() if decision is _PLAY or decision is _BID else ()
            data = encode(decision, m.observation(index), legal, clock)
            call, parse, rpc = seat.calls[decision]
            limit_ns = clock.move_ns + clock.bank_ns
            t0 = perf_counter_ns()
            try:
                raw = call(data, timeout=limit_ns / 1e9)
            except grpc.RpcError as exc:
                elapsed = perf_counter_ns() - t0
                clock.charge(elapsed)
                fault = seat.rpc_fault(rpc, exc, elapsed, limit_ns)
            except ValueError:  # grpc: "Cannot invoke RPC on closed channel!"
                closed = seat.closed(rpc)
                if closed is None:
                    return None, Termination.ABORTED, _closed_by_arena(seat)
                return self._fault(seat, closed)
            else:
                elapsed = perf_counter_ns() - t0
                if clock.charge(elapsed):
                    try:
                        action = action_from_response(decision, parse(raw))
                        m.apply(action)
                    except RulesError as exc:
                        fault = _Fault(
                            FaultKind.ILLEGAL_ACTION,
                            f"{seat.label}: {_describe_action(decision, action)}: {exc}",
                        )
                    except (MalformedAnswerError, DecodeError) as exc:
                        fault = _Fault(
                            FaultKind.MALFORMED_ANSWER,
                            f"{seat.label}: malformed {rpc} answer: {exc}",
                        )
                    else:
                        append(DecisionRecord(index, decision, action, elapsed // 1000))
                        if decision is _PLAY and m.decision is not _PLAY:
                            ended = self._notify_end_hand()
                            if ended is not None:
                                return ended
                        continue
                else:
                    fault = _Fault(
                        FaultKind.TIMEOUT,
                        f"{seat.label}: answered {rpc} after {_ms(elapsed)}, "
                        f"over its limit of {_ms(limit_ns)}",
                    )
            ended = self._fault(seat, fault)
            if ended is not None:
                return ended
            action = m.random_action(self.rng)
            m.apply(action)
            append(DecisionRecord(index, decision, action, elapsed // 1000, fault.kind))
            if decision is _PLAY and m.decision is not _PLAY:
                ended = self._notify_end_hand()
                if ended is not None:
                    return ended
        outcome = m.outcome
        assert outcome is not None
        termination = (
            Termination.TARGET_REACHED
            if outcome.termination is RulesTermination.TARGET_REACHED
            else Termination.HAND_LIMIT
        )
        return outcome.winner, termination, ""

    def _fault(
        self,
        seat: _Seat,
        fault: _Fault,
        then: str = "a random legal action was played instead",
    ) -> tuple[int | None, Termination, str] | None:
        """Count a fault; the end of the match if it forfeits, None to go on (``then`` says
        how: a substitute for a decision, nothing for a notice)."""
        seat.faults += 1
        if fault.kind is FaultKind.CRASH or self.policy.forfeits(seat.faults):
            detail = fault.detail
            if self.policy.kind == "substitute" and fault.kind is not FaultKind.CRASH:
                detail = f"{detail} (fault {seat.faults} of at most {self.policy.max_faults})"
            return 1 - seat.index, fault.kind.termination, detail
        self.fault_notes.append(f"{fault.detail} (fault {seat.faults}, {then})")
        return None

    # -- notices --------------------------------------------------------------------------

    def _notify(
        self, name: str, requests: tuple[Any, Any], decided: bool = False
    ) -> tuple[int | None, Termination, str] | None:
        """Send a notice to seat 0, then seat 1; judge timeouts, error statuses and crashes.

        One after the other rather than at once: a blocking call costs a round trip, a future
        several (a thread and a rendezvous), and the order settles who faulted first. Once the
        match is ``decided`` (the last hand's EndHand) a fault is counted and told, but cannot
        forfeit a result the cards have already settled."""
        limit_ns = self.clock.move_time_ms * 1_000_000
        timeout = limit_ns / 1e9
        for seat, req in zip(self.seats, requests, strict=True):
            if seat.dead:
                continue  # a seat found dead has no calls to make (see _Seat)
            data = req.SerializeToString()
            t0 = perf_counter_ns()
            fault: _Fault | None = None
            try:
                seat.notices[name](data, timeout=timeout)
            except ValueError:
                fault = seat.closed(name)
                if fault is None:
                    return None, Termination.ABORTED, _closed_by_arena(seat)
            except grpc.RpcError as exc:
                fault = seat.rpc_fault(name, exc, perf_counter_ns() - t0, limit_ns)
            if fault is None:
                continue
            if decided:
                seat.faults += 1
                self.fault_notes.append(
                    f"{fault.detail} (fault {seat.faults}, after the match was decided)"
                )
                continue
            ended = self._fault(seat, fault, "the match went on")
            if ended is not None:
                return ended
        return None

    def _notify_start(self) -> tuple[int | None, Termination, str] | None:
        s0, s1 = self.seats
        return self._notify(
            "StartMatch",
            (
                start_match_request(self.match_id, 0, self.rules, s1.name, self.clock),
                start_match_request(self.match_id, 1, self.rules, s0.name, self.clock),
            ),
        )

    def _notify_end_hand(self) -> tuple[int | None, Termination, str] | None:
        result = self.match.hand_results[-1]
        if self.on_hand is not None:
            self.on_hand(result)
        return self._notify(
            "EndHand",
            (
                end_hand_request(self.match_id, 0, result),
                end_hand_request(self.match_id, 1, result),
            ),
            decided=self.match.is_over,
        )

    def _send_end_match(self, winner: int | None, termination: Termination, detail: str) -> None:
        """Tell the living bots how the match ended; their answers are not judged."""
        m = self.match
        timeout = self.clock.move_time_ms / 1000
        for seat in self.seats:
            if seat.dead:
                continue
            req = end_match_request(
                self.match_id, seat.index, winner, m.scores, len(m.hand_results), termination,
                detail,
            )
            # A courtesy: the result is already decided, whatever the bot answers.
            with contextlib.suppress(grpc.RpcError, ValueError):
                seat.notices["EndMatch"](req.SerializeToString(), timeout=timeout)

    # -- the result -----------------------------------------------------------------------

    def _result(
        self, winner: int | None, termination: Termination, detail: str
    ) -> MatchResult:
        m = self.match
        notes = "; ".join(self.fault_notes)
        if notes:
            detail = f"{detail}; earlier: {notes}" if detail else notes
        s0, s1 = self.seats
        return MatchResult(
            match_id=self.match_id,
            seed=self.seed,
            rules=self.rules,
            engine_version=_engine_version(),
            players=(s0.name, s1.name),
            winner=winner,
            scores=(m.scores[0], m.scores[1]),
            hands_played=len(m.hand_results),
            termination=termination,
            faults=(s0.faults, s1.faults),
            detail=detail,
            decisions=tuple(self.decisions),
            started_at=self.started_at,
            finished_at=datetime.now(UTC),
        )


def _engine_version() -> str:
    from arena.rules import ENGINE_VERSION

    return ENGINE_VERSION


def play_match(
    bots: tuple[BotConnection, BotConnection],
    *,
    seed: int,
    rules: RuleSet = RuleSet(),  # noqa: B008 - frozen value
    clock: ClockConfig = ClockConfig(),  # noqa: B008 - frozen value
    policy: FaultPolicy = FaultPolicy(),  # noqa: B008 - frozen value
    match_id: str | None = None,
    stop: threading.Event | None = None,
    on_hand: Callable[[HandResult], None] | None = None,
) -> MatchResult:
    """Play one match of ``bots[0]`` (seat 0) against ``bots[1]`` (seat 1) from ``seed``.

    Each bot is a ``BotConnection`` (``.name``, ``.channel``, optionally ``.alive()``). Returns
    the result whatever the bots do; raises only for the arena's own errors. ``stop``, when
    set by another thread, ends the match before its next decision as ``ABORTED``;
    ``on_hand`` is called with each hand's result as it is scored (for progress displays).
    Safe to run in many threads at once: a match shares nothing with another."""
    return _Referee(
        bots, seed, rules, clock, policy, match_id or new_match_id(), stop, on_hand
    ).run()


def unplayed_result(
    players: tuple[str, str],
    *,
    seed: int,
    forfeit_seat: int | None,
    detail: str,
    rules: RuleSet = RuleSet(),  # noqa: B008 - frozen value
    match_id: str | None = None,
) -> MatchResult:
    """The result of a match that could not be played (``FORFEIT_NO_START``, no card dealt):
    ``forfeit_seat``'s bot did not start and the other seat wins, or with None, neither bot
    started: no winner, a fault each (the store does not rate it)."""
    now = datetime.now(UTC)
    winner = None if forfeit_seat is None else 1 - forfeit_seat
    faults = (int(forfeit_seat != 1), int(forfeit_seat != 0))
    return MatchResult(
        match_id=match_id or new_match_id(),
        seed=seed,
        rules=rules,
        engine_version=_engine_version(),
        players=players,
        winner=winner,
        scores=(0, 0),
        hands_played=0,
        termination=Termination.FORFEIT_NO_START,
        faults=faults,
        detail=detail,
        decisions=(),
        started_at=now,
        finished_at=now,
    )
