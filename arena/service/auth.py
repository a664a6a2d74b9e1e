"""Token authentication for the arena service, as a server interceptor.

Calls that write (``WRITE_METHODS``) need ``authorization: Bearer <token>`` metadata; reads are
open unless the server is started with ``--auth-reads``. A token that is sent is always checked,
even on an open read, so a wrong token is reported rather than silently ignored. The caller's
identity reaches the servicer through ``current_caller()``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

SERVICE_PREFIX = "/arena.v1.ArenaService/"
WRITE_METHODS = frozenset({"SubmitBot", "StartTournament"})
METADATA_KEY = "authorization"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who made a call: the token's id and name, or anonymous (both None) on an open read."""

    token_id: int | None = None
    name: str | None = None

    @property
    def anonymous(self) -> bool:
        return self.token_id is None


ANONYMOUS = Caller()
_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("arena_caller", default=ANONYMOUS)

TokenVerifier = Callable[[str], Caller | None]
"""Maps a presented token to its caller, or None when no such token exists."""


def current_caller() -> Caller:
    """The caller of the RPC being served on this thread."""
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


class TokenAuthInterceptor(grpc.ServerInterceptor):
    """Checks the token of every arena.v1 call; health and reflection calls pass untouched."""

    def __init__(self, verify: TokenVerifier, *, auth_reads: bool = False) -> None:
        self._verify = verify
        self._auth_reads = auth_reads

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        method: str = handler_call_details.method  # type: ignore[attr-defined]
        if handler is None or not method.startswith(SERVICE_PREFIX):
            return handler
        name = method[len(SERVICE_PREFIX) :]
        required = name in WRITE_METHODS or self._auth_reads
        return _wrap(handler, lambda context: self._authenticate(context, name, required))

    def _authenticate(self, context: grpc.ServicerContext, method: str, required: bool) -> Caller:
        token = bearer_token(context.invocation_metadata())
        if token is None:
            if not required:
                return ANONYMOUS
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} needs a token: pass --token or set ARENA_TOKEN "
                "(metadata `authorization: Bearer <token>`; `arena token create NAME` makes one)",
            )
        if not token:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "malformed authorization metadata: expected `Bearer <token>`",
            )
        caller = self._verify(token)  # type: ignore[arg-type]
        if caller is None:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "unknown token: it was never issued by this arena (check --token / ARENA_TOKEN)",
            )
        return caller  # type: ignore[return-value]


def _wrap(
    handler: grpc.RpcMethodHandler, authenticate: Callable[[grpc.ServicerContext], Caller]
) -> grpc.RpcMethodHandler:
    """The same handler, authenticating first and running the behaviour as that caller."""
    if handler.unary_unary is not None:
        inner_uu = handler.unary_unary

        def unary_unary(request: Any, context: grpc.ServicerContext) -> Any:
            token = _caller.set(authenticate(context))
            try:
                return inner_uu(request, context)
            finally:
                _caller.reset(token)

        return grpc.unary_unary_rpc_method_handler(
            unary_unary, handler.request_deserializer, handler.response_serializer
        )
    if handler.unary_stream is not None:
        inner_us = handler.unary_stream

        def unary_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            # No reset: a stream may be closed from another thread; every call sets its own.
            _caller.set(authenticate(context))
            yield from inner_us(request, context)

        return grpc.unary_stream_rpc_method_handler(
            unary_stream, handler.request_deserializer, handler.response_serializer
        )
    return handler  # the arena service has no client-streaming calls
