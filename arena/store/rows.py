"""What the store hands back: plain frozen values, detached from any database session."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.ratings import conservative_score, skill_interval
from arena.referee.record import MatchResult, Termination

BOT = "bot"
HUMAN = "human"
"""A player's kind: a bot, or a person who played at ``/play`` (``Bot.kind``)."""
PLAYER_FILTERS = ("all", "bots", "humans")
"""Whom a leaderboard shows: everyone (the default), bots only, or people only."""


def player_filter_kinds(players: str) -> tuple[str, ...]:
    """The kinds a leaderboard filter keeps; ``ValueError`` names the filters offered."""
    kinds = {"all": (BOT, HUMAN), "bots": (BOT,), "humans": (HUMAN,)}.get(players)
    if kinds is None:
        offered = ", ".join(PLAYER_FILTERS)
        raise ValueError(f"unknown players filter {players!r}; offered: {offered}")
    return kinds


@dataclass(frozen=True, slots=True)
class BotVersionInfo:
    id: int
    bot_id: int
    name: str
    version_label: str
    content_hash: str
    source: str
    created_at: datetime
    owner_token_id: int | None = None
    """The owner of this build (the API token that owns its bot); None: registered locally."""

    @property
    def ref(self) -> str:
        """``name@version``, as the leaderboard and match records show it."""
        return f"{self.name}@{self.version_label}"


@dataclass(frozen=True, slots=True)
class BotInfo:
    id: int
    name: str
    created_at: datetime
    versions: tuple[BotVersionInfo, ...]
    """Oldest first; the last one is what the bot's bare name means."""
    owner_token_id: int | None = None
    """The API token that first submitted the bot; None for a bot registered locally."""
    owner: str | None = None
    """That token's name."""
    kind: str = "bot"
    """``bot`` or ``human`` (a person who played at ``/play``)."""
    account_id: int | None = None
    """A signed-in person's player: the account it is."""

    @property
    def human(self) -> bool:
        return self.kind == HUMAN

    @property
    def latest(self) -> BotVersionInfo:
        return self.versions[-1]


@dataclass(frozen=True, slots=True)
class RatingInfo:
    bot_version_id: int
    mu: float
    sigma: float
    matches: int
    wins: int
    losses: int
    draws: int
    faults: int

    @property
    def score(self) -> float:
        return conservative_score(self.mu, self.sigma)


@dataclass(frozen=True, slots=True)
class RecordedMatch:
    sequence: int
    """The match's place in the recorded order (ratings are applied in another, fixed order:
    ``rating_order.py``)."""
    match_id: str
    rated: bool
    ratings: tuple[RatingInfo, RatingInfo] | None
    """Both seats' ratings after the update; None for a match that is not rated, or whose
    update waits for an earlier game of its tournament (``rating_order.py``)."""
    unrated_reason: str | None = None
    """Why it is not rated (``arena.store.rated.UnratedReason`` values); None when rated."""


@dataclass(frozen=True, slots=True)
class MatchToRecord:
    """One match for ``Store.record_matches``: what ``Store.record_match`` takes, as a value."""

    result: MatchResult
    seat_versions: tuple[int, int]
    tournament_game_id: int | None = None
    pair_id: int | None = None
    rate: bool = True


@dataclass(frozen=True, slots=True)
class MatchSummary:
    sequence: int
    match_id: str
    seed: int
    engine_version: str
    seat_versions: tuple[int, int]
    players: tuple[str, str]
    """``name@version`` of each seat."""
    winner: int | None
    scores: tuple[int, int]
    hands_played: int
    termination: Termination
    faults: tuple[int, int]
    detail: str
    rated: bool
    decision_count: int
    mean_decision_us: tuple[int | None, int | None]
    max_decision_us: tuple[int | None, int | None]
    started_at: datetime
    finished_at: datetime
    recorded_at: datetime
    tournament_id: int | None
    tournament_game_id: int | None
    pair_id: int | None
    unrated_reason: str | None = None
    """Why it is not rated (``arena.store.rated.UnratedReason`` values); None when rated, or
    recorded before revision 0005 without one."""
    humans: tuple[bool, bool] = (False, False)
    """Whether each seat is a person (a player of kind ``human``)."""


@dataclass(frozen=True, slots=True)
class StoredMatch:
    summary: MatchSummary
    result: MatchResult
    """The match as the referee reported it, decisions decoded (``players`` are
    ``name@version``)."""
    decisions_bytes: int
    """Size of the stored decision record."""


class TournamentStatus(enum.Enum):
    RUNNING = "running"
    """Created and not finished: ``pending_games`` says what is left (also after a crash)."""
    FINISHED = "finished"
    """Every scheduled game was recorded (set by the store with the last one)."""
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    """Never stored: how a ``running`` tournament that no process plays now is shown (its
    runner died or was stopped; ``arena tournament resume`` finishes it). See
    ``Store.live_status``."""


class GameStatus(enum.Enum):
    PENDING = "pending"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class ScheduleEntry:
    """One game of a tournament's schedule, as the scheduler plans it."""

    ordinal: int
    seed: int
    seat_versions: tuple[int, int]
    pair_id: int | None = None
    """Games that share a deal seed with the seats swapped share a pair id."""


@dataclass(frozen=True, slots=True)
class TournamentGameInfo:
    id: int
    tournament_id: int
    ordinal: int
    pair_id: int | None
    seed: int
    seat_versions: tuple[int, int]
    status: GameStatus
    match_id: str | None


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    id: int
    status: TournamentStatus
    config: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None
    games_total: int
    games_done: int


LEADERBOARD_KEYS = (
    "rank",
    "bot",
    "version",
    "mu",
    "sigma",
    "score",
    "mu_low",
    "mu_high",
    "matches",
    "wins",
    "losses",
    "draws",
    "faults",
)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """A row of the arena's leaderboard (``Store.leaderboard``) or of a tournament's standings
    (``arena.tournament.Standings``): one type for both, so both print and travel the same."""

    rank: int
    bot: str
    version: str
    """The manifest's version label (with a short content hash when two builds share it)."""
    mu: float
    sigma: float
    score: float
    """mu - 3 sigma: what the leaderboard ranks by."""
    matches: int
    """Rated matches."""
    wins: int
    losses: int
    draws: int
    faults: int
    """Faults in the rated matches (the arena's leaderboard), or in all of a tournament's
    matches, rated or not (its standings)."""
    bot_version_id: int | None = None
    """The rated bot version; None in a tournament's standings and in a row received from a
    server."""
    human: bool = False
    """A person's rating (people rated at ``/play`` share the bots' TrueSkill pool)."""

    @property
    def mu_low(self) -> float:
        """mu - 1.96 sigma: the lower end of the skill's 95 % interval."""
        return skill_interval(self.mu, self.sigma)[0]

    @property
    def mu_high(self) -> float:
        return skill_interval(self.mu, self.sigma)[1]

    def to_json(self) -> dict[str, Any]:
        """Exactly the keys of ``LEADERBOARD_KEYS``."""
        return {key: getattr(self, key) for key in LEADERBOARD_KEYS}


@dataclass(frozen=True, slots=True)
class TokenInfo:
    id: int
    name: str
    created_at: datetime
    role: str = "member"


@dataclass(frozen=True, slots=True)
class NamedTokenInfo:
    """One of an account's API tokens, by name (never the token)."""

    id: int
    name: str
    created_at: datetime
    revoked_at: datetime | None = None
