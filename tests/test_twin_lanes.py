"""No bot process plays a deal twice: a hostile bot that remembers every card it is offered
(``tests/bots/hostile_remember``) never meets a deal again, at K = 1 and K > 1, in a
tournament, a comparison and on the ladder; and, as the control that shows it would, it does
find the deal's twin when one process plays both seatings."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ladder import Ladder, LadderSettings
from arena.referee import ClockConfig, Termination, play_match
from arena.rules.ruleset import RuleSet
from arena.runtime import BotManifest, load_manifest, start_bot
from arena.sandbox import probe
from arena.store import MatchSummary, Store
from arena.tournament import (
    DEFAULT_DEALS,
    DealMode,
    QuietReporter,
    TournamentSettings,
    create_tournament,
    deal_seed,
    load_config,
    run_tournament,
)
from arena.tournament.compare import CompareSpec
from arena.tournament.entrants import register_directory, sample_bot_unavailable
from arena.tournament.workers import SeatBot

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
HOSTILE = ROOT / "tests" / "bots" / "hostile_remember"
FAST = RuleSet(max_hands=3)
"""Three hands a match: enough deals to remember, quick to play."""


def hostile_faults(matches: list[MatchSummary]) -> list[str]:
    """Every match in which a hostile seat faulted, with the referee's detail."""
    out = []
    for m in matches:
        for seat in (0, 1):
            if m.players[seat].startswith("hostile_remember") and m.faults[seat]:
                out.append(f"{m.match_id} seat {seat}: {m.termination.value}: {m.detail}")
    return out


def check_played(matches: list[MatchSummary], expected: int) -> None:
    assert len(matches) == expected
    assert not hostile_faults(matches), "a process met a deal again:\n" + "\n".join(
        hostile_faults(matches)
    )
    assert all(m.termination is not Termination.FORFEIT_NO_START for m in matches)
    assert all(m.hands_played >= 1 for m in matches)


def test_the_bot_finds_the_twin_when_one_process_plays_both_seatings() -> None:
    """The control: one process of the hostile bot playing both seatings of one deal sees the
    deal again, and its fault says so. Without lanes, this is what a tournament did."""
    with (
        start_bot(load_manifest(HOSTILE), sandbox="off") as hostile,
        start_bot(load_manifest(SAMPLES / "random"), sandbox="off") as random_bot,
    ):
        h, r = SeatBot("hostile_remember", hostile), SeatBot("random", random_bot)
        clock = ClockConfig(5000, 0)
        first = play_match((h, r), seed=41, rules=FAST, clock=clock, match_id="twin-a")
        assert first.faults == (0, 0)
        second = play_match((r, h), seed=41, rules=FAST, clock=clock, match_id="twin-b")
        assert second.faults[1] == 1, second
        assert second.winner == 0
        assert "SEEN twin-b hand 1 seat 1" in hostile.log_tail(50)
        assert "first seen in twin-a hand 1 seat 0" in hostile.log_tail(50)


def counting(starts: list[str]) -> Callable[..., object]:
    """``start_bot`` that notes the name of every bot process it starts (one per lane). Each
    gets a minute to start rather than 10 s: up to 24 Python processes start at once here, and
    the machine running the tests may be busy with more."""

    def start(manifest: BotManifest, **kw: object) -> object:
        starts.append(manifest.name)
        limits = dataclasses.replace(manifest.limits, startup_timeout_s=60.0)
        return start_bot(dataclasses.replace(manifest, limits=limits), **kw)  # type: ignore[arg-type]

    return start


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize(
    "deals,lanes",
    [
        # The default: a bot meets a deal only in its own twin pair, once in each seat.
        (DealMode.PAIRS, 2),
        # Shared deals: every deal in both seats against each of the three others (24
        # processes in all, hence slow).
        pytest.param(DealMode.DUPLICATE, 6, marks=pytest.mark.slow),
    ],
)
def test_a_tournament_never_shows_a_process_a_deal_twice(
    sqlite_url: str, k: int, deals: DealMode, lanes: int
) -> None:
    bots = [HOSTILE] + [SAMPLES / name for name in ("random", "cautious", "heuristic")]
    starts: list[str] = []
    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(
            bots=[str(b) for b in bots], games=1, concurrency=k, seed=17, move_timeout_ms=5000,
            rules=FAST, **({} if deals is DEFAULT_DEALS else {"deals": deals}),
        )  # fmt: skip
        tid = create_tournament(store, settings)
        assert load_config(store, tid)[1].deals is deals
        run_tournament(store, tid, start_bot=counting(starts))
        check_played(store.list_matches(tournament_id=tid), 12)
    # One process per bot and lane, none restarted: the lanes each bot needed.
    assert Counter(starts) == {load_manifest(b).name: lanes for b in bots}


def test_at_k_2_each_process_serves_two_deals_at_once_and_never_a_twin(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Two deals of a pair at K = 2: both first seatings on lane 0 of each bot at once, then
    both twins on lane 1 (``play_order``), read from each process's own log: which matches it
    served, and that the second began before the first ended."""
    starts: list[str] = []
    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(
            bots=[str(HOSTILE), str(SAMPLES / "random")], games=2, concurrency=2, seed=9,
            move_timeout_ms=5000, rules=FAST,
        )  # fmt: skip
        tid = create_tournament(store, settings)
        run_tournament(store, tid, start_bot=counting(starts), log_dir=tmp_path / "logs")
        check_played(store.list_matches(tournament_id=tid), 4)
    assert Counter(starts) == {"hostile_remember": 2, "random": 2}
    for bot in ("hostile_remember", "random"):
        served = []
        # One log per process (named in the order the lanes started).
        for log in sorted((tmp_path / "logs" / bot).glob("*.log")):
            marks = re.findall(r"(StartMatch|EndMatch) t\d+-g(\d+)", log.read_text())
            served.append(frozenset(int(g) for _, g in marks))
            # Served at once: both began before either ended.
            assert [kind for kind, _ in marks][:2] == ["StartMatch", "StartMatch"], (log, marks)
        # Games 0 and 2 are the first seatings of rounds 0 and 1, 1 and 3 their twins.
        assert sorted(served, key=min) == [{0, 2}, {1, 3}], (bot, served)


def test_a_resumed_duplicate_tournament_keeps_its_shared_deals(sqlite_url: str) -> None:
    """A tournament stored on shared deals (the default before ``pairs``) is resumed on them:
    its stored mode, not today's default, makes the rest of the schedule, and the resumed run's
    lanes still keep every process from a deal it has seen."""
    bots = [str(HOSTILE), str(SAMPLES / "random"), str(SAMPLES / "cautious")]
    stop = threading.Event()

    class StopAfterTwo(QuietReporter):
        done = 0

        def match_done(self, game: object) -> None:
            self.done += 1
            if self.done == 2:
                stop.set()

    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(
            bots=bots, games=1, concurrency=1, seed=23, move_timeout_ms=5000, rules=FAST,
            deals=DealMode.DUPLICATE,
        )  # fmt: skip
        tid = create_tournament(store, settings)
        run_tournament(store, tid, reporter=StopAfterTwo(), stop=stop)
        assert 2 <= len(store.list_matches(tournament_id=tid)) < 6
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "resume", str(tid), "--db", sqlite_url],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Store.open(sqlite_url) as store:
        assert load_config(store, tid)[1].deals is DealMode.DUPLICATE
        matches = store.list_matches(tournament_id=tid)
        check_played(matches, 6)
        # Every pair played the round's one shared seed, in both seatings.
        assert {m.seed for m in matches} == {deal_seed(23, 0)}


def test_independent_deals_need_one_lane_and_never_repeat(sqlite_url: str) -> None:
    bots = [str(HOSTILE), str(SAMPLES / "random")]
    starts: list[str] = []
    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(
            bots=bots, games=2, concurrency=2, seed=3, move_timeout_ms=5000, rules=FAST,
            deals=DealMode.INDEPENDENT,
        )  # fmt: skip
        tid = create_tournament(store, settings)
        run_tournament(store, tid, start_bot=counting(starts))
        check_played(store.list_matches(tournament_id=tid), 4)
    assert sorted(starts) == ["hostile_remember", "random"]


def test_a_comparison_of_the_bot_with_itself_never_repeats_a_deal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'compare.db'}"
    done = subprocess.run(
        [
            sys.executable, "-m", "arena", "compare", str(HOSTILE), str(HOSTILE),
            "--max-pairs", "3", "-k", "2", "--max-hands", "3", "--move-timeout", "5000",
            "--seed", "8", "--db", url, "--json",
        ],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    tid = json.loads(done.stdout)["tournament"]
    with Store.open(url) as store:
        check_played(store.list_matches(tournament_id=tid), 6)


@pytest.mark.slow
def test_a_tournament_through_the_service_never_repeats_a_deal(tmp_path: Path) -> None:
    from test_service import ArenaProcess, make_admin_token

    from arena.bot_protocol.messages import ruleset_to_pb
    from arena.service.client import ArenaClient

    db = tmp_path / "arena.db"
    token = make_admin_token(db, "organiser")
    # Plain processes (the last --sandbox wins): lanes are the same in the sandbox, where
    # test_each_lane_is_a_sandbox_instance_of_its_own checks that they share nothing.
    server = ArenaProcess(db, "--sandbox", "off", "--insecure-no-sandbox")
    try:
        with ArenaClient(server.address, token=token) as client:
            client.submit_bot(HOSTILE)
            started = client.start_tournament(
                ["hostile_remember", "random", "cautious"], games=1, concurrency=2, seed=5,
                rules=ruleset_to_pb(FAST), move_timeout_ms=5000,
            )  # fmt: skip
            events = list(client.watch_tournament(started.id))
            assert events[-1].tournament.matches_done == 6
        with Store.open(f"sqlite:///{db}") as store:
            check_played(store.list_matches(tournament_id=started.id), 6)
    finally:
        assert server.stop() == 0, "".join(server.lines)


@pytest.mark.slow
def test_the_ladder_never_shows_a_process_a_deal_twice(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        register_directory(store, HOSTILE)
        register_directory(store, SAMPLES / "random")
        register_directory(store, SAMPLES / "cautious")
        # Two pairs at once, each playing its deal's two seatings at once.
        settings = LadderSettings(concurrency=2, max_pairs=4, rules=FAST, seed=4,
                                  move_timeout_ms=5000)  # fmt: skip
        Ladder(store, settings).run(threading.Event())
        matches = store.list_matches()
        assert {m.tournament_id for m in matches} and len(matches) == 8
        check_played(matches, 8)


@pytest.mark.skipif(not probe().sandbox, reason="needs bubblewrap (the sandbox)")
def test_each_lane_is_a_sandbox_instance_of_its_own(sqlite_url: str, tmp_path: Path) -> None:
    """In the sandbox every lane runs under a uid of its own (and so its own tmpfs and
    cgroup): the supervisor's first line in each lane's log names it. (The C++ sample bot,
    compared with itself: two entrants of two lanes each.)"""
    cpp = SAMPLES / "cpp_lowest"
    if (why := sample_bot_unavailable(cpp)) is not None:
        pytest.skip(f"cpp_lowest: {why}")
    with Store.open(sqlite_url) as store:
        settings = TournamentSettings(
            bots=[str(cpp), str(cpp)], games=1, concurrency=2, seed=2, rules=FAST,
            compare=CompareSpec(max_pairs=1),
        )  # fmt: skip
        tid = create_tournament(store, settings)
        run_tournament(store, tid, sandbox="on", log_dir=tmp_path / "logs")
        matches = store.list_matches(tournament_id=tid)
        assert len(matches) == 2 and all(m.faults == (0, 0) for m in matches)
    logs = sorted((tmp_path / "logs").glob("*/*.log"))
    assert len(logs) == 4, logs  # two entrants, two lanes each
    uids = [re.search(r"\[arena\] sandbox: uid (\d+)", p.read_text()) for p in logs]
    assert all(uids), [p.read_text()[:200] for p in logs]
    assert len({u.group(1) for u in uids if u}) == 4
