"""How many live event streams (``/tournaments/ID/events``) the web arena keeps open: per
client address and in total.

A stream is an open connection and a viewer's queue for as long as the page stays open, so an
unbounded number from one address starves everyone else (10,000 from one address once stopped
every other page). One more than the cap is answered ``429 Too Many Requests`` with a
``Retry-After``; the tournament page then follows by polling ``/api/tournaments/ID/update``
instead (``static/tournament.js``). A stream gives its place back however it ends: the client
leaves, the server drops a slow viewer, or the server stops.

Behind a reverse proxy every client has the proxy's address: set the per-address cap to the
total there, or run the proxy's own limits.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Mapping

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

RETRY_AFTER_S = 30


class StreamSlots:
    """Places for open streams, counted per client address and in total. Used on the server's
    event loop only (the counts need no lock)."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total = total
        self.per_address = per_address
        self.open = 0
        self.by_address: dict[str, int] = {}

    def refusal(self, address: str) -> str | None:
        """Why a new stream from ``address`` is refused now, or None when there is room."""
        if self.by_address.get(address, 0) >= self.per_address:
            return (
                f"{self.per_address} live streams are open from your address, the limit: "
                "close some pages (this page updates by polling instead)"
            )
        if self.open >= self.total:
            return (
                f"the server has {self.open} live streams open, its limit: try again later "
                "(this page updates by polling instead)"
            )
        return None

    def take(self, address: str) -> None:
        self.open += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1

    def give_back(self, address: str) -> None:
        self.open -= 1
        left = self.by_address.get(address, 1) - 1
        if left:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    def stream(
        self,
        request: Request,
        content: AsyncIterable[bytes],
        *,
        media_type: str,
        headers: Mapping[str, str],
    ) -> Response:
        """The streaming response holding a place, or a 429 when there is none."""
        address = request.client.host if request.client is not None else "unknown"
        why = self.refusal(address)
        if why is not None:
            return PlainTextResponse(
                why, status_code=429, headers={"retry-after": str(RETRY_AFTER_S)}
            )
        self.take(address)
        return _HeldStream(self, address, content, media_type=media_type, headers=headers)


class _HeldStream(StreamingResponse):
    """A streaming response that gives its place back when it ends, however it ends (even
    when the client left before its first byte, and its body never started)."""

    def __init__(
        self,
        slots: StreamSlots,
        address: str,
        content: AsyncIterable[bytes],
        *,
        media_type: str,
        headers: Mapping[str, str],
    ) -> None:
        super().__init__(content, media_type=media_type, headers=dict(headers))
        self._slots = slots
        self._address = address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._slots.give_back(self._address)
