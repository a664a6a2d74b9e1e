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
instead. ``Session`` below is on grpcio's public API alone.
"""

from __future__ import annotations

import heapq
import itertools
import os
import queue
import threading
import weakref
from time import monotonic
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
from google.protobuf.message import DecodeError

from arena.bot_protocol.messages import SERVICE_NAME
from arena.rules.decisions import Decision

__all__ = [
    "CLOSE_WAIT_S",
    "FIELDS",
    "Answer",
    "Session",
    "SessionBroken",
    "frame",
    "open_session",
    "read_answer",
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


class _Deadlines:
    """The process's deadline keeper: one thread and a heap of (time, entry number, session),
    at most one live entry per session.

    A request sets its session's deadline. When the session's entry comes no later, it stays,
    and when it comes due before the request's deadline it is put back for that deadline: so
    requests made in order with the same time limit push nothing and never wake the thread,
    and the heap holds about one entry per open session however long the limits."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held to set a deadline and to read or clear a session's pending token."""
        self._cond = threading.Condition(self.lock)
        self._heap: list[tuple[float, int, Session]] = []
        self._entries = itertools.count(1)
        self._wake_at = float("inf")
        self._thread: threading.Thread | None = None

    def arm(self, session: Session, token: int, deadline: float) -> None:
        """``session``'s request ``token`` is due by ``deadline``. Called with ``lock`` held."""
        session._pending = token
        session._deadline = deadline
        at = session._entry_at
        if at is not None and at <= deadline:
            return
        self._push(session, deadline)

    def _push(self, session: Session, at: float) -> None:
        entry = next(self._entries)
        session._entry = entry
        session._entry_at = at
        heapq.heappush(self._heap, (at, entry, session))
        if at < self._wake_at:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="arena-deadlines", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        heap = self._heap
        cond = self._cond
        while True:
            late: list[Any] = []
            with cond:
                now = monotonic()
                while heap:
                    at, entry, session = heap[0]
                    if entry != session._entry:
                        heapq.heappop(heap)  # superseded by an earlier one
                        continue
                    if at > now:
                        break
                    heapq.heappop(heap)
                    session._entry = 0
                    session._entry_at = None
                    if not session._pending:
                        continue
                    if session._deadline <= now:
                        session._expired = session._pending
                        session._pending = 0
                        late.append(session._call)  # that call, not one opened after it
                    else:  # due later than the entry was: put it back for then
                        self._push(session, session._deadline)
                if not late:
                    self._wake_at = heap[0][0] if heap else float("inf")
                    cond.wait(None if not heap else self._wake_at - now)
                    continue
            for call in late:
                if call is not None:
                    call.cancel()


_deadlines = _Deadlines()
_CLOSING = -1
"""The pending token of a session being closed (a request's token is its ``seq``)."""


def _after_fork() -> None:
    """A forked child has none of its parent's threads: it keeps its own deadlines."""
    global _deadlines
    _deadlines = _Deadlines()


os.register_at_fork(after_in_child=_after_fork)


class Session:
    """One seat's open stream for one match, on grpcio's public API (``stream_stream``).

    A request is put on the stream's request queue (grpcio's request thread writes it) and its
    answer read in the match's own thread (``next`` on the call), with no reader thread
    between. A request whose answer has not come by its deadline is a timeout: the deadline
    keeper (one thread per process) cancels that stream, its late answer is never read, and the
    seat's next request goes out on a new stream to the same bot. Used by the match's thread
    only (the deadline thread only cancels its call)."""

    __slots__ = (
        "_broken",
        "_call",
        "_channel",
        "_deadline",
        "_entry",
        "_entry_at",
        "_expired",
        "_pending",
        "_requests",
        "_seq",
        "started",
    )

    def __init__(self, channel: grpc.Channel) -> None:
        self._channel = channel
        self._seq = 0
        self._pending = 0
        """The token of what waits for an answer: a request's ``seq``, or ``_CLOSING`` (0:
        nothing); the deadline thread moves it to ``_expired`` when it cancels the call."""
        self._expired = 0
        self._deadline = 0.0
        """When the pending request's answer is due (``monotonic``)."""
        self._entry = 0
        self._entry_at: float | None = None
        """The session's live entry in the deadline keeper's heap (0, None: none)."""
        self.started = False
        """True once the bot has answered the first request: from then on it serves sessions."""
        self._broken: SessionBroken | None = None
        """Why the last request could not be sent (the channel closed), told by ``receive``."""
        self._requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._call: Any = self._new_call()  # raises ValueError on a closed channel

    def _new_call(self) -> Any:
        # Bytes both ways: the referee frames its cached request bytes, and parses the answers
        # itself, so that a body that does not parse is a malformed answer.
        self._requests = queue.SimpleQueue()
        return self._channel.stream_stream(PATH, _registered_method=True)(
            _requests(self._requests)
        )

    def ask(self, kind: Decision | str, data: bytes, timeout: float, pb: Any) -> Answer:
        """Send one request and wait for its answer up to ``timeout`` seconds (then a timed-out
        answer, the stream cancelled). Raises ``SessionBroken`` when the stream ends."""
        return self.receive(kind, self.send(kind, data, timeout), pb)

    def send(self, kind: Decision | str, data: bytes, timeout: float) -> int:
        """Put one request (``data``: the serialized request of the unary RPC) on the stream,
        due within ``timeout`` seconds; its number, for ``receive``."""
        self._seq += 1
        seq = self._seq
        if self._call is None:
            try:
                self._call = self._new_call()
            except ValueError as exc:  # grpc: the channel is closed
                self._broken = SessionBroken(grpc.StatusCode.CANCELLED, str(exc))
                return seq
        self._requests.put(frame(kind, seq, data))
        deadlines = _deadlines
        with deadlines.lock:
            deadlines.arm(self, seq, monotonic() + timeout)
        return seq

    def receive(self, kind: Decision | str, seq: int, pb: Any) -> Answer:
        """The answer to request ``seq`` (sent by ``send``), or a timed-out answer. Raises
        ``SessionBroken`` when the stream ends."""
        broken = self._broken
        if broken is not None:
            self._broken = None
            raise broken
        call = self._call
        try:
            raw = next(call)
        except StopIteration:
            raw = None
        except grpc.RpcError as exc:
            raw = exc
        finally:
            with _deadlines.lock:
                timed_out = self._expired == seq
                self._pending = 0
        if timed_out:
            self._finish()
            return _TIMED_OUT
        if type(raw) is not bytes:  # the stream ended: its status says how
            self._finish()
            raise _broken(raw)
        answer = read_answer(raw, seq, FIELDS[kind][0], pb)
        if answer is None:  # an earlier seq: no answer is late on this stream, so it is misnumbered
            answer = Answer()
            answer.malformed = f"an answer numbered below request {seq}"
        self.started = True
        return answer

    def _finish(self) -> None:
        """Cancel the stream (a no-op once it has ended) and let its request thread go."""
        call = self._call
        self._call = None
        self._requests.put(None)
        if call is not None:
            call.cancel()

    def end_requests(self) -> None:
        """End the request stream (the bot's handler returns); ``close`` waits for that."""
        if self._call is not None:
            self._requests.put(None)

    def close(self) -> None:
        """End the request stream and wait up to ``CLOSE_WAIT_S`` for the bot to end its side
        (then cancel it)."""
        call = self._call
        if call is None:
            return
        self._requests.put(None)
        with _deadlines.lock:
            _deadlines.arm(self, _CLOSING, monotonic() + CLOSE_WAIT_S)
        try:
            for _ in call:  # an answer after EndMatch's is nobody's: passed over
                pass
        except grpc.RpcError:
            pass
        finally:
            with _deadlines.lock:
                self._pending = 0
            self._finish()

    def cancel(self) -> None:
        if self._call is not None:
            self._finish()


def open_session(channel: grpc.Channel) -> Session:
    """A session on ``channel``. Raises ValueError when the channel is closed."""
    return Session(channel)


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
    return b"".join((
        b"\x08",
        _VARINTS[seq] if seq < 16384 else _varint(seq),
        _TAGS[kind],
        _VARINTS[n] if n < 16384 else _varint(n),
        data,
    ))


def _requests(requests: queue.SimpleQueue[bytes | None]) -> Any:
    get = requests.get
    while True:
        item = get()
        if item is None:
            return
        yield item


def _broken(raw: Any) -> SessionBroken:
    if raw is None:
        return SessionBroken(None, "the bot ended the session")
    if isinstance(raw, grpc.Call):
        code = raw.code()
        if code is grpc.StatusCode.OK:
            return SessionBroken(None, "the bot ended the session")
        return SessionBroken(code, raw.details() or "")
    return SessionBroken(None, f"{type(raw).__name__}: {raw}")


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
