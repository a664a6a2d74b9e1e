"""``arena bot check``: real bot processes over real gRPC, judged by the real referee.

The sample bots pass; the hostile test bots (tests/bots/) fail with the referee's own reason and
exit code 1; a bot already running is checked at HOST:PORT and at unix:PATH; the observed driver
plays exactly the match that ``play_match`` plays.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from bot_process import BotProcess
from typer.testing import CliRunner

from arena.cli import app
from arena.referee import ClockConfig, play_match
from arena.referee.observed import Call, play_observed
from arena.rules import Match
from arena.rules.ruleset import RuleSet
from arena.runtime import load_manifest, start_bot
from arena.tournament.preflight import scripted_opponent

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"
BOTS = ROOT / "tests" / "bots"
HOSTILE = BOTS / "hostile" / "bot.py"


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def check(*args: str) -> Ran:
    """``arena bot check ARGS`` in this process (the bots are processes of their own all the
    same); ``arena_cli`` below runs the real command line where its error handling matters."""
    result = CliRunner().invoke(app, ["bot", "check", *args], catch_exceptions=False)
    return Ran(result.exit_code, result.stdout, result.stderr)


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ARENA_SANDBOX": "off"},
        cwd=ROOT,
    )


def check_json(*args: str) -> tuple[int, dict]:
    proc = check(*args, "--json")
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def hostile(tmp_path: Path, mode: str, **env: str) -> Path:
    """A hostile bot's directory with its own manifest (the shared script, by absolute path)."""
    folder = tmp_path / f"hostile_{mode}"
    folder.mkdir()
    lines = [f'name = "hostile_{mode}"', f'command = ["{{python}}", "{HOSTILE}"]', "[env]"]
    lines += [f'{k} = "{v}"' for k, v in {"HOSTILE_MODE": mode, **env}.items()]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


# -- the sample bots pass --------------------------------------------------------------------


def test_the_random_bot_passes_and_every_rpc_kind_is_asked() -> None:
    # Seed 5: the seeded random bot declares Double Nil once, so Exchange is asked too.
    code, report = check_json(str(SAMPLES / "random"), "--seed", "5")
    assert code == 0, report
    assert report["verdict"] == "PASS" and report["passed"]
    rpcs = report["rpcs"]
    for rpc, row in rpcs.items():
        assert row["asked"] > 0, rpc
        assert row["asked"] == row["answered"] == row["legal"], rpc
        assert 0 < row["median_ms"] <= row["max_ms"] < 1000, rpc
    assert rpcs["StartMatch"]["asked"] == rpcs["EndMatch"]["asked"] == 4
    assert rpcs["DecideDoubleNil"]["asked"] == rpcs["EndHand"]["asked"] == 12
    seen = {rpc: row["situations"] for rpc, row in rpcs.items()}
    assert seen["DecideDoubleNil"]["declared"] >= 1 and seen["DecideDoubleNil"]["declined"] >= 1
    assert seen["Draw"]["kept"] and seen["Draw"]["rejected"]
    assert seen["Bid"]["Nil"] and seen["Bid"]["non-Nil"]
    assert seen["Bid"]["opponent in Double Nil"]  # the scripted opponent's declaration
    assert seen["Play"]["led"] and seen["Play"]["followed"] and seen["Play"]["void in the suit led"]
    assert report["not_exercised"] == {}
    # The sample bots serve PlaySession: half the matches over the stream, half unary.
    assert [m["transport"] for m in report["matches"]] == ["PlaySession"] * 2 + ["unary"] * 2
    assert [m["bot_seat"] for m in report["matches"]] == [0, 1, 0, 1]
    assert 0 < report["play_session"]["asked"] < sum(r["asked"] for r in rpcs.values())


def test_the_heuristic_bot_passes_with_a_table_and_a_verdict_line() -> None:
    proc = check(str(SAMPLES / "heuristic"), "--seed", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "PASS"
    assert lines[1].startswith("clock 1000ms; seed 2; sandbox ")
    assert lines[2].split()[:6] == ["RPC", "asked", "answered", "legal", "median", "ms"]
    rows = {line.split()[0] for line in lines[3:] if line and not line.startswith(" ")}
    assert {"StartMatch", "DecideDoubleNil", "Draw", "Exchange", "Bid", "Play"} <= rows
    assert {"EndHand", "EndMatch", "PlaySession"} <= rows
    exchange = next(line for line in lines if line.startswith("Exchange"))
    # The heuristic bot never declares Double Nil: a row not exercised, not a failure.
    assert "not exercised: the bot never declared" in exchange


@pytest.mark.node
def test_the_node_bot_passes() -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed (node not on PATH)")
    if not (SAMPLES / "node_random" / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.skip("the Node bot's packages are not installed (make setup)")
    code, report = check_json(str(SAMPLES / "node_random"), "--seed", "3")
    assert code == 0, report
    assert report["rpcs"]["Play"]["legal"] == report["rpcs"]["Play"]["asked"] > 0


@pytest.mark.cpp
def test_the_cpp_bot_passes_when_built() -> None:
    if not os.access(SAMPLES / "cpp_lowest" / "build" / "cpp_lowest", os.X_OK):
        pytest.skip("the C++ sample bot is not built (make cpp-bot)")
    code, report = check_json(str(SAMPLES / "cpp_lowest"), "--seed", "3")
    assert code == 0, report
    assert report["play_session"] is None  # unary RPCs only
    assert "Exchange" in report["not_exercised"]  # it never declares Double Nil


# -- broken and hostile bots fail, with the referee's reason ---------------------------------


@pytest.mark.parametrize(
    ("bot", "args", "reason"),
    [
        ("hostile_illegal", (), r"played \S+: R-4\.3"),
        ("hostile_sleep", ("--move-timeout", "300"), "no answer to Draw within 300 ms"),
        ("hostile_crash", (), r"its process has exited \(exit code 3\) during Draw"),
        ("hostile_error", (), "Draw failed with status INTERNAL: hostile bot: a deliberate"),
        ("hostile_error_start", (), "StartMatch failed with status PERMISSION_DENIED"),
        ("hostile_exchange4", (), "R-3.4"),
    ],
)
def test_a_hostile_bot_fails_with_the_reason_and_exit_1(
    bot: str, args: tuple[str, ...], reason: str
) -> None:
    proc = check(str(BOTS / bot), "--seed", "1", *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = proc.stdout.splitlines()[-1]
    assert verdict.startswith(f"FAIL: seat 0 ({bot}): "), verdict
    assert re.search(reason, verdict), verdict


def test_a_crash_says_the_bots_last_output() -> None:
    code, report = check_json(str(BOTS / "hostile_crash"), "--seed", "1")
    assert code == 1
    assert "its last output: hostile bot: crashing on purpose" in report["reason"]
    assert report["rpcs"]["Draw"]["asked"] == report["rpcs"]["Draw"]["answered"] + 1


def test_a_bot_that_cannot_start_says_why_in_one_line() -> None:
    proc = check(str(BOTS / "runtime_exits_at_once"), "--seed", "1")
    assert proc.returncode == 1
    (line,) = proc.stdout.splitlines()
    assert line.startswith("FAIL: runtime_exits_at_once did not start: ")
    assert "exit code 3" in line and "cannot start: the model file is missing" in line


def test_an_illegal_answer_over_the_stream_fails_as_over_unary(tmp_path: Path) -> None:
    code, report = check_json(str(hostile(tmp_path, "illegal", HOSTILE_SESSION="1")), "--seed", "1")
    assert code == 1
    assert "R-4.3" in report["reason"]
    assert report["play_session"]["asked"] > report["play_session"]["legal"]
    assert report["matches"][0]["transport"] == "PlaySession"


def test_a_session_turned_down_is_played_over_unary_rpcs(tmp_path: Path) -> None:
    bot = hostile(tmp_path, "good", HOSTILE_SESSION="unimplemented")
    code, report = check_json(str(bot), "--seed", "1", "--matches", "2")
    assert code == 0, report["reason"]
    assert report["play_session"]["asked"] == 0
    assert [m["transport"] for m in report["matches"]] == [
        "unary (the bot turned its PlaySession down)",
        "unary",
    ]
    assert report["rpcs"]["Play"]["asked"] == report["rpcs"]["Play"]["legal"] > 0


def test_not_a_bot_directory_is_a_usage_error(tmp_path: Path) -> None:
    proc = arena_cli("bot", "check", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"arena: error: {tmp_path / 'nope'}: no such directory"


# -- a bot already running -------------------------------------------------------------------


@pytest.fixture
def running_random() -> Iterator[tuple[BotProcess, str]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    folder = Path(tempfile.mkdtemp(prefix="chk", dir="/tmp"))
    sock_target = f"unix:{folder}/bot.sock"
    procs = []
    try:
        for target in (f"127.0.0.1:{port}", sock_target):
            env = {**os.environ, "ARENA_BOT_ADDRESS": target, "ARENA_BOT_SEED": "1"}
            bot = BotProcess([sys.executable, "bot.py"], env, target, cwd=SAMPLES / "random")
            procs.append(bot)
            bot.wait_serving()
        yield procs[0], sock_target
    finally:
        for bot in procs:
            bot.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_a_running_bot_is_checked_at_host_port_and_unix_path(
    running_random: tuple[BotProcess, str],
) -> None:
    tcp, unix = running_random
    for target in (tcp.target, unix):
        code, report = check_json(target, "--seed", "4", "--matches", "2")
        assert code == 0, report
        assert report["bot"] == target
        assert report["rpcs"]["Play"]["asked"] == report["rpcs"]["Play"]["legal"] > 0
    assert tcp.proc.poll() is None  # not ours to stop
    # `arena match` takes the same unix:PATH for a seat (one way to connect, shared).
    proc = arena_cli(
        "match", unix, str(SAMPLES / "random"), "--no-record", "--target-score", "100", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["players"] == [f"remote@{unix}", "random@1.0"]


def test_nobody_at_the_address_cannot_start() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = check(f"127.0.0.1:{port}", "--startup-timeout", "0.5")
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"FAIL: 127.0.0.1:{port} did not start: remote bot")


# -- the observed driver is the referee ------------------------------------------------------


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[Call] = []

    def asking(self, seat: int, rpc: str, match: Match) -> None:
        pass

    def called(self, call: Call) -> None:
        self.calls.append(call)


def test_the_observed_match_is_the_match_play_match_plays() -> None:
    rules = RuleSet(max_hands=2)
    clock = ClockConfig(move_time_ms=2000)
    with (
        start_bot(load_manifest(BOTS / "hostile"), sandbox="off") as bot,
        scripted_opponent() as (_, opponent),
    ):
        played = play_match((bot, opponent), seed=9, rules=rules, clock=clock, match_id="m")
        recorder = _Recorder()
        observed = play_observed(
            (bot, opponent), seed=9, observer=recorder, rules=rules, clock=clock, match_id="m"
        )
    assert observed.termination == played.termination
    assert observed.scores == played.scores
    assert [(d.seat, d.decision, d.action) for d in observed.decisions] == [
        (d.seat, d.decision, d.action) for d in played.decisions
    ]
    decided = [c for c in recorder.calls if c.rpc not in ("StartMatch", "EndHand", "EndMatch")]
    assert [(c.seat, c.action) for c in decided] == [(d.seat, d.action) for d in observed.decisions]
    assert sum(c.rpc == "EndMatch" for c in recorder.calls) == 2
    assert all(c.answered and c.legal for c in recorder.calls)


@pytest.mark.slow
def test_the_time_bank_is_spent_as_in_a_tournament(tmp_path: Path) -> None:
    # Every 40th decision takes 300 ms against a 200 ms limit: 100 ms from the bank each time.
    # Decisions 40 and 80 fall in the first match (84 of the bot's decisions, 3 hands).
    bot = str(hostile(tmp_path, "slow", HOSTILE_FRACTION="1.5", HOSTILE_SLOW_EVERY="40"))
    args = ("--seed", "1", "--matches", "2", "--move-timeout", "200")
    code, report = check_json(bot, *args, "--time-bank", "250")
    assert code == 0, report["reason"]
    assert report["clock"] == {"move_time_ms": 200, "time_bank_ms": 250}
    slowest = max(r["max_ms"] for r in report["rpcs"].values() if r["max_ms"] is not None)
    assert 300 <= slowest < 450
    # With 150 ms of bank the second overrun is past the deadline (200 ms + the 50 ms left).
    code, report = check_json(bot, *args, "--time-bank", "150")
    assert code == 1
    # (less what the first overrun took beyond its 100 ms)
    assert re.search(r"no answer to \w+ within 2[45]\d ms", report["reason"]), report["reason"]


# -- what is refused before anything starts ---------------------------------------------------


def test_a_bad_manifest_is_a_usage_error_with_the_manifests_message(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\n')
    proc = arena_cli("bot", "check", str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.strip() == (
        f"arena: error: {tmp_path / 'bot.toml'}: command: missing "
        '(e.g. command = ["{python}", "bot.py"])'
    )


def test_what_bot_submit_refuses_fails_the_check_before_the_bot_starts(tmp_path: Path) -> None:
    """An absolute link passes a local start but not a submission: the check says so."""
    bot = tmp_path / "random"
    shutil.copytree(SAMPLES / "random", bot)
    (bot / "model.bin").symlink_to("/etc/hostname")
    proc = check(str(bot), "--seed", "1")
    assert proc.returncode == 1
    (line,) = proc.stdout.splitlines()
    assert line.startswith("FAIL: random@1.0 would be refused by `arena bot submit`: ")
    assert "is a link to the absolute path '/etc/hostname'" in line
    (bot / "model.bin").unlink()
    (bot / "model.bin").symlink_to("bot.toml")  # a relative link inside the folder is fine
    code, report = check_json(str(bot), "--seed", "1", "--matches", "2", "--hands", "2")
    assert code == 0 and report["passed"], report
