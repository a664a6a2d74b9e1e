"""Which database, and how to connect to it: URLs, the default file, and per-dialect setup.

SQLite serialises writers itself, but only if a write transaction takes the write lock when it
begins: with the driver's default (a deferred ``BEGIN``), two transactions that both read then
write can deadlock, and one fails at once with "database is locked" whatever the busy timeout.
So write transactions begin with ``BEGIN IMMEDIATE`` (the recipe of SQLAlchemy's pysqlite
documentation, "Serializable isolation / Savepoints / Transactional DDL"), wait up to
``SQLITE_BUSY_TIMEOUT_S`` for the lock, and the file is in WAL mode so readers never wait.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from arena.store.errors import StoreError

ENV_VAR = "ARENA_DB"
DEFAULT_FILE = "arena.db"
"""The default database: ``arena.db`` in the current directory (a SQLite file)."""
SQLITE_BUSY_TIMEOUT_S = 60.0
WRITE = "arena_write"
"""Execution option that makes a SQLite transaction begin with ``BEGIN IMMEDIATE``."""


def resolve_url(url: str | None = None) -> URL:
    """The URL to use: ``url``, else ``$ARENA_DB``, else ``sqlite:///arena.db``.

    A plain path (no ``://``) means a SQLite file; ``postgresql://`` and ``postgres://`` mean
    PostgreSQL through psycopg 3 (``postgresql+psycopg://``).
    """
    raw = url if url else os.environ.get(ENV_VAR) or DEFAULT_FILE
    raw = raw.strip()
    if "://" not in raw:
        return URL.create("sqlite", database=str(Path(raw).expanduser()))
    try:
        parsed = make_url(raw)
    except ArgumentError:
        raise StoreError(
            f"cannot parse database URL {raw.split('@')[-1]!r}: expected sqlite:///PATH or "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def display_url(url: URL) -> str:
    """The URL as a user may see it: any password is hidden."""
    return url.render_as_string(hide_password=True)


def create_store_engine(url: URL) -> Engine:
    """An engine for ``url`` with the arena's per-dialect settings (see the module docstring)."""
    backend = url.get_backend_name()
    kwargs: dict[str, Any] = {}
    if backend == "sqlite":
        kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_S}
    elif backend == "postgresql":
        kwargs["pool_pre_ping"] = True
        kwargs["connect_args"] = {"connect_timeout": 10}
    else:
        raise StoreError(
            f"unsupported database {display_url(url)}: the arena works with SQLite "
            "(sqlite:///PATH) and PostgreSQL (postgresql://…)"
        )
    try:
        engine = create_engine(url, **kwargs)
    except NoSuchModuleError:
        raise StoreError(f"unsupported database driver in {display_url(url)}") from None
    except ModuleNotFoundError as exc:
        hint = " (pip install 'spades-arena[postgres]')" if backend == "postgresql" else ""
        raise StoreError(
            f"cannot use database {display_url(url)}: driver {exc.name} is not installed{hint}"
        ) from None
    if backend == "sqlite":
        _configure_sqlite(engine)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below emit BEGIN, not the driver.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            _enter_wal_mode(cursor)
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _enter_wal_mode(cursor: Any) -> None:
    """Switch the file to WAL mode, waiting out another process doing the same.

    Switching a new file's journal mode needs an exclusive lock, and SQLite answers "database is
    locked" at once, without its busy handler, when two processes switch at the same moment (two
    arenas opening one new database). Once a file is in WAL mode the switch is a no-op.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)
