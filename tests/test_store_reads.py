"""The store's read API (``arena/store/reads.py``) and its bulk load, against the store's own
facade on a real database (SQLite, and PostgreSQL when configured)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest

from arena.ratings import RatingConfig
from arena.referee.record import MatchResult
from arena.store import NotFoundError, Store, StoreError
from arena.store.models import Bot, BotVersion, Rating

MakeResult = Callable[..., MatchResult]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, rating_config=RatingConfig()) as s:
        yield s


def test_reads_agree_with_the_facade(store: Store, make_result: MakeResult) -> None:
    a = store.register_bot_version("alpha", "1.0", "h-a1", "/a").id
    a2 = store.register_bot_version("alpha", "2.0", "h-a2", "/a").id
    b = store.register_bot_version("beta", "1.0", "h-b", "/b").id
    before = store.ratings_fingerprint()
    results = [
        (make_result(0, seed=1), (a, b)),  # alpha wins
        (make_result(1, seed=2), (b, a2)),  # alpha (2.0) wins from seat 1
        (make_result(None, seed=3), (a2, b)),  # a draw
        (make_result(0, seed=4), (a, a2)),  # self-play: not against an opponent
    ]
    for result, seats in results:
        store.record_match(result, seat_versions=seats)
    assert store.ratings_fingerprint() != before

    detail = store.bot_detail("alpha")
    assert (detail.name, detail.version_ids) == ("alpha", [a, a2])
    assert [v.label for v in detail.versions] == ["1.0", "2.0"]
    assert detail.versions[0].rating == store.rating(a)
    with pytest.raises(NotFoundError, match="no bot named 'gamma'"):
        store.bot_detail("gamma")

    ids = detail.version_ids
    assert store.count_matches(ids) == 4  # self-play counted once
    (beta,) = store.head_to_head(ids)
    assert (beta.bot, beta.matches, beta.wins, beta.losses, beta.draws) == ("beta", 3, 2, 0, 1)
    assert store.head_to_head([]) == [] and store.count_matches([]) == 0

    board = store.leaderboard_rows(1)
    facade = store.leaderboard(min_matches=1)
    assert [(r.bot, r.version, r.mu) for r in board] == [(r.bot, r.version, r.mu) for r in facade]
    assert [r for r in store.rated_in_rating_order()] == sorted(store.rated_in_rating_order())
    assert len(store.rated_in_rating_order()) == 4
    assert store.tournament_ids_of(ids) == []
    with pytest.raises(NotFoundError, match="no tournament with id 99"):
        store.tournament_match_state(99)
    assert store.tournament_match_sequences(99) == set()


def test_load_rows_fills_tables_and_replace_empties_them_first(store: Store) -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    store.load_rows(
        [
            (Bot, [{"id": i, "name": f"b{i}", "created_at": now} for i in (1, 2)]),
            (
                BotVersion,
                [
                    {"id": i, "bot_id": i, "version_label": "1", "content_hash": f"{i:064x}",
                     "source": "generated", "created_at": now}
                    for i in (1, 2)
                ],
            ),
            (
                Rating,
                [
                    {"bot_version_id": i, "mu": 20.0 + i, "sigma": 1.0, "matches": 3, "wins": i,
                     "losses": 3 - i, "draws": 0, "faults": 0}
                    for i in (1, 2)
                ],
            ),
        ]
    )  # fmt: skip
    store.analyze()
    assert [r.bot for r in store.leaderboard_rows(1)] == ["b2", "b1"]
    one = {"bot_version_id": 1, "mu": 30.0, "sigma": 1.0, "matches": 1, "wins": 1, "losses": 0,
           "draws": 0, "faults": 0}  # fmt: skip
    store.load_rows([(Rating, [one])], replace=True)
    assert [(r.bot, r.mu) for r in store.leaderboard_rows(1)] == [("b1", 30.0)]


def test_load_rows_refuses_a_row_of_no_such_bot(store: Store) -> None:
    bad = {"bot_version_id": 404, "mu": 1.0, "sigma": 1.0, "matches": 0, "wins": 0,
           "losses": 0, "draws": 0, "faults": 0}  # fmt: skip
    now = datetime.now(UTC).replace(tzinfo=None)
    with pytest.raises(StoreError, match=r"(?i)foreign key") as caught:
        store.load_rows([(Bot, [{"id": 1, "name": "b1", "created_at": now}]), (Rating, [bad])])
    assert "\n" not in str(caught.value)
    assert store.list_bots() == []  # one transaction: the bot went with the refused rating


def test_reads_inside_reading_are_one_snapshot(store: Store) -> None:
    """Inside ``reading()`` every read sees the database as it was at the first: a write made
    meanwhile shows after the block, not inside it; a block inside another is the outer one."""
    store.register_bot_version("alpha", "1", "h-a", "/a")
    with store.reading():
        first = store.marks()
        assert len(store.bot_detail("alpha").versions) == 1
        store.register_bot_version("alpha", "2", "h-a2", "/a")  # its own write transaction
        with store.reading():
            assert store.marks() == first
        assert len(store.bot_detail("alpha").versions) == 1
    assert store.marks()["ratings"] == first["ratings"] + 1
    assert len(store.bot_detail("alpha").versions) == 2
