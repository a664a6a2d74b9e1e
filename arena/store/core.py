"""What every part of the store shares: the engine and its sessions, the dialect, how database
errors become one-line ``StoreError``s, connecting, and the checks of ids and seeds."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from sqlalchemy import Engine, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from arena.ratings import Rater, RatingConfig
from arena.store import marks, migrate
from arena.store.database import WRITE, create_store_engine, display_url, resolve_url
from arena.store.errors import StoreError
from arena.store.models import MatchAnalysisRow, Rating, Tournament

INT64 = (-(2**63), 2**63 - 1)
T = TypeVar("T")


class StoreCore:
    """The connection to the database that the store's parts (bots, matches, tournaments,
    ratings, tokens) work through; ``arena.store.Store`` composes them."""

    def __init__(self, engine: Engine, url: URL, rating_config: RatingConfig) -> None:
        self._engine = engine
        self._write_engine = engine.execution_options(**{WRITE: True})
        self._reading = threading.local()
        # On PostgreSQL a reading() block asks for one snapshot: READ COMMITTED, the default,
        # would let each statement see what was committed since the last.
        self._snapshot_engine = (
            engine.execution_options(isolation_level="REPEATABLE READ")
            if engine.dialect.name == "postgresql"
            else engine
        )
        """The session of this thread's ``reading()`` block, when one is open."""
        self.url = display_url(url)
        """The database URL with any password hidden."""
        self.rating_config = rating_config
        self._rater = Rater(rating_config)

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Self:
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
    def reading(self) -> Iterator[None]:
        """Every read of this thread inside the block is one transaction: one snapshot of the
        database (a page's reads agree with one another) and one BEGIN for all of them, not
        one each. Writes are not part of it; a block inside another is the outer one."""
        if getattr(self._reading, "session", None) is not None:
            yield
            return
        with (
            self._errors(),
            Session(self._snapshot_engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            self._reading.session = session
            try:
                yield
            finally:
                self._reading.session = None

    @contextmanager
    def _read(self) -> Iterator[Session]:
        shared = getattr(self._reading, "session", None)
        if shared is not None:
            yield shared
            return
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
            raise StoreError(f"database {self.url}: {first_line(exc)}") from exc

    def load_rows(
        self,
        rows_by_model: Sequence[tuple[type[Any], Sequence[dict[str, Any]]]],
        *,
        replace: bool = False,
    ) -> None:
        """Insert plain rows, table by table in the order given, in one write transaction,
        unchecked (no rating update, no id or seed check): for generating a benchmark's
        database, never for an arena's own records. ``replace`` empties each table first. A
        row the schema refuses (an unknown id it refers to, a duplicate) is a ``StoreError``
        and nothing is loaded."""
        try:
            with self._errors(), self._write_engine.begin() as conn:
                for model, rows in rows_by_model:
                    if replace:
                        conn.execute(model.__table__.delete())
                    if rows:
                        conn.execute(model.__table__.insert(), list(rows))
                loaded = {model for model, _ in rows_by_model}
                for model, key in (
                    (Rating, marks.RATINGS),
                    (Tournament, marks.TOURNAMENTS),
                    (MatchAnalysisRow, marks.ANALYSES),
                ):
                    if model in loaded:
                        conn.execute(marks.bump_sql(key))
        except IntegrityError as exc:
            raise StoreError(f"database {self.url}: {first_line(exc)}") from None

    def analyze(self) -> None:
        """Refresh the query planner's statistics (``ANALYZE``), after a bulk load."""
        with self._errors(), self._engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()

    def _insert(self, model: type[Any]) -> Any:
        return (pg_insert if self.dialect == "postgresql" else sqlite_insert)(model)


# -- schema helpers used by ``arena db`` ---------------------------------------------------------


def upgrade_database(url: str | None = None) -> tuple[str | None, str]:
    """Create or upgrade the schema; returns (revision before, revision after)."""
    engine, resolved = connect(url)
    shown = display_url(resolved)
    try:
        guarded(shown, lambda: migrate.schema_state(engine, shown))  # refuses unknown ones
        return guarded(shown, lambda: migrate.upgrade(engine, shown))
    finally:
        engine.dispose()


def database_revision(url: str | None = None) -> tuple[str, str | None, str]:
    """(URL shown, current revision or None, newest revision this arena knows)."""
    engine, resolved = connect(url)
    shown = display_url(resolved)
    try:
        with engine.connect() as conn:
            current = guarded(shown, lambda: migrate.current_revision(conn))
        return shown, current, migrate.head_revision()
    finally:
        engine.dispose()


def connect(url: str | None) -> tuple[Engine, URL]:
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
        raise StoreError(f"cannot connect to database {shown}: {first_line(exc)}") from None
    return engine, resolved


def guarded(shown: str, action: Callable[[], T]) -> T:
    try:
        return action()
    except DBAPIError as exc:
        raise StoreError(f"database {shown}: {first_line(exc)}") from None


def first_line(exc: DBAPIError) -> str:
    text_ = str(exc.orig) if exc.orig is not None else str(exc)
    line = text_.strip().splitlines()[0] if text_.strip() else type(exc).__name__
    return line


def check_seats(seats: tuple[int, int] | Sequence[int]) -> tuple[int, int]:
    if len(seats) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in seats):
        raise StoreError(f"seat_versions must be two bot version ids, got {seats!r}")
    return seats[0], seats[1]


def check_seed(seed: int) -> None:
    if not INT64[0] <= seed <= INT64[1]:
        raise StoreError(f"seed {seed} does not fit in a signed 64-bit integer")
