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
from typing import Any

import pytest

from arena.ladder import LADDER_KEY, Ladder, LadderSettings
from arena.ladder.runner import describe_status
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
                games=2,
                seed=5,
                rules=FAST,
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
            # Nobody chose it: not a seed derived from any small tournament seed (a ladder pair
            # is a tournament of two entrants on pairs deals: its one pair is entrants 0 and 1).
            assert a.seed not in {deal_seed(s, 0, "pair", 0, 1) for s in range(1000)}
            assert t.config["deals"] == "pairs"
            assert a.seed == deal_seed(int(t.config["seed"]), 0, "pair", 0, 1)
        assert len(seeds) == 2
        status = store.ladder_status()
        assert status is not None and status["pairs_scheduled"] == 2
        assert {e["bot"] for e in status["entrants"]} == {"random", "heuristic", "cautious"}


def test_a_bot_that_cannot_start_is_paused_at_once_and_gives_no_win(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        random_bot = register_directory(store, SAMPLES / "random")
        broken = register_directory(store, BOTS / "runtime_exits_at_once")
        settings = LadderSettings(max_pairs=3, rules=FAST, pause_after=2, seed=2)
        Ladder(store, settings).run(threading.Event())
        pauses = store.ladder_pauses()
        assert list(pauses) == [broken.version_id]
        # Paused after its first pair, not after pause_after forfeits: it never started.
        assert pauses[broken.version_id]["kind"] == "not_started"
        reason = pauses[broken.version_id]["reason"]
        assert reason.startswith("runtime_exits_at_once could not start: ")
        assert "exited during startup" in reason
        (pair,) = ladder_tournaments(store)
        matches = store.list_matches(tournament_id=pair.id)
        assert len(matches) == 2
        # Recorded, unrated for both: its opponent wins nothing it did not play for.
        assert all(not m.rated and m.unrated_reason == "not_started" for m in matches)
        assert store.rating(random_bot.version_id).wins == 0
        status = store.ladder_status()
        assert status is not None and status["paused"][0]["bot"].startswith(broken.name)


def test_a_new_version_of_a_bot_that_could_not_start_must_start_first(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A new version does not lift a pause it has not earned: it is started alone once, and
    paused at once (no opponent's time spent) if it cannot start either; one that starts
    plays."""
    import shutil

    folder = tmp_path / "flaky"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "flaky"\ncommand = ["{python}", "bot.py"]\n')
    (folder / "bot.py").write_text("import sys\nsys.exit('flaky: not today')\n")
    with Store.open(sqlite_url) as store:
        register_directory(store, SAMPLES / "random")
        first = register_directory(store, folder)
        store.pause_ladder_version(first.version_id, "could not start: …", "t", kind="not_started")
        (folder / "note.txt").write_text("v2: still broken")
        second = register_directory(store, folder)
        checked: list[str] = []

        def check(source: str) -> None:
            checked.append(source)
            from arena.runtime.start_check import check_starts

            check_starts(source, sandbox="off")

        ladder = Ladder(store, LadderSettings(max_pairs=1, rules=FAST), start_check=check)
        ladder.run(threading.Event())
        assert checked == [second.source]
        paused = store.ladder_pauses()[second.version_id]
        assert paused["kind"] == "not_started" and "flaky: not today" in paused["reason"]
        assert ladder_tournaments(store) == []  # nobody played against it
        # A third version that starts is let in, and plays.
        shutil.copy(SAMPLES / "random" / "bot.py", folder / "bot.py")
        third = register_directory(store, folder)
        Ladder(store, LadderSettings(max_pairs=1, rules=FAST), start_check=check).run(
            threading.Event()
        )
        assert checked[-1] == third.source
        assert third.version_id not in store.ladder_pauses()
        assert len(ladder_tournaments(store)) == 1


def test_a_bot_that_keeps_forfeiting_is_paused_with_its_reason(
    sqlite_url: str, tmp_path: Path
) -> None:
    from bot_process import standalone_bot

    with Store.open(sqlite_url) as store:
        register_directory(store, SAMPLES / "random")
        cheat = register_directory(store, standalone_bot(BOTS / "hostile_illegal", tmp_path))
        settings = LadderSettings(max_pairs=3, rules=FAST, pause_after=2, seed=2)
        Ladder(store, settings).run(threading.Event())
        pauses = store.ladder_pauses()
        assert list(pauses) == [cheat.version_id]
        assert pauses[cheat.version_id]["kind"] == "faults"
        assert "forfeited its last 2 ladder matches" in pauses[cheat.version_id]["reason"]
        assert len(ladder_tournaments(store)) == 1


def _owned(store: Store, folder: Path, token_id: int | None) -> int:
    """Register the bot in ``folder`` as owned by a token (as a submission would)."""
    from arena.runtime import bot_content_hash, load_manifest

    name = load_manifest(folder).name
    return store.register_bot_version(
        name, "1.0", bot_content_hash(folder), str(folder.resolve()), owner_token_id=token_id
    ).id


def _renamed(folder: Path, name: str, into: Path) -> Path:
    import re
    import shutil

    target = into / name
    shutil.copytree(folder, target)
    manifest = target / "bot.toml"
    manifest.write_text(re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', manifest.read_text()))
    return target


def test_one_owners_bots_never_meet_and_at_most_n_take_part(
    sqlite_url: str, tmp_path: Path
) -> None:
    with Store.open(sqlite_url) as store:
        alice = store.verify_token(store.create_token("alice"))
        assert alice is not None
        mine = [
            _owned(store, _renamed(SAMPLES / "random", f"alice{i}", tmp_path), alice.id)
            for i in range(4)
        ]
        house = [
            register_directory(store, SAMPLES / n).version_id for n in ("heuristic", "cautious")
        ]
        ladder = Ladder(store, LadderSettings(max_pairs=2, rules=FAST, seed=3, concurrency=2))
        entrants = ladder.entrants()
        assert sum(e.version_id in mine for e in entrants) == 2  # per_owner defaults to 2
        ladder.run(threading.Event())
        for t in ladder_tournaments(store):
            versions = {b["version_id"] for b in t.config["bots"]}
            assert not versions <= set(mine), "two of alice's bots were paired"
            assert versions & set(house)
        # The entrants kept between choices are what reading everything again gives.
        kept, waiting = ladder.entrants(), list(ladder._waiting)
        ladder._field = None
        assert ladder.entrants() == kept and ladder._waiting == waiting
        assert sum(e.version_id in mine for e in kept) == 2
        status = store.ladder_status()
        assert status is not None and status["per_owner"] == 2
        assert len(status["waiting"]) == 2
        assert all("at most 2 at once" in w["why"] for w in status["waiting"])
        assert "waiting (one owner's bots beyond its share):" in describe_status(status)


def _told(log_dir: Path) -> list[str]:
    """What the shill wrote it was told, in its logs."""
    import re

    return sorted(
        told
        for f in log_dir.rglob("*.log")
        for told in re.findall(r"told opponent: ('[^'\n]*')", f.read_text(errors="replace"))
    )


@pytest.mark.parametrize("reveal", [False, True])
def test_ladder_opponents_are_anonymous_unless_revealed(
    sqlite_url: str, tmp_path: Path, reveal: bool
) -> None:
    """The shill throws its matches only against a bot named "star" (the issue's case): on
    the ladder it is not told whom it plays, and so cannot; told (the organiser's option, the
    control), it throws both games."""
    from bot_process import standalone_bot

    with Store.open(sqlite_url) as store:
        shill = register_directory(store, standalone_bot(BOTS / "shill", tmp_path))
        register_directory(store, _renamed(SAMPLES / "random", "star", tmp_path))
        logs = tmp_path / "logs"
        settings = LadderSettings(max_pairs=1, rules=FAST, reveal_opponents=reveal)
        Ladder(store, settings, logs=logs).run(threading.Event())
        (pair,) = ladder_tournaments(store)
        assert pair.config["anonymous_opponents"] is (not reveal)
        matches = store.list_matches(tournament_id=pair.id)
        thrown = [m for m in matches if m.termination is Termination.FORFEIT_ERROR_STATUS]
        if reveal:
            assert _told(logs) == ["'star'", "'star'"]
            assert len(thrown) == 2
        else:
            assert _told(logs) == ["''", "''"]
            assert thrown == []
            assert store.rating(shill.version_id).faults == 0


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
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and len(recorded(sqlite_url)) < 1:
            time.sleep(0.2)
        assert recorded(sqlite_url), "the ladder recorded no match in time"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = recorded(sqlite_url)
    subprocess.run(
        [*base, "--max-pairs", "1", "--seed", "5"], check=True, capture_output=True, timeout=300
    )
    after = recorded(sqlite_url)
    assert set(before) <= set(after)
    with Store.open(sqlite_url) as store:
        pairs = ladder_tournaments(store)
        for t in pairs:
            games = Counter(
                m.tournament_game_id
                for m in store.list_matches(tournament_id=t.id)
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
                    bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")],
                    games=1,
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


def test_ladder_status_lists_a_bot_whose_forfeits_concentrate_on_one_opponent(
    sqlite_url: str, make_result: Any
) -> None:
    """The shill threw 4 of 4 matches to the star and none of 20 to others: flagged in the
    status (and `arena ladder status`), with the test's figures; the star is not."""
    with Store.open(sqlite_url) as store:
        ids = {
            name: store.register_bot_version(name, "1", f"h-{name}", f"/{name}").id
            for name in ("shill", "star", "a", "b", "c", "d")
        }
        seed = iter(range(1, 1000))
        for _ in range(4):  # seat 1, the shill, forfeits: the star wins
            thrown = make_result(
                0, termination=Termination.FORFEIT_ILLEGAL_ACTION, faults=(0, 1), seed=next(seed)
            )
            store.record_match(thrown, seat_versions=(ids["star"], ids["shill"]))
        for other in "abcd":
            for _ in range(5):
                store.record_match(
                    make_result(0, seed=next(seed)), seat_versions=(ids["shill"], ids[other])
                )
        Ladder(store, LadderSettings(max_pairs=0)).run(threading.Event())  # publish only
        status = store.ladder_status()
    assert status is not None
    (flag,) = status["flags"]
    assert (flag["bot"], flag["opponent"]) == ("shill", "star")
    assert (flag["forfeits_against"], flag["matches_against"]) == (4, 4)
    assert abs(flag["p_value"] - 1 / 10626) < 1e-15
    lines = describe_status(status)
    assert "flagged for the organiser (forfeits concentrated on one opponent):" in lines
    assert any("shill forfeited 4 of 4 matches against star" in line for line in lines)


def test_the_kept_entrants_follow_joins_pauses_and_the_ladders_own_pairs(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Between choices the ladder reads only what changed: a bot registered, a version paused
    and unpaused, and a pair it counted are in the next ``entrants()``, as a full read has them."""
    with Store.open(sqlite_url) as store:
        first = [register_directory(store, SAMPLES / n).version_id for n in ("heuristic", "random")]
        ladder = Ladder(store, LadderSettings(max_pairs=0, rules=FAST))

        def full() -> list[Any]:
            ladder._field = None
            return ladder.entrants()

        assert [e.version_id for e in ladder.entrants()] == first
        late = register_directory(store, _renamed(SAMPLES / "random", "aaa", tmp_path))
        assert [e.version_id for e in ladder.entrants()] == [late.version_id, *first]
        store.pause_ladder_version(first[0], "test", "now")
        assert first[0] not in {e.version_id for e in ladder.entrants()}
        store.unpause_ladder_version(first[0])
        ladder._count_pair(7, (first[0], late.version_id), 999)
        got = ladder.entrants()
        by_id = {e.version_id: e for e in got}
        assert by_id[first[0]].pairs == 1 and by_id[first[0]].last_pair == 7
        assert by_id[late.version_id].last_pair == 7 and by_id[first[1]].pairs == 0
        assert got == full()
