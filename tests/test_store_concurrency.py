"""Two processes writing to one database at once: no rating update lost, nothing counted twice.

Each worker process runs "its own tournament" (a schedule of games among the same four bot
versions, so both update the same rating rows), and both race to record every game of one
shared tournament, as two arenas resuming the same tournament would. Afterwards the tallies add
up, each shared game was recorded exactly once, and rebuilding the ratings from the history in
recorded order gives exactly the stored numbers (the recorded order is the commit order).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.ratings import RatingConfig
from arena.store import ScheduleEntry, Store, StoreError, TournamentStatus

GAMES_EACH = 60
SHARED_GAMES = 30

WORKER = r"""
import json, random, sys, time, uuid
from datetime import UTC, datetime
from arena.ratings import RatingConfig
from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Decision, RuleSet
from arena.store import AlreadyRecordedError, Store

url, go = sys.argv[1], sys.argv[5]
own, shared, worker = (int(a) for a in sys.argv[2:5])
rng = random.Random(worker)

def result(seed):
    winner = rng.choice([0, 1, 1, 0, None])
    now = datetime.now(UTC)
    return MatchResult(
        match_id=uuid.uuid4().hex, seed=seed, rules=RuleSet(), engine_version=ENGINE_VERSION,
        players=("x", "y"), winner=winner, scores=(0, 0), hands_played=1,
        termination=Termination.TARGET_REACHED if winner is not None else Termination.HAND_LIMIT,
        faults=(rng.randint(0, 1), 0), detail="",
        decisions=(DecisionRecord(0, Decision.BID, 3, 500),), started_at=now, finished_at=now,
    )

with Store.open(url, rating_config=RatingConfig()) as store:
    while not __import__("os").path.exists(go):
        time.sleep(0.005)
    recorded = refused = 0
    for game in store.pending_games(own):
        store.record_match(result(game.seed), seat_versions=game.seat_versions,
                           tournament_game_id=game.id)
        recorded += 1
    games = store.tournament_games(shared)
    if worker % 2:
        games.reverse()
    won = lost = 0
    for game in games:
        try:
            store.record_match(result(game.seed), seat_versions=game.seat_versions,
                               tournament_game_id=game.id)
            won += 1
        except AlreadyRecordedError:
            lost += 1
print(json.dumps({"recorded": recorded, "won": won, "refused": lost}))
"""


def _schedule(versions: list[int], games: int, offset: int) -> list[ScheduleEntry]:
    pairs = [(a, b) for a in versions for b in versions if a != b]
    return [
        ScheduleEntry(
            ordinal=i, seed=offset + i, seat_versions=pairs[i % len(pairs)], pair_id=i // 2
        )
        for i in range(games)
    ]


def test_two_tournaments_writing_at_once_lose_no_update(db_url: str, tmp_path: Path) -> None:
    with Store.open(db_url, rating_config=RatingConfig()) as store:
        versions = [store.register_bot_version(f"bot{i}", "1", f"h{i}", "/x").id for i in range(4)]
        own = [
            store.create_tournament({"n": w}, _schedule(versions, GAMES_EACH, 1000 * w))
            for w in (1, 2)
        ]
        shared = store.create_tournament({"shared": True}, _schedule(versions, SHARED_GAMES, 0))

    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, db_url, str(own[w]), str(shared), str(w), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in (0, 1)
    ]
    time.sleep(1.0)  # both processes are up and waiting; then they start together
    go.touch()
    reports = []
    for p in workers:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
        reports.append(json.loads(out))

    assert [r["recorded"] for r in reports] == [GAMES_EACH, GAMES_EACH]
    assert sum(r["won"] for r in reports) == SHARED_GAMES  # each shared game recorded once...
    assert sum(r["refused"] for r in reports) == SHARED_GAMES  # ...and refused to the other

    with Store.open(db_url, rating_config=RatingConfig()) as store:
        matches = store.list_matches()
        assert len(matches) == 2 * GAMES_EACH + SHARED_GAMES
        assert [m.sequence for m in matches] == sorted(m.sequence for m in matches)
        for tid in (*own, shared):
            info = store.get_tournament(tid)
            assert info.status is TournamentStatus.FINISHED
            assert len(store.list_matches(tournament_id=tid)) == info.games_total
        stored = store.ratings()
        assert sum(r.matches for r in stored.values()) == 2 * len(matches)  # no update lost
        for r in stored.values():
            assert r.wins + r.losses + r.draws == r.matches
        wins = sum(r.wins for r in stored.values())
        decided = sum(1 for m in matches if m.winner is not None)
        assert wins == decided
        assert sum(r.faults for r in stored.values()) == sum(sum(m.faults) for m in matches)

        store.recompute_ratings()
        assert store.ratings() == stored  # recorded order == commit order: the same numbers


OPENER = r"""
import os, sys
from pathlib import Path
from arena.store import Store
url, ready, go = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
ready.touch()
while not os.path.exists(go):
    pass  # spin: both start within microseconds of each other
with Store.open(url) as store:
    store.register_bot_version("same", "1", "same-hash", "/x")
"""


def test_two_processes_creating_one_new_database_at_once(db_url: str, tmp_path: Path) -> None:
    """Without the migration lock this fails on PostgreSQL every time (duplicate tables)."""
    go = tmp_path / "go"
    ready = [tmp_path / f"ready{i}" for i in range(2)]
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, db_url, str(r), str(go)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in ready
    ]
    deadline = time.monotonic() + 60
    while not all(r.exists() for r in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    for p in openers:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    with Store.open(db_url) as store:
        assert [len(b.versions) for b in store.list_bots()] == [1]


LOCK_HOLDER = r"""
import sys, time
from arena.store import Store, StoreError
store = Store.open(sys.argv[1])
try:
    with store.tournament_player_lock(int(sys.argv[2])):
        print("locked", flush=True)
        time.sleep(600)
except StoreError as exc:
    print(exc, flush=True)
"""


def test_the_tournament_player_lock_is_one_holder_and_dies_with_it(db_url: str) -> None:
    """One process plays a tournament; the lock goes with a SIGKILLed holder (resume at once)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, db_url, "41"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with Store.open(db_url) as store:
            busy = pytest.raises(StoreError, match="tournament 41 is being played by another")
            with busy, store.tournament_player_lock(41):
                pass
            with store.tournament_player_lock(42):  # another tournament is free
                pass
            holder.kill()
            holder.wait(timeout=30)
            deadline = time.monotonic() + 30
            while True:  # PostgreSQL notices the dead session's socket a moment later
                try:
                    with store.tournament_player_lock(41):
                        break
                except StoreError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
    finally:
        holder.kill()
        holder.wait(timeout=30)
