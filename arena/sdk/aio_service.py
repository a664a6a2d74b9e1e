"""The BotService on ``grpc.aio``: C-core's async server, a bot's quick methods run on its loop.

A thread-pool server wakes a pool thread for every message and waits for each answer's send on
it; on an event loop, a message is a completion the loop picks up, and a quick bot's method runs
right there. Where a bot's methods run is a ``Handlers`` policy:

- ``"threads"``: each call on a thread of a pool, as a thread-pool server runs them: a bot that
  thinks for long in one match does not hold up its answers in the others (its thinking
  interleaves, or runs in parallel where it releases the GIL: numpy, a subprocess, a sleep).
- ``"inline"``: each call on the loop, one at a time: the cheapest, for a bot that answers at
  once. A bot thinking in one match delays its answers in the others by as long.
- ``"auto"`` (the default): calls start on the pool; after ``PROMOTE_AFTER`` calls in a row that
  each took less than ``QUICK_S``, they run inline; the first inline call that takes longer
  than ``SLOW_S`` sends them back to the pool for good. So a bot that thinks (a search, a
  time budget) keeps the pool's behaviour, and one that answers at once gets the fast path.

The answers come from ``arena.sdk.service.BotHandler`` (as in-process matches' do). A bot error
fails the call with INTERNAL and its message (logged with its traceback), a request that cannot
be converted with INVALID_ARGUMENT; on a PlaySession stream the same statuses come back as a
``SessionError``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent import futures
from time import perf_counter
from typing import Any, Literal

import grpc
from google.protobuf.message import Message

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc
from arena.bot_protocol import messages
from arena.rules.decisions import Decision
from arena.rules.errors import InvalidRuleSetError
from arena.sdk.bot import Bot
from arena.sdk.match_tags import serving
from arena.sdk.service import _SESSION_DECISIONS, BotHandler

__all__ = ["HANDLER_MODES", "AioBotServicer", "HandlerMode", "Handlers"]

log = logging.getLogger("arena.sdk")

HandlerMode = Literal["auto", "inline", "threads"]
HANDLER_MODES: tuple[str, ...] = ("auto", "inline", "threads")

PROMOTE_AFTER = 200
"""Quick calls in a row, on the pool, after which ``auto`` runs a bot's calls inline."""
QUICK_S = 0.002
"""A call this quick counts towards running inline."""
SLOW_S = 0.010
"""An inline call slower than this sends ``auto`` back to the pool for good."""

_MALFORMED = (messages.MalformedMessageError, InvalidRuleSetError)
_INVALID = grpc.StatusCode.INVALID_ARGUMENT
_INTERNAL = grpc.StatusCode.INTERNAL


def _timed(call: Callable[[Any], Message], arg: Any) -> tuple[Message, float]:
    t0 = perf_counter()
    result = call(arg)
    return result, perf_counter() - t0


class Handlers:
    """Where a bot's method calls run (module docstring); used from the server's loop only."""

    __slots__ = ("_pool", "_quick", "inline", "mode", "settled")

    def __init__(self, mode: HandlerMode, pool: futures.Executor | None) -> None:
        if mode not in HANDLER_MODES:
            raise ValueError(f"handlers must be one of {', '.join(HANDLER_MODES)}, not {mode!r}")
        if mode != "inline" and pool is None:
            raise ValueError(f"handlers={mode!r} needs a thread pool")
        self.mode = mode
        self._pool = pool
        self.inline = mode == "inline"
        """True while calls run on the loop."""
        self.settled = mode != "auto"
        """True once ``auto`` has sent the calls back to the pool for good (or no ``auto``)."""
        self._quick = 0

    async def call(self, call: Callable[[Any], Message], arg: Any) -> Message:
        """``call(arg)``, inline or on the pool as the policy says; its exception propagates."""
        if self.inline:
            if self.settled:
                return call(arg)
            t0 = perf_counter()
            try:
                return call(arg)
            finally:
                if perf_counter() - t0 > SLOW_S:
                    self.inline = False
                    self.settled = True
                    log.info("bot calls take long: they run on a thread pool from now on")
        loop = asyncio.get_running_loop()
        if self.settled:
            return await loop.run_in_executor(self._pool, call, arg)
        try:
            result, took = await loop.run_in_executor(self._pool, _timed, call, arg)
        except BaseException:
            self._quick = 0  # a call that failed does not count as a quick one
            raise
        if took < QUICK_S:
            self._quick += 1
            if self._quick >= PROMOTE_AFTER and not self.settled:
                self.inline = True
        else:
            self._quick = 0
        return result


class AioBotServicer(bot_pb2_grpc.BotServiceServicer):
    """The BotService of one bot on an aio server (statuses: module docstring), each bot call
    made where ``handlers`` says."""

    def __init__(self, bot: Bot, handlers: Handlers) -> None:
        self.handler = BotHandler(bot)
        self.handlers = handlers
        h = self.handler
        self._notices: dict[str, Callable[[Any], Message]] = {
            "start_match": h.start_match,
            "end_hand": h.end_hand,
            "end_match": h.end_match,
        }
        self._answers: dict[Decision, Callable[[Any], Message]] = {
            d: functools.partial(h.answer, d) for d in Decision
        }

    async def _run(
        self, call: Callable[[Any], Message], request: Any, context: grpc.aio.ServicerContext
    ) -> Message:
        try:
            return await self.handlers.call(call, request)
        except _MALFORMED as exc:
            with serving(request.match_id):
                log.error("bot %s got a malformed request: %s", self.handler.bot.name, exc)
            await context.abort(_INVALID, f"malformed request: {exc}")
            raise  # unreachable: abort raises
        except Exception as exc:
            with serving(request.match_id):
                log.exception("bot %s failed", self.handler.bot.name)
            await context.abort(_INTERNAL, f"{type(exc).__name__}: {exc}")
            raise  # unreachable: abort raises

    async def StartMatch(self, request: Any, context: Any) -> Any:
        return await self._run(self.handler.start_match, request, context)

    async def DecideDoubleNil(self, request: Any, context: Any) -> Any:
        return await self._run(self._answers[Decision.DOUBLE_NIL], request, context)

    async def Draw(self, request: Any, context: Any) -> Any:
        return await self._run(self._answers[Decision.DRAW], request, context)

    async def Exchange(self, request: Any, context: Any) -> Any:
        return await self._run(self._answers[Decision.EXCHANGE], request, context)

    async def Bid(self, request: Any, context: Any) -> Any:
        return await self._run(self._answers[Decision.BID], request, context)

    async def Play(self, request: Any, context: Any) -> Any:
        return await self._run(self._answers[Decision.PLAY], request, context)

    async def EndHand(self, request: Any, context: Any) -> Any:
        return await self._run(self.handler.end_hand, request, context)

    async def EndMatch(self, request: Any, context: Any) -> Any:
        return await self._run(self.handler.end_match, request, context)

    async def PlaySession(self, request_iterator: Any, context: Any) -> None:
        """Answer a match's requests on one stream, in order: the unary RPCs' answers, an error
        as a ``SessionError`` with the status the unary RPC would fail with. Reads and writes on the
        context itself (no async generators in between)."""
        read = context.read
        write = context.write
        handlers = self.handlers
        notices = self._notices
        answers = self._answers
        name = self.handler.bot.name
        eof = grpc.aio.EOF
        while True:
            request = await read()
            if request is eof:
                return
            kind = request.WhichOneof("request")
            response = pb.PlaySessionResponse(seq=request.seq)
            inner = None
            try:
                if kind is None:
                    raise messages.MalformedMessageError("a PlaySession request with no request")
                decision = _SESSION_DECISIONS[kind]
                call = notices[kind] if decision is None else answers[decision]
                inner = getattr(request, kind)
                if handlers.inline and handlers.settled:
                    result = call(inner)
                else:
                    result = await handlers.call(call, inner)
                getattr(response, kind).CopyFrom(result)
            except _MALFORMED as exc:
                with serving(getattr(inner, "match_id", "")):
                    log.error("bot %s got a malformed request: %s", name, exc)
                response.error.code = _INVALID.value[0]
                response.error.message = f"malformed request: {exc}"
            except Exception as exc:
                with serving(getattr(inner, "match_id", "")):
                    log.exception("bot %s failed", name)
                response.error.code = _INTERNAL.value[0]
                response.error.message = f"{type(exc).__name__}: {exc}"
            await write(response)
