"""The leaderboard: ``/`` and ``/api/leaderboard``, a page of the (sorted, filtered) ratings,
``PAGE_ROWS`` rows unless ``per_page`` says otherwise. Built once per query and ratings
fingerprint; its page's rows and its JSON are kept the same way."""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.ratings import INTERVAL_Z, conservative_score
from arena.store.rows import PLAYER_FILTERS
from arena.tournament import tournament_standings
from arena.web.params import choice_param, gzipped, int_param, page_params, paged
from arena.web.plot import interval_axis
from arena.web.routes import Site
from arena.web.routes.tournaments import tournament_filter
from arena.web.views import Axis, BoardRow, BoardTournament, Leaderboard, to_json

INTERVAL_K = INTERVAL_Z
"""The leaderboard's interval is mu ± 1.96 sigma, the 95 % interval the CLI and service show."""
LEADERBOARD_SORTS = (
    "rank", "bot", "version", "mu", "sigma", "score", "low", "high", "matches", "wins",
    "losses", "draws", "faults", "card_play_loss",
)  # fmt: skip
PAGE_ROWS = 100
"""Rows of a leaderboard page, on the site and in the API (``per_page`` changes it)."""


def leaderboard(
    site: Site, request: Request, marks: dict[str, int] | None = None
) -> tuple[Leaderboard, Any]:
    """The page of the leaderboard the query asks for, and the fingerprint of the ratings and
    analyses it was built for (None for a tournament's board, which is not kept): the store's
    marks, one read (``marks`` when the caller has read them)."""
    sort = choice_param(request, "sort", LEADERBOARD_SORTS, "rank")
    order = choice_param(request, "order", ("asc", "desc"), "")
    tid = int_param(request, "tournament", None, 1)
    min_matches = int_param(request, "min_matches", 1, 0, 10**9) or 0
    page, per_page = page_params(request, PAGE_ROWS)
    # Bots and people rated at /play share one pool: the filter says whom to show.
    players = choice_param(request, "players", PLAYER_FILTERS, "all")
    if tid is not None:
        return _leaderboard(site, sort, order, tid, min_matches, page, per_page, players), None
    store = site.store
    marks = store.marks() if marks is None else marks
    fingerprint = (marks["ratings"], marks["analyses"])
    key = ("board", sort, order, min_matches, page, per_page, players, fingerprint)
    board = site.cached(
        key,
        lambda: _leaderboard(site, sort, order, None, min_matches, page, per_page, players),
    )
    return board, fingerprint


def _leaderboard(
    site: Site, sort: str, order: str, tid: int | None, min_matches: int, page: int,
    per_page: int, players: str,
) -> Leaderboard:  # fmt: skip
    store = site.store
    tournament = None
    if tid is None:
        source: list[Any] = store.leaderboard_rows(min_matches, players)
    else:
        info, _config, standings = tournament_standings(store, tid)
        tournament = BoardTournament(info.id, info.status.value)
        source = [r for r in standings.leaderboard if r.matches >= min_matches]
    losses = store.card_play_losses()
    rows = []
    for rank, r in enumerate(source, start=1):
        mu, sigma = r.mu, r.sigma
        version_id = getattr(r, "bot_version_id", None)
        loss = losses.get(version_id)  # type: ignore[arg-type]
        rows.append(
            BoardRow(
                rank=getattr(r, "rank", rank), bot=r.bot, version=r.version, mu=mu, sigma=sigma,
                score=conservative_score(mu, sigma), low=mu - INTERVAL_K * sigma,
                high=mu + INTERVAL_K * sigma, matches=r.matches, wins=r.wins, losses=r.losses,
                draws=r.draws, faults=r.faults, bot_version_id=version_id,
                human=getattr(r, "human", False),
                card_play_loss=None if loss is None else loss.per_hand,
            )
        )  # fmt: skip
    if not order:
        order = "asc" if sort in ("rank", "bot", "version", "sigma", "card_play_loss") else "desc"
    missing = math.inf if order == "asc" else -math.inf  # rows without a figure go last

    def key(r: BoardRow) -> Any:
        value = getattr(r, sort)
        return missing if value is None else value

    rows.sort(key=key, reverse=order == "desc")
    shown, where = paged(rows, page, per_page)
    # One scale for the interval bars of every row on every page.
    axis = Axis(
        low=min((r.low for r in rows), default=0.0), high=max((r.high for r in rows), default=0.0)
    )
    return Leaderboard(
        sort=sort, order=order, tournament=tournament, min_matches=min_matches, players=players,
        page=where.page, per_page=where.per_page, pages=where.pages, total=where.total,
        interval="mu ± 1.96 sigma", interval_axis=axis, rows=tuple(shown),
    )  # fmt: skip


def _loss_cell(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.1f}"


def leaderboard_rows_html(rows: tuple[BoardRow, ...], axis: Axis) -> Markup:
    """The leaderboard's table rows, built directly (a thousand rows through template macros
    cost more than the whole page may take). Names are escaped; numbers are formatted here.
    Every row's interval bar is drawn on one scale, ``axis`` (the whole board's, every page's:
    the column's head shows it)."""
    if not rows:
        return Markup("")
    lo, hi = axis.low, axis.high
    span = (hi - lo) or 1.0

    def pct(v: float) -> str:
        return f"{(v - lo) / span * 100:.1f}"

    out = []
    for r in rows:
        bot = escape(r.bot)
        link = escape(quote(r.bot, safe=""))
        human = ' <span class="badge human" title="a person">human</span>' if r.human else ""
        out.append(
            f'<tr data-bot="{bot}"{" data-human" if r.human else ""}>'
            f'<td class="rank">{r.rank}</td>'
            f'<td class="bot"><a href="/bots/{link}">{bot}</a>{human}</td>'
            f'<td class="version">{escape(r.version)}</td>'
            f'<td class="mu num">{r.mu:.2f}</td><td class="sigma num">{r.sigma:.2f}</td>'
            f'<td class="score num"><strong>{r.score:.2f}</strong></td>'
            f'<td class="low interval"><span class="num">{r.low:.1f} &ndash; '
            f"{r.high:.1f}</span>"
            # Drawn in SVG attributes, not a style attribute: the CSP allows no inline style.
            f'<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" '
            f'aria-hidden="true"><rect class="span" x="{pct(r.low)}" y="0" '
            f'width="{pct(r.high - r.low + lo)}" height="10"/>'
            f'<rect class="mu" x="{pct(r.mu)}" y="0" width="2" height="10"/></svg></td>'
            f'<td class="matches num">{r.matches}</td><td class="wins num">{r.wins}</td>'
            f'<td class="losses num">{r.losses}</td><td class="draws num">{r.draws}</td>'
            f'<td class="faults num{" warn" if r.faults else ""}">{r.faults}</td>'
            f'<td class="card_play_loss num">{_loss_cell(r.card_play_loss)}</td></tr>'
        )
    return Markup("\n".join(out))


def leaderboard_routes(site: Site, timed: Callable[..., Any]) -> list[Route]:
    def leaderboard_page(request: Request) -> Response:
        marks = site.store.marks()
        board, fingerprint = leaderboard(site, request, marks)
        rows_html = site.cached(
            ("html", request.url.query, fingerprint),
            lambda: leaderboard_rows_html(board.rows, board.interval_axis),
        )
        axis = board.interval_axis
        selected = board.tournament.id if board.tournament else None
        tournaments = tournament_filter(site, selected, marks["tournaments"])
        # A hundred options through the template cost more than the rest of the page: kept
        # while the same tournaments show in the same states.
        options = site.cached(
            ("filter-html", selected, tuple((t.id, t.state) for t in tournaments)),
            lambda: Markup(
                site.env.get_template("_tournament_options.html").render(
                    tournaments=tournaments, selected=selected
                )
            ),
        )
        return site.render(
            request, "leaderboard.html", lb=board, rows_html=rows_html,
            axis_html=Markup(interval_axis(axis.low, axis.high)), tournament_options=options,
            title="Leaderboard · Spades Arena",
        )  # fmt: skip

    def leaderboard_api(request: Request) -> Response:
        board, fingerprint = leaderboard(site, request)
        # Kept compressed: a thousand rows are 200 kB of JSON, and compressing them again for
        # every request would cost more than building them.
        body = site.cached(
            ("json", request.url.query, fingerprint),
            lambda: gzip.compress(json.dumps(to_json(board), separators=(",", ":")).encode(), 6),
        )
        return gzipped(request, body)

    return [
        Route("/", timed(leaderboard_page)),
        Route("/api/leaderboard", timed(leaderboard_api)),
    ]
