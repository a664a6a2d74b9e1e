"""Tournaments: ``/tournaments`` (a page of them, newest first, the ladder's pairs left out
unless asked for), ``/tournaments/{id}`` (its standings, head-to-head, faults and games), its
live event stream and the update a polling page asks for; the same views under ``/api``. A
running tournament's seed and a deal still to be played are no one's to see
(``arena.visibility``)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.ladder.runner import LADDER_KEY
from arena.ratings import INTERVAL_Z
from arena.store import TournamentStatus
from arena.tournament import tournament_standings
from arena.tournament.runner import load_config
from arena.visibility import ANYONE, SEED_SECRET, Visibility, shown_tournament_seed
from arena.web.params import choice_param, int_param, page_params, paged, path_int
from arena.web.routes import Site
from arena.web.views import (
    FaultRow,
    GameRow,
    Matrix,
    PairRecord,
    Standing,
    TournamentConfigView,
    TournamentList,
    TournamentRow,
    TournamentView,
    match_row,
    to_json,
    tournament_state,
    when,
)

PAGE_TOURNAMENTS = 50
"""Tournaments on a page of ``/tournaments`` and ``/api/tournaments`` (``per_page`` changes it)."""
PAGE_GAMES = 500
"""Games on a page of ``/tournaments/{id}`` and its API answer (``per_page`` changes it)."""


def is_ladder_pair(config: dict[str, Any]) -> bool:
    """The ladder plays each pair as a small tournament, marked so in its config."""
    return isinstance(config.get(LADDER_KEY), dict)


def tournament_row(site: Site, t: Any) -> TournamentRow:
    bots = [str(b.get("name")) if isinstance(b, dict) else str(b) for b in t.config.get("bots", [])]
    mark = t.config.get(LADDER_KEY)
    return TournamentRow(
        id=t.id,
        status=t.status.value,
        state=tournament_state(site.store, t.status, t.id),
        bots=bots,
        ladder_pair=None if not isinstance(mark, dict) else mark.get("pair"),
        games_total=t.games_total,
        games_done=t.games_done,
        created_at=when(t.created_at),
        finished_at=when(t.finished_at),
    )


FILTER_TOURNAMENTS = 100
"""Tournaments the leaderboard's filter offers: the newest (an older one by its id in the
address, ``?tournament=ID``, and it is then offered too)."""


def tournament_filter(
    site: Site, selected: int | None = None, mark: int | None = None
) -> list[TournamentRow]:
    """The newest ``FILTER_TOURNAMENTS`` tournaments but the ladder's pairs, newest first (the
    leaderboard's filter), and ``selected`` if it is older. Read a page at a time by id, so
    an arena of many thousand tournaments costs the same; kept until a tournament is created
    or changes status (the store's tournaments mark: ``mark`` when the caller has read it), a
    running one's state (running or interrupted: is a process playing it) asked each time."""
    store = site.store
    if mark is None:
        mark = store.marks()["tournaments"]
    rows = site.cached(
        ("tournament-filter", selected, mark),
        lambda: _tournament_filter(site, selected),
    )
    return [
        dataclasses.replace(r, state=tournament_state(store, TournamentStatus.RUNNING, r.id))
        if r.status == TournamentStatus.RUNNING.value
        else r
        for r in rows
    ]


def _tournament_filter(site: Site, selected: int | None) -> list[TournamentRow]:
    store = site.store
    found: list[Any] = []
    before = None
    while len(found) < FILTER_TOURNAMENTS:
        batch = store.list_tournaments(newest_first=True, limit=2 * FILTER_TOURNAMENTS,
                                       before=before)  # fmt: skip
        found += [t for t in batch if not is_ladder_pair(t.config)]
        if len(batch) < 2 * FILTER_TOURNAMENTS:
            break
        before = batch[-1].id
    found = found[:FILTER_TOURNAMENTS]
    if selected is not None and all(t.id != selected for t in found):
        with contextlib.suppress(ArenaError):
            t = store.get_tournament(selected)
            if not is_ladder_pair(t.config):
                found.append(t)
    return [tournament_row(site, t) for t in found]


def tournament_list(site: Site, request: Request) -> TournamentList:
    """A page of the tournaments, newest first: ``PAGE_TOURNAMENTS`` unless ``per_page`` says
    otherwise. The ladder's pairs (each a small tournament marked ``LADDER_KEY`` in its config)
    are left out unless ``ladder=show``, and counted either way."""
    ladder = choice_param(request, "ladder", ("hide", "show"), "hide")
    page, per_page = page_params(request, PAGE_TOURNAMENTS)
    everything = list(reversed(site.store.list_tournaments()))
    pairs = sum(1 for t in everything if is_ladder_pair(t.config))
    listed = (
        everything if ladder == "show" else [t for t in everything if not is_ladder_pair(t.config)]
    )
    shown, where = paged(listed, page, per_page)
    return TournamentList(
        ladder=ladder, ladder_pairs=pairs, page=where.page, per_page=where.per_page,
        pages=where.pages, total=where.total,
        tournaments=tuple(tournament_row(site, t) for t in shown),
    )  # fmt: skip


def tournament_view(
    site: Site, tid: int, policy: Visibility, page: tuple[int, int] | None = None
) -> TournamentView:
    """A tournament as ``policy``'s viewer may see it, with the games of ``page`` (page,
    per page); all of them when None (the live update, which any page may need a row of)."""
    store = site.store
    state = store.tournament_match_state(tid)
    # A tournament over never changes: its standings (TrueSkill replayed over its matches, the
    # page's main cost) are kept, keyed by what would change them.
    final = state[0] in ("finished", "cancelled")
    info, config, standings = site.cached(
        ("tournament-standings", tid, state, store.effective_rating_config()) if final else (None,),
        lambda: tournament_standings(store, tid),
    )
    seed = shown_tournament_seed(info, config.seed)
    every_game = store.tournament_games(tid)
    number, per_page = page if page is not None else (1, max(1, len(every_game)))
    games, where = paged(every_game, number, per_page)
    matches = {m.match_id: m for m in store.list_matches(tournament_id=tid)}
    h2h: dict[tuple[str, str], str] = {}
    for h in standings.head_to_head:
        h2h[(h.bot_a, h.bot_b)] = f"{h.wins_a}-{h.wins_b}-{h.draws}"
        h2h[(h.bot_b, h.bot_a)] = f"{h.wins_b}-{h.wins_a}-{h.draws}"
    names = {e.version_id: f"{e.name}@{e.version}" for e in config.entrants}
    rows = []
    for g in games:
        m = matches.get(g.match_id) if g.match_id else None
        rows.append(
            GameRow(
                ordinal=g.ordinal,
                pair_id=g.pair_id,
                # A deal still to be played is no one's to see (arena.visibility).
                seed=None if policy.seed_sealed(tid, g.seed) else g.seed,
                players=[names.get(v, str(v)) for v in g.seat_versions],
                status=g.status.value,
                match=None if m is None else match_row(m, policy),
            )
        )
    return TournamentView(
        id=info.id,
        status=info.status.value,
        state=tournament_state(store, info.status, tid),
        created_at=when(info.created_at),
        finished_at=when(info.finished_at),
        games_total=info.games_total,
        games_done=info.games_done,
        config=TournamentConfigView(
            bots=[f"{e.name}@{e.version}" for e in config.entrants],
            games_per_pair=config.games,
            seed=seed,
            seed_text=SEED_SECRET if seed is None else str(seed),
            concurrency=config.concurrency,
            move_timeout_ms=config.clock.move_time_ms,
            time_bank_ms=config.clock.time_bank_ms,
            policy=config.policy.kind,
            max_faults=config.policy.max_faults,
            deals=config.deals.value,
            rules=config.rules.describe(),
        ),
        standings=tuple(
            Standing(
                rank=r.rank,
                bot=r.bot,
                version=r.version,
                mu=r.mu,
                sigma=r.sigma,
                score=r.score,
                low=r.mu - INTERVAL_Z * r.sigma,
                high=r.mu + INTERVAL_Z * r.sigma,
                matches=r.matches,
                wins=r.wins,
                losses=r.losses,
                draws=r.draws,
                faults=r.faults,
            )
            for r in standings.leaderboard
        ),
        head_to_head=tuple(
            PairRecord(
                bot_a=h.bot_a,
                bot_b=h.bot_b,
                matches=h.matches,
                wins_a=h.wins_a,
                wins_b=h.wins_b,
                draws=h.draws,
                pairs_won_a=h.pairs_won_a,
                pairs_won_b=h.pairs_won_b,
                pairs_split=h.pairs_split,
                margin_a=h.margin_a,
            )
            for h in standings.head_to_head
        ),
        faults=tuple(FaultRow(f.bot, f.faults, f.forfeits) for f in standings.faults),
        matrix=Matrix(bots=[e.name for e in config.entrants], cells=h2h),
        games=tuple(rows),
        games_page=where,
    )


def tournament_update(site: Site, tid: int, new: list[int]) -> dict[str, Any]:
    """The live update for a tournament's viewers: built once, sent to all, so built as
    anyone may see it."""
    view = tournament_view(site, tid, Visibility(site.store, ANYONE))
    new_set = set(new)
    changed = [g for g in view.games if g.match is not None and g.match.sequence in new_set]
    # The template's macros (game_row, standings, matrix), called as functions.
    module: Any = site.env.get_template("_tournament_parts.html").make_module({"t": view})
    return {
        "state": view.state,
        "status": view.status,
        "games_done": view.games_done,
        "games_total": view.games_total,
        "rows": {str(g.ordinal): str(module.game_row(g)) for g in changed},
        "standings_html": str(module.standings(view)),
        "matrix_html": str(module.matrix(view)),
    }


def tournament_routes(site: Site, timed: Callable[..., Any]) -> list[Route]:
    store = site.store

    def tournaments_page(request: Request) -> Response:
        return site.render(
            request, "tournaments.html", ts=tournament_list(site, request),
            title="Tournaments · Spades Arena",
        )  # fmt: skip

    def tournaments_api(request: Request) -> Response:
        return JSONResponse(to_json(tournament_list(site, request)))

    def tournament_page(request: Request) -> Response:
        tid = path_int(request, "tid")
        view = tournament_view(site, tid, site.policy(request), page_params(request, PAGE_GAMES))
        return site.render(
            request, "tournament.html", t=view, title=f"Tournament {tid} · Spades Arena"
        )

    def tournament_api(request: Request) -> Response:
        tid = path_int(request, "tid")
        view = tournament_view(site, tid, site.policy(request), page_params(request, PAGE_GAMES))
        return JSONResponse(to_json(view))

    async def tournament_events(request: Request) -> Response:
        tid = path_int(request, "tid")
        await anyio.to_thread.run_sync(load_config, store, tid)  # 404 for an unknown one
        return site.streams.stream(
            request,
            site.live.stream(tid),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    def tournament_update_api(request: Request) -> Response:
        """What the live stream sends, for a page that polls (its stream was refused): the
        rows of matches recorded after sequence ``after`` (all when absent)."""
        tid = path_int(request, "tid")
        after = int_param(request, "after", 0, 0) or 0
        seqs = store.tournament_match_sequences(tid)
        data = tournament_update(site, tid, sorted(s for s in seqs if s > after))
        data["sequence"] = max(seqs, default=after)
        return JSONResponse(data, headers={"cache-control": "no-store"})

    return [
        Route("/tournaments", timed(tournaments_page)),
        Route("/tournaments/{tid}", timed(tournament_page)),
        Route("/tournaments/{tid}/events", tournament_events),
        Route("/api/tournaments", timed(tournaments_api)),
        Route("/api/tournaments/{tid}", timed(tournament_api)),
        Route("/api/tournaments/{tid}/update", timed(tournament_update_api)),
    ]
