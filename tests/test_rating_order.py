"""The arena's ratings do not depend on which match finished first (arena/store/rating_order.py).

Store level, real database (SQLite, and PostgreSQL when given): the same results recorded in
different orders give the same ratings, bit for bit, and ``recompute_ratings`` gives them too.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.ratings import RatingConfig
from arena.referee.record import MatchResult
from arena.store import ScheduleEntry, Store, TournamentStatus

MakeResult = Callable[..., MatchResult]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, rating_config=RatingConfig()) as s:
        yield s


def _bots(store: Store, n: int) -> list[int]:
    return [
        store.register_bot_version(f"bot{i}", "1.0", f"hash{i}", f"/bots/{i}").id for i in range(n)
    ]


def _round_robin(store: Store, versions: list[int], rounds: int, seed: int) -> int:
    schedule = []
    for r in range(rounds):
        for i, a in enumerate(versions):
            for b in versions[i + 1 :]:
                for seats in ((a, b), (b, a)):
                    n = len(schedule)
                    schedule.append(ScheduleEntry(n, seed * 1000 + r, seats, n // 2))
    return store.create_tournament({"kind": "test"}, schedule)


def _winners(tid: int, n: int) -> list[int | None]:
    rng = random.Random(tid)
    return [rng.choice([0, 0, 1, None]) for _ in range(n)]


def _record(store: Store, make_result: MakeResult, tid: int, ordinals: list[int]) -> None:
    games = {g.ordinal: g for g in store.tournament_games(tid)}
    winners = _winners(tid, len(games))
    for o in ordinals:
        g = games[o]
        store.record_match(
            make_result(winners[o], seed=g.seed, match_id=f"t{tid}-g{o}"),
            seat_versions=g.seat_versions,
            tournament_game_id=g.id,
        )


def _ratings(store: Store) -> dict[int, tuple[float, float, int, int, int, int]]:
    return {
        v: (r.mu, r.sigma, r.matches, r.wins, r.losses, r.draws) for v, r in store.ratings().items()
    }


def test_a_tournament_recorded_in_any_order_rates_the_same(
    db_url: str, tmp_path: Path, make_result: MakeResult
) -> None:
    """In order (on the database under test), shuffled and reversed (SQLite files): identical
    ratings, bit for bit; and recompute gives them again."""
    outcomes = []
    for order, url in (
        ("in order", db_url),
        ("shuffled", f"sqlite:///{tmp_path / 'shuffled.db'}"),
        ("reversed", f"sqlite:///{tmp_path / 'reversed.db'}"),
    ):
        with Store.open(url, rating_config=RatingConfig()) as store:
            versions = _bots(store, 4)
            tid = _round_robin(store, versions, rounds=2, seed=3)
            ordinals = list(range(24))
            if order == "shuffled":
                random.Random(5).shuffle(ordinals)
            elif order == "reversed":
                ordinals.reverse()
            _record(store, make_result, tid, ordinals)
            stored = _ratings(store)
            assert store.recompute_ratings() == 24
            assert _ratings(store) == stored
            outcomes.append(stored)
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert len({r[0] for r in outcomes[0].values()}) == 4  # the results did move the ratings


def test_same_tournaments_in_two_orders_give_identical_ratings(
    tmp_path: Path, make_result: MakeResult
) -> None:
    """Two databases, the same two tournaments and a single match; one records in schedule
    order, the other shuffled and with the two tournaments interleaved: equal, bit for bit."""
    boards = []
    for variant in range(2):
        url = f"sqlite:///{tmp_path / f'v{variant}.db'}"
        with Store.open(url, rating_config=RatingConfig()) as store:
            versions = _bots(store, 4)
            t1 = _round_robin(store, versions, rounds=2, seed=1)
            t2 = _round_robin(store, versions[:3], rounds=3, seed=2)
            a = list(range(24))
            b = list(range(18))
            if variant == 0:
                _record(store, make_result, t1, a)
                _record(store, make_result, t2, b)
            else:
                rng = random.Random(9)
                rng.shuffle(a)
                rng.shuffle(b)
                for i in range(24):  # t2 starts while t1 is still being recorded
                    _record(store, make_result, t1, [a[i]])
                    if i >= 6 and i - 6 < len(b):
                        _record(store, make_result, t2, [b[i - 6]])
            single = make_result(1, match_id="single")
            store.record_match(single, seat_versions=(versions[0], versions[3]))
            stored = _ratings(store)
            store.recompute_ratings()
            assert _ratings(store) == stored
            boards.append(stored)
    assert boards[0] == boards[1]


def test_a_result_past_a_gap_waits_for_it(store: Store, make_result: MakeResult) -> None:
    versions = _bots(store, 2)
    tid = _round_robin(store, versions, rounds=3, seed=1)  # 6 games
    _record(store, make_result, tid, [1, 2])  # game 0 still pending
    assert all(r.matches == 0 for r in store.ratings().values())
    assert store.recompute_ratings() == 0  # recompute agrees: nothing is applicable yet
    _record(store, make_result, tid, [0])  # the gap closes: 0, 1, 2 are applied in order
    assert {r.matches for r in store.ratings().values()} == {3}
    _record(store, make_result, tid, [4])
    assert {r.matches for r in store.ratings().values()} == {3}
    # A tournament decided early (a comparison) or cancelled: its gaps are for good.
    store.set_tournament_status(tid, TournamentStatus.FINISHED)
    assert {r.matches for r in store.ratings().values()} == {4}
    stored = _ratings(store)
    store.recompute_ratings()
    assert _ratings(store) == stored


def test_recorded_ratings_are_returned_only_when_applied(
    store: Store, make_result: MakeResult
) -> None:
    versions = _bots(store, 2)
    tid = _round_robin(store, versions, rounds=1, seed=1)
    games = store.tournament_games(tid)
    late = store.record_match(
        make_result(0, seed=games[1].seed, match_id="late"),
        seat_versions=games[1].seat_versions, tournament_game_id=games[1].id,
    )  # fmt: skip
    assert late.rated and late.ratings is None
    first = store.record_match(
        make_result(1, seed=games[0].seed, match_id="first"),
        seat_versions=games[0].seat_versions, tournament_game_id=games[0].id,
    )  # fmt: skip
    assert first.ratings is not None
    assert store.rating(versions[0]).matches == 2


def _pair(store: Store, a: int, b: int, seed: int, config: dict[str, object]) -> int:
    """A two-match tournament, both seatings (as the ladder's pairs)."""
    return store.create_tournament(
        config, [ScheduleEntry(0, seed, (a, b), 0), ScheduleEntry(1, seed, (b, a), 0)]
    )


@pytest.mark.parametrize("as_recorded", [True, False])
def test_pairs_rated_as_recorded_never_rebuild_the_ratings(
    store: Store, make_result: MakeResult, monkeypatch: pytest.MonkeyPatch, as_recorded: bool
) -> None:
    """Two ladder-like pairs played at once, their results interleaved: rated as recorded,
    each is applied at once, in the order recorded, without a rebuild; in schedule order (the
    default) the same interleaving makes the store rebuild every rating."""
    from arena.ratings import Rater
    from arena.store import rating_order

    rebuilds: list[int] = []
    real = rating_order.rebuild
    monkeypatch.setattr(
        rating_order,
        "rebuild",
        lambda *a: rebuilds.append(1) or real(*a),  # type: ignore[func-returns-value]
    )
    config: dict[str, object] = {"kind": "test"}
    if as_recorded:
        config[rating_order.ORDER_KEY] = rating_order.RECORDED
    v = _bots(store, 4)
    t1 = _pair(store, v[0], v[1], 11, config)
    t2 = _pair(store, v[2], v[3], 12, config)
    t3 = _pair(store, v[0], v[2], 13, config)
    order = [(t1, 0), (t2, 0), (t3, 0), (t1, 1), (t2, 1), (t3, 1)]
    winners = [0, 1, None, 1, 0, 0]
    games = {(t, g.ordinal): g for t in (t1, t2, t3) for g in store.tournament_games(t)}
    applied_at_once = []
    for (t, o), w in zip(order, winners, strict=True):
        g = games[(t, o)]
        recorded = store.record_match(
            make_result(w, seed=g.seed, match_id=f"t{t}-g{o}"),
            seat_versions=g.seat_versions, tournament_game_id=g.id,
        )  # fmt: skip
        applied_at_once.append(recorded.ratings is not None)
    if not as_recorded:
        assert rebuilds, "the interleaving should have placed a match before an applied one"
        return
    assert rebuilds == [] and all(applied_at_once)
    # The ratings are those of the matches applied one after another as they were recorded.
    rater = Rater(RatingConfig())
    expected = {i: rater.initial() for i in v}
    for (t, o), w in zip(order, winners, strict=True):
        a, b = games[(t, o)].seat_versions
        expected[a], expected[b] = rater.rate(expected[a], expected[b], w)
    assert {i: (r.mu, r.sigma) for i, r in store.ratings().items()} == expected
    stored = _ratings(store)
    store.recompute_ratings()
    assert _ratings(store) == stored and rebuilds
