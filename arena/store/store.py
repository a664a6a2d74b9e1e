"""The store: the library API over the database (bots, matches, tournaments, ratings, tokens).

A match and its rating update are committed in one transaction. Ratings are applied in the
recorded order (``matches.id``), and the recorded order is made to agree with the commit order:
a transaction first locks the two rating rows (``SELECT … FOR UPDATE`` in id order on
PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite) and only then inserts the match, so its id is taken
after every earlier update of those two bots has committed. ``recompute_ratings`` replays the
rated matches in id order and gets the same numbers, bit for bit.

What is rated: a match that ended by the rules (win, loss, or draw), and a forfeit, which counts
as a loss for the side that forfeited. Kept but not rated: aborted matches (the arena stopped;
a tournament game stays pending and is played again), forfeits with no winner (neither side
could play), and a bot version playing itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from sqlalchemy import Engine, case, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from arena.ratings import Rater, RatingConfig, conservative_score
from arena.referee.record import (
    DecisionRecord,
    MatchResult,
    Termination,
    decode_decisions,
    encode_decisions,
)
from arena.rules.ruleset import RuleSet
from arena.store import migrate, rating_order
from arena.store.database import WRITE, create_store_engine, display_url, resolve_url
from arena.store.errors import (
    AlreadyRecordedError,
    NotFoundError,
    NotOwnerError,
    SchemaError,
    StoreError,
    not_owner_message,
)
from arena.store.models import (
    ApiToken,
    Bot,
    BotVersion,
    Match,
    Rating,
    Setting,
    Tournament,
    TournamentGame,
    utcnow,
)
from arena.store.rows import (
    BotInfo,
    BotVersionInfo,
    GameStatus,
    LeaderboardRow,
    MatchSummary,
    RatingInfo,
    RecordedMatch,
    ScheduleEntry,
    StoredMatch,
    TokenInfo,
    TournamentGameInfo,
    TournamentInfo,
    TournamentStatus,
)

RATING_SETTINGS_KEY = "trueskill"
INT64 = (-(2**63), 2**63 - 1)
TOKEN_PREFIX = "arena_"
PG_TOURNAMENT_LOCK = 0x5A7E
"""First key of the PostgreSQL advisory lock held by the process playing a tournament."""
T = TypeVar("T")


class Store:
    """The arena's database. Open with ``Store.open(url)``; thread-safe; close when done."""

    def __init__(self, engine: Engine, url: URL, rating_config: RatingConfig) -> None:
        self._engine = engine
        self._write_engine = engine.execution_options(**{WRITE: True})
        self.url = display_url(url)
        """The database URL with any password hidden."""
        self.rating_config = rating_config
        self._rater = Rater(rating_config)

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        upgrade: bool = False,
        rating_config: RatingConfig | None = None,
    ) -> Store:
        """Open ``url`` (else ``$ARENA_DB``, else ``./arena.db``), creating the schema if empty.

        An older schema is upgraded only with ``upgrade=True`` (``arena db upgrade``); a schema
        this arena does not know raises ``SchemaError`` and nothing is changed.
        """
        config = rating_config if rating_config is not None else RatingConfig.from_env()
        engine, resolved = _connect(url)
        try:
            shown = display_url(resolved)
            state, revision = _guarded(shown, lambda: migrate.schema_state(engine, shown))
            if state is migrate.SchemaState.BEHIND and not upgrade:
                raise SchemaError(
                    f"database {shown} has schema revision {revision!r}, older than this "
                    f"arena's {migrate.head_revision()!r}: back it up, then run "
                    "`arena db upgrade` with the same --db"
                )
            if state is not migrate.SchemaState.CURRENT:
                _guarded(shown, lambda: migrate.upgrade(engine, shown))
            store = cls(engine, resolved, config)
            store._ensure_rating_settings()
        except BaseException:
            engine.dispose()
            raise
        return store

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with (
            self._errors(),
            Session(self._engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """A write transaction: on SQLite it holds the write lock from its first statement."""
        with (
            self._errors(),
            Session(self._write_engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except IntegrityError:
            raise
        except DBAPIError as exc:
            raise StoreError(f"database {self.url}: {_first_line(exc)}") from exc

    def _insert(self, model: type[Any]) -> Any:
        return (pg_insert if self.dialect == "postgresql" else sqlite_insert)(model)

    # -- bots ----------------------------------------------------------------------------------

    def register_bot_version(
        self,
        name: str,
        version_label: str,
        content_hash: str,
        source: str,
        *,
        owner_token_id: int | None = None,
        owner_only: bool = False,
    ) -> BotVersionInfo:
        """The version of bot ``name`` with these files, created if new.

        Idempotent: the same name and content hash give the same version back (its first label
        and source are kept). Different content under a known name is a new version. With
        ``owner_only``, a bot first registered by another owner raises ``NotOwnerError`` (checked
        in the same transaction) and nothing is written.
        """
        _check_bot_name(name)
        if not version_label or len(version_label) > 100:
            raise StoreError(f"bot {name}: version label must be 1-100 characters")
        if not content_hash or len(content_hash) > 128:
            raise StoreError(f"bot {name}: content hash must be 1-128 characters")
        for attempt in range(3):
            try:
                with self._write() as s:
                    bot = s.scalar(select(Bot).where(Bot.name == name))
                    if bot is None:
                        bot = Bot(name=name, owner_token_id=owner_token_id)
                        s.add(bot)
                        s.flush()
                    elif owner_only and bot.owner_token_id != owner_token_id:
                        raise NotOwnerError(not_owner_message(name, bot.owner_token_id))
                    version = s.scalar(
                        select(BotVersion).where(
                            BotVersion.bot_id == bot.id, BotVersion.content_hash == content_hash
                        )
                    )
                    if version is None:
                        version = BotVersion(
                            bot_id=bot.id,
                            version_label=version_label,
                            content_hash=content_hash,
                            source=source,
                        )
                        s.add(version)
                        s.flush()
                        mu, sigma = self._rater.initial()
                        s.add(Rating(bot_version_id=version.id, mu=mu, sigma=sigma))
                    return _version_info(version, bot.name)
            except IntegrityError:
                # Another process registered the same bot or version at the same moment.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def get_bot_version(self, ref: str | int) -> BotVersionInfo:
        """A version by id, ``name`` (its latest version) or ``name@version`` (the latest build
        with that label)."""
        with self._read() as s:
            if isinstance(ref, int):
                row = s.execute(
                    select(BotVersion, Bot.name)
                    .join(Bot, Bot.id == BotVersion.bot_id)
                    .where(BotVersion.id == ref)
                ).first()
                if row is None:
                    raise NotFoundError(f"no bot version with id {ref}")
                return _version_info(row[0], row[1])
            name, _, label = ref.partition("@")
            bot = s.scalar(select(Bot).where(Bot.name == name))
            if bot is None:
                known = s.scalars(select(Bot.name).order_by(Bot.name)).all()
                listing = ", ".join(known) if known else "none registered yet"
                raise NotFoundError(f"unknown bot {name!r}; known bots: {listing}")
            query = select(BotVersion).where(BotVersion.bot_id == bot.id)
            if label:
                query = query.where(BotVersion.version_label == label)
            version = s.scalar(query.order_by(BotVersion.id.desc()).limit(1))
            if version is None:
                labels = s.scalars(
                    select(BotVersion.version_label)
                    .where(BotVersion.bot_id == bot.id)
                    .order_by(BotVersion.id)
                ).all()
                raise NotFoundError(
                    f"bot {name!r} has no version {label!r}; its versions: {', '.join(labels)}"
                )
            return _version_info(version, bot.name)

    def list_bots(self) -> list[BotInfo]:
        with self._read() as s:
            bots = s.scalars(select(Bot).order_by(Bot.name)).all()
            versions = s.scalars(select(BotVersion).order_by(BotVersion.id)).all()
            owners = {tid: name for tid, name in s.execute(select(ApiToken.id, ApiToken.name))}
        by_bot: dict[int, list[BotVersion]] = {}
        for v in versions:
            by_bot.setdefault(v.bot_id, []).append(v)
        return [
            BotInfo(
                id=b.id,
                name=b.name,
                created_at=b.created_at,
                versions=tuple(_version_info(v, b.name) for v in by_bot.get(b.id, [])),
                owner_token_id=b.owner_token_id,
                owner=owners.get(b.owner_token_id) if b.owner_token_id is not None else None,
            )
            for b in bots
        ]

    def list_versions(self, name: str) -> list[BotVersionInfo]:
        latest = self.get_bot_version(name)
        with self._read() as s:
            versions = s.scalars(
                select(BotVersion).where(BotVersion.bot_id == latest.bot_id).order_by(BotVersion.id)
            ).all()
        return [_version_info(v, latest.name) for v in versions]

    # -- matches -------------------------------------------------------------------------------

    def record_match(
        self,
        result: MatchResult,
        *,
        seat_versions: tuple[int, int],
        tournament_game_id: int | None = None,
        pair_id: int | None = None,
    ) -> RecordedMatch:
        """Store a played match and apply its rating update, in one transaction.

        With ``tournament_game_id``, the scheduled game is marked done in the same transaction
        (unless the match was aborted: the game then stays pending), and a game that was
        already recorded raises ``AlreadyRecordedError`` with nothing written.
        """
        seat_versions = _check_seats(seat_versions)
        _check_result(result)
        try:
            return self._record(result, seat_versions, tournament_game_id, pair_id)
        except IntegrityError as exc:
            # The unique match ids, taken by another writer between our check and our insert.
            raise AlreadyRecordedError(
                f"match {result.match_id} (or its scheduled game) was recorded at the same "
                f"moment by another writer: {_first_line(exc)}"
            ) from None

    def _record(
        self,
        result: MatchResult,
        seat_versions: tuple[int, int],
        tournament_game_id: int | None,
        pair_id: int | None,
    ) -> RecordedMatch:
        rated = _is_rated(result, seat_versions)
        blob = encode_decisions(result.decisions)
        means, maxima = _decision_times(result.decisions)
        with self._write() as s:
            tournament_id: int | None = None
            game: TournamentGame | None = None
            if tournament_game_id is not None:
                game = s.scalar(
                    select(TournamentGame)
                    .where(TournamentGame.id == tournament_game_id)
                    .with_for_update()
                )
                if game is None:
                    raise NotFoundError(f"no tournament game with id {tournament_game_id}")
                _check_game(game, result, seat_versions)
                tournament_id = game.tournament_id
                pair_id = pair_id if pair_id is not None else game.pair_id
            if s.scalar(select(Match.id).where(Match.match_id == result.match_id)) is not None:
                raise AlreadyRecordedError(f"match {result.match_id} was already recorded")
            found = set(s.scalars(select(BotVersion.id).where(BotVersion.id.in_(seat_versions))))
            missing = sorted(set(seat_versions) - found)
            if missing:
                raise NotFoundError(f"no bot version with id {missing[0]}")

            # Ratings are applied in rating order (rating_order.py), one writer at a time.
            rating_order.lock(s, self.dialect)
            if rated or game is not None:  # a game of a tournament may release rated ones
                self._check_rating_settings(s)

            match = Match(
                match_id=result.match_id,
                seed=result.seed,
                rules=result.rules.to_dict(),
                engine_version=result.engine_version,
                seat0_version_id=seat_versions[0],
                seat1_version_id=seat_versions[1],
                winner=result.winner,
                score0=result.scores[0],
                score1=result.scores[1],
                hands_played=result.hands_played,
                termination=result.termination.value,
                detail=result.detail,
                faults0=result.faults[0],
                faults1=result.faults[1],
                rated=rated,
                decisions=blob,
                decision_count=len(result.decisions),
                mean_decision_us0=means[0],
                mean_decision_us1=means[1],
                max_decision_us0=maxima[0],
                max_decision_us1=maxima[1],
                started_at=result.started_at,
                finished_at=result.finished_at,
                tournament_id=tournament_id,
                tournament_game_id=tournament_game_id,
                pair_id=pair_id,
            )
            s.add(match)
            s.flush()
            match.rating_order = (
                rating_order.tournament_order(game.tournament_id, game.ordinal)
                if game is not None
                else rating_order.single_order(s, match.id)
            )

            if game is not None and result.termination is not Termination.ABORTED:
                done = s.execute(
                    update(TournamentGame)
                    .where(TournamentGame.id == game.id, TournamentGame.match_id.is_(None))
                    .values(match_id=result.match_id, status=GameStatus.DONE.value)
                    .execution_options(synchronize_session=False)
                )
                if done.rowcount != 1:
                    raise AlreadyRecordedError(
                        f"tournament {game.tournament_id} game {game.ordinal} was already recorded"
                    )
                self._finish_if_complete(s, game.tournament_id)
            applied = rating_order.apply_ready(s, self._rater, self.dialect, tournament_id)
            after: tuple[RatingInfo, RatingInfo] | None = None
            if match.id in applied:
                after = (
                    _rating_info(s.get(Rating, seat_versions[0])),
                    _rating_info(s.get(Rating, seat_versions[1])),
                )
            return RecordedMatch(
                sequence=match.id, match_id=match.match_id, rated=rated, ratings=after
            )

    def get_match(self, match_id: str) -> StoredMatch:
        with self._read() as s:
            row = s.scalar(select(Match).where(Match.match_id == match_id))
            if row is None:
                raise NotFoundError(f"no match with id {match_id!r}")
            players = self._players(s, [row])
        summary = _summary(row, players)
        result = MatchResult(
            match_id=row.match_id,
            seed=row.seed,
            rules=RuleSet.from_dict(row.rules),
            engine_version=row.engine_version,
            players=summary.players,
            winner=row.winner,
            scores=summary.scores,
            hands_played=row.hands_played,
            termination=summary.termination,
            faults=summary.faults,
            detail=row.detail,
            decisions=decode_decisions(row.decisions),
            started_at=row.started_at,
            finished_at=row.finished_at,
        )
        return StoredMatch(summary=summary, result=result, decisions_bytes=len(row.decisions))

    def list_matches(
        self,
        *,
        tournament_id: int | None = None,
        bot: str | None = None,
        bot_version_id: int | None = None,
        pair_id: int | None = None,
        rated: bool | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[MatchSummary]:
        """Matches in recorded order (or newest first), without their decision records."""
        columns = [c for c in Match.__table__.columns if c.name != "decisions"]
        query = select(*columns)
        if tournament_id is not None:
            query = query.where(Match.tournament_id == tournament_id)
        if pair_id is not None:
            query = query.where(Match.pair_id == pair_id)
        if rated is not None:
            query = query.where(Match.rated.is_(rated))
        if bot_version_id is not None:
            query = query.where(
                or_(
                    Match.seat0_version_id == bot_version_id,
                    Match.seat1_version_id == bot_version_id,
                )
            )
        if bot is not None:
            ids = [v.id for v in self.list_versions(bot)]
            query = query.where(
                or_(Match.seat0_version_id.in_(ids), Match.seat1_version_id.in_(ids))
            )
        query = query.order_by(Match.id.desc() if newest_first else Match.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as s:
            rows = s.execute(query).all()
            players = self._players(s, rows)
        return [_summary(r, players) for r in rows]

    def _players(self, s: Session, rows: Sequence[Any]) -> dict[int, str]:
        ids = {r.seat0_version_id for r in rows} | {r.seat1_version_id for r in rows}
        if not ids:
            return {}
        found = s.execute(
            select(BotVersion.id, Bot.name, BotVersion.version_label)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(BotVersion.id.in_(ids))
        ).all()
        return {vid: f"{name}@{label}" for vid, name, label in found}

    # -- tournaments -------------------------------------------------------------------------

    def create_tournament(
        self, config: Mapping[str, Any], schedule: Sequence[ScheduleEntry]
    ) -> int:
        """Store a tournament and its whole schedule before any game is played; returns its id."""
        try:
            config_json = json.loads(json.dumps(dict(config)))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"tournament config must be JSON data: {exc}") from None
        if not schedule:
            raise StoreError("a tournament needs at least one scheduled game")
        ordinals = [g.ordinal for g in schedule]
        if len(set(ordinals)) != len(ordinals):
            raise StoreError("tournament schedule has repeated game ordinals")
        versions: set[int] = set()
        for g in schedule:
            versions.update(_check_seats(g.seat_versions))
            _check_seed(g.seed)
        with self._write() as s:
            found = set(s.scalars(select(BotVersion.id).where(BotVersion.id.in_(versions))))
            if versions - found:
                raise NotFoundError(f"no bot version with id {min(versions - found)}")
            tournament = Tournament(status=TournamentStatus.RUNNING.value, config=config_json)
            s.add(tournament)
            s.flush()
            s.add_all(
                TournamentGame(
                    tournament_id=tournament.id,
                    ordinal=g.ordinal,
                    pair_id=g.pair_id,
                    seed=g.seed,
                    seat0_version_id=g.seat_versions[0],
                    seat1_version_id=g.seat_versions[1],
                    status=GameStatus.PENDING.value,
                )
                for g in schedule
            )
            return tournament.id

    def get_tournament(self, tournament_id: int) -> TournamentInfo:
        with self._read() as s:
            t = s.get(Tournament, tournament_id)
            if t is None:
                raise NotFoundError(f"no tournament with id {tournament_id}")
            counts = _game_counts(s, [tournament_id])
        return _tournament_info(t, counts.get(tournament_id, (0, 0)))

    def list_tournaments(self) -> list[TournamentInfo]:
        with self._read() as s:
            ts = s.scalars(select(Tournament).order_by(Tournament.id)).all()
            counts = _game_counts(s, [t.id for t in ts])
        return [_tournament_info(t, counts.get(t.id, (0, 0))) for t in ts]

    def tournament_games(
        self, tournament_id: int, *, status: GameStatus | None = None
    ) -> list[TournamentGameInfo]:
        """The schedule in order; ``status=GameStatus.PENDING`` gives what is left to play."""
        query = select(TournamentGame).where(TournamentGame.tournament_id == tournament_id)
        if status is not None:
            query = query.where(TournamentGame.status == status.value)
        with self._read() as s:
            if s.get(Tournament, tournament_id) is None:
                raise NotFoundError(f"no tournament with id {tournament_id}")
            games = s.scalars(query.order_by(TournamentGame.ordinal)).all()
        return [_game_info(g) for g in games]

    @contextmanager
    def tournament_player_lock(self, tournament_id: int) -> Iterator[None]:
        """Held while one process plays a tournament's games, so no two play it at once.

        The operating system or the server drops it when its holder dies, SIGKILL included, so
        a tournament whose player was killed can be resumed at once. PostgreSQL: a session-level
        advisory lock on a connection of its own. SQLite: ``flock`` on a file in
        ``<database>.locks/`` (kept, never deleted: deleting a lock file races with the next
        locker).
        """
        busy = StoreError(
            f"tournament {tournament_id} is being played by another process; wait for it to "
            f"end, or stop it, then `arena tournament resume {tournament_id}`"
        )
        if self.dialect == "postgresql":
            with self._errors(), self._engine.connect() as conn:
                key = {"space": PG_TOURNAMENT_LOCK, "id": tournament_id}
                got = conn.execute(text("SELECT pg_try_advisory_lock(:space, :id)"), key)
                conn.commit()
                if not got.scalar():
                    raise busy
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:space, :id)"), key)
                    conn.commit()
            return
        database = self._engine.url.database
        if not database or database == ":memory:":
            yield  # one connection, one process: nothing else can play it
            return
        folder = Path(f"{database}.locks")
        folder.mkdir(exist_ok=True)
        fd = os.open(folder / f"tournament-{tournament_id}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise busy from None
            yield
        finally:
            os.close(fd)

    def pending_games(self, tournament_id: int) -> list[TournamentGameInfo]:
        return self.tournament_games(tournament_id, status=GameStatus.PENDING)

    def set_tournament_status(self, tournament_id: int, status: TournamentStatus) -> None:
        with self._write() as s:
            t = s.get(Tournament, tournament_id)
            if t is None:
                raise NotFoundError(f"no tournament with id {tournament_id}")
            t.status = status.value
            t.finished_at = None if status is TournamentStatus.RUNNING else utcnow()
            if status is not TournamentStatus.RUNNING:
                # Its gaps are for good now: what waited behind them is rated.
                rating_order.lock(s, self.dialect)
                s.flush()
                rating_order.apply_ready(s, self._rater, self.dialect, tournament_id)

    def _finish_if_complete(self, s: Session, tournament_id: int) -> None:
        left = s.scalar(
            select(func.count())
            .select_from(TournamentGame)
            .where(
                TournamentGame.tournament_id == tournament_id,
                TournamentGame.status == GameStatus.PENDING.value,
            )
        )
        if left == 0:
            s.execute(
                update(Tournament)
                .where(
                    Tournament.id == tournament_id,
                    Tournament.status == TournamentStatus.RUNNING.value,
                )
                .values(status=TournamentStatus.FINISHED.value, finished_at=utcnow())
                .execution_options(synchronize_session=False)
            )

    # -- ratings -------------------------------------------------------------------------------

    def rating(self, bot_version_id: int) -> RatingInfo:
        with self._read() as s:
            r = s.get(Rating, bot_version_id)
            if r is None:
                raise NotFoundError(f"no bot version with id {bot_version_id}")
            return _rating_info(r)

    def ratings(self) -> dict[int, RatingInfo]:
        with self._read() as s:
            return {r.bot_version_id: _rating_info(r) for r in s.scalars(select(Rating))}

    def leaderboard(self, *, min_matches: int = 1) -> list[LeaderboardRow]:
        """Bot versions ranked by mu - 3 sigma; ties by mu, then name, then age."""
        with self._read() as s:
            rows = s.execute(
                select(Rating, Bot.name, BotVersion.version_label, BotVersion.content_hash)
                .join(BotVersion, BotVersion.id == Rating.bot_version_id)
                .join(Bot, Bot.id == BotVersion.bot_id)
                .where(Rating.matches >= min_matches)
            ).all()
            label_counts = {
                (name, label): n
                for name, label, n in s.execute(
                    select(Bot.name, BotVersion.version_label, func.count())
                    .join(Bot, Bot.id == BotVersion.bot_id)
                    .group_by(Bot.name, BotVersion.version_label)
                ).all()
            }
        scored = sorted(
            rows,
            key=lambda row: (
                -conservative_score(row[0].mu, row[0].sigma),
                -row[0].mu,
                row[1],
                row[0].bot_version_id,
            ),
        )
        board = []
        for rank, (r, name, label, content_hash) in enumerate(scored, start=1):
            shared = label_counts.get((name, label), 1) > 1
            shown = f"{label}+{content_hash[:8]}" if shared else label
            board.append(
                LeaderboardRow(
                    rank=rank,
                    bot=name,
                    version=shown,
                    mu=r.mu,
                    sigma=r.sigma,
                    score=conservative_score(r.mu, r.sigma),
                    matches=r.matches,
                    wins=r.wins,
                    losses=r.losses,
                    draws=r.draws,
                    faults=r.faults,
                    bot_version_id=r.bot_version_id,
                )
            )
        return board

    def recompute_ratings(self) -> int:
        """Rebuild every rating from the applied matches in rating order (rating_order.py),
        with this store's TrueSkill settings; returns the number of matches applied."""
        with self._write() as s:
            rating_order.lock(s, self.dialect)
            rating_order.apply_all_ready(s, self._rater, self.dialect)
            applied = rating_order.rebuild(s, self._rater, self.dialect)
            self._write_rating_settings(s)
            return applied

    def ratings_stale(self) -> bool:
        """True when the stored ratings were computed in an older order (rating_order.py)."""
        with self._read() as s:
            return s.get(Setting, rating_order.STALE_KEY) is not None

    def rating_settings(self) -> RatingConfig | None:
        """The TrueSkill settings the stored ratings were computed with."""
        with self._read() as s:
            row = s.get(Setting, RATING_SETTINGS_KEY)
            return None if row is None else RatingConfig.from_dict(row.value)

    def _ensure_rating_settings(self) -> None:
        """Note the settings in a database that has none yet (a new one)."""
        if self.rating_settings() is not None:
            return
        with self._write() as s:
            s.execute(
                self._insert(Setting)
                .values(key=RATING_SETTINGS_KEY, value=self.rating_config.to_dict())
                .on_conflict_do_nothing(index_elements=["key"])
            )

    def _check_rating_settings(self, s: Session) -> None:
        row = s.get(Setting, RATING_SETTINGS_KEY, populate_existing=True)
        stored = None if row is None else RatingConfig.from_dict(row.value)
        if stored is None:
            self._write_rating_settings(s)
        elif stored != self.rating_config:
            raise StoreError(
                f"the ratings in {self.url} were computed with TrueSkill {stored.describe()}, "
                f"not the {self.rating_config.describe()} now set: run "
                "`arena ratings --recompute` to rebuild them with the new settings, or restore "
                "the old ARENA_TRUESKILL_* values"
            )

    def _write_rating_settings(self, s: Session) -> None:
        row = s.get(Setting, RATING_SETTINGS_KEY)
        if row is None:
            s.add(Setting(key=RATING_SETTINGS_KEY, value=self.rating_config.to_dict()))
        else:
            row.value = self.rating_config.to_dict()

    # -- tokens --------------------------------------------------------------------------------

    def create_token(self, name: str) -> str:
        """A new API token named ``name``. The token is returned once; only its hash is kept."""
        if not name or len(name) > 100:
            raise StoreError("token name must be 1-100 characters")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            with self._write() as s:
                s.add(ApiToken(name=name, token_hash=_token_hash(token)))
        except IntegrityError:
            raise StoreError(f"a token named {name!r} exists already") from None
        return token

    def verify_token(self, token: str) -> TokenInfo | None:
        """The token's owner, or None for a token that is unknown or revoked."""
        with self._read() as s:
            row = s.scalar(select(ApiToken).where(ApiToken.token_hash == _token_hash(token)))
            return None if row is None else TokenInfo(row.id, row.name, row.created_at)

    def list_tokens(self) -> list[TokenInfo]:
        with self._read() as s:
            rows = s.scalars(select(ApiToken).order_by(ApiToken.id)).all()
            return [TokenInfo(r.id, r.name, r.created_at) for r in rows]

    def revoke_token(self, name: str) -> None:
        with self._write() as s:
            row = s.scalar(select(ApiToken).where(ApiToken.name == name))
            if row is None:
                raise NotFoundError(f"no token named {name!r}")
            # The row stays (bots may name it as owner); its hash no longer matches any token.
            row.token_hash = "revoked:" + secrets.token_hex(24)


# -- schema helpers used by ``arena db`` ---------------------------------------------------------


def upgrade_database(url: str | None = None) -> tuple[str | None, str]:
    """Create or upgrade the schema; returns (revision before, revision after)."""
    engine, resolved = _connect(url)
    shown = display_url(resolved)
    try:
        _guarded(shown, lambda: migrate.schema_state(engine, shown))  # refuses unknown ones
        return _guarded(shown, lambda: migrate.upgrade(engine, shown))
    finally:
        engine.dispose()


def database_revision(url: str | None = None) -> tuple[str, str | None, str]:
    """(URL shown, current revision or None, newest revision this arena knows)."""
    engine, resolved = _connect(url)
    shown = display_url(resolved)
    try:
        with engine.connect() as conn:
            current = _guarded(shown, lambda: migrate.current_revision(conn))
        return shown, current, migrate.head_revision()
    finally:
        engine.dispose()


def _connect(url: str | None) -> tuple[Engine, URL]:
    """An engine for ``url`` that has been seen to connect (else one line naming the URL)."""
    resolved = resolve_url(url)
    shown = display_url(resolved)
    if resolved.get_backend_name() == "sqlite" and resolved.database not in (None, "", ":memory:"):
        folder = Path(resolved.database).parent
        if not folder.is_dir():
            raise StoreError(f"cannot open database {shown}: folder {folder} does not exist")
    engine = create_store_engine(resolved)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except DBAPIError as exc:
        engine.dispose()
        raise StoreError(f"cannot connect to database {shown}: {_first_line(exc)}") from None
    return engine, resolved


def _guarded(shown: str, action: Callable[[], T]) -> T:
    try:
        return action()
    except DBAPIError as exc:
        raise StoreError(f"database {shown}: {_first_line(exc)}") from None


def _first_line(exc: DBAPIError) -> str:
    text_ = str(exc.orig) if exc.orig is not None else str(exc)
    line = text_.strip().splitlines()[0] if text_.strip() else type(exc).__name__
    return line


# -- row conversions and checks ------------------------------------------------------------------


def _check_bot_name(name: str) -> None:
    if not name or len(name) > 100 or "@" in name or name != name.strip():
        raise StoreError(
            f"bad bot name {name!r}: 1-100 characters, no '@', no leading or trailing spaces"
        )


def _check_seats(seats: tuple[int, int] | Sequence[int]) -> tuple[int, int]:
    if len(seats) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in seats):
        raise StoreError(f"seat_versions must be two bot version ids, got {seats!r}")
    return seats[0], seats[1]


def _check_seed(seed: int) -> None:
    if not INT64[0] <= seed <= INT64[1]:
        raise StoreError(f"seed {seed} does not fit in a signed 64-bit integer")


def _check_result(result: MatchResult) -> None:
    if not result.match_id or len(result.match_id) > 64:
        raise StoreError(f"match id must be 1-64 characters, got {result.match_id!r}")
    _check_seed(result.seed)
    if result.winner not in (None, 0, 1):
        raise StoreError(f"match {result.match_id}: winner must be 0, 1 or None")


def _check_game(game: TournamentGame, result: MatchResult, seats: tuple[int, int]) -> None:
    where = f"tournament {game.tournament_id} game {game.ordinal}"
    if game.match_id is not None or game.status != GameStatus.PENDING.value:
        raise AlreadyRecordedError(f"{where} was already recorded as match {game.match_id}")
    if game.seed != result.seed:
        raise StoreError(f"{where} is scheduled with seed {game.seed}, not {result.seed}")
    if (game.seat0_version_id, game.seat1_version_id) != seats:
        raise StoreError(
            f"{where} is scheduled for bot versions "
            f"{(game.seat0_version_id, game.seat1_version_id)}, not {seats}"
        )


def _is_rated(result: MatchResult, seats: tuple[int, int]) -> bool:
    if result.termination is Termination.ABORTED or seats[0] == seats[1]:
        return False
    return not (result.termination.is_forfeit and result.winner is None)


def _decision_times(
    decisions: Sequence[DecisionRecord],
) -> tuple[tuple[int | None, int | None], tuple[int | None, int | None]]:
    totals, counts, maxima = [0, 0], [0, 0], [0, 0]
    for d in decisions:
        totals[d.seat] += d.elapsed_us
        counts[d.seat] += 1
        maxima[d.seat] = max(maxima[d.seat], d.elapsed_us)
    mean = tuple(round(totals[i] / counts[i]) if counts[i] else None for i in (0, 1))
    peak = tuple(maxima[i] if counts[i] else None for i in (0, 1))
    return (mean[0], mean[1]), (peak[0], peak[1])


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _version_info(v: BotVersion, name: str) -> BotVersionInfo:
    return BotVersionInfo(
        id=v.id,
        bot_id=v.bot_id,
        name=name,
        version_label=v.version_label,
        content_hash=v.content_hash,
        source=v.source,
        created_at=v.created_at,
    )


def _rating_info(r: Rating) -> RatingInfo:
    return RatingInfo(
        bot_version_id=r.bot_version_id,
        mu=r.mu,
        sigma=r.sigma,
        matches=r.matches,
        wins=r.wins,
        losses=r.losses,
        draws=r.draws,
        faults=r.faults,
    )


def _summary(r: Any, players: Mapping[int, str]) -> MatchSummary:
    return MatchSummary(
        sequence=r.id,
        match_id=r.match_id,
        seed=r.seed,
        engine_version=r.engine_version,
        seat_versions=(r.seat0_version_id, r.seat1_version_id),
        players=(players[r.seat0_version_id], players[r.seat1_version_id]),
        winner=r.winner,
        scores=(r.score0, r.score1),
        hands_played=r.hands_played,
        termination=Termination(r.termination),
        faults=(r.faults0, r.faults1),
        detail=r.detail,
        rated=r.rated,
        decision_count=r.decision_count,
        mean_decision_us=(r.mean_decision_us0, r.mean_decision_us1),
        max_decision_us=(r.max_decision_us0, r.max_decision_us1),
        started_at=r.started_at,
        finished_at=r.finished_at,
        recorded_at=r.recorded_at,
        tournament_id=r.tournament_id,
        tournament_game_id=r.tournament_game_id,
        pair_id=r.pair_id,
    )


def _game_counts(s: Session, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    if not ids:
        return {}
    rows = s.execute(
        select(
            TournamentGame.tournament_id,
            func.count(),
            func.sum(case((TournamentGame.status == GameStatus.DONE.value, 1), else_=0)),
        )
        .where(TournamentGame.tournament_id.in_(ids))
        .group_by(TournamentGame.tournament_id)
    ).all()
    return {tid: (int(total), int(done or 0)) for tid, total, done in rows}


def _game_info(g: TournamentGame) -> TournamentGameInfo:
    return TournamentGameInfo(
        id=g.id,
        tournament_id=g.tournament_id,
        ordinal=g.ordinal,
        pair_id=g.pair_id,
        seed=g.seed,
        seat_versions=(g.seat0_version_id, g.seat1_version_id),
        status=GameStatus(g.status),
        match_id=g.match_id,
    )


def _tournament_info(t: Tournament, counts: tuple[int, int]) -> TournamentInfo:
    return TournamentInfo(
        id=t.id,
        status=TournamentStatus(t.status),
        config=dict(t.config),
        created_at=t.created_at,
        finished_at=t.finished_at,
        games_total=counts[0],
        games_done=counts[1],
    )
