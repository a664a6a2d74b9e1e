"""Kill a real ``arena tournament run`` with SIGKILL at random moments, resume it, and compare
with a run that was never interrupted: same matches, each once, same final ratings, and no bot
process left behind by a killed arena."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.referee import Termination
from arena.runtime.supervisor import descendants, process_table
from arena.store import GameStatus, Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
# Deterministic bots: the heuristic and its weakened variant decide from the request alone; the
# random bot seeds each decision from ARENA_BOT_SEED (which the tournament derives from its seed)
# and the match id (the same for a game however often it is restarted).
ARGS = [
    str(SAMPLES / "random"),
    str(SAMPLES / "heuristic"),
    str(SAMPLES / "cautious"),
    "-n",
    "3",
    "--seed",
    "31",
    "-k",
    "2",
    "--move-timeout",
    "10000",
]
KILL_SEED = 20240601
MAX_KILLS = 5


def arena_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def outcomes(url: str) -> list[tuple[Any, ...]]:
    """Every recorded match of tournament 1, as comparable facts (times left out)."""
    with Store.open(url) as store:
        matches = store.list_matches(tournament_id=1)
        games = store.tournament_games(1)
    ordinal = {g.id: g.ordinal for g in games}
    return sorted(
        (
            ordinal[m.tournament_game_id],
            m.match_id,
            m.seed,
            m.seat_versions,
            m.winner,
            m.scores,
            m.hands_played,
            m.termination.value,
            m.decision_count,
        )
        for m in matches
    )


def tournament_exists(url: str) -> bool:
    try:
        with Store.open(url) as store:
            return bool(store.list_tournaments())
    except Exception:  # the file may be half-created by a killed process; it is retried
        return False


def wait_gone(pids: list[int], limit: float = 15.0) -> list[int]:
    """The pids still alive after ``limit`` seconds (zombies count as gone)."""
    deadline = time.monotonic() + limit
    while True:
        table = process_table()
        alive = [p for p in pids if p in table and table[p][2]]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


@pytest.mark.slow
def test_resume_after_sigkill_at_random_points(tmp_path: Path) -> None:
    ref_url = f"sqlite:///{tmp_path / 'reference.db'}"
    t0 = time.monotonic()
    ref = subprocess.run(
        arena_cmd("tournament", "run", *ARGS, "--db", ref_url, "--json"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    duration = time.monotonic() - t0
    assert ref.returncode == 0, ref.stderr
    reference = json.loads(ref.stdout)
    assert reference["tournament"]["done"] == 18

    url = f"sqlite:///{tmp_path / 'killed.db'}"
    rng = random.Random(KILL_SEED)
    kills: list[tuple[float, int]] = []
    for _ in range(MAX_KILLS):
        if tournament_exists(url):
            command = arena_cmd("tournament", "resume", "1", "--db", url, "--json")
        else:
            command = arena_cmd("tournament", "run", *ARGS, "--db", url, "--json")
        proc = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        delay = rng.uniform(0.2, duration)
        try:
            proc.wait(timeout=delay)
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
            break  # it finished before its kill point
        except subprocess.TimeoutExpired:
            pass
        tree = descendants(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
        done = len(outcomes(url)) if tournament_exists(url) else 0
        kills.append((round(delay, 2), done))
        # The killed arena's bots (and their supervisors) do not outlive it.
        assert wait_gone(tree) == [], f"bot processes left running after SIGKILL: {tree}"

    print(f"kill points (seconds after start, matches recorded): {kills}")
    assert len(kills) >= 2, f"the kill points should interrupt the tournament: {kills}"
    final = subprocess.run(
        arena_cmd("tournament", "resume", "1", "--db", url, "--json"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert final.returncode == 0, final.stderr
    resumed = json.loads(final.stdout)

    # No result lost, none counted twice, nothing aborted left in the record.
    got = outcomes(url)
    assert [o[0] for o in got] == list(range(18)), kills
    assert all(o[7] != Termination.ABORTED.value for o in got)
    with Store.open(url) as store:
        assert all(g.status is GameStatus.DONE for g in store.tournament_games(1))
    # The same matches with the same outcomes, and the same final standings, as never killed.
    assert got == outcomes(ref_url), kills
    assert resumed["leaderboard"] == reference["leaderboard"], kills
    assert resumed["head_to_head"] == reference["head_to_head"]
    # The arena's global ratings too (rating_order.py), and --recompute gives them again.
    with Store.open(url) as killed, Store.open(ref_url) as never:
        board = [r.to_json() for r in killed.leaderboard()]
        assert board == [r.to_json() for r in never.leaderboard()], kills
        killed.recompute_ratings()
        assert [r.to_json() for r in killed.leaderboard()] == board
    assert resumed["tournament"]["status"] == "finished"
