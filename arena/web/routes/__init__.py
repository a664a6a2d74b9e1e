"""The web arena's pages that change something, one module per capability, each a list of
routes that ``create_app`` mounts: accounts (``accounts``), uploads (``submit``), the
ladder (``ladder``), a person's seat at the table (``play``), comparisons (``compare``). They
see the application through ``Site`` (what ``arena.web.app.WebArena`` offers them), so that
they import nothing of it."""

from __future__ import annotations

from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse

from arena.store import Store
from arena.visibility import Visibility
from arena.web.sessions import WebSessions


class Site(Protocol):
    """The application's state as the route modules use it."""

    store: Store
    sessions: WebSessions
    config: Any
    """``arena.web.app.WebConfig``."""

    def policy(self, request: Request) -> Visibility: ...

    def render(
        self, request: Request, name: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse: ...
