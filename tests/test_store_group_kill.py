"""A coordinator SIGKILLed while a group of results is being committed (``Store.record_matches``).

A real child process records a tournament's results as a coordinator does, in groups, each
group with realistic decision records (so its transaction takes a while); the test kills it with
SIGKILL a random moment after a group began, several times, and after each kill checks that every
group is in the database whole or not at all: each game done has its match and each match its
game, and the ratings are those the applied matches give (``recompute_ratings``). Started again,
the child records what is pending; at the end every game is recorded exactly once, with the
ratings of the same results recorded one by one in an uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bench.store_footprint import random_match
from arena.ratings import RatingConfig
from arena.rules import RuleSet
from arena.store import GameStatus, ScheduleEntry, Store

GAMES = 96
GROUP = 24
KILLS = 3

CHILD = r"""
import dataclasses, json, random, sys
from arena.bench.store_footprint import random_match
from arena.ratings import RatingConfig
from arena.rules import RuleSet
from arena.store import MatchToRecord, Store

url, log, order_seed = sys.argv[1], sys.argv[2], int(sys.argv[3])

def result(game):
    match = random_match(game.seed, RuleSet(max_hands=13))
    return dataclasses.replace(match, match_id=f"t{game.tournament_id}-g{game.ordinal}")

with Store.open(url, rating_config=RatingConfig()) as store:
    pending = store.pending_games(1)
    random.Random(order_seed).shuffle(pending)
    items = [MatchToRecord(result(g), g.seat_versions, g.id, g.pair_id) for g in pending]
    with open(log, "a") as out:
        for start in range(0, len(items), GROUP):
            group = items[start : start + GROUP]
            out.write(json.dumps({"begin": [it.tournament_game_id for it in group]}) + "\n")
            out.flush()
            outcomes = store.record_matches(group)
            bad = [o for o in outcomes if isinstance(o, Exception)]
            assert not bad, bad
            out.write(json.dumps({"committed": len(group)}) + "\n")
            out.flush()
""".replace("GROUP", str(GROUP))


def _create(url: str) -> None:
    with Store.open(url, rating_config=RatingConfig()) as store:
        versions = [
            store.register_bot_version(f"bot{i}", "1", f"hash{i}", "-").id for i in range(4)
        ]
        pairs = [(a, b) for a in versions for b in versions if a != b]
        schedule = [
            ScheduleEntry(
                i, 7000 + i // 2, pairs[(i // 2) % len(pairs)][:: 1 - 2 * (i % 2)], i // 2
            )
            for i in range(GAMES)
        ]
        store.create_tournament({"kind": "group kill"}, schedule)


def _child(url: str, log: Path, order_seed: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, url, str(log), str(order_seed)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _check_whole(url: str, log: Path, since: int = 0) -> tuple[int, int]:
    """Every group begun from line ``since`` of the log on (by the child just killed) is in
    whole or not at all; the ratings are what the applied matches give. Returns (games
    recorded, groups cut by the kill before they committed).

    Only the last child's groups are checked: a group an earlier kill cut was checked then,
    and its games were recorded since in other groups, so it is rightly in part now."""
    with Store.open(url, rating_config=RatingConfig()) as store:
        games = {g.id: g for g in store.tournament_games(1)}
        matches = {m.match_id: m for m in store.list_matches(tournament_id=1)}
        done = {gid for gid, g in games.items() if g.status is GameStatus.DONE}
        assert {games[gid].match_id for gid in done} == set(matches)
        assert {m.tournament_game_id for m in matches.values()} == done
        assert all(g.match_id is None for gid, g in games.items() if gid not in done)
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        cut = 0
        for n, line in enumerate(lines):
            if n >= since and "begin" in line:
                ids = set(line["begin"])
                assert ids <= done or not ids & done, f"group {n} is in only in part"
                if not ids & done and (n + 1 == len(lines) or "committed" not in lines[n + 1]):
                    cut += 1
        ratings = store.ratings()
        store.recompute_ratings()
        assert store.ratings() == ratings
    return len(done), cut


@pytest.mark.slow
def test_a_coordinator_killed_inside_a_group_commit_loses_and_doubles_nothing(
    db_url: str, tmp_path: Path
) -> None:
    _create(db_url)
    rng = random.Random(20261203)
    log = tmp_path / "groups.log"
    log.touch()
    kills: list[tuple[float, int]] = []
    cut_total = 0
    for attempt in range(KILLS):
        since = len(log.read_text().splitlines())
        begun = log.read_text().count("begin")
        with Store.open(db_url, rating_config=RatingConfig()) as store:
            groups_left = -(-len(store.pending_games(1)) // GROUP)
        if groups_left == 0:
            break
        child = _child(db_url, log, attempt)
        deadline = time.monotonic() + 120
        # Wait for a group to begin (the results are made first), then kill inside it.
        wanted = begun + min(1 + rng.randrange(2), groups_left)
        while log.read_text().count("begin") < wanted:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the child never began a group"
            time.sleep(0.002)
        delay = rng.uniform(0.0, 0.15)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        if child.stderr:
            child.stderr.close()
        recorded, cut = _check_whole(db_url, log, since)
        cut_total += cut
        kills.append((round(delay, 3), recorded))
    assert cut_total >= 1, f"no kill landed inside a group commit: {kills}"
    final = _child(db_url, log, KILLS)
    _, err = final.communicate(timeout=600)
    assert final.returncode == 0, err.decode()
    recorded, _ = _check_whole(db_url, log)
    assert recorded == GAMES, kills

    # The same results, one by one and never killed: the same ratings, bit for bit.
    ref = f"sqlite:///{tmp_path / 'reference.db'}"
    _create(ref)
    with Store.open(ref, rating_config=RatingConfig()) as store:
        for g in store.pending_games(1):
            match = random_match(g.seed, RuleSet(max_hands=13))
            store.record_match(
                dataclasses.replace(match, match_id=f"t1-g{g.ordinal}"),
                seat_versions=g.seat_versions,
                tournament_game_id=g.id,
                pair_id=g.pair_id,
            )
        reference = store.ratings()
    with Store.open(db_url, rating_config=RatingConfig()) as store:
        assert store.ratings() == reference, kills
