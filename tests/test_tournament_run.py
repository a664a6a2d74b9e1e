"""Tournaments end to end: real bot processes over gRPC, a real SQLite file, the real CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from bot_process import sigint_as_in_a_terminal, standalone_bot

from arena.referee import Termination
from arena.runtime import start_bot
from arena.store import GameStatus, Store
from arena.tournament import (
    TournamentSettings,
    create_tournament,
    run_tournament,
    tournament_standings,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
TEST_BOTS = ROOT / "tests" / "bots"
THREE = [str(SAMPLES / "random"), str(SAMPLES / "heuristic"), str(SAMPLES / "cautious")]
# Generous per-move limit: these tests are about scheduling and records, and the machine may be
# busy; a timeout here would make a deterministic bot look nondeterministic.
MOVE_MS = "5000"


def arena(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def arena_json(*args: str) -> Any:
    done = arena(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_small_tournament_end_to_end_through_the_cli(sqlite_url: str) -> None:
    out = arena_json(
        "tournament",
        "run",
        *THREE,
        "-n",
        "1",
        "--seed",
        "3",
        "-k",
        "2",
        "--move-timeout",
        MOVE_MS,
        "--db",
        sqlite_url,
    )
    t = out["tournament"]
    assert (t["status"], t["done"], t["total"], t["seed"], t["games"]) == ("finished", 6, 6, 3, 1)
    board = out["leaderboard"]
    assert [r["rank"] for r in board] == [1, 2, 3]
    assert {r["bot"] for r in board} == {"random", "heuristic", "cautious"}
    assert [r["score"] for r in board] == sorted((r["score"] for r in board), reverse=True)
    for r in board:
        assert r["score"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert r["matches"] == 4 and r["wins"] + r["losses"] + r["draws"] == 4
    assert sum(r["wins"] for r in board) + sum(r["draws"] for r in board) / 2 == 6
    for h in out["head_to_head"]:
        assert h["matches"] == 2
        assert h["wins_a"] + h["wins_b"] + h["draws"] == 2
        assert h["pairs_won_a"] + h["pairs_won_b"] + h["pairs_split"] == 1
    assert all(f["faults"] == 0 and f["forfeits"] == {} for f in out["faults"])

    # The schedule and every result are in the database, duplicate pairs kept together.
    with Store.open(sqlite_url) as store:
        games = store.tournament_games(t["id"])
        matches = {m.match_id: m for m in store.list_matches(tournament_id=t["id"])}
    assert len(games) == len(matches) == 6
    assert all(g.status is GameStatus.DONE for g in games)
    assert [g.match_id for g in games] == [f"t{t['id']}-g{i}" for i in range(6)]
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.pair_id == second.pair_id
        assert first.seed == second.seed
        assert first.seat_versions == second.seat_versions[::-1]
        for g in (first, second):
            m = matches[g.match_id]
            assert (m.seed, m.seat_versions, m.pair_id) == (g.seed, g.seat_versions, g.pair_id)
            assert m.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT)

    # `show` prints the same report later; `list` knows the tournament.
    assert arena_json("tournament", "show", str(t["id"]), "--db", sqlite_url) == out
    listed = arena_json("tournament", "list", "--db", sqlite_url)
    assert [(r["id"], r["status"], r["done"], r["total"]) for r in listed] == [
        (t["id"], "finished", 6, 6)
    ]
    assert listed[0]["bots"] == ["random", "heuristic", "cautious"]

    # Off a terminal and without --json: the tables, and no progress bar.
    text = arena("tournament", "show", str(t["id"]), "--db", sqlite_url)
    assert text.returncode == 0, text.stderr
    for heading in ("Leaderboard", "Head to head", "Faults"):
        assert heading in text.stdout
    assert "matches/s" not in text.stdout + text.stderr


def _run(url: str, bots: list[str], **kw: Any) -> tuple[int, Any]:
    start_count = kw.pop("start_bot", None)
    with Store.open(url) as store:
        settings = TournamentSettings(bots=bots, move_timeout_ms=int(MOVE_MS), **kw)
        tid = create_tournament(store, settings)
        standings = run_tournament(store, tid, start_bot=start_count)
        matches = store.list_matches(tournament_id=tid)
    return tid, (standings, matches)


def test_each_bot_lane_is_started_once_and_matches_run_at_once(sqlite_url: str) -> None:
    starts: list[str] = []

    def counting_start(manifest: Any, **kw: Any) -> Any:
        starts.append(manifest.name)
        return start_bot(manifest, **kw)

    _, (standings, matches) = _run(
        sqlite_url, THREE, games=2, seed=11, concurrency=3, start_bot=counting_start
    )
    # One process per bot and lane: on pairs deals (the default) each bot plays each of its
    # deals twice, once per seating of its twin pair, each time in another process
    # (arena.tournament.lanes): two lanes, whatever the field.
    assert sorted(starts) == sorted(["cautious", "heuristic", "random"] * 2), "one per lane"
    assert standings.played == len(matches) == 12
    # K = 3: at some moment more than one match was in play.
    most = 0
    for m in matches:
        at_once = sum(1 for o in matches if o.started_at <= m.started_at < o.finished_at)
        most = max(most, at_once)
    assert most >= 2


@pytest.mark.slow
def test_final_ratings_do_not_depend_on_concurrency(tmp_path: Path) -> None:
    """K = 1 and K = 3 finish matches in different orders; the standings are the same, and so
    are the arena's global ratings (applied by tournament, then schedule position), which
    ``--recompute`` gives again."""
    results = []
    for k in (1, 3):
        url = f"sqlite:///{tmp_path / f'k{k}.db'}"
        _, (standings, matches) = _run(url, THREE, games=2, seed=21, concurrency=k)
        outcomes = sorted(
            (m.match_id, m.winner, m.scores, m.hands_played, m.decision_count) for m in matches
        )
        with Store.open(url) as store:
            board = [r.to_json() for r in store.leaderboard()]
            store.recompute_ratings()
            assert [r.to_json() for r in store.leaderboard()] == board
        results.append((standings.leaderboard, standings.head_to_head, outcomes, board))
    assert results[0] == results[1]


def test_a_bot_that_cannot_start_forfeits_its_matches(sqlite_url: str, tmp_path: Path) -> None:
    broken = str(standalone_bot(TEST_BOTS / "runtime_exits_at_once", tmp_path))
    done = arena(
        "tournament",
        "run",
        str(SAMPLES / "random"),
        str(SAMPLES / "heuristic"),
        broken,
        "-n",
        "1",
        "--seed",
        "4",
        "--move-timeout",
        MOVE_MS,
        "--db",
        sqlite_url,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tournament"]["status"] == "finished"
    faults = {f["bot"]: f for f in out["faults"]}
    assert faults["runtime_exits_at_once"]["forfeits"] == {"forfeit_no_start": 4}
    assert faults["random"]["forfeits"] == faults["heuristic"]["forfeits"] == {}
    played = {row["bot"]: row["matches"] for row in out["leaderboard"]}
    assert played["runtime_exits_at_once"] == 0 and played["random"] == 2
    with Store.open(sqlite_url) as store:
        matches = store.list_matches(tournament_id=out["tournament"]["id"])
        broken_id = store.get_bot_version("runtime_exits_at_once").id
    assert len(matches) == 6
    for m in matches:
        if broken_id in m.seat_versions:
            assert m.termination is Termination.FORFEIT_NO_START
            assert m.winner == 1 - m.seat_versions.index(broken_id)
            assert m.hands_played == 0
            # Nobody played: recorded, unrated for both (no win for the opponent).
            assert not m.rated and m.unrated_reason == "not_started"
            # It says which bot and why (the runtime's reason: it exited during start-up).
            assert "runtime_exits_at_once could not start" in m.detail
            assert "exit code 3" in m.detail
        else:
            assert m.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT)


def test_a_bot_that_cannot_start_is_named_with_why(sqlite_url: str) -> None:
    broken = str(TEST_BOTS / "runtime_missing_command")
    done = arena(
        "tournament",
        "run",
        str(SAMPLES / "random"),
        broken,
        "-n",
        "1",
        "--move-timeout",
        MOVE_MS,
        "--db",
        sqlite_url,
    )
    assert done.returncode == 0, done.stderr
    # Which bot and why, as it happens (on stderr off a terminal), then in the fault table.
    assert "arena: bot runtime_missing_command cannot play: " in done.stderr
    assert "arena-no-such-bot-program" in done.stderr
    assert "matches/s" not in done.stdout + done.stderr, "no progress bar off a terminal"
    fault_table = done.stdout.split("Faults")[1]
    assert re.search(r"runtime_missing_command\s+2\s+2", fault_table), fault_table
    assert "no start" in fault_table


def test_a_bot_that_keeps_crashing_is_restarted_a_few_times(
    sqlite_url: str, tmp_path: Path
) -> None:
    from arena.tournament.workers import MAX_RESTARTS

    bots = [str(standalone_bot(TEST_BOTS / "hostile_crash", tmp_path)), str(SAMPLES / "random")]
    _, (standings, matches) = _run(sqlite_url, bots, games=4, seed=5, concurrency=1)
    assert len(matches) == 8
    crashed = [m for m in matches if m.termination is Termination.FORFEIT_CRASH]
    gave_up = [m for m in matches if m.termination is Termination.FORFEIT_NO_START]
    # The first process of each of its two lanes (a deal's two seatings) and each of the bot's
    # restarts crash once; after that its matches are forfeits.
    assert len(crashed) == 2 + MAX_RESTARTS
    assert all("its process has exited (exit code 3)" in m.detail for m in crashed)
    assert len(gave_up) == 8 - len(crashed)
    assert all("not restarted again" in m.detail for m in gave_up)
    assert all(m.players[m.winner].startswith("random") for m in matches if m.winner is not None)
    assert standings.leaderboard[0].bot == "random"


@pytest.mark.parametrize(
    "args,message",
    [
        (["no_such_bot", "random"], "unknown bot 'no_such_bot'"),
        (["random"], "at least two bots, got 1"),
        (["random", "heuristic", "-n", "0"], "--games must be at least 1"),
        (["random", "heuristic", "-n", "-3"], "--games must be at least 1"),
        (["random", "heuristic", "-k", "0"], "--concurrency must be at least 1"),
        (["random", "heuristic", "--policy", "pray"], "unknown fault policy 'pray'"),
        (
            ["random", "heuristic", "--deals", "shared"],
            "--deals must be one of pairs, duplicate, independent, got 'shared'",
        ),
        (["random", "heuristic", "--move-timeout", "0"], "move time must be a positive"),
        (["random", "random"], "named twice"),
        (["./nowhere/bot", "random"], "no such directory"),
    ],
)
def test_bad_input_is_one_clear_line(sqlite_url: str, args: list[str], message: str) -> None:
    done = arena("tournament", "run", *args, "--db", sqlite_url)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("arena: error: ")
    assert message in lines[0]
    assert "Traceback" not in done.stderr
    # Nothing was started or written: no tournament exists.
    assert arena_json("tournament", "list", "--db", sqlite_url) == []


def test_an_unknown_bot_name_lists_the_known_bots(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        store.register_bot_version("alice", "1", "0" * 64, str(SAMPLES / "random"))
    done = arena("tournament", "run", "bob", "random", "--db", sqlite_url)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert "known bots:" in line
    for name in ("alice", "random", "heuristic", "cautious"):
        assert name in line


def test_unknown_tournament(sqlite_url: str) -> None:
    for command in ("show", "resume"):
        done = arena("tournament", command, "42", "--db", sqlite_url)
        assert done.returncode == 2
        assert done.stderr.strip() == "arena: error: no tournament with id 42"


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_resume_finishes(sqlite_url: str) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "tournament",
            "run",
            *THREE,
            "-n",
            "3",
            "--seed",
            "8",
            "-k",
            "2",
            "--move-timeout",
            MOVE_MS,
            "--db",
            sqlite_url,
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_in_a_terminal,
    )
    try:
        _wait_for_recorded(sqlite_url, 2, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "arena tournament resume 1" in err
    with Store.open(sqlite_url) as store:
        matches = store.list_matches(tournament_id=1)
        pending = store.pending_games(1)
    assert pending, "stopped before the end"
    assert all(m.termination is not Termination.ABORTED for m in matches), (
        "a match cut short by Ctrl-C is not a result"
    )
    out = arena_json("tournament", "resume", "1", "--db", sqlite_url)
    assert (out["tournament"]["status"], out["tournament"]["done"]) == ("finished", 18)


def _wait_for_recorded(url: str, n: int, proc: subprocess.Popen[str], limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            with Store.open(url) as store:
                if len(store.list_matches()) >= n:
                    return
        except Exception:  # the database may not exist yet
            pass
        time.sleep(0.2)
    raise AssertionError(f"fewer than {n} matches recorded in {limit} s")


def test_tournament_standings_of_a_fresh_tournament_are_empty(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        tid = create_tournament(store, TournamentSettings(bots=THREE, games=2, seed=1))
        info, config, standings = tournament_standings(store, tid)
    assert (info.games_done, info.games_total, standings.played, standings.total) == (0, 12, 0, 12)
    assert config.names == ["random", "heuristic", "cautious"]
    assert all(r.matches == 0 and r.mu == 25.0 for r in standings.leaderboard)
    assert os.path.isdir(config.entrants[0].source)


@pytest.mark.slow
def test_demo_plays_the_sample_bots(sqlite_url: str) -> None:
    out = arena_json("demo", "-n", "1", "--db", sqlite_url)
    t = out["tournament"]
    names = {b["name"] for b in t["bots"]}
    assert {"random", "heuristic", "cautious"} <= names
    node_ready = (SAMPLES / "node_random" / "node_modules").is_dir() and shutil.which("node")
    assert ("node_random" in names) == bool(node_ready)
    cpp_built = os.access(SAMPLES / "cpp_lowest" / "build" / "cpp_lowest", os.X_OK)
    assert ("cpp_lowest" in names) == cpp_built
    n = len(names)
    assert (t["status"], t["done"], t["total"]) == ("finished", n * (n - 1), n * (n - 1))
    assert t["rules"]["max_hands"] == 50
    assert out["leaderboard"][0]["bot"] in ("heuristic", "cautious")


def test_a_tournament_is_played_by_one_process_at_a_time(sqlite_url: str) -> None:
    """A second `resume` while another process plays the tournament is refused, untouched."""
    with Store.open(sqlite_url) as store:
        tid = create_tournament(store, TournamentSettings(bots=THREE, games=1, seed=1))
        with store.tournament_player_lock(tid):
            refused = arena("tournament", "resume", str(tid), "--db", sqlite_url)
            assert refused.returncode == 2
            assert refused.stderr.strip().splitlines()[-1] == (
                f"arena: error: tournament {tid} is being played by another process; wait for "
                f"it to end, or stop it, then `arena tournament resume {tid}`"
            )
            assert store.get_tournament(tid).games_done == 0
