"""The store's tournaments and their scheduled games, and the lock held while one is played."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from sqlalchemy import CursorResult, case, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store import marks, rating_order
from arena.store.core import StoreCore, check_seats, check_seed
from arena.store.errors import NotFoundError, StoreError
from arena.store.models import (
    BotVersion,
    Tournament,
    TournamentGame,
    TournamentSummary,
    utcnow,
)
from arena.store.rows import (
    GameStatus,
    ScheduleEntry,
    TournamentGameInfo,
    TournamentInfo,
    TournamentStatus,
)

PG_TOURNAMENT_LOCK = 0x5A7E
"""First key of the PostgreSQL advisory lock held by the process playing a tournament."""


class TournamentsMixin(StoreCore):
    """Tournaments, their whole schedule, and which games are left to play."""

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
            versions.update(check_seats(g.seat_versions))
            check_seed(g.seed)
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
            marks.bump(s, marks.TOURNAMENTS)
            return tournament.id

    def get_tournament(self, tournament_id: int) -> TournamentInfo:
        with self._read() as s:
            t = s.get(Tournament, tournament_id)
            if t is None:
                raise NotFoundError(f"no tournament with id {tournament_id}")
            counts = _game_counts(s, [tournament_id])
        return _tournament_info(t, counts.get(tournament_id, (0, 0)))

    def list_tournaments(
        self, *, newest_first: bool = False, limit: int | None = None, before: int | None = None
    ) -> list[TournamentInfo]:
        """Tournaments in creation order (or newest first); ``limit`` and ``before`` (ids below
        it) page through them by id, an index read however many there are."""
        query = select(Tournament)
        if before is not None:
            query = query.where(Tournament.id < before)
        query = query.order_by(Tournament.id.desc() if newest_first else Tournament.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as s:
            ts = s.scalars(query).all()
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
        path = self._sqlite_lock_path(tournament_id)
        if path is None:
            yield  # one connection, one process: nothing else can play it
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not _flock_waiting(fd):
                raise busy
            yield
        finally:
            os.close(fd)

    def _sqlite_lock_path(self, tournament_id: int) -> Path | None:
        """The lock file of a SQLite database's tournament, named from the database file itself
        (its real path, device and inode), so a symlink or another spelling of the path to the
        same file finds the same lock. None for an in-memory database."""
        database = self._engine.url.database
        if not database or database == ":memory:":
            return None
        real = Path(os.path.realpath(database))
        try:
            st = real.stat()
            key = f"{st.st_dev}-{st.st_ino}"
        except OSError:
            key = "new"
        folder = Path(f"{real}.locks")
        folder.mkdir(exist_ok=True)
        return folder / f"tournament-{tournament_id}-{key}.lock"

    def tournament_being_played(self, tournament_id: int) -> bool | None:
        """Whether some process holds the tournament's player lock now (``Store.
        tournament_player_lock``), seen without taking it (``Store.tournament_player_active``);
        None when this cannot be told (an in-memory database)."""
        database = self._engine.url.database
        if self.dialect != "postgresql" and (not database or database == ":memory:"):
            return None
        return self.tournament_player_active(tournament_id)

    def tournament_player_active(self, tournament_id: int) -> bool:
        """Whether a process (this one included) holds the tournament's player lock now: a
        ``running`` tournament nobody plays was interrupted (its runner died or was stopped).

        PostgreSQL: the advisory lock in ``pg_locks``, of this database only (the keys are per
        database, the view is of the whole server). SQLite: the lock file's ``flock`` taken and
        dropped at once (true across containers, where ``/proc/locks`` may not show the
        holder); a player starting at that moment waits for it (``_flock_waiting``)."""
        if self.dialect == "postgresql":
            with self._errors(), self._engine.connect() as conn:
                held = conn.execute(
                    text(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                        "AND classid = :space AND objid = :id AND objsubid = 2 AND database = "
                        "(SELECT oid FROM pg_database WHERE datname = current_database())"
                    ),
                    {"space": PG_TOURNAMENT_LOCK, "id": tournament_id},
                ).scalar()
            return bool(held)
        path = self._sqlite_lock_path(tournament_id)
        if path is None:
            return False
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing drops a lock taken here
        return False

    def live_status(self, info: TournamentInfo) -> TournamentInfo:
        """``info`` as it is now: a ``running`` tournament whose player lock nobody holds is
        ``interrupted``; the same words in the CLI, its --json, the docs and the proto."""
        if info.status is TournamentStatus.RUNNING and not self.tournament_player_active(info.id):
            return dataclasses.replace(info, status=TournamentStatus.INTERRUPTED)
        return info

    def tournament_summary(self, tournament_id: int, basis: str) -> dict[str, Any] | None:
        """What was kept of the tournament (``keep_tournament_summary``) if it was computed
        from ``basis``; None if nothing was, or from another basis."""
        with self._read() as s:
            row = s.get(TournamentSummary, tournament_id)
            return None if row is None or row.basis != basis else dict(row.data)

    def keep_tournament_summary(
        self, tournament_id: int, basis: str, data: Mapping[str, Any]
    ) -> None:
        """Keep ``data`` (JSON) derived from a tournament that is over, with the ``basis`` it
        was computed from (its recorded state, the settings), replacing what was kept."""
        if len(basis) > BASIS_LENGTH:
            raise StoreError(f"a summary's basis is at most {BASIS_LENGTH} characters")
        for attempt in range(2):  # two first views at once: the second replaces the first
            try:
                with self._write() as s:
                    if s.get(Tournament, tournament_id) is None:
                        raise NotFoundError(f"no tournament with id {tournament_id}")
                    row = s.get(TournamentSummary, tournament_id)
                    if row is None:
                        s.add(TournamentSummary(tournament_id=tournament_id, basis=basis,
                                                data=dict(data)))  # fmt: skip
                    else:
                        row.basis, row.data, row.created_at = basis, dict(data), utcnow()
                return
            except IntegrityError:
                if attempt:
                    raise

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
            # After the ratings' lock, as a recorder that finishes a tournament takes them.
            marks.bump(s, marks.TOURNAMENTS)

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
            finished = cast(
                CursorResult[Any],
                s.execute(
                    update(Tournament)
                    .where(
                        Tournament.id == tournament_id,
                        Tournament.status == TournamentStatus.RUNNING.value,
                    )
                    .values(status=TournamentStatus.FINISHED.value, finished_at=utcnow())
                    .execution_options(synchronize_session=False)
                ),
            )
            if finished.rowcount:
                marks.bump(s, marks.TOURNAMENTS)


BASIS_LENGTH = 400
"""The longest basis of a kept summary (``tournament_summaries.basis``, migration 0012)."""
PEEK_WAIT_S = 0.5
"""How long a player waits for a SQLite tournament lock held by someone only looking whether it
is held (``tournament_player_active`` holds it for microseconds): a real player holds it for the
whole tournament."""


def _flock_waiting(fd: int) -> bool:
    """Take ``flock`` on ``fd``, trying again for ``PEEK_WAIT_S``; False when it stays held."""
    deadline = time.monotonic() + PEEK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


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
