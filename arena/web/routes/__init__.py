"""The web arena's routes, one module per resource, each a function that returns the list of
routes ``arena.web.app.create_app`` mounts: the leaderboard (``leaderboard``), bots (``bots``),
tournaments (``tournaments``), matches and their logs (``matches``), accounts and signing in
(``accounts``), uploads (``submit``), the ladder (``ladder``, ``bot_ladder``), a person's seat at
the table (``play``), comparisons (``compare``). They see the application through ``Site`` (what
``arena.web.app.WebArena`` offers them), so that they import nothing of it; what they show is a
view model of ``arena.web.views``, the same for a page and for the JSON API."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import HTMLResponse

from arena.store import Store
from arena.visibility import Viewer, Visibility
from arena.web.history import RatingHistory
from arena.web.live import LiveHub
from arena.web.lru import Lru
from arena.web.sessions import WebSessions
from arena.web.stream_limits import StreamSlots

V = TypeVar("V")


class Site(Protocol):
    """The application's state as the route modules use it."""

    store: Store
    sessions: WebSessions
    config: Any
    """``arena.web.app.WebConfig``."""
    env: Environment
    history: RatingHistory
    live: LiveHub
    streams: StreamSlots
    frames: Lru[bytes]
    """Replay frames of recorded matches, compressed JSON, by (match id, view)."""

    def viewer(self, request: Request) -> Viewer: ...

    def policy(self, request: Request) -> Visibility: ...

    def cached(self, key: tuple[Hashable, ...], make: Callable[[], V]) -> V: ...

    def render(
        self, request: Request, name: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse: ...
