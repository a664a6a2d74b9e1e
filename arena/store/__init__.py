"""The arena's database: bots, matches, tournaments and TrueSkill ratings (SQLite or PostgreSQL).

Knows nothing of gRPC: it stores what the referee reports (``arena.referee.record``).
"""

from arena.store.core import database_revision, upgrade_database
from arena.store.database import DEFAULT_FILE, ENV_VAR, resolve_url
from arena.store.errors import (
    AlreadyRecordedError,
    NotFoundError,
    NotOwnerError,
    SchemaError,
    StoreError,
)
from arena.store.rows import (
    LEADERBOARD_KEYS,
    BotInfo,
    BotVersionInfo,
    GameStatus,
    LeaderboardRow,
    MatchSummary,
    MatchToRecord,
    RatingInfo,
    RecordedMatch,
    ScheduleEntry,
    StoredMatch,
    TokenInfo,
    TournamentGameInfo,
    TournamentInfo,
    TournamentStatus,
)
from arena.store.store import Store

__all__ = [
    "DEFAULT_FILE",
    "ENV_VAR",
    "LEADERBOARD_KEYS",
    "AlreadyRecordedError",
    "BotInfo",
    "BotVersionInfo",
    "GameStatus",
    "LeaderboardRow",
    "MatchSummary",
    "MatchToRecord",
    "NotFoundError",
    "NotOwnerError",
    "RatingInfo",
    "RecordedMatch",
    "ScheduleEntry",
    "SchemaError",
    "Store",
    "StoreError",
    "StoredMatch",
    "TokenInfo",
    "TournamentGameInfo",
    "TournamentInfo",
    "TournamentStatus",
    "database_revision",
    "resolve_url",
    "upgrade_database",
]
