"""One seat's ``PlaySession``: the match's requests on one bidirectional stream.

A unary call costs its set-up on both sides (a new HTTP/2 stream, headers, a thread hand-off in
the bot's server); a message on an open stream costs about half. The referee uses a session for a
seat whose bot says, through server reflection, that it serves ``PlaySession``, and the unary
RPCs otherwise (``serves_session``).

The judgement is the unary one. Each request carries a ``seq`` that the answer echoes, and the
referee waits for the current one up to the decision's deadline on its own clock: an answer that
does not come in time is a timeout; an answer of another kind or a future seq is malformed; a
``SessionError`` is the error status it names; the stream ending is a crash. A bot that
advertises the RPC but answers UNIMPLEMENTED on the first request is played over the unary RPCs
instead. ``Session`` below is on grpcio's public API alone (``grpc.aio``).

Every match of a process plays on one event loop (``referee_loop``, a daemon thread started on
first use): a seat's session is written and read by the match's own task, with no thread
between, and the K matches of a tournament share the loop and its wake-ups. ``play_match``
stays a blocking call (``run``); what is blocking and rare (a unary call to a bot without a
session, a health check) runs in a worker thread (``in_thread``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
from google.protobuf import descriptor_pb2
from google.protobuf.message import DecodeError

from arena.bot_protocol.messages import SERVICE_NAME
from arena.rules.decisions import Decision
from arena.runtime.channel import CHANNEL_OPTIONS

T = TypeVar("T")

__all__ = [
    "CLOSE_WAIT_S",
    "FIELDS",
    "Answer",
    "Session",
    "SessionBroken",
    "frame",
    "in_thread",
    "open_session",
    "read_answer",
    "referee_loop",
    "run",
    "serves_session",
]

PATH = f"/{SERVICE_NAME}/PlaySession"

# (oneof field name, tag byte) of each request kind in PlaySessionRequest / PlaySessionResponse.
FIELDS: dict[Decision | str, tuple[str, int]] = {
    "StartMatch": ("start_match", 0x12),
    Decision.DOUBLE_NIL: ("decide_double_nil", 0x1A),
    Decision.DRAW: ("draw", 0x22),
    Decision.EXCHANGE: ("exchange", 0x2A),
    Decision.BID: ("bid", 0x32),
    Decision.PLAY: ("play", 0x3A),
    "EndHand": ("end_hand", 0x42),
    "EndMatch": ("end_match", 0x4A),
}

CLOSE_WAIT_S = 1.0
"""How long the end of a session waits for the bot to end its side before cancelling it."""


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class SessionBroken(Exception):
    """The stream ended or failed: ``code`` and ``details`` say how (code None: closed by the
    bot with status OK, before the match ended)."""

    def __init__(self, code: grpc.StatusCode | None, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class Answer:
    """What came back for one request: the parsed response (``response``, its oneof field name
    in ``kind``), or ``malformed`` (a reason), or ``error`` (a ``SessionError``), or
    ``timed_out``."""

    __slots__ = ("error", "kind", "malformed", "response", "timed_out")

    def __init__(self) -> None:
        self.response: Any = None
        self.kind: str | None = None
        self.malformed: str | None = None
        self.error: Any = None
        self.timed_out = False


_TIMED_OUT = Answer()
_TIMED_OUT.timed_out = True


# -- the referee's loop -------------------------------------------------------------------------

_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_lock = threading.Lock()
_threads: ThreadPoolExecutor | None = None


def referee_loop() -> asyncio.AbstractEventLoop:
    """The process's referee loop, started on first use in a daemon thread: every match of the
    process plays on it, its bots' sessions on ``grpc.aio``."""
    global _loop, _loop_thread
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="arena-referee-loop", daemon=True
            )
            thread.start()
            _loop, _loop_thread = loop, thread
        return _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the referee loop and wait for its result in this thread (which must not
    be the loop's own). A caller interrupted while waiting cancels it."""
    loop = referee_loop()
    if threading.current_thread() is _loop_thread:
        coro.close()
        raise RuntimeError("a match cannot be played from inside the referee's loop")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker thread, awaited: the blocking calls a match makes rarely (a
    unary RPC to a bot without a session, a health check, waiting for a dead bot to be reaped),
    so that the other matches on the loop go on. Its own pool, as large as the matches need: a
    call never queues behind another (the clock of a unary call starts in the worker)."""
    global _threads
    if _threads is None:
        _threads = ThreadPoolExecutor(max_workers=256, thread_name_prefix="arena-referee-call")
    return await asyncio.get_running_loop().run_in_executor(_threads, fn, *args)


def _after_fork() -> None:
    """A forked child has none of its parent's threads: it starts its own loop when it needs
    one, with channels of its own."""
    global _loop, _loop_thread, _threads, _loop_lock, _channels
    _loop, _loop_thread, _threads = None, None, None
    _loop_lock = threading.Lock()
    _channels = weakref.WeakKeyDictionary()


os.register_at_fork(after_in_child=_after_fork)

# -- channels ---------------------------------------------------------------------------------

_SESSION_OPTIONS = (*CHANNEL_OPTIONS, ("grpc.enable_retries", 0))
"""The runtime's channel options, and no retries: the referee judges every failure itself (no
request is sent twice behind its back), and grpc's retry filter holds no copy of each message."""

_channels: weakref.WeakKeyDictionary[Any, grpc.aio.Channel] = weakref.WeakKeyDictionary()
"""The ``grpc.aio`` channel of each bot connection's channel, made and used on the loop only;
closed once the connection's own channel is gone."""


def _aio_channel(channel: grpc.Channel, target: str) -> grpc.aio.Channel:
    aio = _channels.get(channel)
    if aio is None:
        aio = grpc.aio.insecure_channel(target, options=_SESSION_OPTIONS)
        _channels[channel] = aio
        weakref.finalize(channel, _close_later, asyncio.get_running_loop(), aio)
    return aio


def _close_later(loop: asyncio.AbstractEventLoop, channel: grpc.aio.Channel) -> None:
    if not loop.is_closed():
        with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile
            loop.call_soon_threadsafe(lambda: loop.create_task(channel.close()))


# -- one seat's session -----------------------------------------------------------------------


class Session:
    """One seat's stream for one match, on ``grpc.aio`` (``stream_stream``), used on the
    referee loop by the match's own task.

    A request is written and its answer read in that task: no thread between. One timer serves
    all of a session's deadlines: a request whose deadline is no earlier than the timer's keeps
    it, and the timer, when it fires before the pending request's deadline, is set again for it.
    So a decision answered in time costs no timer of its own, and one whose answer does not
    come by its deadline is a timeout exactly then: the timer cancels that stream, its late
    answer is never read, and the seat's next request goes out on a new stream to the same
    bot."""

    __slots__ = (
        "_call",
        "_channel",
        "_deadline",
        "_expired",
        "_loop",
        "_pending",
        "_seq",
        "_timer",
        "_timer_at",
        "started",
    )

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self._loop = asyncio.get_running_loop()
        self._call: Any = None
        self._seq = 0
        self._pending = 0
        """The seq of the request waiting for its answer (0: none); the timer moves it to
        ``_expired`` when it cancels the stream."""
        self._expired = 0
        self._deadline = 0.0
        """When the pending request's answer is due (the loop's clock)."""
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self.started = False
        """True once the bot has answered the first request: from then on it serves sessions."""

    async def ask(self, kind: Decision | str, data: bytes, timeout: float, pb: Any) -> Answer:
        """Send one request (``data``: the serialized request of the unary RPC) and wait for
        its answer up to ``timeout`` seconds (then a timed-out answer, the stream cancelled).
        Raises ``SessionBroken`` when the stream ends."""
        self._seq += 1
        seq = self._seq
        call = self._call
        if call is None:
            try:
                call = self._call = self._channel.stream_stream(PATH)()
            except Exception as exc:  # the channel is closed
                raise SessionBroken(grpc.StatusCode.CANCELLED, str(exc)) from None
        loop = self._loop
        deadline = loop.time() + timeout
        self._pending = seq
        self._deadline = deadline
        timer = self._timer
        if timer is None or self._timer_at > deadline:
            if timer is not None:
                timer.cancel()
            self._timer_at = deadline
            self._timer = loop.call_at(deadline, self._on_timer)
        try:
            try:  # noqa: SIM105 - the hot path: no context manager a request
                await call.write(frame(kind, seq, data))
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                pass  # the stream has ended: reading it says how
            raw = await call.read()
        except asyncio.CancelledError:
            if self._expired != seq:
                raise  # not the deadline: the match itself was cancelled
            raw = None
        except grpc.aio.AioRpcError as exc:
            if self._expired != seq:
                self._finish()
                raise SessionBroken(exc.code(), exc.details() or "") from None
            raw = None
        finally:
            self._pending = 0
        if self._expired == seq:
            self._finish()
            return _TIMED_OUT
        if raw is grpc.aio.EOF:  # ended by the bot with status OK
            self._finish()
            raise SessionBroken(None, "the bot ended the session")
        answer = read_answer(raw, seq, FIELDS[kind][0], pb)
        if answer is None:  # an earlier seq: no answer is late on this stream, so it is misnumbered
            answer = Answer()
            answer.malformed = f"an answer numbered below request {seq}"
        self.started = True
        return answer

    def _on_timer(self) -> None:
        """The session's timer: the pending request's deadline has come (a timeout), or it is
        later than the timer was set for (set it again for then)."""
        self._timer = None
        seq = self._pending
        if not seq:
            return
        if self._deadline <= self._timer_at:
            self._expired = seq
            self._pending = 0
            if self._call is not None:
                self._call.cancel()
        else:
            self._timer_at = self._deadline
            self._timer = self._loop.call_at(self._deadline, self._on_timer)

    def _finish(self) -> None:
        """Cancel the stream (a no-op once it has ended); the next request opens a new one."""
        call = self._call
        self._call = None
        if call is not None:
            call.cancel()

    async def close(self) -> None:
        """End the request stream and wait up to ``CLOSE_WAIT_S`` for the bot to end its side
        (then cancel it); an answer after EndMatch's is nobody's and passed over."""
        self._stop_timer()
        call = self._call
        if call is None:
            return
        try:
            async with asyncio.timeout(CLOSE_WAIT_S):
                await call.done_writing()
                while await call.read() is not grpc.aio.EOF:
                    pass
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
            pass
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
        finally:
            self._finish()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def cancel(self) -> None:
        self._stop_timer()
        self._finish()


def open_session(channel: grpc.Channel, target: str) -> Session:
    """A session to the bot at ``target`` (reached by the connection's ``channel``), on the
    referee loop (called there)."""
    return Session(_aio_channel(channel, target))


def read_answer(raw: bytes, seq: int, field: str, pb: Any) -> Answer | None:
    """The answer to request ``seq`` (a ``field`` request) in ``raw``, or None for a late
    answer to an earlier request."""
    answer = Answer()
    try:
        response = pb.FromString(raw)
    except DecodeError as exc:
        answer.malformed = f"an answer that does not parse ({exc})"
        return answer
    got_seq = response.seq
    if 0 < got_seq < seq:
        return None
    got = response.WhichOneof("response")
    if got_seq != seq:
        answer.malformed = f"answer numbered {got_seq} to request {seq}"
    elif got == "error":
        answer.error = response.error
    elif got != field:
        answer.malformed = f"a {got or 'empty'} answer to a {field} request"
    else:
        answer.response = getattr(response, field)
        answer.kind = got
    return answer


_VARINTS = tuple(_varint(n) for n in range(1 << 14))
"""The varints of 0 to 16383 (two bytes at most): seqs and request lengths, nearly always."""
_TAGS = {kind: bytes((tag,)) for kind, (_, tag) in FIELDS.items()}


def frame(kind: Decision | str, seq: int, data: bytes) -> bytes:
    """The PlaySessionRequest bytes carrying request ``data`` (a unary request's bytes)."""
    n = len(data)
    return b"".join(
        (
            b"\x08",
            _VARINTS[seq] if seq < 16384 else _varint(seq),
            _TAGS[kind],
            _VARINTS[n] if n < 16384 else _varint(n),
            data,
        )
    )


# -- is it served? ---------------------------------------------------------------------------

_served: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_served_lock = threading.Lock()


def serves_session(channel: grpc.Channel, timeout: float = 2.0) -> bool:
    """Whether the bot behind ``channel`` lists ``PlaySession`` in its BotService, asked once
    per channel through server reflection; False when it has no reflection or says nothing."""
    with _served_lock:
        known = _served.get(channel)
    if known is not None:
        return known
    served = _ask_reflection(channel, timeout)
    with _served_lock:
        _served[channel] = served
    return served


def _ask_reflection(channel: grpc.Channel, timeout: float) -> bool:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME)
    try:
        for response in stub.ServerReflectionInfo(iter((request,)), timeout=timeout):
            if not response.HasField("file_descriptor_response"):
                return False
            for raw in response.file_descriptor_response.file_descriptor_proto:
                fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
                for service in fd.service:
                    if f"{fd.package}.{service.name}" == SERVICE_NAME:
                        return any(m.name == "PlaySession" for m in service.method)
            return False
    except (grpc.RpcError, ValueError, DecodeError):
        return False
    return False


FALLBACK_CODES = frozenset({grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INTERNAL})
"""A session that ends with one of these before its first answer is played over unary calls.

UNIMPLEMENTED is a bot that lists PlaySession but does not serve it. gRPC's C-core may report
that same refusal as INTERNAL ("Internal error from Core") when the server closes the stream
while the first request is still being written, as happens under load. A bot that is really
gone fails its unary call too, and that is judged as any unary failure is."""
