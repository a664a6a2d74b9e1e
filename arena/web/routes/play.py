"""``/play``: a person sits down against a bot, on the arena's own referee (``arena.humanplay``).

A signed-in person plays as their own player (``human:<account>``, marked human everywhere),
may opt in to a rated match (the checkbox; unrated by default) and may pick any version of
their own bots besides the bots the organiser offers. An anonymous visitor plays unrated.

The page asks for the open request with a long poll (``GET /api/play/{table}?since=N`` answers
at once when the state is newer than ``N``, else when it changes, else after ``POLL_S``) and
posts the answer as a form with the page's CSRF token. The answer's response is the state too:
the one after the answer, or the next change when it comes within ``ANSWER_WAIT_S`` (nearly
always the next request, after the bot's turn), so that an answer costs one request, not two.
The table's id, unguessable, is the person's key to it: the same URL resumes the match after
the tab was closed.
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
from arena.humanplay.table import RULE_SETS, Opponent, Table
from arena.store import Store
from arena.store.bots import PERSON_PREFIX
from arena.store.web_sessions import SessionInfo

__all__ = ["PlayConfig", "play_routes"]

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots"
POLL_S = 20.0
"""A long poll answers after this long even when nothing changed (proxies cut idle requests)."""
ANSWER_WAIT_S = 1.0
"""An answer's response waits this long at most for what comes next (the bot's turn)."""
OWN_PREFIX = "mine:"
"""The lobby form's value for a version of the person's own bot: ``mine:<version id>``."""


def own_opponents(store: Store, me: SessionInfo | None) -> list[Opponent]:
    """Every version of the signed-in person's bots whose files are here, newest first."""
    if me is None:
        return []
    found = []
    for bot in store.list_bots():
        if bot.owner_token_id != me.token_id or bot.human:
            continue
        for v in reversed(bot.versions):
            folder = Path(v.source)
            if (folder / "bot.toml").is_file():
                found.append(Opponent(v.ref, folder, v.id, v.content_hash))
    return found


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
        me = arena.sessions.current(request)
        return arena.render(
            request, "play.html", status=status, title="Play · Spades Arena",
            opponents=list(config.opponents), rule_sets=RULE_SETS,
            own=[(f"{OWN_PREFIX}{o.version_id}", o.name) for o in own_opponents(arena.store, me)],
            player=player_of(me),
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
        me = arena.sessions.current(request)
        rated = form.get("rated") == "on"
        name, person_version = form.get("name", ""), None
        opponent: str | Opponent = form.get("opponent", "")
        try:
            if me is not None:
                account = arena.store.account_of_token(me.token_id)
                if account is None:
                    raise TableError("this sign-in has no account: sign in with a password")
                person = arena.store.register_person(account.id)
                name, person_version = person.name, person.id
            if isinstance(opponent, str) and opponent.startswith(OWN_PREFIX):
                opponent = own_opponent(me, opponent)
            table = tables.open(
                name, opponent, form.get("rules", ""), move_time_s, seat,
                compare=form.get("compare") == "on", bank_s=bank_s,
                person_version_id=person_version, rated=rated,
            )  # fmt: skip
        except TableError as exc:
            return lobby(request, str(exc), 400)
        return RedirectResponse(f"/play/{table.table_id}", status_code=303)

    def player_of(me: SessionInfo | None) -> str | None:
        """The player name a signed-in person plays as (before their first match, the one
        their first match will give them)."""
        account = None if me is None else arena.store.account_of_token(me.token_id)
        if account is None:
            return None
        return arena.store.person_of_account(account.id) or f"{PERSON_PREFIX}{account.name}"

    def own_opponent(me: SessionInfo | None, value: str) -> Opponent:
        """The person's own bot version named by the form (``mine:<id>``), or ``TableError``."""
        if me is None:
            raise TableError("sign in to play your own bots")
        for o in own_opponents(arena.store, me):
            if f"{OWN_PREFIX}{o.version_id}" == value:
                return o
        raise TableError(f"{value!r} is not a version of a bot of yours with its files here")

    def table_page(request: Request) -> Response:
        table = table_of(request)
        return arena.render(
            request, "play_table.html", title="Playing · Spades Arena", table=table,
            opponent=table.opponent_name or table.opponent_dir.name,
        )  # fmt: skip

    async def changed(table: Table, since: int, timeout: float) -> None:
        """Wait until the table's state is newer than ``since``, or ``timeout`` seconds."""
        seat = table.seat
        if seat.version > since:
            return
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()
        try:
            stop = seat.listen(lambda: loop.call_soon_threadsafe(changed.set))
        except TooManyListeners as exc:
            raise HTTPException(429, f"{exc}: close another tab of it") from None
        try:
            if seat.version <= since:
                await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            stop()

    def state_of(table: Table, **extra: Any) -> Response:
        state = table.state()
        state["now_ms"] = int(time.time() * 1000)
        state.update(extra)
        return JSONResponse(state, headers={"cache-control": "no-store"})

    async def table_state(request: Request) -> Response:
        table = table_of(request)
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            raise HTTPException(400, "since is a whole number") from None
        await changed(table, since, POLL_S)
        return state_of(table)

    async def answer(request: Request) -> Response:
        table = table_of(request)
        form = await arena.sessions.read_form(request)  # 403 without its CSRF token
        try:
            seq = int(form.get("seq", ""))
            value: Any = json.loads(form.get("answer", ""))
        except ValueError:
            raise HTTPException(400, "an answer is a seq and a JSON value") from None
        try:
            version = table.seat.answer(seq, value)  # under the seat's lock only: never blocks
        except AnswerRefused as exc:
            return JSONResponse({"error": str(exc), "refused": True}, status_code=409)
        # What comes next (the next request, after the bot's turn) comes with the answer's
        # response when it is there within ANSWER_WAIT_S: one request an answer, not two.
        # Else the state just after the answer: the page waits for the next from its version.
        await changed(table, version, ANSWER_WAIT_S)
        return state_of(table, ok=True)

    routes = [
        Route("/play", lobby_page, methods=["GET"]),
        Route("/play", open_table, methods=["POST"]),
        Route("/play/{table:str}", table_page, methods=["GET"]),
        Route("/api/play/{table:str}", table_state, methods=["GET"]),
        Route("/api/play/{table:str}/answer", answer, methods=["POST"]),
    ]
    return routes, tables
