"""A seat's ``PlaySession`` on gRPC's C-core call itself: the referee's fast path.

Each request is one batch on the stream's call, its message sent and the answer received
together, and the match's own thread waits for that batch on the call's completion queue. So a
decision costs one C-core completion and no thread hand-off: no reader thread (``Session``), no
event loop and completion-queue poller (``grpc.aio``). This is how grpcio's own blocking unary
calls are made (``grpc._channel``'s ``segregated_call``), kept open for the match.

Deadlines: the call's completion queue cannot be waited on with a deadline, so one daemon thread
per process (``_Deadlines``) keeps every pending request's deadline and cancels the stream of a
request whose answer has not come by then. That request is a timeout, exactly as before: the
late answer is never read (its stream is gone), and the seat's next request goes out on a new
stream to the same bot. A bot sees a cancelled stream, as when a unary call's deadline passes.

The API used is grpcio's internal one (``grpc._cython.cygrpc``, tested on grpcio 1.85); when a
channel does not offer it, or this grpcio's calls take other arguments, ``open_session``
returns the portable ``Session`` instead.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
from time import monotonic
from typing import Any

import grpc

from arena.referee.session import (
    _TIMED_OUT,
    FIELDS,
    PATH,
    Answer,
    Session,
    SessionBroken,
    frame,
    read_answer,
)
from arena.rules.decisions import Decision

__all__ = ["CLOSE_WAIT_S", "CoreSession", "open_session", "uses_core"]

try:
    from grpc import _common
    from grpc._cython import cygrpc

    _ops = (  # all there, or the portable session
        cygrpc.SendInitialMetadataOperation,
        cygrpc.ReceiveInitialMetadataOperation,
        cygrpc.ReceiveStatusOnClientOperation,
        cygrpc.SendMessageOperation,
        cygrpc.ReceiveMessageOperation,
        cygrpc.SendCloseFromClientOperation,
    )
    _PROPAGATE = cygrpc.PropagationConstants.GRPC_PROPAGATE_DEFAULTS
    _STATUS = _common.CYGRPC_STATUS_CODE_TO_STATUS_CODE
    _CORE = hasattr(cygrpc.Channel, "segregated_call")
except (ImportError, AttributeError):  # pragma: no cover - another grpcio
    _CORE = False

_METHOD = PATH.encode()
_F = 0  # no flags
CLOSE_WAIT_S = 1.0
"""How long the end of a session waits for the bot to end its side before cancelling it."""

_OPEN, _MESSAGE, _STATUS_TAG, _CLOSE = "open", "message", "status", "close"


def uses_core(channel: Any) -> bool:
    """Whether sessions on ``channel`` go over its C-core call (else the portable ``Session``)."""
    return _CORE and isinstance(getattr(channel, "_channel", None), cygrpc.Channel)


def open_session(channel: Any) -> Any:
    """A session on ``channel``: a ``CoreSession`` where it can be had, else a ``Session``.
    Raises ValueError when the channel is closed."""
    global _CORE
    if uses_core(channel):
        try:
            return CoreSession(channel)
        except TypeError:  # another grpcio's internal call: not this one's arguments
            _CORE = False
    return Session(channel)


class _Deadlines:
    """The process's deadline keeper: one thread and a heap of (time, entry number, session),
    at most one live entry per session.

    A request sets its session's deadline. When the session's entry comes no later, it stays,
    and when it comes due before the request's deadline it is put back for that deadline (as
    a session's one timer did on the event loop): so requests made in order with the same
    time limit push nothing and never wake the thread, and the heap holds about one entry per
    open session however long the limits."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held to set a deadline and to read or clear a session's pending token (a plain
        lock: a ``Condition``'s own ``with`` is Python code)."""
        self._cond = threading.Condition(self.lock)
        self._heap: list[tuple[float, int, CoreSession]] = []
        self._entries = itertools.count(1)
        self._wake_at = float("inf")
        self._thread: threading.Thread | None = None

    def arm(self, session: CoreSession, token: int, deadline: float) -> None:
        """``session``'s request ``token`` is due by ``deadline``. Called with ``lock`` held."""
        session._pending = token
        session._deadline = deadline
        at = session._entry_at
        if at is not None and at <= deadline:
            return
        self._push(session, deadline)

    def _push(self, session: CoreSession, at: float) -> None:
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
                    call.cancel(cygrpc.StatusCode.deadline_exceeded, "no answer by the deadline")


_deadlines = _Deadlines()
_CLOSING = -1
"""The pending token of a session being closed (a request's token is its ``seq``)."""


def _after_fork() -> None:
    """A forked child has none of its parent's threads: it keeps its own deadlines."""
    global _deadlines
    _deadlines = _Deadlines()


os.register_at_fork(after_in_child=_after_fork)


class CoreSession:
    """One seat's session for one match, used by the match's thread only (the deadline thread
    only cancels its call). Same interface as ``Session``."""

    __slots__ = (
        "_call",
        "_channel",
        "_deadline",
        "_entry",
        "_entry_at",
        "_expired",
        "_out",
        "_pending",
        "_seq",
        "_status",
        "started",
    )

    def __init__(self, channel: Any) -> None:
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
        self._status: Any = None
        """The call's status, once its queue has given it."""
        self._out = 0
        """The call's batches not yet taken from its queue (grpcio destroys the queue with the
        last one: it is never waited on after that)."""
        self._call: Any = self._new_call()

    def _new_call(self) -> Any:
        call = self._channel._channel.segregated_call(
            _PROPAGATE,
            _METHOD,
            None,
            None,
            None,
            None,
            (
                ((cygrpc.SendInitialMetadataOperation(None, _F),), _OPEN),
                ((cygrpc.ReceiveInitialMetadataOperation(_F),), _OPEN),
                ((cygrpc.ReceiveStatusOnClientOperation(_F),), _STATUS_TAG),
            ),
            None,
            None,
        )
        self._status = None
        self._out = 3
        return call

    def ask(self, kind: Decision | str, data: bytes, timeout: float, pb: Any) -> Answer:
        """Send one request and wait for its answer up to ``timeout`` seconds (then a
        timed-out answer, the stream cancelled). Raises ``SessionBroken`` when the stream
        ends."""
        call = self._call
        if call is None:
            try:
                call = self._call = self._new_call()
            except ValueError as exc:  # grpc: the channel is closed
                raise SessionBroken(grpc.StatusCode.CANCELLED, str(exc)) from None
        self._seq += 1
        seq = self._seq
        batch = (
            cygrpc.SendMessageOperation(frame(kind, seq, data), _F),
            cygrpc.ReceiveMessageOperation(_F),
        )
        deadlines = _deadlines
        with deadlines.lock:
            deadlines.arm(self, seq, monotonic() + timeout)
        try:
            event = self._wait(call, _MESSAGE) if self._operate(call, batch, _MESSAGE) else None
        finally:
            with deadlines.lock:
                timed_out = self._expired == seq
                self._pending = 0
        if timed_out:
            self._finish(call)
            return _TIMED_OUT
        raw = event.batch_operations[1].message() if event is not None and event.success else None
        if raw is None:  # the stream ended: its status says how
            raise _broken(self._finish(call))
        answer = read_answer(raw, seq, FIELDS[kind][0], pb)
        if answer is None:  # an earlier seq: no answer is late on this stream, so it is misnumbered
            answer = Answer()
            answer.malformed = f"an answer numbered below request {seq}"
        self.started = True
        return answer

    def _operate(self, call: Any, batch: tuple[Any, ...], tag: str) -> bool:
        if call.operate(batch, tag):
            self._out += 1
            return True
        return False

    def _wait(self, call: Any, tag: str) -> Any:
        """The next event of ``tag`` on ``call``'s queue; the call's opening batches are passed
        over and its status kept."""
        while True:
            event = call.next_event()
            self._out -= 1
            got = event.tag
            if got == _STATUS_TAG:
                self._status = event.batch_operations[0]
            if got == tag:
                return event

    def _finish(self, call: Any) -> Any:
        """Cancel ``call`` (a no-op once it has ended), drain its queue and return its status
        (a ``ReceiveStatusOnClientOperation``): nothing of the call is left in the core."""
        self._call = None
        call.cancel(cygrpc.StatusCode.cancelled, "the arena ended the session")
        while self._out:
            event = call.next_event()
            self._out -= 1
            if event.tag == _STATUS_TAG:
                self._status = event.batch_operations[0]
        return self._status

    def close(self) -> None:
        """End the request stream and wait up to ``CLOSE_WAIT_S`` for the bot to end its side
        (then cancel it)."""
        call = self._call
        if call is None:
            return
        with _deadlines.lock:
            _deadlines.arm(self, _CLOSING, monotonic() + CLOSE_WAIT_S)
        try:
            if self._operate(
                call,
                (cygrpc.SendCloseFromClientOperation(_F), cygrpc.ReceiveMessageOperation(_F)),
                _CLOSE,
            ):
                self._wait(call, _CLOSE)
                if self._status is None:
                    self._wait(call, _STATUS_TAG)
        finally:
            with _deadlines.lock:
                self._pending = 0
            self._finish(call)

    def cancel(self) -> None:
        call = self._call
        if call is not None:
            self._finish(call)


def _broken(status: Any) -> SessionBroken:
    code = _STATUS.get(status.code())
    details = status.details()
    if isinstance(details, bytes):
        details = details.decode("utf-8", "replace")
    if code is grpc.StatusCode.OK:
        return SessionBroken(None, "the bot ended the session")
    return SessionBroken(code, details or "")
