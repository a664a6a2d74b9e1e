"""What the pages and the JSON API show: one frozen view model per thing, built once by the
resource's route module (``arena.web.routes``) and given both to a page's template and, through
``to_json``, to the API. A field that only a page draws (a plot, the head-to-head matrix) is
marked ``PAGE_ONLY`` and never reaches the JSON; nothing is popped out of a dict on the way.

Every view is built through ``arena.visibility``: what a viewer may not see is not in it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any

from arena.store import MatchSummary, Store, TournamentStatus
from arena.store.rated import describe_unrated
from arena.visibility import Visibility

PAGE_ONLY = {"page_only": True}
"""``field(metadata=PAGE_ONLY)``: drawn by the page, left out of the JSON."""


_PLAIN = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _json_fields(cls: type) -> tuple[str, ...] | None:
    """The names of ``cls``'s fields the JSON carries; None if it is no dataclass."""
    try:
        return _FIELDS[cls]
    except KeyError:
        names = (
            tuple(f.name for f in fields(cls) if not f.metadata.get("page_only"))
            if is_dataclass(cls)
            else None
        )
        _FIELDS[cls] = names
        return names


def to_json(value: Any) -> Any:
    """A view as the JSON API sends it: dataclasses as objects of their fields (``page_only``
    ones left out), tuples as lists. Dispatched on the exact type: a thousand rows cost what
    building their dicts by hand does."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list or kind is tuple:
        return [v if type(v) in _PLAIN else to_json(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _PLAIN else to_json(v) for k, v in value.items()}
    names = _json_fields(kind)
    if names is None:
        return value
    out = {}
    for name in names:
        v = getattr(value, name)
        out[name] = v if type(v) in _PLAIN else to_json(v)
    return out


def when(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True, slots=True)
class Page:
    """Where a paged list is: page ``page`` of ``pages``, ``per_page`` items a page, ``total``
    items in all."""

    page: int
    per_page: int
    pages: int
    total: int


# -- matches ---------------------------------------------------------------------------------


RESULT_TEXT = {
    "target_reached": "target reached",
    "hand_limit": "hand limit",
    "aborted": "aborted",
}


def termination_text(value: str) -> str:
    if value in RESULT_TEXT:
        return RESULT_TEXT[value]
    return "forfeit: " + value.removeprefix("forfeit_").replace("_", " ")


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One match as the lists show it to one viewer."""

    match_id: str
    sequence: int
    players: list[str]
    bots: list[str]
    humans: list[bool]
    winner: int | None
    scores: list[int]
    hands: int
    termination: str
    termination_text: str
    detail: str
    """What happened; a bot's own output only for its owner (``arena.visibility``)."""
    sealed: bool
    faults: list[int]
    rated: bool
    unrated_reason: str | None
    unrated_text: str
    me: int | None
    """The seat of the bot whose page lists the match (None elsewhere)."""
    outcome: str
    tournament_id: int | None
    finished_at: str
    mean_ms: list[float | None]
    max_ms: list[float | None]


def match_fields(
    m: MatchSummary, policy: Visibility, version_ids: set[int] | None = None
) -> dict[str, Any]:
    """``MatchRow``'s fields of ``m`` as ``policy``'s viewer may see them; ``version_ids`` marks
    the side of the bot being viewed."""
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
        "detail": policy.detail(m),
        "sealed": policy.sealed(m),
        "faults": list(m.faults),
        "rated": m.rated,
        "unrated_reason": m.unrated_reason,
        "unrated_text": describe_unrated(m.unrated_reason),
        "me": me,
        "outcome": outcome,
        "tournament_id": m.tournament_id,
        "finished_at": when(m.finished_at),
        "mean_ms": [None if v is None else round(v / 1000, 2) for v in m.mean_decision_us],
        "max_ms": [None if v is None else round(v / 1000, 2) for v in m.max_decision_us],
    }


def match_row(m: MatchSummary, policy: Visibility, version_ids: set[int] | None = None) -> MatchRow:
    return MatchRow(**match_fields(m, policy, version_ids))


@dataclass(frozen=True, slots=True)
class HandResult:
    bids: list[int]
    tricks_won: list[int]
    points: list[int]
    bag_penalties: list[int]
    scores: list[int]
    bags: list[int]


@dataclass(frozen=True, slots=True)
class HandView:
    number: int
    first_drawer: int
    double_nil: Any
    exchanged: Any
    bids: dict[int, Any]
    tricks: int
    result: HandResult | None


@dataclass(frozen=True, slots=True)
class DecisionFault:
    hand: int
    seat: int
    decision: str
    fault: str


@dataclass(frozen=True, slots=True)
class SealedMatchView(MatchRow):
    """A match whose deal is still to be played: who plays, and that it is sealed."""

    sealed_text: str = ""
    seed: None = None


@dataclass(frozen=True, slots=True)
class MatchView(MatchRow):
    """The match page: the row, its seed, rules, hands and faults."""

    seed: int = 0
    rules: str = ""
    engine_version: str = ""
    engine_matches: bool = True
    started_at: str = ""
    decision_count: int = 0
    pair_id: int | None = None
    hands_detail: tuple[HandView, ...] = ()
    decision_faults: tuple[DecisionFault, ...] = ()
    replay_error: str | None = None
    seat_versions: list[int] = field(default_factory=list)
    time_total_ms: list[float] = field(default_factory=list)


# -- the leaderboard -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A bot's row in a tournament's standings (and the start of a leaderboard row)."""

    rank: int
    bot: str
    version: str
    mu: float
    sigma: float
    score: float
    low: float
    high: float
    matches: int
    wins: int
    losses: int
    draws: int
    faults: int


@dataclass(frozen=True, slots=True)
class BoardRow(Standing):
    """A leaderboard row: a standing, with the version's id, whether it is a person's, and its
    card-play loss."""

    bot_version_id: int | None
    human: bool
    card_play_loss: float | None


@dataclass(frozen=True, slots=True)
class Axis:
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class BoardTournament:
    id: int
    status: str


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A page of the (sorted, filtered) leaderboard."""

    sort: str
    order: str
    tournament: BoardTournament | None
    min_matches: int
    players: str
    page: int
    per_page: int
    pages: int
    total: int
    interval: str
    interval_axis: Axis
    """One scale for the interval bars of every row on every page."""
    rows: tuple[BoardRow, ...]


# -- bots ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingView:
    mu: float
    sigma: float
    score: float
    low: float
    high: float
    matches: int
    wins: int
    losses: int
    draws: int
    faults: int


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    sequence: int
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class VersionView:
    id: int
    version: str
    content_hash: str
    source: str
    created_at: str
    rating: RatingView | None
    history: tuple[HistoryPoint, ...]


@dataclass(frozen=True, slots=True)
class RecentMatch(MatchRow):
    ladder: bool = False
    """Played by the ladder (one of its pairs)."""


@dataclass(frozen=True, slots=True)
class OpponentView:
    opponent: str
    matches: int
    wins: int
    losses: int
    draws: int
    aborted: int
    points_for: int
    points_against: int
    faults: int


@dataclass(frozen=True, slots=True)
class LossSummary:
    version: str
    matches: int
    per_hand: float | None


@dataclass(frozen=True, slots=True)
class Blunder:
    match_id: str
    step: int
    hand_number: int
    trick: int
    card: str
    loss: float
    best: list[str]


@dataclass(frozen=True, slots=True)
class BotView:
    name: str
    human: bool
    owner: str | None
    created_at: str
    versions: tuple[VersionView, ...]
    history_building: bool
    matches_total: int
    recent_matches: tuple[RecentMatch, ...]
    head_to_head: tuple[OpponentView, ...]
    tournaments: list[int]
    card_play_loss: tuple[LossSummary, ...]
    worst_blunders: tuple[Blunder, ...]
    plot: str = field(default="", metadata=PAGE_ONLY, compare=False)
    """The rating history as SVG."""
    loss_plot: str = field(default="", metadata=PAGE_ONLY, compare=False)
    """The card-play loss as SVG."""


# -- tournaments -----------------------------------------------------------------------------


def tournament_state(store: Store, status: TournamentStatus, tournament_id: int) -> str:
    """running, finished, cancelled, or interrupted (running, but no process plays it)."""
    if status is not TournamentStatus.RUNNING:
        return status.value
    played = store.tournament_being_played(tournament_id)
    return "interrupted" if played is False else "running"


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    status: str
    state: str
    bots: list[str]
    ladder_pair: Any
    games_total: int
    games_done: int
    created_at: str
    finished_at: str


@dataclass(frozen=True, slots=True)
class TournamentList:
    """A page of the tournaments, newest first."""

    ladder: str
    ladder_pairs: int
    page: int
    per_page: int
    pages: int
    total: int
    tournaments: tuple[TournamentRow, ...]


@dataclass(frozen=True, slots=True)
class TournamentConfigView:
    bots: list[str]
    games_per_pair: int
    seed: int | None
    seed_text: str
    concurrency: int
    move_timeout_ms: int
    time_bank_ms: int
    policy: str
    max_faults: int
    deals: str
    rules: str


@dataclass(frozen=True, slots=True)
class PairRecord:
    bot_a: str
    bot_b: str
    matches: int
    wins_a: int
    wins_b: int
    draws: int
    pairs_won_a: int
    pairs_won_b: int
    pairs_split: int
    margin_a: Any


@dataclass(frozen=True, slots=True)
class FaultRow:
    bot: str
    faults: int
    forfeits: dict[str, int]


@dataclass(frozen=True, slots=True)
class Matrix:
    """Row against column: wins-losses-draws."""

    bots: list[str]
    cells: dict[tuple[str, str], str]


@dataclass(frozen=True, slots=True)
class GameRow:
    ordinal: int
    pair_id: int | None
    seed: int | None
    """None while the deal is still to be played (``arena.visibility``)."""
    players: list[str]
    status: str
    match: MatchRow | None


@dataclass(frozen=True, slots=True)
class TournamentView:
    id: int
    status: str
    state: str
    created_at: str
    finished_at: str
    games_total: int
    games_done: int
    config: TournamentConfigView
    standings: tuple[Standing, ...]
    head_to_head: tuple[PairRecord, ...]
    faults: tuple[FaultRow, ...]
    matrix: Matrix | None = field(default=None, metadata=PAGE_ONLY, compare=False)
    games: tuple[GameRow, ...] = ()
    """A page of the games, in order (``games_page`` says which)."""
    games_page: Page = Page(1, 1, 1, 0)
