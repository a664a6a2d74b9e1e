"""The schema's Alembic migrations, run from code so that they work from an installed package.

The migration scripts live in ``arena/store/migrations`` (package data); the Alembic
configuration is built here rather than read from an ``alembic.ini``. A database is checked
before anything is written to it: an unknown revision (a newer arena's, or another program's)
stops the arena with nothing changed.

For developers, a new revision is generated against the models with::

    python -m arena.store.migrate revision -m "what changed"
"""

from __future__ import annotations

import argparse
import enum
import tempfile
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection

from arena.store.database import WRITE, create_store_engine, display_url, resolve_url
from arena.store.errors import SchemaError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
PG_SCHEMA_LOCK = 0x5350_4144_4553
"""PostgreSQL advisory lock key held while migrating, so two arenas never migrate at once."""


class SchemaState(enum.Enum):
    EMPTY = "empty"
    """No arena schema yet: it is created on first use."""
    BEHIND = "behind"
    """An older schema: ``arena db upgrade`` brings it up to date."""
    CURRENT = "current"


def alembic_config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def script_directory() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    head = script_directory().get_current_head()
    assert head is not None, "the arena ships at least one migration"
    return head


def current_revision(conn: Connection) -> str | None:
    heads = MigrationContext.configure(conn).get_current_heads()
    if len(heads) > 1:
        raise SchemaError(f"the database has several schema revisions at once: {heads}")
    return heads[0] if heads else None


def classify(revision: str | None, shown_url: str) -> SchemaState:
    """Where ``revision`` stands against this arena's migrations; unknown ones raise."""
    if revision is None:
        return SchemaState.EMPTY
    head = head_revision()
    if revision == head:
        return SchemaState.CURRENT
    try:
        known = script_directory().get_revision(revision)
    except CommandError:
        known = None
    if known is None:
        raise SchemaError(
            f"database {shown_url} has schema revision {revision!r}, which this version of the "
            f"arena does not know (its newest is {head!r}): it was written by a newer arena or "
            "another program; upgrade the arena to use it (nothing was changed)"
        )
    return SchemaState.BEHIND


def schema_state(engine: Engine, shown_url: str) -> tuple[SchemaState, str | None]:
    with engine.connect() as conn:
        revision = current_revision(conn)
    return classify(revision, shown_url), revision


def upgrade(engine: Engine, shown_url: str) -> tuple[str | None, str]:
    """Bring the schema to the newest revision; returns (revision before, revision after).

    Runs in one write transaction that first takes a lock (SQLite's write lock, a PostgreSQL
    advisory lock) and checks again, so two processes opening a new database at once do not
    both create it. Both SQLite and PostgreSQL have transactional DDL: a failed step changes
    nothing.
    """
    with engine.execution_options(**{WRITE: True}).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_SCHEMA_LOCK})
        before = current_revision(conn)
        if classify(before, shown_url) is not SchemaState.CURRENT:
            command.upgrade(alembic_config(conn), "head")
        return before, head_revision()


def _generate_revision(message: str) -> None:
    """Autogenerate a migration by comparing the models with a scratch database at head."""
    with tempfile.TemporaryDirectory() as tmp:
        url = resolve_url(str(Path(tmp) / "scratch.db"))
        engine = create_store_engine(url)
        try:
            upgrade(engine, display_url(url))
            head = head_revision()
            rev_id = f"{int(head) + 1:04d}" if head.isdigit() else None
            with engine.execution_options(**{WRITE: True}).begin() as conn:
                command.revision(
                    alembic_config(conn), message=message, autogenerate=True, rev_id=rev_id
                )
        finally:
            engine.dispose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arena.store.migrate")
    sub = parser.add_subparsers(dest="cmd", required=True)
    rev = sub.add_parser("revision", help="autogenerate a new migration from the models")
    rev.add_argument("-m", "--message", required=True)
    args = parser.parse_args(argv)
    if args.cmd == "revision":
        _generate_revision(args.message)


if __name__ == "__main__":
    main()
