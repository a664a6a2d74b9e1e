"""What one client may hold of the server: open streams, request sizes, idle time.

The server runs on ``grpc.aio``, so an open stream (a reflection session, a tournament watch, a
health watch) is a suspended coroutine, not a thread: a thousand idle streams cost memory, not
the workers that answer unary calls. What is left to bound is how many streams a client may
keep, and how big a request may be before it is parsed:

- streams are counted per peer address (every connection from one host together) and in total;
  one more is refused with ``RESOURCE_EXHAUSTED``;
- a reflection stream ends once no request came for ``stream_idle_s``; a watch ends after
  ``watch_max_s`` with the tournament's state (a client still interested watches again);
- every request but ``SubmitBot``'s is refused above ``max_request_bytes`` before it is parsed
  (the transport's own cap is the archive cap, which only ``SubmitBot`` needs);
- a request that is not a protobuf message of its method's type is ``INVALID_ARGUMENT`` with a
  plain message, not the ``UNKNOWN`` a failed deserializer gives (the parser is wrapped in the
  method's handler, through grpc's public ``*_rpc_method_handler`` functions);
- the HTTP/2 options (``transport_options``) cap streams per connection, close idle connections,
  probe dead peers and refuse clients that ping too often (keepalive enforcement).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc import aio

SUBMIT_METHOD = "/arena.v1.ArenaService/SubmitBot"


@dataclass(frozen=True, slots=True)
class ServiceLimits:
    """The server's caps on streams, connections and requests (``arena serve`` options)."""

    max_streams: int = 4000
    """Open streams of every kind, over all clients."""
    max_streams_per_peer: int = 1000
    """Open streams from one address (every connection of one host together)."""
    max_streams_per_connection: int = 100
    """HTTP/2 ``MAX_CONCURRENT_STREAMS``: calls in flight on one connection."""
    max_request_bytes: int = 16 * 1024
    """Largest request of every method but SubmitBot (whose cap is the archive cap)."""
    stream_idle_s: float = 120.0
    """A reflection stream that received no request for this long is ended."""
    watch_max_s: float = 3600.0
    """A tournament watch ends after this long with the tournament's state; watch again."""
    connection_idle_s: float = 300.0
    """A connection without a call for this long is closed."""
    keepalive_s: float = 60.0
    """The server pings a quiet connection this often and drops it when no answer comes."""
    min_client_ping_s: float = 10.0
    """Clients pinging more often than this are told off (GOAWAY after two strikes)."""
    max_submissions_at_once: int = 4
    """SubmitBot calls unpacked at once: the others wait, so uploads never take every worker."""


def transport_options(limits: ServiceLimits, receive_bytes: int) -> list[tuple[str, int]]:
    """gRPC core options for the limits above; ``receive_bytes`` is the transport's cap."""
    return [
        ("grpc.max_receive_message_length", receive_bytes),
        ("grpc.max_send_message_length", 256 * 1024 * 1024),
        ("grpc.max_concurrent_streams", limits.max_streams_per_connection),
        ("grpc.max_connection_idle_ms", int(limits.connection_idle_s * 1000)),
        ("grpc.keepalive_time_ms", int(limits.keepalive_s * 1000)),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", int(limits.min_client_ping_s * 1000)),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.max_metadata_size", 16 * 1024),
        ("grpc.so_reuseport", 0),
    ]


def peer_host(peer: str) -> str:
    """``ipv4:127.0.0.1:5123`` → ``127.0.0.1``; ``ipv6:[::1]:5123`` → ``::1``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].partition("]")[0]
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return peer


class Oversized:
    """Stands for a request that was too big to parse; the call is refused on seeing it."""

    def __init__(self, size: int) -> None:
        self.size = size


class Malformed:
    """Stands for a request that protobuf could not parse; the call is refused on seeing it."""

    def __init__(self, size: int) -> None:
        self.size = size


def _checked_parser(
    parse: Callable[[bytes], Any] | None, limit: int | None
) -> Callable[[bytes], Any]:
    def checked(data: bytes) -> Any:
        if limit is not None and len(data) > limit:
            return Oversized(len(data))
        if parse is None:
            return data
        try:
            return parse(data)
        except DecodeError:
            return Malformed(len(data))

    return checked


async def _refuse_oversized(
    request: Any, context: aio.ServicerContext, method: str, limit: int | None
) -> None:
    """Abort the call of a request that stood in for one too big or not parsable."""
    name = method.rsplit("/", 1)[-1]
    if isinstance(request, Oversized):
        await context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"the request is {request.size} bytes; {name} takes at most {limit} bytes",
        )
    if isinstance(request, Malformed):
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request to {name} ({request.size} bytes) is not a valid protobuf message "
            "of its type: send one built from the arena.v1 proto files",
        )


class StreamLimitInterceptor(aio.ServerInterceptor):
    """Counts open streams per peer and in total, bounds request sizes, ends idle streams."""

    def __init__(self, limits: ServiceLimits) -> None:
        self.limits = limits
        self.total = 0
        self.per_peer: dict[str, int] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if handler is None:
            return None
        method: str = details.method
        # SubmitBot's cap is the transport's (the archive cap, which the servicer checks).
        limit = None if method == SUBMIT_METHOD else self.limits.max_request_bytes
        parse = _checked_parser(handler.request_deserializer, limit)
        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: aio.ServicerContext) -> Any:
                await _refuse_oversized(request, context, method, limit)
                return await inner_uu(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary_unary, parse, handler.response_serializer
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, method, limit, requests_in=False),
                parse,
                handler.response_serializer,
            )
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(
                self._stream(handler.stream_stream, method, limit, requests_in=True),
                parse,
                handler.response_serializer,
            )
        return handler

    # -- counting ------------------------------------------------------------------------------

    async def _enter(self, context: aio.ServicerContext) -> str:
        host = peer_host(context.peer())
        if self.total >= self.limits.max_streams:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server has {self.total} streams open, its limit; try again later",
            )
        if self.per_peer.get(host, 0) >= self.limits.max_streams_per_peer:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self.limits.max_streams_per_peer} streams are open from {host}, the limit "
                "per address: close some before opening more",
            )
        self.total += 1
        self.per_peer[host] = self.per_peer.get(host, 0) + 1
        return host

    def _leave(self, host: str) -> None:
        self.total -= 1
        left = self.per_peer.get(host, 1) - 1
        if left:
            self.per_peer[host] = left
        else:
            self.per_peer.pop(host, None)

    def _stream(
        self, inner: Callable[..., Any], method: str, limit: int | None, *, requests_in: bool
    ) -> Callable[..., Any]:
        """The stream behaviour, counted, with its requests checked (and timed, for a
        client-streaming call); generator or reader/writer style, as ``inner`` is."""
        idle_s = self.limits.stream_idle_s

        def arguments(first: Any, context: aio.ServicerContext) -> Any:
            if not requests_in:
                return first
            return _timed_requests(first, context, method, limit, idle_s)

        if inspect.isasyncgenfunction(inner):

            async def generator(first: Any, context: aio.ServicerContext) -> AsyncIterator[Any]:
                if not requests_in:
                    await _refuse_oversized(first, context, method, limit)
                host = await self._enter(context)
                try:
                    async for item in inner(arguments(first, context), context):
                        yield item
                finally:
                    self._leave(host)

            return generator

        async def coroutine(first: Any, context: aio.ServicerContext) -> Any:
            if not requests_in:
                await _refuse_oversized(first, context, method, limit)
            host = await self._enter(context)
            try:
                return await inner(arguments(first, context), context)
            finally:
                self._leave(host)

        return coroutine


async def _timed_requests(
    requests: AsyncIterator[Any],
    context: aio.ServicerContext,
    method: str,
    limit: int | None,
    idle_s: float,
) -> AsyncIterator[Any]:
    """The client's requests, each checked for size; the stream ends after ``idle_s`` without
    one (an idle session holds nothing of the server for long)."""
    iterator = requests.__aiter__()
    while True:
        try:
            request = await asyncio.wait_for(iterator.__anext__(), idle_s)
        except StopAsyncIteration:
            return
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no request for {idle_s:g} s: the stream is closed; open a new one when needed",
            )
        await _refuse_oversized(request, context, method, limit)
        yield request
