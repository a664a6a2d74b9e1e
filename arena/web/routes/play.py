"""``/play``: a person sits down against a bot, on the arena's own referee (``arena.humanplay``).

The page asks for the open request with a long poll (``GET /api/play/{table}?since=N`` answers
at once when the state is newer than ``N``, else when it changes, else after ``POLL_S``) and
posts the answer as a form with the page's CSRF token. The table's id, unguessable, is the
person's key to it: the same URL resumes the match after the tab was closed.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.humanplay import AnswerRefused, TableError, Tables
from arena.humanplay.seat import TooManyListeners
from arena.humanplay.table import RULE_SETS, Table

__all__ = ["PlayConfig", "play_routes"]

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots"
POLL_S = 20.0
"""A long poll answers after this long even when nothing changed (proxies cut idle requests)."""


def _sample(name: str) -> Path | None:
    folder = SAMPLE_BOTS / name
    return folder if (folder / "bot.toml").is_file() else None


def _sample_opponents() -> dict[str, Path]:
    names = ("random", "cautious", "heuristic", "expert_pimc", "expert")
    return {n: SAMPLE_BOTS / n for n in names if (SAMPLE_BOTS / n / "bot.toml").is_file()}


@dataclass
class PlayConfig:
    """Who may be played at ``/play`` and how."""

    opponents: dict[str, Path] = field(default_factory=_sample_opponents)
    """Opponent name -> bot folder (a ``bot.toml``): the sample bots by default."""
    reference: Path | None = field(default_factory=lambda: _sample("expert"))
    """Beat the bot: the bot that plays a person's deal in the person's seat (None: off)."""
    max_tables: int = 50
    """Person matches played at once; one more is refused with a message."""
    default_move_time_s: int = 60
    default_bank_s: int = 120
    """The time bank offered by default: time beyond a decision's limit, for the match."""
    sandbox: str | None = None
    """The opponents' sandbox mode (``arena.sandbox``; None: ``auto``)."""


def play_routes(arena: Any, config: PlayConfig) -> tuple[list[Route], Tables]:
    """The routes of ``/play`` and the tables they serve (closed with the application).
    ``arena`` is the application's ``WebArena`` (its store, sessions and templates)."""
    tables = Tables(
        arena.store, config.opponents, max_tables=config.max_tables, sandbox=config.sandbox,
        reference=config.reference,
    )  # fmt: skip

    def table_of(request: Request) -> Table:
        table = tables.get(request.path_params["table"])
        if table is None:
            raise HTTPException(404, "no such table: it ended with the server, or never was")
        return table

    def lobby(request: Request, error: str | None = None, status: int = 200) -> Response:
        return arena.render(
            request, "play.html", status=status, title="Play · Spades Arena",
            opponents=list(config.opponents), rule_sets=RULE_SETS,
            move_time_s=config.default_move_time_s, bank_s=config.default_bank_s, error=error,
            reference=config.reference.name if config.reference else None,
        )  # fmt: skip

    def lobby_page(request: Request) -> Response:
        return lobby(request)

    async def open_table(request: Request) -> Response:
        form = await arena.sessions.read_form(request)  # 403 without its CSRF token
        try:
            move_time_s = int(form.get("clock", config.default_move_time_s))
            bank_s = int(form.get("bank", "0"))
            seat = int(form.get("seat", "0"))
        except ValueError:
            return lobby(request, "the clock, the bank and the seat are whole numbers", 400)
        try:
            table = tables.open(
                form.get("name", ""), form.get("opponent", ""), form.get("rules", ""),
                move_time_s, seat, compare=form.get("compare") == "on", bank_s=bank_s,
            )  # fmt: skip
        except TableError as exc:
            return lobby(request, str(exc), 400)
        return RedirectResponse(f"/play/{table.table_id}", status_code=303)

    def table_page(request: Request) -> Response:
        table = table_of(request)
        return arena.render(
            request, "play_table.html", title="Playing · Spades Arena", table=table,
            opponent=table.opponent_dir.name,
        )  # fmt: skip

    async def table_state(request: Request) -> Response:
        table = table_of(request)
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            raise HTTPException(400, "since is a whole number") from None
        if table.seat.version <= since:
            loop = asyncio.get_running_loop()
            changed = asyncio.Event()
            try:
                stop = table.seat.listen(lambda: loop.call_soon_threadsafe(changed.set))
            except TooManyListeners as exc:
                raise HTTPException(429, f"{exc}: close another tab of it") from None
            try:
                if table.seat.version <= since:
                    await asyncio.wait_for(changed.wait(), POLL_S)
            except TimeoutError:
                pass
            finally:
                stop()
        state = table.state()
        state["now_ms"] = int(time.time() * 1000)
        return JSONResponse(state, headers={"cache-control": "no-store"})

    async def answer(request: Request) -> Response:
        table = table_of(request)
        form = await arena.sessions.read_form(request)  # 403 without its CSRF token
        try:
            seq = int(form.get("seq", ""))
            value: Any = json.loads(form.get("answer", ""))
        except ValueError:
            raise HTTPException(400, "an answer is a seq and a JSON value") from None
        try:
            table.seat.answer(seq, value)  # under the seat's lock only: never blocks
        except AnswerRefused as exc:
            return JSONResponse({"error": str(exc), "refused": True}, status_code=409)
        return JSONResponse({"ok": True})

    routes = [
        Route("/play", lobby_page, methods=["GET"]),
        Route("/play", open_table, methods=["POST"]),
        Route("/play/{table:str}", table_page, methods=["GET"]),
        Route("/api/play/{table:str}", table_state, methods=["GET"]),
        Route("/api/play/{table:str}/answer", answer, methods=["POST"]),
    ]
    return routes, tables
