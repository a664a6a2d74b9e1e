"""Matches multiplexed on one event loop: the referee's fast path for bots that serve sessions.

A match between two bots that both serve ``PlaySession`` over a plain channel is played as a
task on one process-wide event loop (a daemon thread, started on first use) with ``grpc.aio``:
no thread per match, no thread hand-off per message, and the K matches of a tournament share one
loop. ``play_match`` stays a blocking call: it hands the match to the loop and waits for its
result. The match itself is the same code as the blocking path (``_Referee.match_ops``, a
generator of calls); only the calls are made differently here. What is slow and rare (judging a
broken stream, a unary fallback) runs in the loop's thread pool so that other matches go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Generator
from time import perf_counter_ns
from typing import Any

import grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.referee.session import (
    ARENA_CLOSED,
    DECIDE,
    END_MATCH,
    FALLBACK,
    FALLBACK_CODES,
    FIELDS,
    NOTICE,
    PATH,
    Answer,
    SessionBroken,
    frame,
    read_answer,
)
from arena.runtime.channel import CHANNEL_OPTIONS

__all__ = ["AioSession", "drive", "run"]

_RESPONSE = pb.PlaySessionResponse
_TIMED_OUT = Answer()
_TIMED_OUT.timed_out = True

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _referee_loop() -> asyncio.AbstractEventLoop:
    """The process's referee loop, started on first use in a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(
                target=loop.run_forever, name="arena-referee-loop", daemon=True
            ).start()
            _loop = loop
        return _loop


def run(referee: Any) -> Any:
    """Play ``referee``'s match on the referee loop; block until its result."""
    future = asyncio.run_coroutine_threadsafe(drive(referee), _referee_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


# -- channels ----------------------------------------------------------------------------------

_channels: weakref.WeakKeyDictionary[Any, grpc.aio.Channel] = weakref.WeakKeyDictionary()
"""The aio channel of each bot connection's channel, used from the loop only; closed when the
connection's own channel goes."""


def _aio_channel(bot: Any) -> grpc.aio.Channel:
    key = bot.channel
    channel = _channels.get(key)
    if channel is None:
        channel = grpc.aio.insecure_channel(bot.target, options=CHANNEL_OPTIONS)
        _channels[key] = channel
        loop = asyncio.get_running_loop()
        weakref.finalize(key, _close_later, loop, channel)
    return channel


def _close_later(loop: asyncio.AbstractEventLoop, channel: grpc.aio.Channel) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(lambda: loop.create_task(channel.close()))


# -- one seat's session --------------------------------------------------------------------------


class AioSession:
    """One seat's PlaySession on the loop: requests written in order, answers read by a task
    and handed to the request waiting for them (by ``seq``; late ones dropped).

    One timer serves all of a session's deadlines: a request whose deadline is no earlier than
    the timer's keeps it, and the timer, when it fires before the current deadline, is set
    again for it. So a decision answered in time costs no timer of its own (a ``TimerHandle``
    made, pushed on the loop's heap and cancelled each time), and an answer that does not come
    by its deadline is timed out exactly then, as before."""

    __slots__ = (
        "_broken",
        "_call",
        "_deadline",
        "_loop",
        "_pending",
        "_reader",
        "_seq",
        "_timer",
        "started",
    )

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._loop = asyncio.get_running_loop()
        self._call = channel.stream_stream(PATH)()
        self._seq = 0
        self._pending: tuple[int, str, asyncio.Future[Any]] | None = None
        self._broken: SessionBroken | None = None
        self._deadline = 0.0
        """The loop time by which the pending request's answer is due."""
        self._timer: asyncio.TimerHandle | None = None
        self.started = False
        self._reader = self._loop.create_task(self._read())

    async def _read(self) -> None:
        call = self._call
        eof = grpc.aio.EOF
        try:
            while True:
                raw = await call.read()
                if raw is eof:
                    self._fail(SessionBroken(None, "the bot ended the session"))
                    return
                pending = self._pending
                if pending is None:
                    continue  # a late answer with nobody waiting
                seq, field, future = pending
                answer = read_answer(raw, seq, field, _RESPONSE)
                if answer is not None and not future.done():
                    future.set_result(answer)
        except grpc.aio.AioRpcError as exc:
            self._fail(SessionBroken(exc.code(), exc.details() or ""))
        except asyncio.CancelledError:
            self._fail(SessionBroken(grpc.StatusCode.CANCELLED, "the session was cancelled"))
            raise
        except Exception as exc:  # the channel closed under the stream
            self._fail(SessionBroken(None, f"{type(exc).__name__}: {exc}"))

    def _fail(self, broken: SessionBroken) -> None:
        self._broken = broken
        pending = self._pending
        if pending is not None and not pending[2].done():
            pending[2].set_exception(broken)

    async def ask(self, kind: Any, data: bytes, timeout: float) -> Answer:
        """Send one request and wait for its answer up to ``timeout`` seconds (then a timed-out
        answer). Raises ``SessionBroken`` when the stream ends."""
        if self._broken is not None:
            raise self._broken
        self._seq += 1
        seq = self._seq
        loop = self._loop
        future: asyncio.Future[Any] = loop.create_future()
        self._pending = (seq, FIELDS[kind][0], future)
        deadline = self._deadline = loop.time() + timeout
        timer = self._timer
        if timer is None or timer.when() > deadline:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._on_timer)
        try:
            try:
                await self._call.write(frame(kind, seq, data))
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as exc:
                if self._broken is None:
                    code = exc.code() if isinstance(exc, grpc.aio.AioRpcError) else None
                    self._broken = SessionBroken(code, str(exc))
                # the reader sees the end of the stream and says how it ended
                await asyncio.wait((self._reader,), timeout=1.0)
                raise self._broken from None
            answer: Answer = await future
        finally:
            self._pending = None
        self.started = True
        return answer

    def _on_timer(self) -> None:
        """The session's timer: the pending request's deadline has come (a timeout), or it is
        later than the timer was set for (set it again for it)."""
        timer = self._timer
        self._timer = None
        pending = self._pending
        if timer is None or pending is None or pending[2].done():
            return
        if timer.when() >= self._deadline:
            pending[2].set_result(_TIMED_OUT)
        else:
            self._timer = self._loop.call_at(self._deadline, self._on_timer)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def close(self) -> None:
        """End the request stream; the bot's handler returns and the reader ends."""
        self._stop_timer()
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            await self._call.done_writing()

    def cancel(self) -> None:
        self._stop_timer()
        self._call.cancel()
        self._reader.cancel()


# -- the driver --------------------------------------------------------------------------------


async def drive(referee: Any) -> Any:
    """Play the match of ``referee`` (a ``_Referee``) with its calls made on this loop."""
    try:
        return await _drive(referee, referee.match_ops())
    except BaseException:
        try:
            await _drive(referee, referee.aborted_ops())
        finally:
            _cancel(referee)
        raise
    finally:
        _cancel(referee)


def _cancel(referee: Any) -> None:
    for seat in referee.seats:
        if seat.session is not None:
            seat.session.cancel()
            seat.session = None


async def _drive(referee: Any, ops: Generator[tuple[Any, ...], Any, Any]) -> Any:
    loop = asyncio.get_running_loop()
    try:
        op = next(ops)
        while True:
            kind = op[0]
            seat = op[1]
            if kind is DECIDE:
                got = await _call(loop, seat, op[2], seat.rpcs[op[2]], op[3], op[4])
                if got[0] is FALLBACK:
                    got = await loop.run_in_executor(None, seat.unary_decide, *op[2:])
                op = ops.send(got)
            elif kind is NOTICE:
                got, _ = await _call(loop, seat, op[2], op[2], op[3], op[4], notice=True)
                if got is FALLBACK:
                    got = await loop.run_in_executor(None, seat.unary_notice, *op[2:])
                op = ops.send(got)
            elif kind is END_MATCH:
                got, _ = await _call(loop, seat, "EndMatch", "EndMatch", op[2], op[3])
                session = seat.session
                seat.session = None
                if session is not None:
                    await session.close()
                if got is FALLBACK:
                    await loop.run_in_executor(None, seat.end_match, *op[2:])
                op = ops.send(None)
            else:
                op = ops.send(_open(seat))
    except StopIteration as done:
        return done.value


def _open(seat: Any) -> Any:
    if not seat.wants_session:
        return None
    seat.wants_session = False
    try:
        seat.session = AioSession(_aio_channel(seat.bot))
    except ValueError:  # grpc: the channel is closed
        closed = seat.closed("PlaySession")
        return ARENA_CLOSED if closed is None else closed
    return None


async def _call(
    loop: asyncio.AbstractEventLoop,
    seat: Any,
    kind: Any,
    rpc: str,
    data: bytes,
    limit_ns: int,
    notice: bool = False,
) -> tuple[Any, int]:
    """As ``_Seat.session_call``, on the loop; a notice's answer comes back as None."""
    session = seat.session
    if session is None:
        return FALLBACK, 0
    t0 = perf_counter_ns()
    try:
        answer = await session.ask(kind, data, limit_ns / 1e9)
    except SessionBroken as exc:
        elapsed = perf_counter_ns() - t0
        seat.session = None
        session.cancel()
        if not session.started and exc.code in FALLBACK_CODES:
            return FALLBACK, elapsed
        return await loop.run_in_executor(None, seat.session_broken, rpc, exc), elapsed
    elapsed = perf_counter_ns() - t0
    if notice and answer.response is not None:
        return None, elapsed
    return seat.judge(answer, rpc, limit_ns), elapsed
