"""The database schema as SQLAlchemy 2.0 typed models (the Alembic migrations create the same).

Times are stored as naive UTC and read back as aware UTC (``UTCDateTime``), so SQLite (which
has no time zones) and PostgreSQL give the same values back.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Double,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Named constraints, so that later migrations can alter them on SQLite (batch mode) too."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """An aware datetime in, an aware UTC datetime out; naive input is taken as local time."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        dict[str, Any]: JSON,
        datetime: UTCDateTime,
        float: Double,
        bytes: LargeBinary,
    }


class ApiToken(Base):
    """A token for the arena service: only its SHA-256 is kept; the token is shown once."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    role: Mapped[str] = mapped_column(String(20), default="member", server_default="member")
    """``member`` (submits its bots, runs tournaments of them) or ``admin`` (docs/service.md)."""


class Account(Base):
    """A person who signs in to the web arena with a name and a password (argon2id; the hash
    only). Its identity is the API token row ``token_id``: the bots it owns name that row as
    owner, as the service's tokens always did, so a token made before accounts existed became
    an account (migration 0008) that owns what the token submitted. ``password_hash`` is None
    until a password is set; a disabled account signs in nowhere (web or service)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("api_tokens.id"), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    disabled_at: Mapped[datetime | None] = mapped_column(default=None)


class NamedToken(Base):
    """One of an account's API tokens, by the name its owner gave it (``laptop``, ``ci``): each
    acts as the account (``token_id``, its identity row: the same owner of bots, quotas and
    role). Only its SHA-256 is kept; revoked, it stays listed with ``revoked_at`` and its hash
    no longer matches any token. Migration 0009 made each token that worked before it its
    account's first named token."""

    __tablename__ = "named_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("api_tokens.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class InviteCode(Base):
    """A code that lets one person sign up when sign-up is by invitation: its SHA-256 only."""

    __tablename__ = "invite_codes"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_by: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), default=None)
    used_at: Mapped[datetime | None] = mapped_column(default=None)


class SignInFailure(Base):
    """A refused password sign-in: the recent ones, per account name and per address, are
    what the sign-in rate limit counts (``arena.store.accounts``)."""

    __tablename__ = "sign_in_failures"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_name: Mapped[str] = mapped_column(String(100), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class WebSession(Base):
    """A signed-in browser of the web arena: the cookie holds a random id, the row its SHA-256
    only. Revoked by signing out (or by revoking the API token it was opened with); it ends at
    ``expires_at`` regardless. ``method`` says how the browser signed in: ``api_token`` or
    ``password`` (an account's; ``token_id`` is then the account's identity row)."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    id_hash: Mapped[str] = mapped_column(String(64), unique=True)
    method: Mapped[str] = mapped_column(String(20))
    token_id: Mapped[int | None] = mapped_column(ForeignKey("api_tokens.id"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    """Every form that changes anything carries it (the synchronizer token)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class Submission(Base):
    """One accepted upload through the service: what the per-token quotas count."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_id: Mapped[int | None] = mapped_column(ForeignKey("api_tokens.id"), index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    stored_bytes: Mapped[int] = mapped_column(BigInteger)
    """The unpacked size; 0 when the content was stored already (it is stored once)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class Bot(Base):
    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    owner_token_id: Mapped[int | None] = mapped_column(ForeignKey("api_tokens.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(10), default="bot", server_default="bot", index=True)
    """``bot`` or ``human``: a person who played at ``/play`` is a player like a bot."""
    account_id: Mapped[int | None] = mapped_column(default=None, unique=True, index=True)
    """A signed-in person's player: the account it is (one player per account; no foreign
    key, as ``BotVersion.owner_token_id``: see migration 0010)."""


class BotVersion(Base):
    """One exact build of a bot, known by the content hash of its files."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "content_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    version_label: Mapped[str] = mapped_column(String(100))
    """The version its manifest declares; not unique (an author may forget to change it)."""
    content_hash: Mapped[str] = mapped_column(String(128))
    source: Mapped[str] = mapped_column(Text)
    """Where its files are: a folder, an archive, or a remote address."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    owner_token_id: Mapped[int | None] = mapped_column(index=True)
    """Who owns this build: the id of the API token owning its bot when it was made (no foreign
    key: tokens are never deleted); None: registered locally, an organiser's. Matches between
    one owner's versions are recorded, never rated (migration 0005)."""


class Rating(Base):
    """The current TrueSkill rating and tallies of a bot version (rated matches only)."""

    __tablename__ = "ratings"

    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    mu: Mapped[float]
    sigma: Mapped[float]
    matches: Mapped[int] = mapped_column(default=0)
    wins: Mapped[int] = mapped_column(default=0)
    losses: Mapped[int] = mapped_column(default=0)
    draws: Mapped[int] = mapped_column(default=0)
    faults: Mapped[int] = mapped_column(default=0)


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[str] = mapped_column(String(20))
    config: Mapped[dict[str, Any]]
    """Bots, games per pair, seed, concurrency, move timeout, fault policy, …"""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


class TournamentGame(Base):
    """One scheduled match of a tournament: written before play, marked done once recorded."""

    __tablename__ = "tournament_games"
    __table_args__ = (UniqueConstraint("tournament_id", "ordinal"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    ordinal: Mapped[int]
    pair_id: Mapped[int | None]
    """The duplicate pair: the two games with one seed and the seats swapped share it."""
    seed: Mapped[int] = mapped_column(BigInteger)
    seat0_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    seat1_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    status: Mapped[str] = mapped_column(String(20), default="pending")
    match_id: Mapped[str | None] = mapped_column(String(64), unique=True)
    """The match that settled this game; unique, so a game can be recorded only once."""


class Match(Base):
    """A played match. ``id`` is the recorded sequence: ratings are applied in its order."""

    __tablename__ = "matches"
    __table_args__ = (
        # Matches of a bot, or of a tournament, in recorded order (migration 0003).
        Index("ix_matches_seat0_version_id_id", "seat0_version_id", "id"),
        Index("ix_matches_seat1_version_id_id", "seat1_version_id", "id"),
        Index("ix_matches_tournament_id_id", "tournament_id", "id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(String(64), unique=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    rules: Mapped[dict[str, Any]]
    engine_version: Mapped[str] = mapped_column(String(50))
    seat0_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    seat1_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    winner: Mapped[int | None]
    score0: Mapped[int]
    score1: Mapped[int]
    hands_played: Mapped[int]
    termination: Mapped[str] = mapped_column(String(40))
    detail: Mapped[str] = mapped_column(Text, default="")
    faults0: Mapped[int]
    faults1: Mapped[int]
    rated: Mapped[bool]
    """False for aborted matches, self-play, matches that never started, forfeits with no
    winner and matches between one owner's bots: kept, not rated."""
    unrated_reason: Mapped[str | None] = mapped_column(String(40))
    """Why a match is not rated (``arena.store.rated.UnratedReason``); None when rated."""
    decisions: Mapped[bytes]
    """``encode_decisions`` bytes: with the seed and rules they replay the match exactly."""
    decision_count: Mapped[int]
    mean_decision_us0: Mapped[int | None]
    mean_decision_us1: Mapped[int | None]
    max_decision_us0: Mapped[int | None]
    max_decision_us1: Mapped[int | None]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime]
    recorded_at: Mapped[datetime] = mapped_column(default=utcnow)
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"))
    tournament_game_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournament_games.id"), index=True
    )
    """The scheduled game this match was played for (an aborted attempt keeps it too)."""
    pair_id: Mapped[int | None] = mapped_column(index=True)
    """The duplicate pair within its tournament (both seatings of one deal seed)."""
    rating_order: Mapped[int | None] = mapped_column(BigInteger, index=True)
    """Where the match stands in the order ratings are applied in (``rating_order.py``): by
    tournament, then schedule position; never by which match happened to finish first."""
    rating_applied: Mapped[bool] = mapped_column(default=False, server_default=false())
    """True once the match's update is in the ratings table (a tournament's later results wait
    for its earlier games: ``rating_order.py``)."""


class MatchAnalysisRow(Base):
    """A match's double-dummy analysis (arena.analysis), with the solver version that made it:
    a newer solver's analysis replaces it. Per seat, the sum of its par losses over the
    complete hands and their number, so card-play loss per version is one aggregate query."""

    __tablename__ = "match_analyses"
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    match_pk: Mapped[int] = mapped_column(ForeignKey("matches.id"), unique=True)
    solver_version: Mapped[str] = mapped_column(String(20), index=True)
    data: Mapped[dict[str, Any]]
    """``arena.analysis.analysis_to_dict``."""
    hands: Mapped[int]
    """Complete hands analysed (the samples of card-play loss)."""
    loss0: Mapped[int]
    loss1: Mapped[int]
    blunders0: Mapped[int]
    blunders1: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Setting(Base):
    """Database-wide settings, such as the TrueSkill environment the ratings were computed with."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[dict[str, Any]]


class Mark(Base):
    """A counter bumped in the transaction that changes what it marks (``ratings``: any stored
    rating), so that a reader can tell "changed since" with one row's read instead of a pass
    over the table."""

    __tablename__ = "marks"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class TournamentSummary(Base):
    """What is derived from a tournament that is over (its standings: TrueSkill replayed over its
    matches), kept so that it is computed once. ``basis`` says what it was computed from (the
    tournament's recorded state, the rating settings): a summary whose basis is not today's is
    computed again."""

    __tablename__ = "tournament_summaries"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    basis: Mapped[str] = mapped_column(String(400))
    data: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
