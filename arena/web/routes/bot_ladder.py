"""Pausing and resuming one's bot on the ladder from the browser (``POST /bots/NAME/ladder``,
the buttons of the account page's "My bots"). A pause is the store's ladder pause of the bot's
latest version, of kind ``owner``: the ladder leaves a paused version out of its pairs until it
is resumed. The owner lifts only their own pauses (one for faults or a failed start is lifted by
a new version, or by an admin, who may pause and resume any bot)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.web.routes import Site

OWNER_PAUSE = "owner"
"""A ladder pause's kind when the bot's owner (or an admin) paused it by hand."""


def bot_ladder_routes(arena: Site, timed: Callable[..., Any]) -> list[Route]:
    store = arena.store

    async def pause_or_resume(request: Request) -> Response:
        form = await arena.sessions.read_form(request)
        name = request.path_params["name"]
        action = form.get("action", "")
        if action not in ("pause", "resume"):
            raise HTTPException(400, "action must be pause or resume")

        def run() -> Response:
            session = arena.sessions.current(request)
            account = None if session is None else store.account_of_token(session.token_id)
            if account is None:
                raise HTTPException(401, "sign in first (/login)")
            bot = next((b for b in store.list_bots() if b.name == name), None)
            if bot is None or not bot.versions:
                raise HTTPException(404, f"unknown bot {name!r}")
            admin = account.role == "admin"
            if bot.owner_token_id != account.token_id and not admin:
                raise HTTPException(403, f"bot {name!r} is not yours: only its owner pauses it")
            latest = bot.versions[-1]
            pause = store.ladder_pauses().get(latest.id)
            if action == "pause" and pause is None:
                store.pause_ladder_version(
                    latest.id, f"paused by {account.name}",
                    datetime.now(UTC).isoformat(timespec="seconds"), kind=OWNER_PAUSE,
                )  # fmt: skip
            elif action == "resume" and pause is not None:
                if pause.get("kind") != OWNER_PAUSE and not admin:
                    raise HTTPException(
                        403, f"{name}@{latest.version_label} was paused by the ladder "
                        f"({pause.get('reason', '')[:200]}): submit a new version, or ask an admin",
                    )  # fmt: skip
                store.unpause_ladder_version(latest.id)
            return RedirectResponse("/account", status_code=303)

        response: Response = await anyio.to_thread.run_sync(run)
        return response

    return [Route("/bots/{name:str}/ladder", pause_or_resume, methods=["POST"])]
