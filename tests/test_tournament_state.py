"""A tournament's shown state and its one-player lock: ``interrupted`` when no process plays a
``running`` tournament, ``running`` while another process holds its lock; the lock keyed on
the database file itself, so a symlinked path finds it. Real processes, a real SQLite file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.store import ScheduleEntry, Store, StoreError, TournamentStatus

runner = CliRunner()

HOLD = """
import sys, time
from arena.store import Store
with Store.open(sys.argv[1]) as store, store.tournament_player_lock(int(sys.argv[2])):
    print("held", flush=True)
    sys.stdin.read()
"""


def _tournament(store: Store) -> int:
    a = store.register_bot_version("a", "1", "h" * 64, "/nowhere/a")
    b = store.register_bot_version("b", "1", "g" * 64, "/nowhere/b")
    return store.create_tournament(
        {"format": 1}, [ScheduleEntry(ordinal=0, seed=1, seat_versions=(a.id, b.id))]
    )


def test_a_symlinked_database_path_finds_the_same_lock(tmp_path: Path) -> None:
    real = tmp_path / "arena.db"
    link = tmp_path / "elsewhere" / "link.db"
    link.parent.mkdir()
    with Store.open(f"sqlite:///{real}") as store:
        tid = _tournament(store)
    link.symlink_to(real)
    with Store.open(f"sqlite:///{real}") as one, Store.open(f"sqlite:///{link}") as two:
        with one.tournament_player_lock(tid):
            busy = pytest.raises(StoreError, match="being played by another process")
            with busy, two.tournament_player_lock(tid):
                pass
            assert two.tournament_player_active(tid)
        assert not two.tournament_player_active(tid)
        with two.tournament_player_lock(tid):  # free again once released
            pass


def test_running_with_no_player_is_shown_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    url = f"sqlite:///{db}"
    with Store.open(url) as store:
        tid = _tournament(store)
        assert store.get_tournament(tid).status is TournamentStatus.RUNNING  # as stored
        assert store.live_status(store.get_tournament(tid)).status is TournamentStatus.INTERRUPTED

    def listed() -> str:
        out = runner.invoke(app, ["tournament", "list", "--json", "--db", url])
        assert out.exit_code == 0, out.output
        return str(json.loads(out.output)[0]["status"])

    assert listed() == "interrupted"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, url, str(tid)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert listed() == "running"
        with Store.open(url) as store:
            assert store.live_status(store.get_tournament(tid)).status is TournamentStatus.RUNNING
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    assert listed() == "interrupted"  # the holder is gone: nobody plays it


def test_a_second_demo_says_the_global_ratings_hold_both(tmp_path: Path) -> None:
    from arena.cli.demo import ratings_note

    with Store.open(f"sqlite:///{tmp_path / 'arena.db'}") as store:
        first = _tournament(store)
        assert "every later match adds to" in ratings_note(store, first)
        a, b = (v.id for v in (store.get_bot_version("a"), store.get_bot_version("b")))
        second = store.create_tournament(
            {"format": 1}, [ScheduleEntry(ordinal=0, seed=2, seat_versions=(b, a))]
        )
        note = ratings_note(store, second)
    assert f"tournament {second}'s alone" in note
    assert f"now hold all 2 tournaments of this database ({first}, {second})" in note


def test_the_stored_trueskill_settings_rule_and_a_mismatch_is_refused_before_play(
    tmp_path: Path,
) -> None:
    import os

    from arena.ratings import RatingConfig

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store.open(url, rating_config=RatingConfig()):
        pass  # a new database notes the default settings
    with Store.open(url, rating_config=RatingConfig(tau=0.5)) as store:
        assert store.effective_rating_config() == RatingConfig()  # not the shell's
        with pytest.raises(StoreError, match="arena ratings --recompute"):
            store.check_rating_settings()
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(root / "sample_bots" / "random"),
         str(root / "sample_bots" / "random"), "--db", url],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "ARENA_TRUESKILL_TAU": "0.5"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "TrueSkill" in done.stderr and done.stdout == ""
    assert not (tmp_path / "arena-data" / "logs").exists()  # no bot was started
    with Store.open(url) as store:
        assert store.list_matches() == []


@pytest.mark.slow
def test_watch_follows_a_tournament_another_process_plays(tmp_path: Path) -> None:
    import time

    root = Path(__file__).resolve().parent.parent
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    player = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(root / "sample_bots" / "random"),
         str(root / "sample_bots" / "heuristic"), "-n", "2", "-k", "1", "--max-hands", "4",
         "--seed", "3", "--db", url, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:  # until the tournament exists and its player holds the lock
            assert time.monotonic() < deadline, "the tournament never started"
            if (tmp_path / "arena.db").exists():
                with Store.open(url) as store:
                    if store.list_tournaments() and store.tournament_player_active(1):
                        break
            time.sleep(0.1)
        shown = json.loads(
            runner.invoke(app, ["tournament", "show", "1", "--json", "--db", url]).output
        )
        assert shown["tournament"]["status"] == "running"
        watched = subprocess.run(
            [sys.executable, "-m", "arena", "tournament", "watch", "1", "--db", url],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        out, _ = player.communicate(timeout=300)
    assert player.returncode == 0
    assert watched.returncode == 0, watched.stderr
    lines = [line for line in watched.stderr.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == ["[1/4", "[2/4", "[3/4", "[4/4"]
    assert all(len(line) <= 80 for line in lines)
    assert "finished" in watched.stdout
    assert json.loads(out)["tournament"]["done"] == 4
