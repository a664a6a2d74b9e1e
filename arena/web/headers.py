"""Security headers on every response of the web arena, as ASGI middleware.

The pages load nothing from elsewhere and run no inline script (every script is a file under
``/static``), so the Content-Security-Policy can be strict: scripts, styles, images and
connections from this site only, no inline script or style attribute, no plugins, no ``<base>``,
forms posting only here, and no framing (``frame-ancestors 'none'``, and the older
``X-Frame-Options`` for browsers that predate it). Responses are never sniffed into another
type, the address of a page goes to no other site, and behind TLS the browser is told to use
nothing else (HSTS).
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}
HSTS = "max-age=31536000"
"""A year; without includeSubDomains, which would bind sites this arena knows nothing of."""


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response (a header the route set itself is kept), and
    ``Strict-Transport-Security`` when the request came over TLS or ``tls`` says the site is
    served over TLS by a proxy in front."""

    def __init__(self, app: ASGIApp, *, tls: bool = False) -> None:
        self.app = app
        self.tls = tls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tls = self.tls or scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if tls:
                    headers["strict-transport-security"] = HSTS
            await send(message)

        await self.app(scope, receive, send_with_headers)
