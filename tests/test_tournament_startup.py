"""Starting bots for a tournament: a bot that never serves holds up only its own games, Ctrl-C
ends a run at once, bad numbers or bytes in a manifest are that bot's forfeit and nobody
else's, and each bot runs from a read-only copy of the content it was registered with."""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from bot_process import sigint_as_in_a_terminal, standalone_bot

from arena.runtime import BotStartError, load_manifest, start_bot
from arena.store import GameStatus, Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.tournament.entrants import register_directory
from arena.tournament.workers import BotPool

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
TEST_BOTS = ROOT / "tests" / "bots"


def never_ready(tmp_path: Path, timeout_s: float = 300) -> Path:
    """A bot that never listens, allowed the longest start-up a manifest may ask for."""
    bot = standalone_bot(TEST_BOTS / "runtime_never_ready", tmp_path)
    with (bot / "bot.toml").open("a") as fh:
        fh.write(f"\n[limits]\nstartup_timeout_s = {timeout_s}\n")
    return bot


# -- the runtime ---------------------------------------------------------------------------


def test_start_up_can_be_cancelled_at_once(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    t0 = time.monotonic()
    with pytest.raises(BotStartError, match="start-up cancelled"):
        start_bot(load_manifest(never_ready(tmp_path)), cancel=cancel)
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("timeout", [math.nan, -1.0, 0.0])
def test_a_bad_start_up_timeout_is_an_error_not_a_traceback(timeout: float) -> None:
    with pytest.raises(BotStartError, match="startup timeout must be a positive number"):
        start_bot(load_manifest(SAMPLES / "random"), startup_timeout=timeout)


def test_a_nul_byte_given_past_the_manifest_is_a_start_error() -> None:
    manifest = load_manifest(SAMPLES / "random")
    manifest = dataclasses.replace(manifest, env={"BAD": "a\0b"})
    with pytest.raises(BotStartError, match=r"cannot start: .*null byte"):
        start_bot(manifest)


# -- a tournament ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_never_serves_holds_up_only_its_own_games(
    tmp_path: Path, sqlite_url: str
) -> None:
    bots = [str(SAMPLES / "random"), str(SAMPLES / "heuristic"), str(never_ready(tmp_path))]
    abort = threading.Event()
    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(bots=bots, games=1, concurrency=1, seed=3)
        tid = create_tournament(store, settings)
        runner = threading.Thread(
            target=run_tournament, args=(store, tid), kwargs={"abort": abort}, daemon=True
        )
        runner.start()
        # random v heuristic (both seatings) is played while the third bot is still starting.
        deadline = time.monotonic() + 120
        while store.get_tournament(tid).games_done < 2:
            assert time.monotonic() < deadline, "the ready bots' games were held up"
            time.sleep(0.1)
        t0 = time.monotonic()
        abort.set()
        runner.join(10)
        assert not runner.is_alive(), "stopping waited for the bot still starting"
        assert time.monotonic() - t0 < 10
        games = store.tournament_games(tid)
        assert sum(g.status is GameStatus.DONE for g in games) == 2
        assert len(games) == 6


@pytest.mark.slow
def test_ctrl_c_ends_a_run_at_once_while_a_bot_starts(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(SAMPLES / "random"),
         str(never_ready(tmp_path)), "-n", "1", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "ARENA_SANDBOX": "off"}, preexec_fn=sigint_as_in_a_terminal,
    )  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "tournament 1: 2 of 2 matches to play; …"
    assert "matches to play" in first, first
    time.sleep(1.5)  # the bots are starting; one never serves
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert time.monotonic() - t0 < 8, err
    assert proc.returncode == 130, err
    assert "arena: interrupted: 0 of 2 matches" in err


def test_a_bad_manifest_is_a_clear_error_and_no_tournament_is_left_running(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.toml").write_text(
        'name = "bad"\ncommand = ["{python}", "bot.py"]\n[limits]\nstartup_timeout_s = nan\n'
    )
    db = tmp_path / "arena.db"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "run", str(SAMPLES / "random"), str(bad),
         "--db", str(db)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        "limits.startup_timeout_s: must be a finite number, not nan"
    )
    assert "Traceback" not in done.stderr
    if db.exists():
        with Store.open(f"sqlite:///{db}") as store:
            assert store.list_tournaments() == []


# -- the read-only copy ------------------------------------------------------------------------


def test_each_bot_runs_from_a_read_only_copy_of_its_registered_content(
    tmp_path: Path, sqlite_url: str
) -> None:
    source = tmp_path / "random"
    import shutil

    shutil.copytree(SAMPLES / "random", source)
    with Store.open(sqlite_url) as store:
        entrant = register_directory(store, source)
    pool = BotPool([entrant], bot_seed=1, sandbox="off")
    try:
        pool.start([0])
        deadline = time.monotonic() + 60
        while not pool.ready(0):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        seat = pool.connection(0)
        assert not isinstance(seat, str), seat
        running = seat._bot
        copy = running.manifest.directory
        assert copy != source.resolve()
        assert not os.access(copy, os.W_OK) or os.geteuid() == 0
        assert all(not (p.stat().st_mode & 0o222) for p in copy.iterdir())
        # Changing the source now changes nothing that runs: a restart uses the same copy.
        (source / "bot.py").write_text("raise SystemExit(9)\n")
        running.stop()
        again = pool.connection(0)
        assert not isinstance(again, str), again
        assert again._bot.manifest.directory == copy and again.alive()
    finally:
        pool.stop()
    assert not copy.exists()

    # A source that no longer holds the registered content does not start.
    pool = BotPool([entrant], bot_seed=1, sandbox="off")
    try:
        pool.start([0])
        while not pool.ready(0):
            time.sleep(0.05)
        reason = pool.connection(0)
        assert isinstance(reason, str)
        assert "not the version it was registered with" in reason
    finally:
        pool.stop()


def test_the_manifest_docs_say_a_bad_manifest_is_refused_up_front() -> None:
    """The behaviour above, as docs/bots-and-manifests.md tells it (it once said such a bot
    "forfeits its own matches", which a tournament no longer lets happen)."""
    text = " ".join((ROOT / "docs" / "bots-and-manifests.md").read_text().split())
    assert "A tournament refuses such a bot before anything is played" in text
    assert "exits 2, and no tournament is recorded" in text
    assert "such a bot forfeits its own matches" not in text
