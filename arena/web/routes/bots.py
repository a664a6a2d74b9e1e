"""A bot: ``/bots/{name}`` and ``/api/bots/{name}``, its versions with their ratings and rating
history, its newest matches (``MATCHES_SHOWN`` of its ``matches_total``), its record against
each opponent, its tournaments, and its card-play loss with its costliest recent plays. Its
matches are shown as the viewer may see them (``arena.visibility``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.analysis import PlayAnalysis, PlayClass
from arena.ladder.runner import LADDER_KEY
from arena.ratings import INTERVAL_Z, conservative_score
from arena.rules.cards import card_name
from arena.store import MatchSummary
from arena.visibility import Visibility
from arena.web.history import Point
from arena.web.plot import rating_plot
from arena.web.routes import Site
from arena.web.routes.compare import compare_form
from arena.web.views import (
    Blunder,
    BotView,
    HistoryPoint,
    LossSummary,
    OpponentView,
    RatingView,
    RecentMatch,
    VersionView,
    match_fields,
    to_json,
    when,
)

WORST_SHOWN = 5
"""A bot's costliest recent plays shown on its page."""
MATCHES_SHOWN = 50
"""A bot's newest matches on its page (the page says how many it has in all)."""


def bot_view(site: Site, name: str, policy: Visibility) -> BotView:
    """The bot as ``policy``'s viewer may see it: its dozen reads are one read transaction."""
    with site.store.reading():
        return _bot_view(site, name, policy)


def _bot_view(site: Site, name: str, policy: Visibility) -> BotView:
    store = site.store
    detail = store.bot_detail(name)
    ids = set(detail.version_ids)
    recent = store.list_matches(bot=name, limit=MATCHES_SHOWN, newest_first=True)
    ladder = {
        tid
        for tid in {m.tournament_id for m in recent if m.tournament_id is not None}
        if LADDER_KEY in store.get_tournament(tid).config
    }
    history = []
    building = False
    for v in detail.versions:
        pts = site.history.series(v.id)
        if pts is None:
            building = True
            pts = []
        history.append((v, pts))
    versions = []
    for v, pts in history:
        r = v.rating
        versions.append(
            VersionView(
                id=v.id,
                version=v.label,
                content_hash=v.content_hash,
                source=v.source,
                created_at=when(v.created_at),
                rating=None
                if r is None
                else RatingView(
                    mu=r.mu,
                    sigma=r.sigma,
                    score=conservative_score(r.mu, r.sigma),
                    low=r.mu - INTERVAL_Z * r.sigma,
                    high=r.mu + INTERVAL_Z * r.sigma,
                    matches=r.matches,
                    wins=r.wins,
                    losses=r.losses,
                    draws=r.draws,
                    faults=r.faults,
                ),
                history=tuple(HistoryPoint(p.sequence, p.mu, p.sigma) for p in pts),
            )
        )
    losses, worst, loss_plot = _card_play(
        site, detail.name, [(v.id, v.label) for v in detail.versions], recent, policy
    )
    return BotView(
        name=detail.name,
        human=detail.human,
        owner=detail.owner,
        created_at=when(detail.created_at),
        versions=tuple(versions),
        history_building=building,
        matches_total=store.count_matches(detail.version_ids),
        recent_matches=tuple(
            RecentMatch(**match_fields(m, policy, ids), ladder=m.tournament_id in ladder)
            for m in recent
        ),
        head_to_head=tuple(
            OpponentView(
                opponent=o.bot,
                matches=o.matches,
                wins=o.wins,
                losses=o.losses,
                draws=o.draws,
                aborted=o.aborted,
                points_for=o.points_for,
                points_against=o.points_against,
                faults=o.faults,
            )
            for o in store.head_to_head(detail.version_ids)
        ),
        tournaments=store.tournament_ids_of(detail.version_ids),
        card_play_loss=losses,
        worst_blunders=worst,
        plot=rating_plot(
            [
                (f"{detail.name}@{v.label}", [site.history.initial, *pts] if pts else [])
                for v, pts in history
            ],
            f"Rating history of {detail.name}: mu with a mu ± 1.96 sigma band",
        ),
        loss_plot=loss_plot,
    )


def _card_play(
    site: Site,
    name: str,
    versions: list[tuple[int, str]],
    recent: list[MatchSummary],
    policy: Visibility,
) -> tuple[tuple[LossSummary, ...], tuple[Blunder, ...], str]:
    """The bot's card-play loss per hand over its analysed matches, one series per version
    (the running mean, with a 95 % band over matches), its costliest recent plays, and the
    plot of the series."""
    store = site.store
    series = []
    for vid, label in versions:
        points = []
        hands = loss = 0
        means: list[float] = []
        for seq, h, lo in store.loss_history(vid):
            if not h:
                continue
            hands, loss = hands + h, loss + lo
            means.append(lo / h)
            n = len(means)
            spread = 0.0
            if n > 1:
                mean = sum(means) / n
                spread = math.sqrt(sum((x - mean) ** 2 for x in means) / (n - 1) / n)
            # the plot's band is ± 2 sigma: sigma = half the 95 % interval / 2
            points.append(Point(seq, loss / hands, INTERVAL_Z * spread / 2, seq))
        series.append((f"{name}@{label}", points))
    worst: list[tuple[int, str, PlayAnalysis]] = []
    shown = [m for m in recent if not policy.sealed(m)]  # sealed: its analysis too
    analyses = store.analyses_of([m.match_id for m in shown])
    for m in shown:
        analysis = analyses.get(m.match_id)
        if analysis is None:
            continue
        seats = [s for s in (0, 1) if m.players[s].rpartition("@")[0] == name]
        worst.extend(
            (p.loss, m.match_id, p)
            for p in analysis.plays
            if p.seat in seats and not p.substituted and p.kind is PlayClass.BLUNDER
        )
    worst.sort(key=lambda w: (-w[0], w[1], w[2].step))
    return (
        tuple(
            LossSummary(version=label, matches=len(pts), per_hand=pts[-1].mu if pts else None)
            for label, pts in series
        ),
        tuple(
            Blunder(
                match_id=match_id,
                step=p.step,
                hand_number=p.hand_number,
                trick=p.trick,
                card=card_name(p.card),
                loss=loss,
                best=[card_name(c) for c in p.best],
            )
            for loss, match_id, p in worst[:WORST_SHOWN]
        ),
        rating_plot(
            series,
            f"Card-play loss per hand of {name}: running mean with a 95 % band",
            axis="the bot's analysed matches, in order",
            value="card-play loss",
        ),
    )


def bot_routes(site: Site, timed: Callable[..., Any]) -> list[Route]:
    def bot_page(request: Request) -> Response:
        view = bot_view(site, request.path_params["name"], site.policy(request))
        return site.render(
            request, "bot.html", b=view, compare=compare_form(site, request, view.name),
            title=f"{view.name} · Spades Arena",
        )  # fmt: skip

    def bot_api(request: Request) -> Response:
        view = bot_view(site, request.path_params["name"], site.policy(request))
        return JSONResponse(to_json(view))

    return [
        Route("/bots/{name:str}", timed(bot_page)),
        Route("/api/bots/{name:str}", timed(bot_api)),
    ]
