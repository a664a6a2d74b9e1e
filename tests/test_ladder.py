"""The ladder with real bot processes on a real database: it plays a newly registered bot first,
every pair is a duplicate pair on a secret seed, a faulting bot is paused with a reason, and a
ladder killed with SIGKILL and restarted loses nothing recorded and records nothing twice."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ladder import LADDER_KEY, Ladder, LadderSettings
from arena.referee import Termination
from arena.rules.ruleset import RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.tournament.entrants import register_directory
from arena.tournament.schedule import deal_seed

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
BOTS = ROOT / "tests" / "bots"
FAST = RuleSet(max_hands=2)

pytestmark = pytest.mark.slow


def ladder_tournaments(store: Store) -> list:
    return [t for t in store.list_tournaments() if isinstance(t.config.get(LADDER_KEY), dict)]


def settled_store(url: str) -> None:
    """random and heuristic with a few rated matches between them, as an old ladder leaves."""
    with Store.open(url) as store:
        tid = create_tournament(
            store,
            TournamentSettings(
                bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")],
                games=2, seed=5, rules=FAST,
            ),
        )
        run_tournament(store, tid)


def test_new_bot_first_duplicate_pairs_on_secret_seeds(sqlite_url: str) -> None:
    settled_store(sqlite_url)
    with Store.open(sqlite_url) as store:
        newcomer = register_directory(store, SAMPLES / "cautious")
        Ladder(store, LadderSettings(max_pairs=2, rules=FAST, seed=1)).run(threading.Event())
        pairs = ladder_tournaments(store)
        assert len(pairs) == 2
        first = [b["version_id"] for b in pairs[0].config["bots"]]
        assert newcomer.version_id in first
        assert store.rating(newcomer.version_id).sigma < 25.0 / 3
        seeds = set()
        for t in pairs:
            matches = store.list_matches(tournament_id=t.id)
            assert len(matches) == 2
            a, b = matches
            assert a.seed == b.seed and a.pair_id == b.pair_id
            assert a.seat_versions == tuple(reversed(b.seat_versions))
            assert all(m.rated for m in matches)
            seeds.add(a.seed)
            # Nobody chose it: not a seed derived from any small tournament seed.
            assert a.seed not in {deal_seed(s, 0) for s in range(1000)}
        assert len(seeds) == 2
        status = store.ladder_status()
        assert status is not None and status["pairs_scheduled"] == 2
        assert {e["bot"] for e in status["entrants"]} == {"random", "heuristic", "cautious"}


def test_a_bot_that_keeps_failing_is_paused_with_its_reason(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        register_directory(store, SAMPLES / "random")
        broken = register_directory(store, BOTS / "runtime_exits_at_once")
        settings = LadderSettings(max_pairs=3, rules=FAST, pause_after=2, seed=2)
        Ladder(store, settings).run(threading.Event())
        pauses = store.ladder_pauses()
        assert list(pauses) == [broken.version_id]
        assert "forfeited its last 2 ladder matches" in pauses[broken.version_id]["reason"]
        # Paused, it leaves a field of one: nothing more is scheduled.
        assert len(ladder_tournaments(store)) == 1
        status = store.ladder_status()
        assert status is not None and status["paused"][0]["bot"].startswith(broken.name)


def arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def recorded(url: str) -> list[tuple]:
    with Store.open(url) as store:
        ids = {t.id for t in ladder_tournaments(store)}
        return sorted(
            (m.match_id, m.seed, m.seat_versions, m.winner, m.scores, m.decision_count)
            for m in store.list_matches()
            if m.tournament_id in ids and m.termination is not Termination.ABORTED
        )


def test_a_ladder_killed_and_restarted_loses_and_doubles_nothing(
    sqlite_url: str, tmp_path: Path
) -> None:
    with Store.open(sqlite_url) as store:
        for name in ("random", "heuristic", "cautious"):
            register_directory(store, SAMPLES / name)
    base = arena("ladder", "run", "--db", sqlite_url, "--rules", "max_hands=3", "--house", "none")
    cmd = [*base, "--max-pairs", "3", "--seed", "4"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and len(recorded(sqlite_url)) < 1:
            time.sleep(0.2)
        assert recorded(sqlite_url), "the ladder recorded no match in time"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = recorded(sqlite_url)
    subprocess.run([*base, "--max-pairs", "1", "--seed", "5"], check=True,
                   capture_output=True, timeout=300)
    after = recorded(sqlite_url)
    assert set(before) <= set(after)
    with Store.open(sqlite_url) as store:
        pairs = ladder_tournaments(store)
        for t in pairs:
            games = Counter(
                m.tournament_game_id for m in store.list_matches(tournament_id=t.id)
                if m.termination is not Termination.ABORTED
            )
            assert all(n == 1 for n in games.values()), games
            # The pair the killed ladder had started was finished by the restarted one.
            assert len(games) == 2, (t.id, games)
        status = store.ladder_status()
    assert json.loads(json.dumps(status))["playing"] == []


def test_runs_sharing_stop_and_abort_events_leave_them_unset(sqlite_url: str) -> None:
    # The ladder passes one abort event to every pair it plays: a run that ends must not set
    # it, or every later pair would end before it starts.
    stop, abort = threading.Event(), threading.Event()
    with Store.open(sqlite_url) as store:
        for _ in range(2):
            tid = create_tournament(
                store,
                TournamentSettings(
                    bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=1,
                    rules=FAST,
                ),
            )
            run_tournament(store, tid, stop=stop, abort=abort)
            assert not abort.is_set() and not stop.is_set()
            assert store.get_tournament(tid).games_done == 2


def test_the_web_bot_page_marks_its_ladder_matches(sqlite_url: str) -> None:
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    with Store.open(sqlite_url) as store:
        register_directory(store, SAMPLES / "random")
        register_directory(store, SAMPLES / "heuristic")
        Ladder(store, LadderSettings(max_pairs=1, rules=FAST, seed=3)).run(threading.Event())
        with TestClient(create_app(store)) as client:
            page = client.get("/bots/random")
    assert page.status_code == 200
    assert page.text.count('<span class="tag">ladder</span>') == 2
