"""Bots' logs kept per match and per tournament, ``arena match logs`` and ``arena match list``:
real bot processes, a real SQLite database, the real command line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ArenaError
from arena.runtime import load_manifest, start_bot
from arena.runtime.botlog import CappedLog, mark_log
from arena.store import Store, StoreError
from arena.tournament.botlogs import cut_match, cut_startup, read_match_log

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "sample_bots" / "random")
HEURISTIC = str(ROOT / "sample_bots" / "heuristic")
BOTS = ROOT / "tests" / "bots"

runner = CliRunner()


def arena(*args: str, code: int = 0) -> str:
    """The command's output; with ``code=2``, the one-line error ``arena.cli.main`` prints."""
    if code == 2:
        result = runner.invoke(app, list(args))
        assert isinstance(result.exception, (ArenaError, StoreError)), result.output
        return str(result.exception)
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.stdout


def test_markers_are_written_past_the_cap_and_a_log_is_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    path.write_bytes(b"an earlier run\n")
    r, w = os.pipe()
    log = CappedLog(r, path, limit=10, name="t")
    assert mark_log(path, "StartMatch m1 seat 0 against x")
    os.write(w, b"0123456789 and more past the cap\n")
    os.close(w)
    log.close()
    assert mark_log(path, "EndMatch m1 after the end")  # appended once the output has ended
    assert not mark_log(tmp_path / "gone" / "bot.log", "EndMatch m1")
    text = path.read_text()
    assert text.endswith("[arena] EndMatch m1 after the end\n")
    assert text.startswith(
        "an earlier run\n[arena] BotStart t\n[arena] StartMatch m1 seat 0 against x\n0123456789"
    )
    assert "more past the cap" not in text
    assert log.dropped_bytes == len(" and more past the cap\n")


def test_a_run_begins_on_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    path.write_bytes(b"a crashed run's unfinished line")
    r, w = os.pipe()
    log = CappedLog(r, path, name="mybot")
    os.write(w, b"starting\n")
    os.close(w)
    log.close()
    assert path.read_text() == (
        "a crashed run's unfinished line\n[arena] BotStart mybot\nstarting\n"
    )


def test_each_match_is_cut_by_the_bots_own_tags() -> None:
    """Two matches at once: a line tagged for one is never in the other's log, even between
    its markers; a tagged line after its match's end marker is still its; start-up output is
    in neither, and reads as its own log."""
    text = (
        "[arena] BotStart mybot\nmybot listening on 127.0.0.1:1\nloading the model\n"
        "[arena] StartMatch t2-g0 seat 0 against x\n[match t2-g0] bid 3\n"
        "[arena] StartMatch t2-g1 seat 1 against x\n[match t2-g1] bid 5\n"
        "[match t2-g0] play As\nan untagged line\n[arena] EndMatch t2-g0 target_reached\n"
        "[match t2-g0] a late line of g0\n[match t2-g1] play Kh\n"
        "[arena] EndMatch t2-g1 target_reached\n"
        "[arena] BotStart mybot\nmybot listening again\n"
        "[arena] StartMatch t2-g2 seat 0 against x\n[match t2-g2] bid 1\n"
    )
    g0 = cut_match(text, "t2-g0")
    assert g0 == (
        "[arena] StartMatch t2-g0 seat 0 against x\n[match t2-g0] bid 3\n"
        "[match t2-g0] play As\nan untagged line\n[arena] EndMatch t2-g0 target_reached\n"
        "[match t2-g0] a late line of g0\n"
    )
    g1 = cut_match(text, "t2-g1")
    assert g1 is not None and "t2-g0]" not in g1 and "[match t2-g1] play Kh" in g1
    assert "listening" not in g1 and "loading" not in (cut_match(text, "t2-g2") or "")
    assert cut_startup(text) == (
        "[arena] BotStart mybot\nmybot listening on 127.0.0.1:1\nloading the model\n"
        "[arena] BotStart mybot\nmybot listening again\n"
    )
    assert cut_startup("no run marked\n") is None


def test_cut_match_keeps_one_match_and_skips_other_markers() -> None:
    text = (
        "boot\n[arena] StartMatch a seat 0 against x\nline a1\n"
        "[arena] StartMatch b seat 1 against y\nline b1\n[arena] EndMatch a done\n"
        "line b2\n[arena] EndMatch b done\n"
    )
    assert cut_match(text, "a") == (
        "[arena] StartMatch a seat 0 against x\nline a1\nline b1\n[arena] EndMatch a done\n"
    )
    assert cut_match(text, "c") is None
    # The arena stopped before the end: to the end of the log.
    assert cut_match("[arena] StartMatch z s\nlast\n", "z") == "[arena] StartMatch z s\nlast\n"


@pytest.mark.slow
def test_a_crash_keeps_its_last_output_in_the_reason_and_the_log(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    data = json.loads(
        arena("match", str(BOTS / "hostile_crash"), RANDOM, "--seed", "3", "--db", db, "--json")
    )
    assert data["termination"] == "forfeit_crash"
    assert "its last output: hostile bot: crashing on purpose" in data["detail"]
    mid = data["match_id"]
    log0 = arena("match", "logs", mid, "--seat", "0", "--db", db)
    assert f"[arena] StartMatch {mid} seat 0 against random@1.0" in log0
    assert "hostile bot: crashing on purpose" in log0
    assert f"[arena] EndMatch {mid} forfeit_crash, winner seat 1" in log0
    log1 = arena("match", "logs", mid, "--seat", "1", "--db", db)
    assert "random listening on" in log1 and f"StartMatch {mid} seat 1" in log1
    # Where the data dir keeps it, beside the SQLite file.
    assert (tmp_path / "arena-data" / "logs" / f"match-{mid}" / "seat0").is_dir()

    listed = json.loads(arena("match", "list", "--faults", "--json", "--db", db))
    assert [m["match_id"] for m in listed] == [mid]
    assert listed[0]["seats"] == ["hostile_crash@1.0", "random@1.0"]
    assert "crashing on purpose" in listed[0]["reason"]
    text = arena("match", "list", "--bot", "random", "--db", db)
    assert mid in text and "reason: seat 0" in text

    # --log-dir keeps them where the user says, and the reader finds them there.
    elsewhere = tmp_path / "mine"
    data = json.loads(
        arena(
            "match",
            RANDOM,
            HEURISTIC,
            "--seed",
            "1",
            "--target-score",
            "100",
            "--db",
            db,
            "--log-dir",
            str(elsewhere),
            "--json",
        )
    )
    assert (elsewhere / "seat1" / "heuristic.log").is_file()
    arena("match", "logs", data["match_id"], "--db", db, code=2)  # not in the data dir
    shown = arena("match", "logs", data["match_id"], "--db", db, "--log-dir", str(elsewhere))
    assert "heuristic listening on" not in shown and "random listening on" in shown


@pytest.mark.slow
def test_a_tournament_keeps_one_log_per_bot_cut_per_match(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    arena("tournament", "run", RANDOM, HEURISTIC, "-n", "1", "-k", "2", "--seed", "5",
          "--max-hands", "3", "--db", db, "--json")  # fmt: skip
    ids = [m["match_id"] for m in json.loads(arena("match", "list", "--json", "--db", db))]
    assert ids == ["t1-g0", "t1-g1"] or sorted(ids) == ["t1-g0", "t1-g1"]
    logs = tmp_path / "arena-data" / "logs" / "tournament-1"
    assert sorted(p.name for p in logs.iterdir()) == ["heuristic", "random"]
    # One log per lane: the deal's two seatings were played by two processes of each bot.
    lane_logs = sorted(p.name for p in (logs / "random").iterdir())
    assert lane_logs == ["random-2.log", "random.log"]
    whole = "".join((logs / "random" / name).read_text() for name in lane_logs)
    assert whole.count("[arena] StartMatch ") == 2 and whole.count("[arena] EndMatch ") == 2
    with Store.open(db) as store:
        g0 = read_match_log(store, "t1-g0", 0, data_dir=tmp_path / "arena-data")
        assert g0 is not None
        assert "StartMatch t1-g0 seat 0 against heuristic" in g0 and "EndMatch t1-g0" in g0
        assert "t1-g1" not in g0
        # Nothing kept there: None, which a viewer shows as "no log kept".
        assert read_match_log(store, "t1-g0", 0, data_dir=tmp_path / "nowhere") is None
    assert "EndMatch t1-g1" in arena("match", "logs", "t1-g1", "--seat", "1", "--db", db)
    out = arena("match", "list", "--tournament", "1", "--db", db)
    row = next(line for line in out.splitlines() if line.startswith("t1-g0 "))
    assert "random@1.0 vs heuristic@1.0" in row
    shown = json.loads(arena("tournament", "show", "1", "--matches", "--json", "--db", db))
    assert [m["match_id"] for m in shown["matches"]] == ids[::-1]  # match list: newest first
    g0 = next(m for m in shown["matches"] if m["match_id"] == "t1-g0")  # recorded in any order
    assert g0["seats"] == ["random@1.0", "heuristic@1.0"]
    text = arena("tournament", "show", "1", "--matches", "--db", db)
    assert "Matches (t1-g<ordinal>, ordinals from 0):" in text and "\nt1-g1  " in text


def test_match_list_refuses_unknown_names_and_ids(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    assert "no matches recorded" in arena("match", "list", "--db", db)
    assert "nobody" in arena("match", "list", "--bot", "nobody", "--db", db, code=2)
    assert "no tournament with id 4" in arena("match", "list", "--tournament", "4", "--db", db,
                                              code=2)  # fmt: skip


@pytest.mark.slow
def test_match_exits_non_zero_when_a_bot_cannot_start(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    out = arena("match", str(BOTS / "runtime_exits_at_once"), RANDOM, "--db", db, "--json", code=1)
    data = json.loads(out)
    assert data["termination"] == "forfeit_no_start" and data["winner"] == 1
    assert data["recorded"] is not None  # the forfeit is recorded all the same
    # …and rated for nobody: the opponent did not play for its win. Every listing says why.
    assert data["recorded"]["rated"] is False
    assert data["recorded"]["unrated_reason"] == "not_started"
    listed = json.loads(arena("match", "list", "--faults", "--json", "--db", db))
    assert listed[0]["termination"] == "forfeit_no_start"
    assert listed[0]["unrated_reason"] == "not_started"
    text = arena("match", "list", "--db", db)
    assert "(not rated: never started (a bot could not start))" in text


def test_a_restarted_bot_appends_to_its_log(tmp_path: Path) -> None:
    manifest = load_manifest(BOTS / "runtime_echo")
    for _ in range(2):
        with start_bot(manifest, log_dir=tmp_path) as bot:
            assert mark_log(bot.log_path, "StartMatch x seat 0 against y")
    text = (tmp_path / f"{manifest.name}.log").read_text()
    assert text.count("[arena] StartMatch x seat 0 against y") == 2


@pytest.mark.slow
def test_match_takes_a_remote_endpoint_for_a_seat(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "sample_bots" / "random" / "bot.py"),
         "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        db = f"sqlite:///{tmp_path / 'arena.db'}"
        out = arena("match", f"127.0.0.1:{port}", HEURISTIC, "--seed", "2", "--target-score",
                    "100", "--startup-timeout", "30", "--db", db, "--json")  # fmt: skip
        data = json.loads(out)
        assert data["players"] == [f"remote@127.0.0.1:{port}", "heuristic@1.0"]
        assert data["termination"] in ("target_reached", "hand_limit")
        assert data["recorded"] is None  # a remote seat has no version to record it under
    finally:
        bot.terminate()
        bot.wait(timeout=30)
    # Nothing listens there any more: the seat cannot start, and the command says so.
    out = arena("match", f"127.0.0.1:{port}", RANDOM, "--startup-timeout", "1", "--json",
                code=1)  # fmt: skip
    assert json.loads(out)["termination"] == "forfeit_no_start"
