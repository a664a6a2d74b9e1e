"""``arena match`` and ``arena replay``: real bots, a real database, the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.referee import Termination, result_from_dict, verify
from arena.runtime import load_manifest, start_bot

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "sample_bots" / "random")
BOTS = ROOT / "tests" / "bots"

runner = CliRunner()


def arena(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_match_records_and_replay_shows_it(sqlite_url: str) -> None:
    out = arena(
        "match",
        RANDOM,
        str(BOTS / "hostile"),
        "--seed",
        "4",
        "--target-score",
        "150",
        "--db",
        sqlite_url,
        "--json",
    )
    data = json.loads(out)
    assert data["termination"] in ("target_reached", "hand_limit")
    assert data["players"] == ["random@1.0", "hostile@1.0"]
    assert data["recorded"]["rated"] is True
    assert data["faults"] == [0, 0]
    result = result_from_dict(data)
    assert verify(result).scores == result.scores

    text = arena("replay", data["match_id"], "--db", sqlite_url)
    assert text.startswith(f"Match {data['match_id']}: seat 0 random@1.0 vs seat 1 hostile@1.0")
    for h in range(1, data["hands_played"] + 1):
        assert f"\nHand {h} (first drawer: " in text
    assert "Bids: " in text and "\n   1. " in text and "\n  13. " in text
    assert f"Scores random@1.0 {data['scores'][0]}, hostile@1.0 {data['scores'][1]}" in text

    shown = json.loads(arena("replay", data["match_id"], "--db", sqlite_url, "--json"))
    assert shown["scores"] == data["scores"]
    assert len(shown["hands"]) == data["hands_played"]
    last = shown["hands"][-1]
    assert last["result"]["scores"] == data["scores"]
    assert all(len(t["cards"]) == 2 and t["winner"] in (0, 1) for t in last["tricks"])


def test_match_forfeit_is_printed_and_replayable_from_a_file(tmp_path: Path) -> None:
    out = arena(
        "match",
        str(BOTS / "hostile_illegal"),
        RANDOM,
        "--seed",
        "2",
        "--move-timeout",
        "300",
        "--no-record",
    )
    assert "seat 1 (random@1.0) wins by forfeit (illegal action)" in out
    assert "Detail: seat 0 (hostile_illegal@1.0): played " in out and "R-4.3" in out
    assert "Faults: hostile_illegal@1.0 1, random@1.0 0." in out

    data = json.loads(
        arena(
            "match",
            str(BOTS / "hostile_sleep"),
            RANDOM,
            "--seed",
            "2",
            "--move-timeout",
            "200",
            "--policy",
            "substitute",
            "--max-faults",
            "2",
            "--no-record",
            "--json",
        )
    )
    assert data["termination"] == Termination.FORFEIT_TIMEOUT.value
    assert data["winner"] == 1 and data["faults"] == [2, 0] and data["recorded"] is None
    saved = tmp_path / "match.json"
    saved.write_text(json.dumps(data))
    text = arena("replay", str(saved))
    assert "substituted (timed out)" in text
    assert "no answer to Draw within 200 ms" in text


def test_a_bot_that_does_not_start_forfeits_without_play(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text(
        'name = "broken"\ncommand = ["{python}", "-c", "raise SystemExit(5)"]\n'
    )
    result = runner.invoke(
        app, ["match", RANDOM, str(broken), "--no-record", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 1, result.output  # a bot that cannot start fails the command
    data = json.loads(result.output)
    assert data["termination"] == "forfeit_no_start"
    assert data["winner"] == 0 and data["decisions"] == [] and data["hands_played"] == 0
    assert data["detail"].startswith("seat 1 (broken): did not start: ")
    assert "exit code 5" in data["detail"]


def test_registered_names_play(sqlite_url: str) -> None:
    arena(
        "match",
        RANDOM,
        str(BOTS / "hostile"),
        "--seed",
        "1",
        "--max-hands",
        "1",
        "--db",
        sqlite_url,
    )
    data = json.loads(
        arena(
            "match",
            "hostile",
            "random@1.0",
            "--seed",
            "1",
            "--max-hands",
            "1",
            "--db",
            sqlite_url,
            "--json",
        )
    )
    assert data["players"] == ["hostile@1.0", "random@1.0"]
    assert data["termination"] == "hand_limit"


def test_errors_name_the_problem(tmp_path: Path) -> None:
    from arena.errors import ArenaError

    for args, words in [
        (["match", str(tmp_path), RANDOM, "--no-record"], "has no bot.toml"),
        (["match", "nobody", RANDOM, "--db", str(tmp_path / "a.db")], "unknown bot 'nobody'"),
        (["match", RANDOM, RANDOM, "--move-timeout", "0", "--no-record"], "move time"),
        (["replay", str(tmp_path / "a.db"), "--db", str(tmp_path / "a.db")], "not a match"),
    ]:
        result = runner.invoke(app, args)
        assert isinstance(result.exception, ArenaError), (args, result.output)
        assert words in str(result.exception)


def test_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "replay", "no-such-match", "--db", str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "arena: error: no match with id 'no-such-match'\n"


def test_a_dead_bot_is_noticed_at_once() -> None:
    """A 20 s move limit, and a bot that crashes: the match is over in well under a second."""
    from arena.referee import ClockConfig, play_match

    with (
        start_bot(load_manifest(BOTS / "hostile_crash")) as crashing,
        start_bot(load_manifest(BOTS / "hostile")) as good,
    ):
        t0 = time.monotonic()
        result = play_match((crashing, good), seed=1, clock=ClockConfig(move_time_ms=20_000))
        elapsed = time.monotonic() - t0
    assert result.termination is Termination.FORFEIT_CRASH
    assert elapsed < 2.0


def test_a_crash_is_told_with_its_exit_code() -> None:
    data = json.loads(
        arena("match", str(BOTS / "hostile_crash"), RANDOM, "--seed", "3", "--no-record", "--json")
    )
    assert data["termination"] == "forfeit_crash" and data["winner"] == 1
    assert "seat 0 (hostile_crash@1.0): its process has exited (exit code 3)" in data["detail"]
