"""Escape attempts against the bot sandbox, each a real bot (tests/bots/escape/*.toml) in a real
bubblewrap sandbox with its own uid and cgroup: every attempt fails or is contained, the match
records the right fault, the opponent is not penalised, nothing of the bot survives it, and the
arena and the next match are unaffected. Skipped, with the reason, only where bubblewrap cannot
run at all."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ArenaError
from arena.referee import ClockConfig, Termination, play_match
from arena.rules import RuleSet
from arena.runtime import BotStartError, RunningBot, load_manifest, start_bot
from arena.sandbox import probe
from arena.sandbox.uids import uid_range
from arena.tournament.botlogs import MATCH_TAG

BOTS = Path(__file__).resolve().parent / "bots"
ESCAPE = BOTS / "escape"
SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"
RULES = RuleSet(max_hands=1)  # one hand: each seat makes 20 to 30 decisions
SUPPORT = probe()

pytestmark = pytest.mark.skipif(
    not SUPPORT.sandbox, reason=f"the bot sandbox cannot run here: {SUPPORT.bwrap_error}"
)
needs_root = pytest.mark.skipif(
    not SUPPORT.root, reason="per-bot uids and cgroups need the arena to run as root"
)


def escape_bot(variant: str, tmp_path: Path, **env: str) -> Any:
    """The manifest ``tests/bots/escape/<variant>.toml`` with extra environment variables."""
    manifest = load_manifest(ESCAPE / f"{variant}.toml")
    return dataclasses.replace(manifest, env={**manifest.env, **env})


def report_of(bot: RunningBot, timeout: float = 10.0) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in bot.log_tail(200).splitlines():
            # The SDK tags what a bot prints while serving a match: ``[match <id>] …``.
            tag = MATCH_TAG.match(line)
            line = line[tag.end() :] if tag else line
            if line.startswith("ESCAPE-REPORT "):
                return dict(json.loads(line.removeprefix("ESCAPE-REPORT ")))
        time.sleep(0.02)
    raise AssertionError(f"no escape report in the log of {bot.name}: {bot.log_tail(20)}")


def processes_of_uid(uid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("Uid:") and int(line.split()[1]) == uid:
                    out.append(int(entry))
    return out


def cpu_seconds_of_uid(uid: int) -> float:
    """User and system CPU time of the live processes of ``uid``, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in processes_of_uid(uid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def processes_with_mark(mark: str) -> list[int]:
    """Live processes whose environment holds ``ESCAPE_MARK=mark`` (zombies have none)."""
    needle = f"ESCAPE_MARK={mark}".encode()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    out.append(int(entry))
            except OSError:
                continue
    return out


def wait_until(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(scope="module")
def victim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningBot]:
    """A well-behaved sandboxed opponent, from its own copy of the random sample bot."""
    directory = tmp_path_factory.mktemp("victim") / "random"
    shutil.copytree(SAMPLES / "random", directory)
    with start_bot(load_manifest(directory), sandbox="on") as bot:
        yield bot


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory, victim: RunningBot) -> Iterator[dict]:
    """What there is to reach outside the sandbox: a real arena database with a token, a bot
    store, another bot's directory and socket, a TCP port on 127.0.0.1, the arena's pid."""
    from arena.store import Store

    root = tmp_path_factory.mktemp("arena-home")
    db = root / "arena.db"
    with Store.open(f"sqlite:///{db}") as store:
        store.create_token("alice")
    store_dir = root / "arena-data" / "bots"
    (store_dir / "abc123").mkdir(parents=True)
    (store_dir / "abc123" / "bot.py").write_text("print('secret strategy')\n")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        yield {
            "database": str(db),
            "store_dir": str(store_dir),
            "store_file": str(store_dir / "abc123" / "bot.py"),
            "other_bot_dir": str(victim.manifest.directory),
            "other_bot_file": str(victim.manifest.directory / "bot.py"),
            "other_socket": victim.target.removeprefix("unix:"),
            "tcp_port": listener.getsockname()[1],
            "arena_pid": os.getpid(),
            "other_pid": victim.pid,
            "arena_cwd": os.getcwd(),
        }
    finally:
        listener.close()


# -- what a bot can reach ------------------------------------------------------------------


def test_probe_reaches_nothing_outside_its_sandbox(
    tmp_path: Path, victim: RunningBot, targets: dict
) -> None:
    attempts = {"ESCAPE_TARGETS": json.dumps(targets), "ESCAPE_IN_SANDBOX": "1"}
    manifest = escape_bot("bot", tmp_path, **attempts)
    with start_bot(manifest, sandbox="on") as bot:
        report = report_of(bot)
        reached = {k: v for k, v in report.items() if v.startswith("REACHED")}
        # Listing the arena's working directory shows at most the empty mount points of the
        # directories a Python bot is given read-only (the venv, the arena package).
        listed = reached.pop("list arena_cwd", "")
        assert "pyproject.toml" not in listed and ".git" not in listed
        assert "arena.db" not in listed
        reached.pop("list /root", None)  # idem: the base interpreter's mount point, if there
        assert reached == {}, reached
        for key in ("read database", "read store_file", "list store_dir", "read other_bot_file",
                    "connect other bot socket", "connect tcp 127.0.0.1", "connect non-loopback",
                    "resolve a name", "signal arena_pid", "signal other_pid",
                    "read /proc of arena_pid", "write arena_pid stdout", "write own directory",
                    "write other bot dir", "write /usr", "setuid 0"):  # fmt: skip
            assert report[key].startswith("blocked"), (key, report[key])
        assert report["connect non-loopback"] == "blocked: ENETUNREACH Network is unreachable"
        assert int(report["proc pids visible"]) <= 3  # its own PID namespace
        if SUPPORT.root:
            first, last = uid_range()
            assert first <= int(report["uid"]) <= last
            assert bot.uid == int(report["uid"]) != victim.uid
        # The bot still plays, and its opponent with it.
        result = play_match((bot, victim), seed=11, rules=RULES)
        assert result.faults == (0, 0), result.detail
        assert not result.termination.is_forfeit
    assert victim.serving()


def test_probe_control_without_the_sandbox_reaches_everything(
    tmp_path: Path, targets: dict
) -> None:
    """The same probe as plain process: it reads the database, reaches the TCP port and the
    other bot's socket. (So the test above can fail: the probe sees what is there to see.)"""
    manifest = escape_bot("bot", tmp_path, ESCAPE_TARGETS=json.dumps(targets))
    with start_bot(manifest, sandbox="off") as bot:
        report = report_of(bot)
    for key in ("read database", "read store_file", "connect tcp 127.0.0.1",
                "connect other bot socket", "read /proc of arena_pid",
                "signal arena_pid"):  # fmt: skip
        assert report[key].startswith("REACHED"), (key, report[key])


@needs_root
def test_bot_processes_run_as_its_uid_without_capabilities(victim: RunningBot) -> None:
    assert victim.uid is not None
    pids = processes_of_uid(victim.uid)
    assert pids, "the bot runs under its uid"
    for pid in pids:
        status = Path(f"/proc/{pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        assert fields["CapEff"].strip() == "0" * 16
        assert fields["CapBnd"].strip() == "0" * 16
        assert fields["NoNewPrivs"].strip() == "1"


def test_tmpfs_cannot_grow_past_its_cap(tmp_path: Path, victim: RunningBot) -> None:
    with start_bot(escape_bot("tmpfs_fill", tmp_path), sandbox="on") as bot:
        report = report_of(bot)
        assert report["tmpfs fill"] == "blocked: ENOSPC after 8 MB"
        assert bot.serving()


@needs_root
def test_fork_bomb_is_contained(tmp_path: Path, victim: RunningBot) -> None:
    with start_bot(escape_bot("fork_bomb", tmp_path), sandbox="on") as bot:
        report = report_of(bot)
        verdict, _, count = report["fork bomb"].rpartition(" after ")
        assert verdict == "blocked: EAGAIN" and int(count) < 64
        assert bot.serving()
        result = play_match((bot, victim), seed=12, rules=RULES)
        assert result.faults == (0, 0), result.detail
    assert victim.serving()


@needs_root
def test_daemons_and_fork_hoppers_end_with_the_bot(tmp_path: Path) -> None:
    for _ in range(3):  # the fork hopper once escaped the kill loops in some runs
        bot = start_bot(escape_bot("daemon", tmp_path), sandbox="on")
        assert report_of(bot)["daemon"] == "started"
        uid = bot.uid
        assert uid is not None
        wait_until(lambda u=uid: len(processes_of_uid(u)) >= 3, 5, "the daemons")
        cgroup_dirs = list(bot._process.jail.cgroup.dirs.values())  # type: ignore[union-attr]
        bot.stop(grace=0.2)
        assert processes_of_uid(uid) == []
        assert not any(d.exists() for d in cgroup_dirs)


def test_a_bot_cannot_kill_its_supervisor_in_the_sandbox(
    tmp_path: Path, victim: RunningBot
) -> None:
    manifest = escape_bot("kill_supervisor", tmp_path, ESCAPE_IN_SANDBOX="1")
    with start_bot(manifest, sandbox="on") as bot:
        result = play_match((bot, victim), seed=13, rules=RULES)
        report = report_of(bot)
        assert all(v.startswith("blocked") for v in report.values()), report
        assert "kill(-1)" in report
        assert result.faults == (0, 0), result.detail
        assert bot.alive()
    assert victim.serving()


@needs_root
def test_a_bot_cannot_swap_its_socket_once_it_serves(tmp_path: Path, victim: RunningBot) -> None:
    with start_bot(escape_bot("swap_socket", tmp_path), sandbox="on") as bot:
        socket_dir = Path(bot.target.removeprefix("unix:")).parent
        st = socket_dir.stat()
        assert (st.st_uid, st.st_mode & 0o777) == (0, 0o700)
        result = play_match((bot, victim), seed=19, rules=RULES)
        report = report_of(bot)
        assert report["swap socket"].startswith("blocked: EACCES"), report
        assert report["remove socket"].startswith("blocked: EACCES"), report
        assert result.faults == (0, 0), result.detail


def test_without_the_sandbox_killing_the_supervisor_is_a_crash_and_leaves_nothing(
    tmp_path: Path, victim: RunningBot
) -> None:
    """The hostile finding: the bot left its session, SIGKILLed its supervisor, served on with
    ppid 1, and the match was recorded clean. Now the bot dies with its supervisor."""
    mark = uuid.uuid4().hex
    bot = start_bot(escape_bot("kill_supervisor", tmp_path, ESCAPE_MARK=mark), sandbox="off")
    try:
        assert processes_with_mark(mark)
        result = play_match((bot, victim), seed=14, rules=RULES)
        assert result.termination is Termination.FORFEIT_CRASH
        assert result.winner == 1
        assert "seat 0 (escape_kill_supervisor)" in result.detail
        wait_until(lambda: not processes_with_mark(mark), 5, "the bot to die with its supervisor")
    finally:
        bot.stop()
    assert processes_with_mark(mark) == []


def test_without_the_sandbox_a_daemon_of_a_bot_that_kills_its_supervisor_dies_with_the_bot(
    tmp_path: Path,
) -> None:
    """The hostile finding: the bot started a setsid daemon, then SIGKILLed its supervisor;
    the daemon, in a session of its own and adopted by init, outlived the run. The plain
    process's cgroup holds it, wherever it went."""
    if "freezer" not in SUPPORT.controllers:
        pytest.skip(f"no cgroup for plain processes here: {SUPPORT.missing.get('freezer')}")
    mark = uuid.uuid4().hex
    manifest = escape_bot("kill_supervisor", tmp_path, ESCAPE_MARK=mark, ESCAPE_DAEMON="1")
    opponent = start_bot(load_manifest(SAMPLES / "random"), sandbox="off")
    bot = start_bot(manifest, sandbox="off")
    try:
        result = play_match((bot, opponent), seed=14, rules=RULES)
        assert result.termination is Termination.FORFEIT_CRASH
        wait_until(lambda: len(processes_with_mark(mark)) >= 1, 5, "the daemon")
        daemon = processes_with_mark(mark)
        assert all(_ppid(pid) != bot.supervisor_pid for pid in daemon)  # it left the tree
    finally:
        bot.stop(grace=0.2)
    assert processes_with_mark(mark) == []
    assert opponent.serving()
    opponent.stop()


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rpartition(")")[2].split()[1])


def test_without_the_sandbox_a_fork_hopper_is_killed_every_time(tmp_path: Path) -> None:
    for _ in range(3):
        mark = uuid.uuid4().hex
        bot = start_bot(escape_bot("daemon", tmp_path, ESCAPE_MARK=mark), sandbox="off")
        report_of(bot)
        wait_until(lambda m=mark: len(processes_with_mark(m)) >= 3, 5, "the daemons")
        bot.stop(grace=0.2)
        assert processes_with_mark(mark) == []


# -- memory and CPU --------------------------------------------------------------------------


@needs_root
@pytest.mark.parametrize("variant", ["shm_mmap", "dev_shm"])
def test_shared_memory_past_the_limit_is_a_memory_kill(
    tmp_path: Path, victim: RunningBot, variant: str
) -> None:
    if "memory" not in SUPPORT.controllers:
        pytest.skip(f"no memory cgroup here: {SUPPORT.missing.get('memory')}")
    with start_bot(escape_bot(variant, tmp_path), sandbox="on") as bot:
        result = play_match((bot, victim), seed=15, rules=RULES)
        assert result.termination is Termination.FORFEIT_CRASH, result.detail
        assert result.winner == 1
        assert "at its memory limit (160 MB)" in result.detail, result.detail
        assert result.faults[1] == 0
    # The arena and the next match are unaffected.
    assert victim.serving()
    with start_bot(load_manifest(SAMPLES / "random"), sandbox="on") as other:
        assert play_match((other, victim), seed=16, rules=RULES).faults == (0, 0)


@needs_root
def test_a_memory_kill_during_start_up_says_memory_limit(tmp_path: Path) -> None:
    """The hostile finding: 512 MiB of shared memory under 256 MiB at start-up was killed,
    but the reason read "exited during startup with exit code 137"."""
    if "memory" not in SUPPORT.controllers:
        pytest.skip(f"no memory cgroup here: {SUPPORT.missing.get('memory')}")
    manifest = escape_bot("shm_mmap", tmp_path, ESCAPE_AT_START="1", ESCAPE_MB="512")
    manifest = dataclasses.replace(
        manifest, limits=dataclasses.replace(manifest.limits, memory_mb=256)
    )
    with pytest.raises(BotStartError) as info:
        start_bot(manifest, sandbox="on")
    message = str(info.value)
    assert "was killed during startup at its memory limit (256 MB)" in message, message
    assert "exit code 137" not in message


@needs_root
@pytest.mark.slow
def test_a_cpu_hog_does_not_starve_its_opponent(tmp_path: Path, victim: RunningBot) -> None:
    if "cpu" not in SUPPORT.controllers:
        pytest.skip(f"no cpu cgroup here: {SUPPORT.missing.get('cpu')}")
    with start_bot(escape_bot("cpu_hog", tmp_path), sandbox="on") as hog:
        assert hog.uid is not None
        cpu_dir = hog._process.jail.cgroup.dirs["cpu"]  # type: ignore[union-attr]
        assert (cpu_dir / "cpu.cfs_quota_us").read_text().strip() == "100000"  # one core
        cpu_before = cpu_seconds_of_uid(hog.uid)
        t0 = time.monotonic()
        result = play_match(
            (hog, victim), seed=17, rules=RuleSet(max_hands=3),
            clock=ClockConfig(move_time_ms=1000),
        )  # fmt: skip
        wall = time.monotonic() - t0
        used = cpu_seconds_of_uid(hog.uid) - cpu_before
        assert report_of(hog)["cpu hog"] == "spinning"
        # The hog's processes (a spinner per core and more, from StartMatch on) together had
        # at most one core (and a period of the quota's slack).
        assert used <= wall + 0.15, (used, wall)
        # Its opponent answered in time all along.
        theirs = [d for d in result.decisions if d.seat == 1]
        assert len(theirs) >= 20
        assert result.faults[1] == 0, result.detail
        assert not result.termination.is_forfeit, result.detail
    assert victim.serving()


# -- sample bots and modes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "sample", [pytest.param("node_random", marks=pytest.mark.node), "cpp_lowest"]
)
def test_node_and_cpp_sample_bots_play_in_the_sandbox(victim: RunningBot, sample: str) -> None:
    """Node.js needs /usr; a compiled bot the system's libraries; both are read-only there."""
    if sample == "node_random" and (
        shutil.which("node") is None or not (SAMPLES / sample / "node_modules").is_dir()
    ):
        pytest.skip("Node.js or the Node sample bot's packages are missing")
    if sample == "cpp_lowest" and not (SAMPLES / sample / "build" / sample).is_file():
        pytest.skip("the C++ sample bot is not built (make cpp-bot)")
    with start_bot(load_manifest(SAMPLES / sample), sandbox="on") as bot:
        assert bot.sandboxed
        result = play_match((bot, victim), seed=18, rules=RULES)
        assert result.faults == (0, 0), result.detail


def test_mode_on_fails_clearly_without_bubblewrap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.sandbox import SandboxUnavailableError, mode, resolve_mode

    monkeypatch.setenv("PATH", str(tmp_path))  # a host without bwrap
    probe.cache_clear()
    monkeypatch.setattr(mode, "_warned", type(mode._warned)())
    try:
        with pytest.raises(SandboxUnavailableError, match="bubblewrap is not installed"):
            resolve_mode("on")
        with pytest.raises(ArenaError, match="cannot run here"):
            start_bot(load_manifest(SAMPLES / "random"), sandbox="on")
        assert resolve_mode("auto") is False
        assert "bots run WITHOUT the sandbox" in capsys.readouterr().err
        assert resolve_mode("off") is False
    finally:
        probe.cache_clear()


def test_uid_leases_are_exclusive_across_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    from arena.sandbox import lease_uid

    monkeypatch.setenv("ARENA_SANDBOX_UIDS", "61000-61001")
    first = lease_uid()
    try:
        code = "from arena.sandbox import lease_uid; print(lease_uid().uid)"
        other = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert int(other.stdout) == 61001 != first.uid == 61000
        second = lease_uid()
        with pytest.raises(ArenaError, match="every sandbox uid of 61000-61001 is in use"):
            lease_uid()
        second.release()
    finally:
        first.release()
    again = lease_uid()  # free again once released (or once its process ended)
    assert again.uid == 61000
    again.release()


@pytest.mark.parametrize("value", ["0-10", "60000", "a-b", "61000-60000"])
def test_a_bad_uid_range_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_UIDS", value)
    with pytest.raises(ArenaError, match="ARENA_SANDBOX_UIDS"):
        uid_range()
