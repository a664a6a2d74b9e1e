"""The web arena's sessions in the store (migration 0006), on SQLite and PostgreSQL: a random
id of which only a hash is kept, revocable, expiring, ended with its API token."""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.store import Store
from arena.store.database import resolve_url
from arena.store.migrate import alembic_config
from arena.store.models import Base


def test_a_session_is_kept_as_a_hash_revocable_and_expiring(db_url: str) -> None:
    with Store.open(db_url) as store:
        token = store.create_token("alice")
        info = store.verify_token(token)
        assert info is not None
        new = store.open_session(info.id, timedelta(days=1))
        live = store.session(new.session_id)
        assert live is not None
        assert (live.token_id, live.name, live.csrf_token) == (info.id, "alice", new.csrf_token)
        assert store.session(new.session_id + "x") is None
        assert store.session("") is None
        # Only the hash of the id is in the database.
        engine = create_engine(resolve_url(db_url))
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id_hash, method FROM web_sessions")).all()
        engine.dispose()
        assert rows == [(hashlib.sha256(new.session_id.encode()).hexdigest(), "api_token")]
        # Signing out ends it for good.
        assert store.revoke_session(new.session_id) is True
        assert store.session(new.session_id) is None
        assert store.revoke_session(new.session_id) is False
        # It expires by itself.
        short = store.open_session(info.id, timedelta(seconds=1))
        assert store.session(short.session_id) is not None
        time.sleep(1.2)
        assert store.session(short.session_id) is None
        # Revoking the API token ends every session opened with it.
        sessions = [store.open_session(info.id, timedelta(days=1)) for _ in range(2)]
        store.revoke_token("alice")
        assert [store.session(s.session_id) for s in sessions] == [None, None]


def test_migration_0006_adds_the_sessions_to_an_0005_database(db_url: str) -> None:
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0005")
        with Store.open(db_url, upgrade=True) as store:
            token = store.create_token("bob")
            info = store.verify_token(token)
            assert info is not None
            assert store.session(store.open_session(info.id, timedelta(hours=1)).session_id)
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0005")
        assert not inspect(engine).has_table("web_sessions")
    finally:
        engine.dispose()
