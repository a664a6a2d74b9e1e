"""Group commit (``Store.record_matches``): many results in one transaction, each with its rating
update and game mark, each recorded exactly once or refused on its own.

Real database (SQLite, and PostgreSQL when given): a group gives the same stored matches and the
same ratings, bit for bit, as the same results recorded one transaction each; a record refused
in a group (a game recorded before, a game twice in one group, a seed off the schedule, an
unknown version) leaves the others recorded.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.ratings import RatingConfig
from arena.referee.record import MatchResult, Termination
from arena.store import (
    AlreadyRecordedError,
    MatchToRecord,
    NotFoundError,
    RecordedMatch,
    ScheduleEntry,
    Store,
    StoreError,
    TournamentStatus,
)
from arena.store.matches import GROUP_MAX

MakeResult = Callable[..., MatchResult]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, rating_config=RatingConfig()) as s:
        yield s


def _tournament(store: Store, rounds: int = 2) -> tuple[int, list[int]]:
    versions = [
        store.register_bot_version(f"bot{i}", "1.0", f"hash{i}", f"/bots/{i}").id for i in range(4)
    ]
    schedule = []
    for r in range(rounds):
        for i, a in enumerate(versions):
            for b in versions[i + 1 :]:
                for seats in ((a, b), (b, a)):
                    n = len(schedule)
                    schedule.append(ScheduleEntry(n, 1000 + r * 10 + i, seats, n // 2))
    return store.create_tournament({"kind": "test"}, schedule), versions


def _items(store: Store, tid: int, make_result: MakeResult) -> list[MatchToRecord]:
    rng = random.Random(tid)
    return [
        MatchToRecord(
            make_result(rng.choice([0, 1, 1, None]), seed=g.seed, match_id=f"t{tid}-g{g.ordinal}"),
            g.seat_versions,
            tournament_game_id=g.id,
            pair_id=g.pair_id,
        )
        for g in store.tournament_games(tid)
    ]


def _state(store: Store, tid: int) -> tuple[object, ...]:
    ratings = {
        v: (r.mu, r.sigma, r.matches, r.wins, r.losses, r.draws, r.faults)
        for v, r in store.ratings().items()
    }
    matches = [
        (m.match_id, m.tournament_game_id, m.rated, m.winner, m.decision_count)
        for m in sorted(store.list_matches(tournament_id=tid), key=lambda m: m.match_id)
    ]
    return ratings, matches, store.get_tournament(tid).status


def test_a_group_records_as_one_transaction_each_does(
    db_url: str, tmp_path: Path, make_result: MakeResult
) -> None:
    """The same results, shuffled, in groups of 5 (database under test) and one by one (a
    SQLite file): the same matches, ratings bit for bit, the tournament finished."""
    states = []
    for grouped, url in ((True, db_url), (False, f"sqlite:///{tmp_path / 'alone.db'}")):
        with Store.open(url, rating_config=RatingConfig()) as store:
            tid, _ = _tournament(store)
            items = _items(store, tid, make_result)
            random.Random(7).shuffle(items)
            if grouped:
                for start in range(0, len(items), 5):
                    outcomes = store.record_matches(items[start : start + 5])
                    assert all(isinstance(o, RecordedMatch) for o in outcomes), outcomes
            else:
                for it in items:
                    store.record_match(
                        it.result,
                        seat_versions=it.seat_versions,
                        tournament_game_id=it.tournament_game_id,
                        pair_id=it.pair_id,
                    )
            states.append(_state(store, tid))
            assert store.pending_games(tid) == []
            assert store.recompute_ratings() == sum(1 for m in states[-1][1] if m[2])
            assert _state(store, tid) == states[-1]
    assert states[0] == states[1]
    assert states[0][2] is TournamentStatus.FINISHED


def test_each_refused_record_is_refused_alone(store: Store, make_result: MakeResult) -> None:
    tid, versions = _tournament(store, rounds=1)
    items = _items(store, tid, make_result)
    first = store.record_matches(items[:2])
    assert [o.match_id for o in first if isinstance(o, RecordedMatch)] == [
        items[0].result.match_id,
        items[1].result.match_id,
    ]
    twin = MatchToRecord(
        make_result(0, seed=items[2].result.seed, match_id="other-id"),
        items[2].seat_versions,
        tournament_game_id=items[2].tournament_game_id,
    )
    wrong_seed = MatchToRecord(
        make_result(0, seed=999_999, match_id="wrong-seed"),
        items[3].seat_versions,
        tournament_game_id=items[3].tournament_game_id,
    )
    unknown = MatchToRecord(make_result(0, match_id="unknown-version"), (versions[0], 9999))
    bad_seats = MatchToRecord(make_result(0, match_id="bad-seats"), (1, 2, 3))  # type: ignore[arg-type]
    group = [items[0], items[2], twin, wrong_seed, items[4], unknown, bad_seats]
    out = store.record_matches(group)
    assert isinstance(out[0], AlreadyRecordedError)  # recorded by the first group
    assert "was already recorded" in str(out[0])
    assert isinstance(out[1], RecordedMatch)
    assert isinstance(out[2], AlreadyRecordedError)  # the same game, twice in one group
    assert f"recorded as match {items[2].result.match_id}" in str(out[2])
    assert isinstance(out[3], StoreError) and "scheduled with seed" in str(out[3])
    assert isinstance(out[4], RecordedMatch)
    assert isinstance(out[5], NotFoundError) and "no bot version with id 9999" in str(out[5])
    assert isinstance(out[6], StoreError) and "two bot version ids" in str(out[6])
    recorded = {m.match_id for m in store.list_matches(tournament_id=tid)}
    assert recorded == {items[i].result.match_id for i in (0, 1, 2, 4)}
    assert len(store.list_matches()) == 4  # nothing of the refused ones, not even unrated
    done = {g.ordinal for g in store.tournament_games(tid) if g.match_id is not None}
    assert done == {0, 1, 2, 4}


def test_an_aborted_attempt_and_the_result_of_one_game_in_one_group(
    store: Store, make_result: MakeResult
) -> None:
    """The aborted attempt is kept unrated and leaves the game pending; the result in the same
    group then settles it."""
    tid, _ = _tournament(store, rounds=1)
    game = store.tournament_games(tid)[0]
    aborted = make_result(
        None, termination=Termination.ABORTED, seed=game.seed, match_id="g0-aborted-1"
    )
    result = make_result(0, seed=game.seed, match_id="g0")
    out = store.record_matches(
        [
            MatchToRecord(aborted, game.seat_versions, tournament_game_id=game.id),
            MatchToRecord(result, game.seat_versions, tournament_game_id=game.id),
        ]
    )
    assert [o.rated for o in out if isinstance(o, RecordedMatch)] == [False, True]
    assert store.tournament_games(tid)[0].match_id == "g0"


def test_single_matches_and_two_tournaments_in_one_group(
    db_url: str, tmp_path: Path, make_result: MakeResult
) -> None:
    """Rating order holds across a mixed group: the same ratings as one by one in order."""
    states = []
    for grouped, url in ((True, db_url), (False, f"sqlite:///{tmp_path / 'alone.db'}")):
        with Store.open(url, rating_config=RatingConfig()) as store:
            tid1, versions = _tournament(store, rounds=1)
            t1 = _items(store, tid1, make_result)
            schedule = [
                ScheduleEntry(i, 50 + i, (versions[i % 2], versions[2]), i) for i in range(4)
            ]
            tid2 = store.create_tournament({"kind": "second"}, schedule)
            t2 = _items(store, tid2, make_result)
            singles = [
                MatchToRecord(
                    make_result(i % 2, match_id=f"single-{i}"), (versions[3], versions[i])
                )
                for i in range(3)
            ]
            mixed = [t2[0], singles[0], t1[3], t1[0], singles[1], t2[1], *t1[1:3], singles[2]]
            if grouped:
                out = store.record_matches(mixed)
                assert all(isinstance(o, RecordedMatch) for o in out), out
            else:
                for it in mixed:
                    store.record_match(
                        it.result,
                        seat_versions=it.seat_versions,
                        tournament_game_id=it.tournament_game_id,
                    )
            ratings = _state(store, tid1)[0]
            store.recompute_ratings()
            assert _state(store, tid1)[0] == ratings
            states.append(ratings)
    assert states[0] == states[1]


def test_more_than_a_group_is_split(store: Store, make_result: MakeResult) -> None:
    a = store.register_bot_version("a", "1", "ha", "-").id
    b = store.register_bot_version("b", "1", "hb", "-").id
    items = [
        MatchToRecord(make_result(i % 2, match_id=f"m{i}", decisions=2), (a, b))
        for i in range(GROUP_MAX + 3)
    ]
    out = store.record_matches(items)
    assert all(isinstance(o, RecordedMatch) for o in out)
    assert [o.sequence for o in out] == sorted(o.sequence for o in out)  # type: ignore[union-attr]
    assert store.ratings()[a].matches == GROUP_MAX + 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--write-rate", "5", "--group", "1"], "--group must be at least 2"),
        (["--write-rate", "0"], "--write-rate must be at least 1"),
    ],
)
def test_the_write_rate_bench_refuses_bad_counts(
    args: list[str], message: str, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "store", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_small_write_rate_bench_records_every_group(tmp_path: Path) -> None:
    """Both ways, into a scratch SQLite file: every record written (the bench checks it)."""
    from arena.bench.store_rate import describe_write_rate, measure_write_rate

    url = f"sqlite:///{tmp_path / 'rate.db'}"
    r = measure_write_rate(7, url, max_hands=2, group=3)
    assert (r["records"], r["group"]) == (7, 3)
    assert "group commit of 3" in describe_write_rate(r)
    with Store.open(url) as store:
        assert len(store.list_matches()) == 7
