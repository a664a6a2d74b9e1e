"""Submitting a bot from the browser (``/submit``): a ``.tar.gz`` or ``.zip`` of its directory,
taken through the service's own path (``BotSubmissions.submit``: the archive rules, the
manifest, the reserved sample names, ownership, version reuse, the quotas and the start-up
check), as the signed-in account. A refusal is its one line on the form; an accepted upload
leads to the bot's page, with its versions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.runtime.archive import ArchiveLimits
from arena.runtime.zip_archive import is_zip, zip_to_tar_gz
from arena.store import StoreError
from arena.tournament.entrants import sample_bot_dirs
from arena.web.routes import Site

UPLOAD_FIELD = "archive"


def submit_routes(arena: Site, timed: Callable[..., Any]) -> list[Route]:
    store = arena.store
    sessions = arena.sessions

    def limits() -> ArchiveLimits:
        submissions = arena.config.submissions
        return submissions.limits if submissions is not None else ArchiveLimits()

    def form_page(request: Request, status: int = 200, **extra: Any) -> Response:
        session = sessions.current(request)
        if session is None:
            return RedirectResponse("/login?next=/submit", status_code=303)
        return arena.render(
            request, "submit.html", status=status, limits=limits(),
            enabled=arena.config.submissions is not None, title="Submit a bot · Spades Arena",
            **extra,
        )  # fmt: skip

    async def submit_post(request: Request) -> Response:
        submissions = arena.config.submissions
        form, filename, data = await sessions.read_upload(
            request, UPLOAD_FIELD, limits().max_archive_bytes
        )
        del form

        def run() -> Response:
            session = sessions.current(request)
            account = None if session is None else store.account_of_token(session.token_id)
            if account is None:
                return RedirectResponse("/login?next=/submit", status_code=303)
            if submissions is None:
                return form_page(request, 503, error="submitting is not enabled on this arena")
            try:
                archive = zip_to_tar_gz(data, submissions.limits) if is_zip(data) else data
                done = submissions.submit(
                    archive, owner_token_id=account.token_id, admin=account.role == "admin",
                    reserved=sample_bot_dirs(),
                )  # fmt: skip
            except (ArenaError, StoreError) as exc:
                line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                return form_page(request, 400, error=line, filename=filename)
            name = done.version.name
            return RedirectResponse(f"/bots/{name}?submitted={done.version.id}", status_code=303)

        response: Response = await anyio.to_thread.run_sync(run)
        return response

    return [
        Route("/submit", timed(form_page), methods=["GET"]),
        Route("/submit", submit_post, methods=["POST"]),
    ]
