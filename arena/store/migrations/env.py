"""Alembic's environment for the arena: the connection comes from ``arena.store.migrate``."""

from __future__ import annotations

from typing import Any

from alembic import context

from arena.store.database import create_store_engine, resolve_url
from arena.store.models import Base, UTCDateTime

config = context.config
target_metadata = Base.metadata


def render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    """Migrations name plain SQLAlchemy types, never the arena's own (which may change)."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime()"
    return False


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    def migrate(connection: Any) -> None:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            # SQLite alters tables by copying them: batch mode does that for later migrations.
            render_as_batch=True,
            compare_type=True,
            render_item=render_item,
        )
        with context.begin_transaction():
            context.run_migrations()

    connection = config.attributes.get("connection")
    if connection is not None:
        migrate(connection)
        return
    engine = create_store_engine(resolve_url(config.get_main_option("sqlalchemy.url")))
    try:
        with engine.begin() as conn:
            migrate(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
