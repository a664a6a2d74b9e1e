"""The web arena as a Starlette application: pages and a JSON read API over one store, one
route module per resource (``arena.web.routes``) showing one view model per thing
(``arena.web.views``) to a page and to the API alike.

Public pages need no sign-in; a bot's logs and its own words need its owner: an API token (the
gRPC service's) sent as ``Authorization: Bearer …``, or a browser signed in to the owner's
account with its password or the token (``routes/accounts.py``, a server-side session:
``sessions.py``). What a page or an API answer shows of a tournament, a match, a bot or a log
is ``arena.visibility``'s to say (the service reads through the same policy): a running
tournament's seed and a deal still to be played are shown to no one. An unknown bot, match or
tournament is a 404, a malformed query parameter a 400, both in the site's style (or as JSON
under ``/api``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.rules.cards import card_name
from arena.service.permissions import Quotas
from arena.store import NotFoundError, Store, StoreError
from arena.visibility import ANYONE, SealedError, Viewer, Visibility
from arena.web.headers import SecurityHeaders
from arena.web.history import RatingHistory
from arena.web.live import LiveHub
from arena.web.lru import Lru
from arena.web.params import timed
from arena.web.replay_view import VIEWS
from arena.web.routes.accounts import account_routes
from arena.web.routes.bot_ladder import bot_ladder_routes
from arena.web.routes.bots import bot_routes
from arena.web.routes.compare import compare_routes
from arena.web.routes.ladder import ladder_routes
from arena.web.routes.leaderboard import leaderboard_routes
from arena.web.routes.matches import match_routes
from arena.web.routes.play import PlayConfig, play_routes
from arena.web.routes.submit import submit_routes
from arena.web.routes.tournaments import tournament_routes, tournament_update
from arena.web.sessions import CsrfToken, WebSessions
from arena.web.stream_limits import StreamSlots
from arena.web.views import when

STATIC_DIR = Path(__file__).parent / "static"
FRAME_CACHE = 32
"""Matches whose replay frames (one view each) are kept."""
RENDERED_CACHE = 64
"""Leaderboard pages (rows HTML, API JSON, views) kept per query and ratings fingerprint."""
SUIT_CLASS = "cdhs"
V = TypeVar("V")


def _card(card: int) -> dict[str, Any]:
    name = card_name(card)
    return {"name": name, "rank": name[0].replace("T", "10"), "suit": SUIT_CLASS[card // 13]}


@dataclass
class WebConfig:
    live_interval_s: float = 0.5
    secure_cookies: bool = False
    """The site is served over TLS (directly or by a proxy in front): cookies are ``Secure``
    and every response carries HSTS."""
    request_head_timeout_s: float = 5.0
    """A connection that has not sent a whole request head by then is closed (server.py)."""
    max_streams: int = 256
    """Live event streams open at once over all clients; one more is a 429 (stream_limits.py)."""
    max_streams_per_address: int = 8
    """Live event streams open at once from one client address."""
    session_days: float = 7.0
    """A signed-in browser's session ends this long after signing in (sessions.py)."""
    signup: str = "closed"
    """Who may sign up on ``/signup``: ``open``, ``invite`` (with a code an admin made) or
    ``closed`` (routes/accounts.py)."""
    quotas: Quotas = field(default_factory=Quotas)
    """The per-account quotas (the service's, with ``arena serve --web``), shown on /account."""
    tournaments: Any = None
    """The service's ``TournamentManager`` (``arena serve --web``): comparisons started from a
    bot page run there (``arena.web.routes.compare``); None: the web starts none."""
    submissions: Any = None
    """``arena.service.submission.BotSubmissions`` that ``/submit`` stores uploads with (the
    service's own, with ``arena serve --web``); None: the web takes no uploads."""
    data_dir: Path | None = None
    """The database's data folder, where the bots' logs are (``arena serve --data-dir``): the
    owner's logs page reads the files the service's GetMatchLog reads. None: no logs kept."""
    play: PlayConfig = field(default_factory=PlayConfig)
    """Who a person may play at ``/play``, and how (routes/play.py)."""


class WebArena:
    """The application's state: the store, the caches, the live hub, the templates (what the
    route modules see of it is ``arena.web.routes.Site``)."""

    def __init__(self, store: Store, config: WebConfig | None = None) -> None:
        self.store = store
        self.config = config or WebConfig()
        self.history = RatingHistory(store)
        self.env = Environment(
            loader=PackageLoader("arena.web", "templates"),
            autoescape=select_autoescape(["html"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(card=_card, when=when, views=VIEWS)
        self.env.filters["ms"] = lambda us: "" if us is None else f"{us / 1000:.1f} ms"
        self.live = LiveHub(
            store, lambda tid, new: tournament_update(self, tid, new), self.config.live_interval_s
        )
        self.streams = StreamSlots(self.config.max_streams, self.config.max_streams_per_address)
        self.sessions = WebSessions(
            store,
            lifetime=timedelta(days=self.config.session_days),
            secure=self.config.secure_cookies,
        )
        self.frames: Lru[bytes] = Lru(FRAME_CACHE)
        self._rendered: Lru[Any] = Lru(RENDERED_CACHE)
        """(what, query, ratings fingerprint) -> leaderboard view, HTML rows or API JSON bytes."""

    def cached(self, key: tuple[Hashable, ...], make: Callable[[], V]) -> V:
        """A small LRU for what is derived from the ratings alone (``key`` ends with their
        fingerprint, so a changed rating is never served stale; None: not kept)."""
        if key[-1] is None:
            return make()
        made: V = self._rendered.get_or_make(key, make)
        return made

    def render(self, request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("title", "Spades Arena")
        ctx["path"] = request.url.path
        ctx["csrf"] = csrf = CsrfToken(self.sessions, request)
        ctx.setdefault("me", self.sessions.current(request))
        ctx.setdefault("signup_open", self.config.signup != "closed")
        response = HTMLResponse(self.env.get_template(name).render(**ctx), status_code=status)
        csrf.set_cookie(response, self.config.secure_cookies)
        return response

    # -- who asks ----------------------------------------------------------------------------------

    def caller(self, request: Request) -> tuple[int, str] | None:
        """The token's (id, name) from the Authorization header or the browser's session; None
        if neither (an expired or revoked session is none).

        A token that is sent but unknown is a 401 (as the gRPC service answers)."""
        header = request.headers.get("authorization")
        if header is None:
            session = self.sessions.current(request)
            return None if session is None else (session.token_id, session.name)
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise HTTPException(401, "malformed Authorization header: expected Bearer <token>")
        token = value.strip()
        info = self.store.verify_token(token)
        if info is None:
            raise HTTPException(401, "unknown token: it was never issued by this arena, or revoked")
        return info.id, info.name

    def viewer(self, request: Request) -> Viewer:
        """The caller as the visibility policy's viewer. A stale login cookie on a public page
        is anyone (a token sent in a header is checked: a wrong one is a 401)."""
        try:
            who = self.caller(request)
        except HTTPException:
            if request.headers.get("authorization") is not None:
                raise
            return ANYONE
        if who is None:
            return ANYONE
        role = next((t.role for t in self.store.list_tokens() if t.id == who[0]), None)
        return Viewer(token_id=who[0], name=who[1], role=role)

    def policy(self, request: Request) -> Visibility:
        return Visibility(self.store, self.viewer(request))


# -- the application --------------------------------------------------------------------------


def create_app(store: Store, config: WebConfig | None = None) -> Starlette:
    """The web arena over ``store``: one route module per resource (``arena.web.routes``),
    the errors in the site's style (or as JSON under ``/api``), the security headers."""
    arena = WebArena(store, config)

    def docs_api(request: Request) -> Response:
        return arena.render(request, "api.html", title="JSON API · Spades Arena")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(request, exc.status_code, str(exc.detail))

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(request, 404, str(exc))

    async def sealed(request: Request, exc: Exception) -> Response:
        return _error(request, 403, str(exc))

    async def store_error(request: Request, exc: Exception) -> Response:
        return _error(request, 503, f"the database could not be read: {exc}")

    def _error(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        heading = ERROR_TITLES.get(status, "Error")
        return arena.render(
            request, "error.html", status=status, code=status, heading=heading, message=message,
            title=f"{heading} · Spades Arena",
        )  # fmt: skip

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await arena.live.close()
        await anyio.to_thread.run_sync(tables.close)

    play, tables = play_routes(arena, arena.config.play)
    routes = [
        *play,
        *leaderboard_routes(arena, timed),
        *bot_routes(arena, timed),
        *tournament_routes(arena, timed),
        *match_routes(arena, timed),
        *account_routes(arena, timed),
        *submit_routes(arena, timed),
        *ladder_routes(arena, timed),
        *bot_ladder_routes(arena, timed),
        *compare_routes(arena, timed),
        Route("/api", timed(docs_api)),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityHeaders, tls=arena.config.secure_cookies),
            Middleware(GZipMiddleware, minimum_size=2048),
        ],
        exception_handlers={
            HTTPException: http_error,
            NotFoundError: not_found,
            SealedError: sealed,
            StoreError: store_error,
        },
        lifespan=lifespan,
    )
    app.state.arena = arena
    app.state.play_tables = tables
    """The person tables of /play (``arena.humanplay.Tables``): their bot pool's figures."""
    return app


ERROR_TITLES = {
    400: "Bad request", 401: "Token needed", 403: "Not shown", 404: "Not found",
    405: "Method not allowed", 409: "Cannot replay", 503: "Unavailable",
}  # fmt: skip
