"""Token authentication for the arena service, as a server interceptor.

Calls that write (``WRITE_METHODS``) need ``authorization: Bearer <token>`` metadata; reads are
open unless the server is started with ``--auth-reads``. A token that is sent is always checked,
even on an open read, so a wrong token is reported rather than silently ignored. The caller's
identity reaches the servicer through ``current_caller()``.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc import aio

from arena.store import TokenInfo
from arena.visibility import ANYONE, Viewer

SERVICE_PREFIX = "/arena.v1.ArenaService/"
WRITE_METHODS = frozenset({"SubmitBot", "StartTournament", "CancelTournament", "ResumeTournament"})
METADATA_KEY = "authorization"
MAX_TOKEN_CHARS = 200


Caller = Viewer
"""Who made a call: the visibility policy's viewer (a token's id, name and role, or anyone)."""


def caller_of(info: TokenInfo) -> Caller:
    return Caller(token_id=info.id, name=info.name, role=info.role)


ANONYMOUS = ANYONE
_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("arena_caller", default=ANONYMOUS)

TokenVerifier = Callable[[str], Caller | None]
"""Maps a presented token to its caller, or None when no such token exists."""


def current_caller() -> Caller:
    """The caller of the RPC being served (in its task, and in the worker it runs on)."""
    return _caller.get()


def bearer_token(metadata: Any) -> str | None:
    """The token of an ``authorization: Bearer <token>`` entry, or None when there is none."""
    for key, value in metadata or ():
        if key.lower() == METADATA_KEY:
            scheme, _, token = str(value).strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return ""
    return None


class TokenAuthInterceptor(aio.ServerInterceptor):
    """Checks the token of every arena.v1 call; health and reflection calls pass untouched.

    The token is looked up in the store on ``run_blocking`` (a worker thread), never on the
    event loop."""

    def __init__(
        self,
        verify: TokenVerifier,
        run_blocking: Callable[..., Awaitable[Any]],
        *,
        auth_reads: bool = False,
    ) -> None:
        self._verify = verify
        self._run_blocking = run_blocking
        self._auth_reads = auth_reads

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(SERVICE_PREFIX):
            return handler
        name = method[len(SERVICE_PREFIX) :]
        required = name in WRITE_METHODS or self._auth_reads
        return _wrap(handler, lambda context: self._authenticate(context, name, required))

    async def _authenticate(
        self, context: aio.ServicerContext, method: str, required: bool
    ) -> Caller:
        token = bearer_token(context.invocation_metadata())
        if token is None:
            if not required:
                return ANONYMOUS
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} needs a token: pass --token or set ARENA_TOKEN "
                "(metadata `authorization: Bearer <token>`; `arena token create NAME` makes one)",
            )
        if not token or len(token) > MAX_TOKEN_CHARS:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "malformed authorization metadata: expected `Bearer <token>`",
            )
        caller = await self._run_blocking(self._verify, token)
        if caller is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "unknown token: it was never issued by this arena (check --token / ARENA_TOKEN)",
            )
        return caller


def _wrap(
    handler: grpc.RpcMethodHandler,
    authenticate: Callable[[aio.ServicerContext], Awaitable[Caller]],
) -> grpc.RpcMethodHandler:
    """The same handler, authenticating first and running the behaviour as that caller."""
    if handler.unary_unary is not None:
        inner_uu = handler.unary_unary

        async def unary_unary(request: Any, context: aio.ServicerContext) -> Any:
            _caller.set(await authenticate(context))  # each call runs in a task of its own
            return await inner_uu(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary_unary, handler.request_deserializer, handler.response_serializer
        )
    if handler.unary_stream is not None:
        inner_us = handler.unary_stream

        async def unary_stream(request: Any, context: aio.ServicerContext) -> AsyncIterator[Any]:
            _caller.set(await authenticate(context))
            async for item in inner_us(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(
            unary_stream, handler.request_deserializer, handler.response_serializer
        )
    return handler  # the arena service has no client-streaming calls
