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
instead. The session the referee uses is ``arena.referee.core_session``'s where it can be had
(each request one batch on gRPC's C-core call), else ``Session`` below.
"""

from __future__ import annotations

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
    "ARENA_CLOSED",
    "FALLBACK",
    "FIELDS",
    "Answer",
    "Session",
    "SessionBroken",
    "frame",
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

_END = object()
"""Put on the answer queue when the bot closed the stream with status OK."""

# What a seat's calls may come back as (``arena.referee.play``), beside the sessions that carry
# them.
FALLBACK = object()
"""A session the bot turned down on its first request: play the seat over unary RPCs."""
ARENA_CLOSED = object()
"""The arena closed the connection of a living bot."""


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


class Session:
    """The open stream of one seat for one match, on grpcio's public API: the portable session,
    used where the C-core one (``arena.referee.core_session``) cannot be had. A late answer is
    dropped when it comes (its seq is an earlier one) and the stream stays open. Used by the
    match's referee thread only (plus the reader thread it starts)."""

    __slots__ = ("_answers", "_call", "_closed", "_requests", "_seq", "started")

    def __init__(self, channel: grpc.Channel) -> None:
        # Bytes both ways: the referee frames its cached request bytes, and parses the answers
        # itself, so that a body that does not parse is a malformed answer.
        self._requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._seq = 0
        self._closed = False
        self.started = False
        """True once the bot has answered the first request: from then on it serves sessions."""
        self._call = channel.stream_stream(PATH, _registered_method=True)(
            _requests(self._requests)
        )
        threading.Thread(
            target=_read, args=(self._call, self._answers), name="arena-session", daemon=True
        ).start()

    def ask(self, kind: Decision | str, data: bytes, timeout: float, pb: Any) -> Answer:
        """Send one request (``data``: the serialized request of the unary RPC) and wait for
        its answer up to ``timeout`` seconds. Raises ``SessionBroken`` when the stream ends."""
        field = FIELDS[kind][0]
        self._seq += 1
        seq = self._seq
        self._requests.put(frame(kind, seq, data))
        get = self._answers.get
        deadline = monotonic() + timeout
        while True:
            try:
                raw = get(timeout=max(0.0, deadline - monotonic()))
            except queue.Empty:
                return _TIMED_OUT
            if raw is _END or isinstance(raw, BaseException):
                raise _broken(raw)
            answer = read_answer(raw, seq, field, pb)
            if answer is None:
                continue  # the late answer to an earlier request, already judged a timeout
            self.started = True
            return answer

    def close(self) -> None:
        """End the request stream (the bot's handler returns); nothing waits for it."""
        if not self._closed:
            self._closed = True
            self._requests.put(None)

    def cancel(self) -> None:
        self._closed = True
        self._requests.put(None)
        self._call.cancel()


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


def _read(call: Any, answers: queue.SimpleQueue[Any]) -> None:
    put = answers.put
    try:
        for raw in call:
            put(raw)
    except grpc.RpcError as exc:
        put(exc)
    except Exception as exc:  # the channel closed under the stream
        put(exc)
    else:
        put(_END)


def _broken(raw: Any) -> SessionBroken:
    if raw is _END:
        return SessionBroken(None, "the bot ended the session")
    if isinstance(raw, grpc.Call):
        return SessionBroken(raw.code(), raw.details() or "")
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
