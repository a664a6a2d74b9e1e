"""The ladder on the web (``/ladder``): what the ladder last said it was doing (the store's
``ladder_status``, as ``arena ladder status`` prints it) — the pairs in play, who takes part
(most uncertain first), who waits and why, who is paused and why. A pause's reason goes
through the visibility policy (it may quote a bot's own words: whole to an admin, to the
bot's owner up to the opponent's); the organiser's collusion flags are an admin's only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.web.routes import Site


def ladder_routes(arena: Site, timed: Callable[..., Any]) -> list[Route]:
    def ladder_page(request: Request) -> Response:
        status = arena.store.ladder_status()
        policy = arena.policy(request)
        if status is not None:
            status = dict(status)
            status["paused"] = [
                {**p, "reason": policy.pause_reason(p["bot"], p["reason"])}
                for p in status.get("paused", [])
            ]
            if not policy.viewer.admin:
                status["flags"] = []
        return arena.render(request, "ladder.html", ladder=status, title="Ladder · Spades Arena")

    return [Route("/ladder", timed(ladder_page))]
