"""The ratings' mark and a tournament's kept summary (migration 0012), on a real database
(SQLite, and PostgreSQL when given): the mark moves in every transaction that changes a stored
rating and in no other; the migration goes up and back down."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.ratings import RatingConfig
from arena.referee.analysed import analyse_result
from arena.referee.record import MatchResult
from arena.store import ScheduleEntry, Store, StoreError, TournamentStatus
from arena.store.database import resolve_url
from arena.store.migrate import alembic_config
from arena.store.models import Base, Bot, BotVersion, Rating
from tests.test_analyse_cli import played

MakeResult = Callable[..., MatchResult]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, rating_config=RatingConfig()) as s:
        yield s


def test_the_ratings_mark_moves_with_every_rating_change_and_only_then(
    store: Store, make_result: MakeResult
) -> None:
    marks = [store.ratings_fingerprint()]

    def moved() -> bool:
        marks.append(store.ratings_fingerprint())
        return marks[-1] != marks[-2]

    a = store.register_bot_version("alpha", "1", "h-a", "/a").id
    assert moved()  # a new version's first rating
    b = store.register_bot_version("beta", "1", "h-b", "/b").id
    assert moved()
    assert store.register_bot_version("beta", "1", "h-b", "/b").id == b
    assert not moved()  # the same build again: no rating written
    store.record_match(make_result(0, seed=1), seat_versions=(a, b))
    assert moved()  # rated
    store.record_match(make_result(0, seed=2, match_id="self"), seat_versions=(a, a))
    assert not moved()  # self-play is not rated (arena.store.rated)
    store.recompute_ratings()
    assert moved()  # every rating written again
    assert store.ratings_fingerprint() == store.ratings_fingerprint()
    assert len(set(marks)) == 5


def test_the_tournaments_mark_moves_when_one_is_created_or_changes_status(
    store: Store, make_result: MakeResult
) -> None:
    a = store.register_bot_version("alpha", "1", "h-a", "/a").id
    b = store.register_bot_version("beta", "1", "h-b", "/b").id
    seen = [store.marks()["tournaments"]]
    schedule = [ScheduleEntry(0, 11, (a, b), 0), ScheduleEntry(1, 11, (b, a), 0)]
    tid = store.create_tournament({"bots": ["alpha", "beta"]}, schedule)
    seen.append(store.marks()["tournaments"])
    games = store.tournament_games(tid)
    for g, winner in zip(games, (0, 1), strict=True):
        result = make_result(winner, seed=11, match_id=f"t-{g.ordinal}")
        store.record_match(result, seat_versions=g.seat_versions, tournament_game_id=g.id)
        # the first game done: the same tournament in the same status; the last finishes it
        seen.append(store.marks()["tournaments"])
    assert store.get_tournament(tid).status is TournamentStatus.FINISHED
    store.set_tournament_status(tid, TournamentStatus.CANCELLED)
    seen.append(store.marks()["tournaments"])
    assert seen == [0, 1, 1, 2, 3]
    assert store.marks()["ratings"] > 0


def test_a_stored_analysis_moves_its_mark(store: Store) -> None:
    a = store.register_bot_version("alpha", "1", "ha", "/a").id
    b = store.register_bot_version("beta", "1", "hb", "/b").id
    result = played("m", 60, ("alpha@1", "beta@1"), hands=2)
    store.record_match(result, seat_versions=(a, b))
    before = store.marks()
    store.save_analysis("m", analyse_result(result))
    store.save_analysis("m", analyse_result(result))  # replaced: a change too
    after = store.marks()
    assert after["analyses"] == before["analyses"] + 2
    assert {k: v for k, v in after.items() if k != "analyses"} == {
        k: v for k, v in before.items() if k != "analyses"
    }


def test_load_rows_of_ratings_moves_the_mark(store: Store) -> None:
    before = store.ratings_fingerprint()
    now = datetime.now(UTC).replace(tzinfo=None)
    version = {"id": 1, "bot_id": 1, "version_label": "1", "content_hash": "h"}
    version |= {"source": "generated", "created_at": now}
    store.load_rows([(Bot, [{"id": 1, "name": "b1", "created_at": now}]), (BotVersion, [version])])
    assert store.ratings_fingerprint() == before
    store.load_rows([(Rating, [{"bot_version_id": 1, "mu": 20.0, "sigma": 1.0}])])
    assert store.ratings_fingerprint() != before


def test_migration_0012_adds_the_marks_and_summaries_and_goes_back(db_url: str) -> None:
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0011")
        assert not {"marks", "tournament_summaries"} & set(inspect(engine).get_table_names())
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0012")
        with engine.connect() as conn:
            assert sorted(conn.execute(text("SELECT key, value FROM marks")).all()) == [
                ("analyses", 0), ("ratings", 0), ("tournaments", 0),
            ]  # fmt: skip
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0011")
        assert not {"marks", "tournament_summaries"} & set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_a_kept_summary_is_read_back_under_its_basis_only(store: Store) -> None:
    a = store.register_bot_version("alpha", "1", "h-a", "/a").id
    b = store.register_bot_version("beta", "1", "h-b", "/b").id
    tid = store.create_tournament({"bots": ["alpha", "beta"]}, [ScheduleEntry(0, 5, (a, b), 0)])
    assert store.tournament_summary(tid, "x") is None
    store.keep_tournament_summary(tid, "x", {"played": 1, "mu": 25.000000000000004})
    assert store.tournament_summary(tid, "x") == {"played": 1, "mu": 25.000000000000004}
    assert store.tournament_summary(tid, "y") is None
    store.keep_tournament_summary(tid, "y", {"played": 2})  # replaced, not a second row
    assert store.tournament_summary(tid, "x") is None
    assert store.tournament_summary(tid, "y") == {"played": 2}
    with pytest.raises(StoreError, match="at most 400 characters"):
        store.keep_tournament_summary(tid, "z" * 401, {})
