"""A match: ``/matches/{id}`` (who played, the result, each hand, the replay viewer), its
record and replay under ``/api/matches/{id}``, the replay's frames for one view, its
double-dummy analysis, and a seat's bot logs (``/matches/{id}/logs/{seat}``, the bot's owner's
only). A match whose deal is still to be played only says who plays (``arena.visibility``)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.referee.replay import ReplayError, hands_of
from arena.rules import ENGINE_VERSION, RulesError
from arena.store import NotOwnerError
from arena.tournament.botlogs import read_match_log
from arena.visibility import SEALED, SealedError, Visibility
from arena.web.logs import bot_log
from arena.web.params import choice_param, gzipped, int_param
from arena.web.replay_view import VIEWS, build_frames, view_seat
from arena.web.routes import Site
from arena.web.views import (
    DecisionFault,
    HandResult,
    HandView,
    MatchView,
    SealedMatchView,
    match_fields,
    match_row,
    to_json,
    when,
)


def match_view(site: Site, match_id: str, policy: Visibility) -> MatchView | SealedMatchView:
    """The match page's view; a sealed match (``arena.visibility``) only says who plays."""
    stored = site.store.get_match(match_id)
    s, result = stored.summary, stored.result
    row = match_fields(s, policy)
    if row["sealed"]:
        return SealedMatchView(**row, sealed_text=SEALED, seed=None)
    hands: list[HandView] = []
    replay_error = None
    faults: list[DecisionFault] = []
    try:
        for story in hands_of(result):
            hr = story.result
            hands.append(
                HandView(
                    number=story.number,
                    first_drawer=story.first_drawer,
                    double_nil=story.double_nil,
                    exchanged=story.exchanged,
                    bids={seat: bid for seat, bid in story.bids},
                    tricks=len(story.tricks),
                    result=None
                    if hr is None
                    else HandResult(
                        bids=list(hr.bids),
                        tricks_won=list(hr.tricks_won),
                        points=list(hr.points),
                        bag_penalties=list(hr.bag_penalties),
                        scores=list(hr.scores),
                        bags=list(hr.bags),
                    ),
                )
            )
            faults.extend(
                DecisionFault(story.number, seat, decision.value, kind.value)
                for seat, decision, kind in story.faults
            )
    except ReplayError as exc:
        replay_error = str(exc)
    times = [[d.elapsed_us for d in result.decisions if d.seat == k] for k in (0, 1)]
    return MatchView(
        **row,
        seed=s.seed,
        rules=result.rules.describe(),
        engine_version=s.engine_version,
        engine_matches=s.engine_version == ENGINE_VERSION,
        started_at=when(s.started_at),
        decision_count=s.decision_count,
        pair_id=s.pair_id,
        hands_detail=tuple(hands),
        decision_faults=tuple(faults),
        replay_error=replay_error,
        seat_versions=list(s.seat_versions),
        time_total_ms=[round(sum(t) / 1000, 1) for t in times],
    )


def frames_json(site: Site, match_id: str, view: str, policy: Visibility) -> bytes:
    """The replay's frames (compressed JSON), kept for the next viewer once unsealed."""
    summary = site.store.get_match(match_id).summary
    policy.check_record(summary)  # before the cache: it holds frames of open matches only

    def make() -> bytes:
        stored = site.store.get_match(match_id)
        try:
            frames = build_frames(stored.result, view)
        except ReplayError as exc:
            raise HTTPException(409, f"match {match_id} does not replay: {exc}") from None
        head = {"match_id": match_id, "players": list(stored.summary.players)}
        return gzip.compress(
            json.dumps(head | frames.to_json(), separators=(",", ":")).encode(), compresslevel=6
        )

    return site.frames.get_or_make((match_id, view), make)


def match_routes(site: Site, timed: Callable[..., Any]) -> list[Route]:
    store = site.store

    def match_page(request: Request) -> Response:
        view = choice_param(request, "view", VIEWS, "spectator")
        step = int_param(request, "step", 0, 0)
        int_param(request, "hand", None, 1)  # read by the viewer's script; checked here
        m = match_view(site, request.path_params["match_id"], site.policy(request))
        title = f"Match {m.match_id} · Spades Arena"
        if isinstance(m, SealedMatchView):
            return site.render(request, "match_sealed.html", m=m, title=title)
        return site.render(
            request, "match.html", m=m, view=view, seat=view_seat(view), step=step, title=title
        )

    def match_api(request: Request) -> Response:
        stored = store.get_match(request.path_params["match_id"])
        from arena.referee.record import result_to_dict
        from arena.referee.replay import replay_to_dict

        data = to_json(match_row(stored.summary, site.policy(request)))
        if data["sealed"]:
            # Who plays and how it ended; its seed, cards and decisions once its twin is played.
            return JSONResponse(data | {"seed": None, "sealed_text": SEALED})
        data["seed"] = stored.summary.seed
        try:
            # The replay repeats the match's detail: as the viewer may read it.
            data["replay"] = replay_to_dict(stored.result) | {"detail": data["detail"]}
        except ReplayError as exc:
            data["replay"] = None
            data["replay_error"] = str(exc)
        data["decisions"] = result_to_dict(stored.result)["decisions"]
        return JSONResponse(data)

    def analysis_api(request: Request) -> Response:
        """The match's double-dummy analysis (docs/analysis.md): stored, or made now and stored."""
        match_id = request.path_params["match_id"]
        stored = store.get_match(match_id)  # 404 for an unknown match
        site.policy(request).check_analysis(stored.summary)  # sealed with its record: 403
        try:
            analysis = store.analysis_for(match_id)
        except (RulesError, ValueError) as exc:
            raise HTTPException(409, f"match {match_id} cannot be analysed: {exc}") from None
        from arena.analysis import analysis_to_dict

        body = {"match_id": match_id, "players": list(stored.summary.players)}
        return JSONResponse(body | analysis_to_dict(analysis))

    def frames_api(request: Request) -> Response:
        view = choice_param(request, "view", VIEWS, "spectator")
        body = frames_json(site, request.path_params["match_id"], view, site.policy(request))
        # A recorded match never changes: its frames may be kept by the browser.
        return gzipped(request, body, {"cache-control": "public, max-age=3600"})

    def logs_page(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        seat = int(request.path_params["seat"])
        if seat not in (0, 1):
            raise HTTPException(404, f"match {match_id} has seats 0 and 1, not {seat}")
        summary = store.get_match(match_id).summary
        version = store.get_bot_version(summary.seat_versions[seat])
        detail = store.bot_detail(version.name)
        viewer = site.viewer(request)
        ctx: dict[str, Any] = {
            "match_id": match_id, "seat": seat, "bot": version.name,
            "player": summary.players[seat], "title": f"Logs · {version.name}",
        }  # fmt: skip
        if viewer.anonymous:
            return site.render(request, "logs.html", status=401, need_login=True, **ctx)
        policy = Visibility(store, viewer)
        try:
            policy.check_log(summary, seat)
        except NotOwnerError:
            owner = "no owner (registered locally)" if detail.owner is None else detail.owner
            return site.render(
                request, "logs.html", status=403, forbidden=True, owner=owner,
                caller=viewer.name, **ctx,
            )  # fmt: skip
        except SealedError as exc:
            return site.render(
                request, "logs.html", status=403, sealed=str(exc), caller=viewer.name, **ctx
            )
        folder = site.config.data_dir
        text = None if folder is None else read_match_log(store, match_id, seat, data_dir=folder)
        return site.render(request, "logs.html", log=bot_log(text), caller=viewer.name, **ctx)

    return [
        Route("/matches/{match_id:str}", timed(match_page)),
        Route("/matches/{match_id:str}/logs/{seat:int}", timed(logs_page)),
        Route("/api/matches/{match_id:str}", timed(match_api)),
        Route("/api/matches/{match_id:str}/frames", timed(frames_api)),
        Route("/api/matches/{match_id:str}/analysis", timed(analysis_api)),
    ]
