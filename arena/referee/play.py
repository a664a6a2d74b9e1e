"""Play one match between two bot connections: the referee, sole judge of time and legality.

Per decision the referee builds the request (``arena.referee.wire``, the fast twin of
``arena.bot_protocol.messages.build_request``), makes one gRPC call with the decision's deadline,
measures it on its own monotonic clock, converts the answer and applies it to the engine. Whatever
goes wrong on the bot's side becomes a fault of that seat (``FaultKind``), judged by the match's
``FaultPolicy``; the match always ends in a ``MatchResult`` and the referee itself never raises
because of a bot.

Notices (StartMatch, EndHand, EndMatch) go to both seats at once and are judged seat 0's
first, by their deadline (the move limit): a timeout, an error status or a crash on StartMatch
or EndHand is a fault like any other, but a notice's content is never judged. EndMatch is a
courtesy: nothing a bot does with it can change a result already decided.
"""

from __future__ import annotations

import asyncio
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

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol.messages import (
    RPCS,
    SERVICE_NAME,
    MalformedAnswerError,
    action_from_response,
    end_match_request,
    start_match_request,
)
from arena.referee.answers import (
    ARENA_CLOSED,
    FALLBACK,
    ArenaClosed,
    Ending,
    Fallback,
    Fault,
    Reply,
    SeatAnswer,
)
from arena.referee.clock import ClockConfig, SeatClock
from arena.referee.fault_policy import FaultPolicy
from arena.referee.record import DecisionRecord, FaultKind, MatchResult, Termination
from arena.referee.session import (
    FALLBACK_CODES,
    SessionBroken,
    in_thread,
    open_session,
    run,
    serves_session,
)
from arena.referee.wire import RequestEncoder, end_hand_requests
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
_UNIMPLEMENTED = grpc.StatusCode.UNIMPLEMENTED
_SESSION_RESPONSE = pb.PlaySessionResponse
_HEALTH_REQUEST = health_pb2.HealthCheckRequest(service="")


class BotConnection(Protocol):
    """What the referee needs of a bot: a name and a gRPC channel to it.

    ``RunningBot`` and remote bots of ``arena.runtime`` are such connections; an ``alive()``
    method, when present, lets the referee tell a dead process from a slow one, and a
    ``target`` (the channel's address), when present, is where the referee opens the seat's
    ``PlaySession`` on its loop (a connection without one is played over unary calls).

    A seat served in this process (a person's, ``arena.humanplay``) has a ``local_session()``
    instead of a channel: the referee asks it on its loop through what it returns, an object
    with ``Session``'s ``ask``, ``close`` and ``cancel`` (``arena.referee.session``) that never
    raises ``SessionBroken``. The requests, the clock and the judgement are a bot's session's:
    only the transport is gone."""

    @property
    def name(self) -> str: ...

    @property
    def channel(self) -> grpc.Channel: ...


def new_match_id() -> str:
    return uuid.uuid4().hex


def _no_health(*_: object, **__: object) -> None:
    """The health check of a seat whose bot was dead before the match: never called (a dead
    seat is asked nothing)."""
    raise AssertionError("a dead seat's health was checked")


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
        "local",
        "name",
        "notices",
        "parse",
        "rpcs",
        "session",
        "wants_session",
    )

    def __init__(self, index: int, bot: Any, clock: ClockConfig, sessions: bool = True) -> None:
        self.index = index
        self.bot = bot
        self.name: str = bot.name
        self.label = f"seat {index} ({self.name})"
        self.alive: Callable[[], bool] | None = getattr(bot, "alive", None)
        self.clock = SeatClock(clock)
        self.faults = 0
        self.dead = False
        self.session: Any = None
        self.wants_session = False
        self.rpcs = {decision: rpc.name for decision, rpc in RPCS.items()}
        self.parse = {decision: rpc.response_type.FromString for decision, rpc in RPCS.items()}
        self.calls: dict[Decision, tuple[Any, Callable[[bytes], Any], str]] = {}
        self.notices: dict[str, Any] = {}
        self.health: Callable[..., Any] = _no_health
        self.local: Callable[[], Any] | None = getattr(bot, "local_session", None)
        if self.local is not None:  # served in this process: no channel, no unary calls
            self.wants_session = True
            return
        if not self.is_alive():
            # A bot already dead (and perhaps already stopped, its channel closed: grpc crashes
            # the process when asked for a registered call on a closed channel) is not called.
            self.dead = True
            return
        channel: grpc.Channel = bot.channel
        # Requests go out serialized (so the clock runs from the call alone) and answers come
        # back as bytes: a body that does not parse is the bot's malformed answer, not a
        # gRPC-internal error.
        self.calls = {
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
        self.wants_session = sessions and serves_session(channel)

    def open_session(self) -> Fault | ArenaClosed | None:
        """Open the seat's PlaySession when its bot serves one: None when it does, or the
        seat's crash or ``ARENA_CLOSED`` when the channel is closed."""
        if not self.wants_session:
            return None
        self.wants_session = False
        if self.local is not None:
            self.session = self.local()
            return None
        target = getattr(self.bot, "target", None)
        if not isinstance(target, str):  # a connection that names no target: unary calls
            return None
        try:
            self.session = open_session(self.bot.channel, target)
        except ValueError:  # grpc: the channel is closed
            closed = self.closed("PlaySession")
            return ARENA_CLOSED if closed is None else closed
        return None

    async def session_call(self, kind: Any, data: bytes, limit_ns: int) -> tuple[SeatAnswer, int]:
        """Ask one request (a decision, or a notice by its name) on the seat's session: (the
        answer, a ``Reply`` of the response message or a ``Fault``, ``FALLBACK`` or
        ``ARENA_CLOSED``; the time it took in ns)."""
        session = self.session
        assert session is not None
        t0 = perf_counter_ns()
        try:
            answer = await session.ask(kind, data, limit_ns / 1e9, _SESSION_RESPONSE)
        except SessionBroken as exc:
            elapsed = perf_counter_ns() - t0
            self.session = None
            if not session.started and exc.code in FALLBACK_CODES:
                return FALLBACK, elapsed
            return await in_thread(self.session_broken, self.rpcs.get(kind, kind), exc), elapsed
        elapsed = perf_counter_ns() - t0
        response = answer.response
        if response is not None:  # the answer of nearly every request
            return Reply(response), elapsed
        return self.judge(answer, self.rpcs.get(kind, kind), limit_ns), elapsed

    def judge(self, answer: Any, rpc: str, limit_ns: int) -> Fault:
        """A session's answer (``arena.referee.session.Answer``) that is not a response, as the
        unary outcome: the ``Fault`` of a timeout, an error or a malformed answer."""
        if answer.timed_out:
            if not self.is_alive():  # what held the stream open was not the bot
                return self.crash(rpc, None, "no answer")
            return Fault(
                FaultKind.TIMEOUT, f"{self.label}: no answer to {rpc} within {_ms(limit_ns)}"
            )
        if answer.error is not None:
            code = answer.error.code
            try:
                status: Any = _STATUS_BY_VALUE[code]
            except KeyError:
                status = f"status {code}"
            return Fault(
                FaultKind.ERROR_STATUS,
                f"{self.label}: {rpc} failed with status "
                f"{_status_text(status, answer.error.message)}",
            )
        return Fault(
            FaultKind.MALFORMED_ANSWER, f"{self.label}: malformed {rpc} answer: {answer.malformed}"
        )

    def session_broken(self, rpc: str, exc: SessionBroken) -> Fault | ArenaClosed:
        """The stream broke: the bot's crash, or ``ARENA_CLOSED`` when it was the arena that
        closed the channel of a living bot."""
        try:
            self.health(_HEALTH_REQUEST, timeout=0.25)
        except ValueError:  # grpc: "Cannot invoke RPC on closed channel!"
            closed = self.closed(rpc)
            return ARENA_CLOSED if closed is None else closed
        except grpc.RpcError:
            pass
        return self.crash(rpc, exc.code, exc.details or "the session stream ended")

    async def close_session(self) -> None:
        session = self.session
        if session is not None:
            self.session = None
            await session.close()

    # -- the calls ----------------------------------------------------------------------------

    async def decide(
        self, decision: Decision, data: bytes, limit_ns: int
    ) -> tuple[Reply | Fault | ArenaClosed, int]:
        """Ask a decision: (the answer, a ``Reply`` of bytes or a message, or a ``Fault``, or
        ``ARENA_CLOSED``), and the time it took in ns."""
        if self.session is not None:
            got, elapsed = await self.session_call(decision, data, limit_ns)
            if not isinstance(got, Fallback):
                return got, elapsed
        return await in_thread(self.unary_decide, decision, data, limit_ns)

    def unary_decide(
        self, decision: Decision, data: bytes, limit_ns: int
    ) -> tuple[Reply | Fault | ArenaClosed, int]:
        call, _, rpc = self.calls[decision]
        t0 = perf_counter_ns()
        try:
            raw = call(data, timeout=limit_ns / 1e9)
        except grpc.RpcError as exc:
            elapsed = perf_counter_ns() - t0
            return self.rpc_fault(rpc, exc, elapsed, limit_ns), elapsed
        except ValueError:  # grpc: "Cannot invoke RPC on closed channel!"
            closed = self.closed(rpc)
            return (ARENA_CLOSED if closed is None else closed), 0
        return Reply(raw), perf_counter_ns() - t0

    async def notice(self, name: str, data: bytes, limit_ns: int) -> Fault | ArenaClosed | None:
        """Send a notice: None, or a ``Fault``, or ``ARENA_CLOSED``."""
        if self.session is not None:
            got, _ = await self.session_call(name, data, limit_ns)
            match got:
                case Reply():
                    return None
                case Fault() | ArenaClosed():
                    return got
        return await in_thread(self.unary_notice, name, data, limit_ns)  # no session, or FALLBACK

    def unary_notice(self, name: str, data: bytes, limit_ns: int) -> Fault | ArenaClosed | None:
        t0 = perf_counter_ns()
        try:
            self.notices[name](data, timeout=limit_ns / 1e9)
        except ValueError:
            closed = self.closed(name)
            return ARENA_CLOSED if closed is None else closed
        except grpc.RpcError as exc:
            return self.rpc_fault(name, exc, perf_counter_ns() - t0, limit_ns)
        return None

    async def end_match(self, data: bytes, limit_ns: int) -> None:
        """Send EndMatch, a courtesy: whatever happens is not judged. Closes the session."""
        await self.end_match_answer(data, limit_ns)
        await self.close_session()

    async def end_match_answer(self, data: bytes, limit_ns: int) -> None:
        """``end_match`` with the session left open."""
        if self.session is not None:
            got, _ = await self.session_call("EndMatch", data, limit_ns)
            if not isinstance(got, Fallback):
                return
        await in_thread(self.unary_end_match, data, limit_ns)

    def unary_end_match(self, data: bytes, limit_ns: int) -> None:
        with contextlib.suppress(grpc.RpcError, ValueError):
            self.notices["EndMatch"](data, timeout=limit_ns / 1e9)

    def is_alive(self) -> bool:
        if self.dead:
            return False
        return True if self.alive is None else bool(self.alive())

    def rpc_fault(self, rpc: str, exc: grpc.RpcError, elapsed_ns: int, limit_ns: int) -> Fault:
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
            return Fault(
                FaultKind.TIMEOUT, f"{self.label}: no answer to {rpc} within {_ms(limit_ns)}"
            )
        return Fault(
            FaultKind.ERROR_STATUS,
            f"{self.label}: {rpc} failed with status {_status_text(code, details)}",
        )

    def crash(self, rpc: str, code: Any, details: str) -> Fault:
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
        return Fault(
            FaultKind.CRASH,
            f"{self.label}: {why} during {rpc} ({_status_text(code, details)}){self.last_output()}",
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
        # The runtime says how a bot ended when it knows more than the code (a memory kill).
        description = getattr(self.bot, "exit_description", None)
        if isinstance(description, str):
            return f"its process has exited ({description})"
        returncode = getattr(self.bot, "returncode", None)
        return "its process has exited" + (
            f" ({_exit_text(returncode)})" if isinstance(returncode, int) else ""
        )

    def closed(self, rpc: str) -> Fault | None:
        """The fault of a call refused because the arena closed the channel: the bot's crash
        when its process is gone (a tournament restarting a dead bot closes its old channel),
        None when the arena closed the connection of a living bot."""
        if self.is_alive():
            return None
        self.dead = True
        return Fault(
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


_STATUS_BY_VALUE = {code.value[0]: code for code in grpc.StatusCode}


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
        sessions: bool = True,
        reveal_opponents: bool = True,
    ) -> None:
        if len(bots) != 2:
            raise ValueError(f"a match needs exactly two bots, got {len(bots)}")
        self.reveal_opponents = reveal_opponents
        self.seed = seed
        self.rules = rules
        self.clock = clock
        self.policy = policy
        self.match_id = match_id
        self.stop = stop
        self.on_hand = on_hand
        self.seats = (_Seat(0, bots[0], clock, sessions), _Seat(1, bots[1], clock, sessions))
        self.match = Match(seed, rules)
        self.decisions: list[tuple[int, Decision, Action, int, FaultKind | None]] = []
        """The ``DecisionRecord`` fields of each decision so far; the records are made once,
        for the result (off the per-decision path)."""
        self.fault_notes: list[str] = []
        self.started_at = datetime.now(UTC)
        # Substitutes come from their own stream of the match seed: the same faults in the same
        # match give the same substitutes, and the deal is untouched.
        self.rng = random.Random(f"spades-arena/substitute/{seed}")

    # -- the match ------------------------------------------------------------------------
    #
    # Each call to a bot goes through ``decide``, ``notice`` or ``end_match``: the seat's own
    # methods here (no wrapper on the per-decision path), wrapped by a referee that reports
    # every call (``arena.referee.observed``).

    decide = staticmethod(_Seat.decide)
    notice = staticmethod(_Seat.notice)
    end_match = staticmethod(_Seat.end_match)

    async def run(self) -> MatchResult:
        try:
            ended = await self._begin()
            if ended is None:
                ended = await self._play()
            result = self._result(ended)
            await self._send_end_match(ended)
            return result
        except BaseException:
            try:  # what is sent when the referee itself stops on an error
                await self._send_end_match(
                    Ending(None, Termination.ABORTED, "the referee stopped on an error")
                )
            finally:
                self.cancel_sessions()
            raise
        finally:
            self.cancel_sessions()

    async def _begin(self) -> Ending | None:
        """Open the seats' sessions and send StartMatch: how the match ended, or None to play."""
        for seat in self.seats:
            if seat.dead:
                fault = Fault(
                    FaultKind.CRASH,
                    f"{seat.label}: {seat.exited()} before the match began{seat.last_output()}",
                )
                return self._fault(seat, fault)
        for seat in self.seats:
            match seat.open_session():
                case ArenaClosed():
                    return Ending(None, Termination.ABORTED, _closed_by_arena(seat))
                case Fault() as fault:
                    ended = self._fault(seat, fault)
                    if ended is not None:
                        return ended
        return await self._notify_start()

    def cancel_sessions(self) -> None:
        """Sessions still open after EndMatch (a seat that never got it) are cancelled."""
        for seat in self.seats:
            if seat.session is not None:
                seat.session.cancel()
                seat.session = None

    async def _play(self) -> Ending:
        """The decision loop, kept lean: it is the referee's hot path."""
        m = self.match
        seats = self.seats
        encode = RequestEncoder(self.match_id, self.rules).encode
        decide = self.decide
        append = self.decisions.append
        stop = self.stop
        while True:
            decision = m.decision
            if decision is None:  # the match is over
                break
            if stop is not None and stop.is_set():
                return Ending(None, Termination.ABORTED, "the match was stopped by the arena")
            index = m.to_act
            assert index is not None
            seat = seats[index]
            clock = seat.clock
            data = encode(m, index, decision, clock)
            limit_ns = clock.move_ns + clock.bank_ns
            got, elapsed = await decide(seat, decision, data, limit_ns)
            match got:
                case Reply(message):
                    if clock.charge(elapsed):
                        try:
                            if type(message) is bytes:  # a unary call's answer
                                message = seat.parse[decision](message)
                            action = action_from_response(decision, message)
                            m.apply(action)
                        except RulesError as exc:
                            fault = Fault(
                                FaultKind.ILLEGAL_ACTION,
                                f"{seat.label}: {_describe_action(decision, action)}: {exc}",
                            )
                        except (MalformedAnswerError, DecodeError) as exc:
                            fault = Fault(
                                FaultKind.MALFORMED_ANSWER,
                                f"{seat.label}: malformed {seat.rpcs[decision]} answer: {exc}",
                            )
                        else:
                            append((index, decision, action, elapsed // 1000, None))
                            if decision is _PLAY and m.decision is not _PLAY:
                                ended = await self._notify_end_hand()
                                if ended is not None:
                                    return ended
                            continue
                    else:
                        fault = Fault(
                            FaultKind.TIMEOUT,
                            f"{seat.label}: answered {seat.rpcs[decision]} after "
                            f"{_ms(elapsed)}, over its limit of {_ms(limit_ns)}",
                        )
                case Fault():
                    clock.charge(elapsed)
                    fault = got
                case ArenaClosed():
                    return Ending(None, Termination.ABORTED, _closed_by_arena(seat))
            ended = self._fault(seat, fault)
            if ended is not None:
                return ended
            action = m.random_action(self.rng)
            m.apply(action)
            append((index, decision, action, elapsed // 1000, fault.kind))
            if decision is _PLAY and m.decision is not _PLAY:
                ended = await self._notify_end_hand()
                if ended is not None:
                    return ended
        outcome = m.outcome
        assert outcome is not None
        termination = (
            Termination.TARGET_REACHED
            if outcome.termination is RulesTermination.TARGET_REACHED
            else Termination.HAND_LIMIT
        )
        return Ending(outcome.winner, termination, "")

    def _fault(
        self,
        seat: _Seat,
        fault: Fault,
        then: str = "a random legal action was played instead",
    ) -> Ending | None:
        """Count a fault; the end of the match if it forfeits, None to go on (``then`` says
        how: a substitute for a decision, nothing for a notice)."""
        seat.faults += 1
        if fault.kind is FaultKind.CRASH or self.policy.forfeits(seat.faults):
            detail = fault.detail
            if self.policy.kind == "substitute" and fault.kind is not FaultKind.CRASH:
                detail = f"{detail} (fault {seat.faults} of at most {self.policy.max_faults})"
            return Ending(1 - seat.index, fault.kind.termination, detail)
        self.fault_notes.append(f"{fault.detail} (fault {seat.faults}, {then})")
        return None

    # -- notices --------------------------------------------------------------------------

    async def _notify(
        self, name: str, requests: tuple[bytes, bytes], decided: bool = False
    ) -> Ending | None:
        """Send a notice to both seats; judge timeouts, error statuses and crashes, seat 0's
        first.

        Both seats are asked at once (``send_notices``): a hand's end costs one round trip,
        not two. Once the match is ``decided`` (the last hand's EndHand)
        a fault is counted and told, but cannot forfeit a result the cards have already
        settled."""
        limit_ns = self.clock.move_time_ms * 1_000_000
        told = await self.send_notices(name, requests, limit_ns)
        for seat, got in zip(self.seats, told, strict=True):
            match got:
                case None:
                    continue
                case ArenaClosed():
                    return Ending(None, Termination.ABORTED, _closed_by_arena(seat))
                case Fault() if decided:
                    seat.faults += 1
                    self.fault_notes.append(
                        f"{got.detail} (fault {seat.faults}, after the match was decided)"
                    )
                case Fault():
                    ended = self._fault(seat, got, "the match went on")
                    if ended is not None:
                        return ended
        return None

    async def send_notices(
        self, name: str, requests: tuple[bytes, bytes], limit_ns: int
    ) -> list[Fault | ArenaClosed | None]:
        """Send a notice to each living seat, both at once (each request on the wire before
        either answer is read): each seat's outcome, None, a ``Fault`` or ``ARENA_CLOSED``
        (None for a seat found dead, which has no calls to make: see ``_Seat``)."""
        s0, s1 = self.seats
        if s0.dead or s1.dead:
            return [
                None if seat.dead else await seat.notice(name, data, limit_ns)
                for seat, data in zip(self.seats, requests, strict=True)
            ]
        return list(
            await asyncio.gather(
                s0.notice(name, requests[0], limit_ns), s1.notice(name, requests[1], limit_ns)
            )
        )

    async def _notify_start(self) -> Ending | None:
        s0, s1 = self.seats
        told = (s1.name, s0.name) if self.reveal_opponents else ("", "")
        return await self._notify(
            "StartMatch",
            (
                start_match_request(
                    self.match_id, 0, self.rules, told[0], self.clock
                ).SerializeToString(),
                start_match_request(
                    self.match_id, 1, self.rules, told[1], self.clock
                ).SerializeToString(),
            ),
        )

    async def _notify_end_hand(self) -> Ending | None:
        result = self.match.hand_results[-1]
        if self.on_hand is not None:
            self.on_hand(result)
        return await self._notify(
            "EndHand", end_hand_requests(self.match_id, result), decided=self.match.is_over
        )

    async def _send_end_match(self, ended: Ending) -> None:
        """Tell the living bots how the match ended; their answers are not judged."""
        winner, termination, detail = ended
        m = self.match
        limit_ns = self.clock.move_time_ms * 1_000_000
        requests = {
            seat.index: end_match_request(
                self.match_id,
                seat.index,
                winner,
                m.scores,
                len(m.hand_results),
                termination,
                detail,
            ).SerializeToString()
            for seat in self.seats
            if not seat.dead
        }
        # A courtesy: the result is already decided, whatever the bot answers.
        await self.send_end_matches(requests, limit_ns)

    async def send_end_matches(self, requests: dict[int, bytes], limit_ns: int) -> None:
        """EndMatch to the seats of ``requests``, both at once as ``send_notices`` does, then
        both sessions closed together."""
        seats = [self.seats[i] for i in requests]
        await asyncio.gather(
            *(seat.end_match_answer(requests[seat.index], limit_ns) for seat in seats)
        )
        await asyncio.gather(*(seat.close_session() for seat in seats))

    # -- the result -----------------------------------------------------------------------

    def _result(self, ended: Ending) -> MatchResult:
        winner, termination, detail = ended
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
            decisions=tuple([DecisionRecord(*fields) for fields in self.decisions]),
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
    sessions: bool = True,
    reveal_opponents: bool = True,
) -> MatchResult:
    """Play one match of ``bots[0]`` (seat 0) against ``bots[1]`` (seat 1) from ``seed``.

    Each bot is a ``BotConnection`` (``.name``, ``.channel``, optionally ``.alive()``). Returns
    the result whatever the bots do; raises only for the arena's own errors. ``stop``, when
    set by another thread, ends the match before its next decision as ``ABORTED``;
    ``on_hand`` is called with each hand's result as it is scored (for progress displays).
    A seat whose bot serves ``PlaySession`` plays over one stream unless ``sessions`` is False
    (``arena.referee.session``), the other over the unary RPCs. The match is played on the
    process's referee loop (one thread, ``grpc.aio``, every match of the process on it) while
    the caller waits; ``on_hand`` is called on that loop's thread.
    Safe to call from many threads at once: a match shares nothing with another.
    With ``reveal_opponents`` False, ``StartMatchRequest.opponent`` is empty: in rated play a
    bot that knows whom it plays can throw its matches to a friend (docs/protocol.md)."""
    referee = _Referee(
        bots,
        seed,
        rules,
        clock,
        policy,
        match_id or new_match_id(),
        stop,
        on_hand,
        sessions,
        reveal_opponents,
    )
    return run(referee.run())


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
    ``forfeit_seat``'s bot did not start and the other seat is named the winner, or with None,
    neither bot started: no winner, a fault each. The store rates neither (nobody played:
    ``arena.store.rated``)."""
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
