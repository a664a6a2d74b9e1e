"""The web arena as a Starlette application: pages and a JSON read API over one store.

Public pages need no sign-in; a bot's logs and its own words need its owner: an API token (the
gRPC service's) sent as ``Authorization: Bearer …``, or a browser signed in to the owner's
account with its password or the token (``routes/accounts.py``, a server-side session:
``sessions.py``). What a page or an
API answer shows of a tournament, a match, a bot or a log is ``arena.visibility``'s to say (the
service reads through the same policy): a running tournament's seed and a deal still to be
played are shown to no one. An unknown bot, match or tournament is a 404, a malformed query
parameter a 400, both in the site's style (or as JSON under ``/api``).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from threading import Lock
from typing import Any
from urllib.parse import quote

import anyio.to_thread
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.analysis import PlayClass
from arena.ladder.runner import LADDER_KEY
from arena.ratings import INTERVAL_Z, conservative_score
from arena.referee.replay import ReplayError, hands_of
from arena.rules import ENGINE_VERSION, RulesError
from arena.rules.cards import card_name
from arena.service.policy import Quotas
from arena.store import MatchSummary, NotFoundError, NotOwnerError, Store, StoreError
from arena.store.rated import describe_unrated
from arena.store.rows import PLAYER_FILTERS
from arena.tournament import tournament_standings
from arena.tournament.botlogs import read_match_log
from arena.tournament.runner import load_config
from arena.visibility import (
    ANYONE,
    SEALED,
    SEED_SECRET,
    SealedError,
    Viewer,
    Visibility,
    shown_tournament_seed,
)
from arena.web.headers import SecurityHeaders
from arena.web.history import Point, RatingHistory
from arena.web.live import LiveHub
from arena.web.logs import bot_log
from arena.web.plot import interval_axis, rating_plot
from arena.web.replay_view import VIEWS, build_frames, view_seat
from arena.web.routes.accounts import account_routes
from arena.web.routes.bot_ladder import bot_ladder_routes
from arena.web.routes.compare import compare_form, compare_routes
from arena.web.routes.ladder import ladder_routes
from arena.web.routes.play import PlayConfig, play_routes
from arena.web.routes.submit import submit_routes
from arena.web.sessions import CsrfToken, WebSessions
from arena.web.stream_limits import StreamSlots
from arena.web.views import tournament_state

STATIC_DIR = Path(__file__).parent / "static"
SERVER_TIMING = "server-timing"
INTERVAL_K = INTERVAL_Z
"""The leaderboard's interval is mu ± 1.96 sigma, the 95 % interval the CLI and service show."""
LEADERBOARD_SORTS = (
    "rank", "bot", "version", "mu", "sigma", "score", "low", "high", "matches", "wins",
    "losses", "draws", "faults", "card_play_loss",
)
WORST_SHOWN = 5
"""A bot's costliest recent plays shown on its page."""
PAGE_ROWS = 100
"""Rows of a leaderboard page, on the site and in the API (``per_page`` changes it)."""
MAX_PAGE_ROWS = 1000
"""The most rows one leaderboard page (or API answer) holds: more is paged."""
PAGE_TOURNAMENTS = 50
"""Tournaments on a page of ``/tournaments`` and ``/api/tournaments`` (``per_page`` changes it)."""
MATCHES_SHOWN = 50
FRAME_CACHE = 32


class BadRequest(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(400, detail)


# -- query parameters ----------------------------------------------------------------------------


def int_param(
    request: Request, name: str, default: int | None, lo: int = 0, hi: int = 2**62
) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise BadRequest(f"query parameter {name} must be a whole number, got {raw!r}") from None
    if not lo <= value <= hi:
        raise BadRequest(f"query parameter {name} must be between {lo} and {hi}, got {value}")
    return value


def choice_param(request: Request, name: str, choices: tuple[str, ...], default: str) -> str:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if raw not in choices:
        raise BadRequest(f"query parameter {name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    try:
        value = int(raw, 10)
    except ValueError:
        raise HTTPException(404, f"no tournament with id {raw!r}") from None
    if not 0 < value < 2**62:
        raise HTTPException(404, f"no tournament with id {raw!r}")
    return value


# -- presentation helpers -------------------------------------------------------------------------


SUIT_CLASS = "cdhs"


def _card(card: int) -> dict[str, Any]:
    name = card_name(card)
    return {"name": name, "rank": name[0].replace("T", "10"), "suit": SUIT_CLASS[card // 13]}


def _when(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")


RESULT_TEXT = {
    "target_reached": "target reached",
    "hand_limit": "hand limit",
    "aborted": "aborted",
}


def termination_text(value: str) -> str:
    if value in RESULT_TEXT:
        return RESULT_TEXT[value]
    return "forfeit: " + value.removeprefix("forfeit_").replace("_", " ")


def match_row(
    m: MatchSummary, policy: Visibility, version_ids: set[int] | None = None
) -> dict[str, Any]:
    """One match as the lists show it to ``policy``'s viewer; ``version_ids`` marks the side of
    the bot being viewed."""
    me = None
    if version_ids is not None:
        me = 0 if m.seat_versions[0] in version_ids else 1
    outcome = "draw" if m.winner is None else f"seat {m.winner}"
    if me is not None and m.termination.value != "aborted":
        outcome = "draw" if m.winner is None else ("win" if m.winner == me else "loss")
    elif m.termination.value == "aborted":
        outcome = "aborted"
    return {
        "match_id": m.match_id,
        "sequence": m.sequence,
        "players": list(m.players),
        "bots": [p.split("@")[0] for p in m.players],
        "humans": list(m.humans),
        "winner": m.winner,
        "scores": list(m.scores),
        "hands": m.hands_played,
        "termination": m.termination.value,
        "termination_text": termination_text(m.termination.value),
        # What happened; a bot's own output only for its owner (arena.visibility).
        "detail": policy.detail(m),
        "sealed": policy.sealed(m),
        "faults": list(m.faults),
        "rated": m.rated,
        "unrated_reason": m.unrated_reason,
        "unrated_text": describe_unrated(m.unrated_reason),
        "me": me,
        "outcome": outcome,
        "tournament_id": m.tournament_id,
        "finished_at": _when(m.finished_at),
        "mean_ms": [None if v is None else round(v / 1000, 2) for v in m.mean_decision_us],
        "max_ms": [None if v is None else round(v / 1000, 2) for v in m.max_decision_us],
    }


def leaderboard_rows_html(rows: list[dict[str, Any]], axis: dict[str, float]) -> Markup:
    """The leaderboard's table rows, built directly (a thousand rows through template macros
    cost more than the whole page may take). Names are escaped; numbers are formatted here.
    Every row's interval bar is drawn on one scale, ``axis`` (the whole board's, every page's:
    the column's head shows it)."""
    if not rows:
        return Markup("")
    lo, hi = axis["low"], axis["high"]
    span = (hi - lo) or 1.0

    def pct(v: float) -> str:
        return f"{(v - lo) / span * 100:.1f}"

    out = []
    for r in rows:
        bot = escape(r["bot"])
        link = escape(quote(r["bot"], safe=""))
        human = ' <span class="badge human" title="a person">human</span>' if r["human"] else ""
        out.append(
            f'<tr data-bot="{bot}"{" data-human" if r["human"] else ""}>'
            f'<td class="rank">{r["rank"]}</td>'
            f'<td class="bot"><a href="/bots/{link}">{bot}</a>{human}</td>'
            f'<td class="version">{escape(r["version"])}</td>'
            f'<td class="mu num">{r["mu"]:.2f}</td><td class="sigma num">{r["sigma"]:.2f}</td>'
            f'<td class="score num"><strong>{r["score"]:.2f}</strong></td>'
            f'<td class="low interval"><span class="num">{r["low"]:.1f} &ndash; '
            f'{r["high"]:.1f}</span>'
            # Drawn in SVG attributes, not a style attribute: the CSP allows no inline style.
            f'<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" '
            f'aria-hidden="true"><rect class="span" x="{pct(r["low"])}" y="0" '
            f'width="{pct(r["high"] - r["low"] + lo)}" height="10"/>'
            f'<rect class="mu" x="{pct(r["mu"])}" y="0" width="2" height="10"/></svg></td>'
            f'<td class="matches num">{r["matches"]}</td><td class="wins num">{r["wins"]}</td>'
            f'<td class="losses num">{r["losses"]}</td><td class="draws num">{r["draws"]}</td>'
            f'<td class="faults num{" warn" if r["faults"] else ""}">{r["faults"]}</td>'
            f'<td class="card_play_loss num">{_loss_cell(r["card_play_loss"])}</td></tr>'
        )
    return Markup("\n".join(out))


def _is_ladder_pair(config: dict[str, Any]) -> bool:
    """The ladder plays each pair as a small tournament, marked so in its config."""
    return isinstance(config.get(LADDER_KEY), dict)


def _loss_cell(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.1f}"


@dataclass
class WebConfig:
    live_interval_s: float = 0.5
    secure_cookies: bool = False
    """The site is served over TLS (directly or by a proxy in front): cookies are ``Secure``
    and every response carries HSTS."""
    request_head_timeout_s: float = 5.0
    """A connection that has not sent a whole request head by then is closed (server.py)."""
    max_streams: int = 256
    """Live event streams open at once over all clients; one more is a 429 (stream_limits.py)."""
    max_streams_per_address: int = 8
    """Live event streams open at once from one client address."""
    session_days: float = 7.0
    """A signed-in browser's session ends this long after signing in (sessions.py)."""
    signup: str = "closed"
    """Who may sign up on ``/signup``: ``open``, ``invite`` (with a code an admin made) or
    ``closed`` (routes/accounts.py)."""
    quotas: Quotas = field(default_factory=Quotas)
    """The per-account quotas (the service's, with ``arena serve --web``), shown on /account."""
    tournaments: Any = None
    """The service's ``TournamentManager`` (``arena serve --web``): comparisons started from a
    bot page run there (``arena.web.routes.compare``); None: the web starts none."""
    submissions: Any = None
    """``arena.service.submission.BotSubmissions`` that ``/submit`` stores uploads with (the
    service's own, with ``arena serve --web``); None: the web takes no uploads."""
    data_dir: Path | None = None
    """The database's data folder, where the bots' logs are (``arena serve --data-dir``): the
    owner's logs page reads the files the service's GetMatchLog reads. None: no logs kept."""
    play: PlayConfig = field(default_factory=PlayConfig)
    """Who a person may play at ``/play``, and how (routes/play.py)."""


class WebArena:
    """The application's state: the store, the caches, the live hub, the templates."""

    def __init__(self, store: Store, config: WebConfig | None = None) -> None:
        self.store = store
        self.config = config or WebConfig()
        self.history = RatingHistory(store)
        self.env = Environment(
            loader=PackageLoader("arena.web", "templates"),
            autoescape=select_autoescape(["html"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(card=_card, when=_when, views=VIEWS)
        self.env.filters["ms"] = lambda us: "" if us is None else f"{us / 1000:.1f} ms"
        self.live = LiveHub(store, self.tournament_update, self.config.live_interval_s)
        self.streams = StreamSlots(self.config.max_streams, self.config.max_streams_per_address)
        self.sessions = WebSessions(
            store,
            lifetime=timedelta(days=self.config.session_days),
            secure=self.config.secure_cookies,
        )
        self._frames: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._frames_lock = Lock()
        self._rendered: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        """(what, query, ratings fingerprint) -> leaderboard HTML rows or API JSON bytes."""

    def cached(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """A small LRU for what is derived from the ratings alone (``key`` ends with their
        fingerprint, so a changed rating is never served stale)."""
        if key[-1] is None:
            return make()
        with self._frames_lock:
            hit = self._rendered.get(key)
            if hit is not None:
                self._rendered.move_to_end(key)
                return hit
        made = make()
        with self._frames_lock:
            self._rendered[key] = made
            while len(self._rendered) > 64:
                self._rendered.popitem(last=False)
        return made

    # -- rendering -----------------------------------------------------------------------------

    def render(self, request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("title", "Spades Arena")
        ctx["path"] = request.url.path
        ctx["csrf"] = csrf = CsrfToken(self.sessions, request)
        ctx.setdefault("me", self.sessions.current(request))
        ctx.setdefault("signup_open", self.config.signup != "closed")
        response = HTMLResponse(self.env.get_template(name).render(**ctx), status_code=status)
        csrf.set_cookie(response, self.config.secure_cookies)
        return response

    # -- data ----------------------------------------------------------------------------------

    def leaderboard(self, request: Request) -> dict[str, Any]:
        """The (sorted, filtered) leaderboard, a page of it: ``PAGE_ROWS`` rows unless
        ``per_page`` (1 to ``MAX_PAGE_ROWS``) says otherwise."""
        sort = choice_param(request, "sort", LEADERBOARD_SORTS, "rank")
        order = choice_param(request, "order", ("asc", "desc"), "")
        tid = int_param(request, "tournament", None, 1)
        min_matches = int_param(request, "min_matches", 1, 0, 10**9) or 0
        page = int_param(request, "page", 1, 1, 10**6) or 1
        per_page = int_param(request, "per_page", PAGE_ROWS, 1, MAX_PAGE_ROWS) or PAGE_ROWS
        # Bots and people rated at /play share one pool: the filter says whom to show.
        players = choice_param(request, "players", PLAYER_FILTERS, "all")
        if tid is not None:
            return self._leaderboard(sort, order, tid, min_matches, page, per_page, None, players)
        fingerprint = (
            self.store.ratings_fingerprint(),
            self.store.analyses_fingerprint(),
        )
        key = ("board", sort, order, min_matches, page, per_page, players, fingerprint)
        return dict(
            self.cached(
                key,
                lambda: self._leaderboard(
                    sort, order, None, min_matches, page, per_page, fingerprint, players
                ),
            )
        )

    def _leaderboard(
        self, sort: str, order: str, tid: int | None, min_matches: int, page: int,
        per_page: int, fingerprint: Any, players: str = "all",
    ) -> dict[str, Any]:
        tournament = None
        if tid is None:
            source: list[Any] = self.store.leaderboard_rows(min_matches, players)
        else:
            info, _config, standings = tournament_standings(self.store, tid)
            tournament = {"id": info.id, "status": info.status.value}
            source = [r for r in standings.leaderboard if r.matches >= min_matches]
        losses = self.store.card_play_losses()
        rows = []
        for rank, r in enumerate(source, start=1):
            mu, sigma = r.mu, r.sigma
            loss = losses.get(getattr(r, "bot_version_id", None))  # type: ignore[arg-type]
            rows.append(
                {
                    "rank": getattr(r, "rank", rank), "bot": r.bot, "version": r.version,
                    "mu": mu, "sigma": sigma, "score": conservative_score(mu, sigma),
                    "low": mu - INTERVAL_K * sigma, "high": mu + INTERVAL_K * sigma,
                    "matches": r.matches, "wins": r.wins, "losses": r.losses,
                    "draws": r.draws, "faults": r.faults,
                    "bot_version_id": getattr(r, "bot_version_id", None),
                    "human": getattr(r, "human", False),
                    "card_play_loss": None if loss is None else loss.per_hand,
                }
            )
        if not order:
            order = (
                "asc" if sort in ("rank", "bot", "version", "sigma", "card_play_loss") else "desc"
            )
        missing = math.inf if order == "asc" else -math.inf  # rows without a figure go last
        rows.sort(
            key=lambda r: missing if r[sort] is None else r[sort], reverse=order == "desc"
        )
        total = len(rows)
        pages = max(1, -(-total // per_page))
        if page > pages:
            raise BadRequest(f"query parameter page must be at most {pages}, got {page}")
        # One scale for the interval bars of every row on every page.
        axis = {
            "low": min((r["low"] for r in rows), default=0.0),
            "high": max((r["high"] for r in rows), default=0.0),
        }
        rows = rows[(page - 1) * per_page : page * per_page]
        return {
            "sort": sort,
            "order": order,
            "tournament": tournament,
            "min_matches": min_matches,
            "players": players,
            "page": page,
            "per_page": per_page,
            "pages": pages,
            "total": total,
            "interval": "mu ± 1.96 sigma",
            "interval_axis": axis,
            "rows": rows,
            "_fingerprint": fingerprint,
        }

    def bot(self, name: str, policy: Visibility) -> dict[str, Any]:
        detail = self.store.bot_detail(name)
        ids = set(detail.version_ids)
        recent = self.store.list_matches(bot=name, limit=MATCHES_SHOWN, newest_first=True)
        ladder = {
            tid for tid in {m.tournament_id for m in recent if m.tournament_id is not None}
            if LADDER_KEY in self.store.get_tournament(tid).config
        }
        history = []
        building = False
        for v in detail.versions:
            pts = self.history.series(v.id)
            if pts is None:
                building = True
                pts = []
            history.append((v, pts))
        versions = []
        for v, pts in history:
            r = v.rating
            versions.append(
                {
                    "id": v.id,
                    "version": v.label,
                    "content_hash": v.content_hash,
                    "source": v.source,
                    "created_at": _when(v.created_at),
                    "rating": None
                    if r is None
                    else {
                        "mu": r.mu, "sigma": r.sigma, "score": conservative_score(r.mu, r.sigma),
                        "low": r.mu - INTERVAL_K * r.sigma, "high": r.mu + INTERVAL_K * r.sigma,
                        "matches": r.matches, "wins": r.wins, "losses": r.losses,
                        "draws": r.draws, "faults": r.faults,
                    },
                    "history": [
                        {"sequence": p.sequence, "mu": p.mu, "sigma": p.sigma} for p in pts
                    ],
                }
            )
        return {
            "name": detail.name,
            "human": detail.human,
            "owner": detail.owner,
            "created_at": _when(detail.created_at),
            "versions": versions,
            "history_building": building,
            "matches_total": self.store.count_matches(detail.version_ids),
            "recent_matches": [
                {**match_row(m, policy, ids), "ladder": m.tournament_id in ladder}
                for m in recent
            ],
            "head_to_head": [
                {
                    "opponent": o.bot, "matches": o.matches, "wins": o.wins,
                    "losses": o.losses, "draws": o.draws, "aborted": o.aborted,
                    "points_for": o.points_for, "points_against": o.points_against,
                    "faults": o.faults,
                }
                for o in self.store.head_to_head(detail.version_ids)
            ],
            "tournaments": self.store.tournament_ids_of(detail.version_ids),
            "_plot": rating_plot(
                [
                    (f"{detail.name}@{v.label}", [self.history.initial, *pts] if pts else [])
                    for v, pts in history
                ],
                f"Rating history of {detail.name}: mu with a mu ± 1.96 sigma band",
            ),
            **self._card_play(
                detail.name, [(v.id, v.label) for v in detail.versions], recent, policy
            ),
        }

    def _card_play(
        self,
        name: str,
        versions: list[tuple[int, str]],
        recent: list[MatchSummary],
        policy: Visibility,
    ) -> dict[str, Any]:
        """The bot's card-play loss per hand over its analysed matches, one series per version
        (the running mean, with a 95 % band over matches), and its costliest recent plays."""
        series = []
        for vid, label in versions:
            points = []
            hands = loss = 0
            means: list[float] = []
            for seq, h, lo in self.store.loss_history(vid):
                if not h:
                    continue
                hands, loss = hands + h, loss + lo
                means.append(lo / h)
                n = len(means)
                spread = 0.0
                if n > 1:
                    m = sum(means) / n
                    spread = math.sqrt(sum((x - m) ** 2 for x in means) / (n - 1) / n)
                # the plot's band is ± 2 sigma: sigma = half the 95 % interval / 2
                points.append(Point(seq, loss / hands, INTERVAL_Z * spread / 2))
            series.append((f"{name}@{label}", points))
        worst = []
        for m in recent:
            if policy.sealed(m):
                continue  # its analysis is sealed with its record (arena.visibility)
            analysis = self.store.get_analysis(m.match_id)
            if analysis is None:
                continue
            seats = [s for s in (0, 1) if m.players[s].rpartition("@")[0] == name]
            worst.extend(
                (p.loss, m.match_id, p)
                for p in analysis.plays
                if p.seat in seats and not p.substituted and p.kind is PlayClass.BLUNDER
            )
        worst.sort(key=lambda w: (-w[0], w[1], w[2].step))
        return {
            "card_play_loss": [
                {"version": label, "matches": len(pts), "per_hand": pts[-1].mu if pts else None}
                for label, pts in series
            ],
            "worst_blunders": [
                {
                    "match_id": match_id, "step": p.step, "hand_number": p.hand_number,
                    "trick": p.trick, "card": card_name(p.card), "loss": loss,
                    "best": [card_name(c) for c in p.best],
                }
                for loss, match_id, p in worst[:WORST_SHOWN]
            ],
            "_loss_plot": rating_plot(
                series,
                f"Card-play loss per hand of {name}: running mean with a 95 % band",
                axis="the bot's analysed matches, in order",
                value="card-play loss",
            ),
        }

    def tournament(self, tid: int, policy: Visibility) -> dict[str, Any]:
        info, config, standings = tournament_standings(self.store, tid)
        seed = shown_tournament_seed(info, config.seed)
        games = self.store.tournament_games(tid)
        matches = {m.match_id: m for m in self.store.list_matches(tournament_id=tid)}
        bots = [e.name for e in config.entrants]
        h2h: dict[tuple[str, str], str] = {}
        for h in standings.head_to_head:
            h2h[(h.bot_a, h.bot_b)] = f"{h.wins_a}-{h.wins_b}-{h.draws}"
            h2h[(h.bot_b, h.bot_a)] = f"{h.wins_b}-{h.wins_a}-{h.draws}"
        names = {e.version_id: f"{e.name}@{e.version}" for e in config.entrants}
        rows = []
        for g in games:
            m = matches.get(g.match_id) if g.match_id else None
            row = {
                "ordinal": g.ordinal,
                "pair_id": g.pair_id,
                # A deal still to be played is no one's to see (arena.visibility).
                "seed": None if policy.seed_sealed(tid, g.seed) else g.seed,
                "players": [names.get(v, str(v)) for v in g.seat_versions],
                "status": g.status.value,
                "match": None if m is None else match_row(m, policy),
            }
            rows.append(row)
        return {
            "id": info.id,
            "status": info.status.value,
            "state": tournament_state(self.store, info.status, tid),
            "created_at": _when(info.created_at),
            "finished_at": _when(info.finished_at),
            "games_total": info.games_total,
            "games_done": info.games_done,
            "config": {
                "bots": [f"{e.name}@{e.version}" for e in config.entrants],
                "games_per_pair": config.games,
                "seed": seed,
                "seed_text": SEED_SECRET if seed is None else str(seed),
                "concurrency": config.concurrency,
                "move_timeout_ms": config.clock.move_time_ms,
                "time_bank_ms": config.clock.time_bank_ms,
                "policy": config.policy.kind,
                "max_faults": config.policy.max_faults,
                "deals": config.deals.value,
                "rules": config.rules.describe(),
            },
            "standings": [
                {
                    "rank": r.rank, "bot": r.bot, "version": r.version, "mu": r.mu,
                    "sigma": r.sigma, "score": r.score, "low": r.mu - INTERVAL_K * r.sigma,
                    "high": r.mu + INTERVAL_K * r.sigma, "matches": r.matches, "wins": r.wins,
                    "losses": r.losses, "draws": r.draws, "faults": r.faults,
                }
                for r in standings.leaderboard
            ],
            "head_to_head": [
                {
                    "bot_a": h.bot_a, "bot_b": h.bot_b, "matches": h.matches,
                    "wins_a": h.wins_a, "wins_b": h.wins_b, "draws": h.draws,
                    "pairs_won_a": h.pairs_won_a, "pairs_won_b": h.pairs_won_b,
                    "pairs_split": h.pairs_split, "margin_a": h.margin_a,
                }
                for h in standings.head_to_head
            ],
            "faults": [
                {"bot": f.bot, "faults": f.faults, "forfeits": f.forfeits}
                for f in standings.faults
            ],
            "_matrix": {"bots": bots, "cells": h2h},
            "games": rows,
        }

    def tournament_update(self, tid: int, new: list[int]) -> dict[str, Any]:
        """The live update for a tournament's viewers: built once, sent to all, so built as
        anyone may see it."""
        data = self.tournament(tid, Visibility(self.store, ANYONE))
        new_set = set(new)
        changed = [
            g for g in data["games"] if g["match"] is not None and g["match"]["sequence"] in new_set
        ]
        tpl = self.env.get_template("_tournament_parts.html")
        module = tpl.make_module({"t": data})
        return {
            "state": data["state"],
            "status": data["status"],
            "games_done": data["games_done"],
            "games_total": data["games_total"],
            "rows": {str(g["ordinal"]): str(module.game_row(g)) for g in changed},
            "standings_html": str(module.standings(data)),
            "matrix_html": str(module.matrix(data)),
        }

    def match(self, match_id: str, policy: Visibility) -> dict[str, Any]:
        """The match page's data; a sealed match (``arena.visibility``) only says who plays."""
        stored = self.store.get_match(match_id)
        s, result = stored.summary, stored.result
        row = match_row(s, policy)
        if row["sealed"]:
            return row | {"sealed_text": SEALED, "seed": None}
        hands: list[dict[str, Any]] = []
        replay_error = None
        faults = []
        try:
            for story in hands_of(result):
                hr = story.result
                hands.append(
                    {
                        "number": story.number,
                        "first_drawer": story.first_drawer,
                        "double_nil": story.double_nil,
                        "exchanged": story.exchanged,
                        "bids": {seat: bid for seat, bid in story.bids},
                        "tricks": len(story.tricks),
                        "result": None
                        if hr is None
                        else {
                            "bids": list(hr.bids), "tricks_won": list(hr.tricks_won),
                            "points": list(hr.points), "bag_penalties": list(hr.bag_penalties),
                            "scores": list(hr.scores), "bags": list(hr.bags),
                        },
                    }
                )
                for seat, decision, kind in story.faults:
                    faults.append({"hand": story.number, "seat": seat, "decision":
                                   decision.value, "fault": kind.value})
        except ReplayError as exc:
            replay_error = str(exc)
        times = [[d.elapsed_us for d in result.decisions if d.seat == k] for k in (0, 1)]
        row.update(
            seed=s.seed,
            rules=result.rules.describe(),
            engine_version=s.engine_version,
            engine_matches=s.engine_version == ENGINE_VERSION,
            started_at=_when(s.started_at),
            decision_count=s.decision_count,
            pair_id=s.pair_id,
            hands_detail=hands,
            decision_faults=faults,
            replay_error=replay_error,
            seat_versions=list(s.seat_versions),
            time_total_ms=[round(sum(t) / 1000, 1) for t in times],
        )
        return row

    def frames_json(self, match_id: str, view: str, policy: Visibility) -> bytes:
        """The replay's frames (compressed JSON), kept for the next viewer once unsealed."""
        summary = self.store.get_match(match_id).summary
        policy.check_record(summary)  # before the cache: it holds frames of open matches only
        key = (match_id, view)
        with self._frames_lock:
            hit = self._frames.get(key)
            if hit is not None:
                self._frames.move_to_end(key)
                return hit
        stored = self.store.get_match(match_id)
        try:
            frames = build_frames(stored.result, view)
        except ReplayError as exc:
            raise HTTPException(409, f"match {match_id} does not replay: {exc}") from None
        body = gzip.compress(
            json.dumps(
                {"match_id": match_id, "players": list(stored.summary.players)}
                | frames.to_json(),
                separators=(",", ":"),
            ).encode(),
            compresslevel=6,
        )
        with self._frames_lock:
            self._frames[key] = body
            while len(self._frames) > FRAME_CACHE:
                self._frames.popitem(last=False)
        return body

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament but the ladder's pairs, newest first (the leaderboard's filter)."""
        return [
            self._tournament_row(t)
            for t in reversed(self.store.list_tournaments())
            if not _is_ladder_pair(t.config)
        ]

    def tournament_list(self, request: Request) -> dict[str, Any]:
        """A page of the tournaments, newest first: ``PAGE_TOURNAMENTS`` unless ``per_page``
        says otherwise. The ladder's pairs (each a small tournament marked ``LADDER_KEY`` in
        its config) are left out unless ``ladder=show``, and counted either way."""
        ladder = choice_param(request, "ladder", ("hide", "show"), "hide")
        page = int_param(request, "page", 1, 1, 10**6) or 1
        per_page = (
            int_param(request, "per_page", PAGE_TOURNAMENTS, 1, MAX_PAGE_ROWS) or PAGE_TOURNAMENTS
        )
        everything = list(reversed(self.store.list_tournaments()))
        pairs = sum(1 for t in everything if _is_ladder_pair(t.config))
        listed = everything if ladder == "show" else [
            t for t in everything if not _is_ladder_pair(t.config)
        ]
        total = len(listed)
        pages = max(1, -(-total // per_page))
        if page > pages:
            raise BadRequest(f"query parameter page must be at most {pages}, got {page}")
        return {
            "ladder": ladder,
            "ladder_pairs": pairs,
            "page": page,
            "per_page": per_page,
            "pages": pages,
            "total": total,
            "tournaments": [
                self._tournament_row(t) for t in listed[(page - 1) * per_page : page * per_page]
            ],
        }

    def _tournament_row(self, t: Any) -> dict[str, Any]:
        bots = [
            str(b.get("name")) if isinstance(b, dict) else str(b)
            for b in t.config.get("bots", [])
        ]
        mark = t.config.get(LADDER_KEY)
        return {
            "id": t.id,
            "status": t.status.value,
            "state": tournament_state(self.store, t.status, t.id),
            "bots": bots,
            "ladder_pair": None if not isinstance(mark, dict) else mark.get("pair"),
            "games_total": t.games_total,
            "games_done": t.games_done,
            "created_at": _when(t.created_at),
            "finished_at": _when(t.finished_at),
        }

    # -- auth ----------------------------------------------------------------------------------

    def caller(self, request: Request) -> tuple[int, str] | None:
        """The token's (id, name) from the Authorization header or the browser's session; None
        if neither (an expired or revoked session is none).

        A token that is sent but unknown is a 401 (as the gRPC service answers)."""
        header = request.headers.get("authorization")
        if header is None:
            session = self.sessions.current(request)
            return None if session is None else (session.token_id, session.name)
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise HTTPException(401, "malformed Authorization header: expected Bearer <token>")
        token = value.strip()
        info = self.store.verify_token(token)
        if info is None:
            raise HTTPException(401, "unknown token: it was never issued by this arena, or revoked")
        return info.id, info.name

    def viewer(self, request: Request) -> Viewer:
        """The caller as the visibility policy's viewer. A stale login cookie on a public page
        is anyone (a token sent in a header is checked: a wrong one is a 401)."""
        try:
            who = self.caller(request)
        except HTTPException:
            if request.headers.get("authorization") is not None:
                raise
            return ANYONE
        if who is None:
            return ANYONE
        role = next((t.role for t in self.store.list_tokens() if t.id == who[0]), None)
        return Viewer(token_id=who[0], name=who[1], role=role)

    def policy(self, request: Request) -> Visibility:
        return Visibility(self.store, self.viewer(request))


# -- routes ----------------------------------------------------------------------------------


def _timed(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """Run the (blocking) handler in a worker thread and report its time in Server-Timing:
    ``app`` the wall time, ``cpu`` the CPU time of the thread (what it cost, without the wait
    for a core on a busy machine)."""

    def run(request: Request) -> Response:
        c0, t0 = time.thread_time(), time.perf_counter()
        response: Response = handler(request)
        wall = (time.perf_counter() - t0) * 1000
        cpu = (time.thread_time() - c0) * 1000
        response.headers[SERVER_TIMING] = f"app;dur={wall:.2f}, cpu;dur={cpu:.2f}"
        return response

    async def endpoint(request: Request) -> Response:
        return await anyio.to_thread.run_sync(run, request)

    return endpoint


def create_app(store: Store, config: WebConfig | None = None) -> Starlette:
    arena = WebArena(store, config)

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    def leaderboard_page(request: Request) -> Response:
        data = arena.leaderboard(request)
        fingerprint = data.pop("_fingerprint")
        rows_html = arena.cached(
            ("html", request.url.query, fingerprint),
            lambda: leaderboard_rows_html(data["rows"], data["interval_axis"]),
        )
        axis = data["interval_axis"]
        return arena.render(
            request, "leaderboard.html", lb=data, rows_html=rows_html,
            axis_html=Markup(interval_axis(axis["low"], axis["high"])),
            tournaments=arena.tournaments(), title="Leaderboard · Spades Arena",
        )

    def leaderboard_api(request: Request) -> Response:
        data = arena.leaderboard(request)
        fingerprint = data.pop("_fingerprint")
        # Kept compressed: a thousand rows are 200 kB of JSON, and compressing them again for
        # every request would cost more than building them.
        body = arena.cached(
            ("json", request.url.query, fingerprint),
            lambda: gzip.compress(json.dumps(data, separators=(",", ":")).encode(), 6),
        )
        return _gzipped(request, body)

    def bot_page(request: Request) -> Response:
        data = arena.bot(request.path_params["name"], arena.policy(request))
        return arena.render(
            request, "bot.html", b=data, compare=compare_form(arena, request, data["name"]),
            title=f"{data['name']} · Spades Arena",
        )  # fmt: skip

    def bot_api(request: Request) -> Response:
        data = arena.bot(request.path_params["name"], arena.policy(request))
        data.pop("_plot")
        data.pop("_loss_plot")
        return JSONResponse(data)

    def tournaments_page(request: Request) -> Response:
        return arena.render(
            request, "tournaments.html", ts=arena.tournament_list(request),
            title="Tournaments · Spades Arena",
        )

    def tournaments_api(request: Request) -> Response:
        return JSONResponse(arena.tournament_list(request))

    def tournament_page(request: Request) -> Response:
        tid = path_int(request, "tid")
        data = arena.tournament(tid, arena.policy(request))
        return arena.render(
            request, "tournament.html", t=data, title=f"Tournament {tid} · Spades Arena"
        )

    def tournament_api(request: Request) -> Response:
        data = arena.tournament(path_int(request, "tid"), arena.policy(request))
        data.pop("_matrix")
        return JSONResponse(data)

    async def tournament_events(request: Request) -> Response:
        tid = path_int(request, "tid")
        await anyio.to_thread.run_sync(load_config, store, tid)  # 404 for an unknown one
        return arena.streams.stream(
            request,
            arena.live.stream(tid),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    def tournament_update_api(request: Request) -> Response:
        """What the live stream sends, for a page that polls (its stream was refused): the
        rows of matches recorded after sequence ``after`` (all when absent)."""
        tid = path_int(request, "tid")
        after = int_param(request, "after", 0, 0) or 0
        seqs = store.tournament_match_sequences(tid)
        data = arena.tournament_update(tid, sorted(s for s in seqs if s > after))
        data["sequence"] = max(seqs, default=after)
        return JSONResponse(data, headers={"cache-control": "no-store"})

    def match_page(request: Request) -> Response:
        view = choice_param(request, "view", VIEWS, "spectator")
        step = int_param(request, "step", 0, 0)
        int_param(request, "hand", None, 1)  # read by the viewer's script; checked here
        data = arena.match(request.path_params["match_id"], arena.policy(request))
        if data["sealed"]:
            return arena.render(
                request, "match_sealed.html", m=data,
                title=f"Match {data['match_id']} · Spades Arena",
            )
        return arena.render(
            request, "match.html", m=data, view=view, seat=view_seat(view), step=step,
            title=f"Match {data['match_id']} · Spades Arena",
        )

    def match_api(request: Request) -> Response:
        stored = store.get_match(request.path_params["match_id"])
        from arena.referee.record import result_to_dict
        from arena.referee.replay import replay_to_dict

        data = match_row(stored.summary, arena.policy(request))
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
        arena.policy(request).check_analysis(stored.summary)  # sealed with its record: 403
        try:
            analysis = store.analysis_for(match_id)
        except (RulesError, ValueError) as exc:
            raise HTTPException(409, f"match {match_id} cannot be analysed: {exc}") from None
        from arena.analysis import analysis_to_dict

        body = {"match_id": match_id, "players": list(stored.summary.players)}
        return JSONResponse(body | analysis_to_dict(analysis))

    def frames_api(request: Request) -> Response:
        view = choice_param(request, "view", VIEWS, "spectator")
        body = arena.frames_json(request.path_params["match_id"], view, arena.policy(request))
        # A recorded match never changes: its frames may be kept by the browser.
        return _gzipped(request, body, {"cache-control": "public, max-age=3600"})

    def logs_page(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        seat = int(request.path_params["seat"])
        if seat not in (0, 1):
            raise HTTPException(404, f"match {match_id} has seats 0 and 1, not {seat}")
        summary = store.get_match(match_id).summary
        version = store.get_bot_version(summary.seat_versions[seat])
        detail = store.bot_detail(version.name)
        viewer = arena.viewer(request)
        ctx: dict[str, Any] = {
            "match_id": match_id, "seat": seat, "bot": version.name,
            "player": summary.players[seat], "title": f"Logs · {version.name}",
        }
        if viewer.anonymous:
            return arena.render(request, "logs.html", status=401, need_login=True, **ctx)
        policy = Visibility(store, viewer)
        try:
            policy.check_log(summary, seat)
        except NotOwnerError:
            owner = "no owner (registered locally)" if detail.owner is None else detail.owner
            return arena.render(
                request, "logs.html", status=403, forbidden=True, owner=owner,
                caller=viewer.name, **ctx,
            )
        except SealedError as exc:
            return arena.render(
                request, "logs.html", status=403, sealed=str(exc), caller=viewer.name, **ctx
            )
        folder = arena.config.data_dir
        text = None if folder is None else read_match_log(store, match_id, seat, data_dir=folder)
        return arena.render(request, "logs.html", log=bot_log(text), caller=viewer.name, **ctx)

    def docs_api(request: Request) -> Response:
        return arena.render(request, "api.html", title="JSON API · Spades Arena")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(request, exc.status_code, str(exc.detail))

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(request, 404, str(exc))

    async def sealed(request: Request, exc: Exception) -> Response:
        return _error(request, 403, str(exc))

    async def store_error(request: Request, exc: Exception) -> Response:
        return _error(request, 503, f"the database could not be read: {exc}")

    def _error(request: Request, status: int, message: str) -> Response:
        if wants_json(request):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        titles = {400: "Bad request", 401: "Token needed", 403: "Not shown", 404: "Not found",
                  405: "Method not allowed", 409: "Cannot replay", 503: "Unavailable"}
        return arena.render(
            request, "error.html", status=status, code=status,
            heading=titles.get(status, "Error"), message=message,
            title=f"{titles.get(status, 'Error')} · Spades Arena",
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await arena.live.close()
        await anyio.to_thread.run_sync(tables.close)

    play, tables = play_routes(arena, arena.config.play)
    routes = [
        *play,
        Route("/", _timed(leaderboard_page)),
        Route("/bots/{name:str}", _timed(bot_page)),
        Route("/tournaments", _timed(tournaments_page)),
        Route("/tournaments/{tid}", _timed(tournament_page)),
        Route("/tournaments/{tid}/events", tournament_events),
        Route("/matches/{match_id:str}", _timed(match_page)),
        Route("/matches/{match_id:str}/logs/{seat:int}", _timed(logs_page)),
        *account_routes(arena, _timed),
        *submit_routes(arena, _timed),
        *ladder_routes(arena, _timed),
        *bot_ladder_routes(arena, _timed),
        *compare_routes(arena, _timed),
        Route("/api", _timed(docs_api)),
        Route("/api/leaderboard", _timed(leaderboard_api)),
        Route("/api/bots/{name:str}", _timed(bot_api)),
        Route("/api/tournaments", _timed(tournaments_api)),
        Route("/api/tournaments/{tid}", _timed(tournament_api)),
        Route("/api/tournaments/{tid}/update", _timed(tournament_update_api)),
        Route("/api/matches/{match_id:str}", _timed(match_api)),
        Route("/api/matches/{match_id:str}/frames", _timed(frames_api)),
        Route("/api/matches/{match_id:str}/analysis", _timed(analysis_api)),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityHeaders, tls=arena.config.secure_cookies),
            Middleware(GZipMiddleware, minimum_size=2048),
        ],
        exception_handlers={
            HTTPException: http_error,
            NotFoundError: not_found,
            SealedError: sealed,
            StoreError: store_error,
        },
        lifespan=lifespan,
    )
    app.state.arena = arena
    app.state.play_tables = tables
    """The person tables of /play (``arena.humanplay.Tables``): their bot pool's figures."""
    return app


def _gzipped(request: Request, body: bytes, headers: dict[str, str] | None = None) -> Response:
    """Gzip-compressed JSON as it is, or decompressed for a client that does not take gzip."""
    extra = {"vary": "accept-encoding", **(headers or {})}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            body, media_type="application/json", headers={"content-encoding": "gzip", **extra}
        )
    return Response(gzip.decompress(body), media_type="application/json", headers=extra)
