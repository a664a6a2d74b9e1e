"""What a user reads at 80 columns: the final tables of ``tournament run``, ``demo``,
``ratings``, the head-to-head of a report, ``compare`` and ``bot check``; the real ``arena``
entry point in a child process with ``COLUMNS=80``, real bots, a real SQLite file. No cell is
cut ("heurist…", "35.…"), no table line is wider than the terminal, and ``--wide`` shows
every column."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("random", "heuristic", "cautious")
LEADERBOARD = ["rank", "bot", "version", "mu", "sigma", "95% interval", "score", "matches"]


def arena(*args: str, columns: int = 80, code: int = 0) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, "COLUMNS": str(columns), "ARENA_SANDBOX": "off"}, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == code, done.stdout + done.stderr
    assert "…" not in done.stdout + done.stderr
    return done.stdout


def fits(text: str, width: int = 80) -> None:
    wide = [line for line in text.splitlines() if len(line) > width]
    assert not wide, wide


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tournament of three sample bots, its report checked at 80 columns as it is printed."""
    url = f"sqlite:///{tmp_path_factory.mktemp('narrow') / 'arena.db'}"
    out = arena("tournament", "run", *NAMES, "-n", "1", "--max-hands", "3", "--seed", "4",
                "--db", url)  # fmt: skip
    fits(out)
    for name in NAMES:
        assert f" {name} " in out  # whole, in the leaderboard and the head-to-head
    assert "Leaderboard" in out and "Head to head" in out
    assert "--wide shows every column" in out
    return url


@pytest.mark.slow
def test_ratings_and_the_report_fit_and_wide_shows_every_column(db: str) -> None:
    board = arena("ratings", "--db", db)
    fits(board)
    assert all(name in board for name in NAMES)
    whole = arena("ratings", "--db", db, "--wide")
    assert all(h in whole.splitlines()[0] for h in LEADERBOARD)
    shown = arena("tournament", "show", "1", "--wide", "--db", db)
    assert "pairs A" in shown and "95% interval" in shown and "not shown" not in shown
    # Off a terminal with no COLUMNS, a table is whole too.
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    piped = subprocess.run([sys.executable, "-m", "arena", "ratings", "--db", db],
                           capture_output=True, text=True, timeout=60, env=env).stdout  # fmt: skip
    assert all(h in piped.splitlines()[0] for h in LEADERBOARD)


@pytest.mark.slow
def test_h2h_fits(db: str) -> None:
    out = arena("h2h", "heuristic", "random", "--db", db)
    fits(out)
    assert out.startswith("heuristic against random: 2 rated matches")


@pytest.mark.slow
def test_demo_fits(tmp_path: Path) -> None:
    out = arena("demo", "-n", "1", "--max-hands", "2", "--db", f"sqlite:///{tmp_path / 'd.db'}")
    fits(out)
    assert " heuristic " in out and " random " in out


@pytest.mark.slow
def test_compare_fits(tmp_path: Path) -> None:
    out = arena(
        "compare",
        "heuristic",
        "random",
        "--max-pairs",
        "2",
        "--max-hands",
        "3",
        "--seed",
        "1",
        "--sprt",
        "elo0=0,elo1=50",
        "--db",
        f"sqlite:///{tmp_path / 'c.db'}",
        code=3,
    )  # fmt: skip (3: undecided)
    fits(out)
    assert "pairs    2" in out and "LLR" in out and "elo " in out
    assert "score 100.0% [" in out and "elo > +" in out  # 4 wins of 4: the raw score, unbounded


@pytest.mark.slow
def test_bot_check_fits() -> None:
    out = arena("bot", "check", "sample_bots/heuristic", "--seed", "7", "--matches", "2",
                "--hands", "2")  # fmt: skip
    fits(out)
    assert "not exercised: the bot never declared Double Nil" in out
    assert out.splitlines()[-1] == "PASS"
