"""A tournament's player lock held by one process is seen by the others, on SQLite and on
PostgreSQL (its advisory lock in ``pg_locks``): the store, the service's tournament manager, the
web's queries and the CLI all say ``running`` while it is held and ``interrupted`` once it is
released. On PostgreSQL a lock in another database of the same server is not this one's."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.cli import app
from arena.service.tournaments import TournamentManager
from arena.store import Store, StoreError, TournamentStatus
from arena.tournament import TournamentSettings, create_tournament
from arena.web.views import tournament_state

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"

HOLD = """
import sys
from arena.store import Store
with Store.open(sys.argv[1]) as store, store.tournament_player_lock(int(sys.argv[2])):
    print("held", flush=True)
    sys.stdin.read()
print("released", flush=True)
"""


def _tournament(url: str) -> int:
    with Store.open(url) as store:
        settings = TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=1, seed=1
        )
        return create_tournament(store, settings)


def _seen(url: str, tid: int) -> dict[str, object]:
    """What each reader says of the tournament, read from this process."""
    with Store.open(url) as store:
        info = store.get_tournament(tid)
        manager = TournamentManager(store)
        listed = CliRunner().invoke(app, ["tournament", "list", "--json", "--db", url])
        assert listed.exit_code == 0, listed.output
        return {
            "store": store.tournament_player_active(tid),
            "live": store.live_status(info).status,
            "web": tournament_state(store, info.status, tid),
            "service": manager.describe(tid).state,
            "service list": [t.state for t in manager.list_all()],
            "cli": [row["status"] for row in json.loads(listed.output)],
        }


RUNNING = {
    "store": True,
    "live": TournamentStatus.RUNNING,
    "web": "running",
    "service": pb.TOURNAMENT_STATE_RUNNING,
    "service list": [pb.TOURNAMENT_STATE_RUNNING],
    "cli": ["running"],
}
INTERRUPTED = {
    "store": False,
    "live": TournamentStatus.INTERRUPTED,
    "web": "interrupted",
    "service": pb.TOURNAMENT_STATE_INTERRUPTED,
    "service list": [pb.TOURNAMENT_STATE_INTERRUPTED],
    "cli": ["interrupted"],
}


class _Holder:
    """Another process holding the tournament's player lock until ``release``."""

    def __init__(self, url: str, tid: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, url, str(tid)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        assert self.proc.stdout.readline().strip() == "released"
        assert self.proc.wait(timeout=30) == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


@pytest.mark.slow
def test_a_held_player_lock_is_seen_by_every_reader(db_url: str) -> None:
    tid = _tournament(db_url)
    assert _seen(db_url, tid) == INTERRUPTED
    holder = _Holder(db_url, tid)
    try:
        assert _seen(db_url, tid) == RUNNING
        busy = pytest.raises(StoreError, match="being played by another process")
        with Store.open(db_url) as store, busy, store.tournament_player_lock(tid):
            pass  # nobody else may play it meanwhile
        holder.release()
    finally:
        holder.kill()
    assert _seen(db_url, tid) == INTERRUPTED


@pytest.fixture
def other_postgres_url(_postgres_admin: object) -> Iterator[str]:
    """A second database on the same PostgreSQL server."""
    from sqlalchemy import Engine, text

    assert isinstance(_postgres_admin, Engine)
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with _postgres_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield _postgres_admin.url.set(database=name).render_as_string(hide_password=False)
    with _postgres_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.mark.slow
@pytest.mark.postgres
def test_a_lock_in_another_database_is_not_this_ones(
    postgres_url: str, other_postgres_url: str
) -> None:
    """Advisory lock keys are per database, pg_locks is of the whole server: tournament 1 of
    one arena being played says nothing of tournament 1 of another on the same server."""
    tid = _tournament(postgres_url)
    assert _tournament(other_postgres_url) == tid
    holder = _Holder(other_postgres_url, tid)
    try:
        assert _seen(other_postgres_url, tid) == RUNNING
        assert _seen(postgres_url, tid) == INTERRUPTED
        holder.release()
    finally:
        holder.kill()
