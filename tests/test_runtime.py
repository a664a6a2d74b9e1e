"""The bot runtime with real processes: start, health, limits, logs, stop, and nothing left over.

Every bot started here gets its private directory under a temporary root of the test, so
"nothing is left" can be checked on the whole machine: no process anywhere has an address under
that root in its environment (a bot's descendants inherit it, even those that leave the group).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc as pb_grpc
from arena.runtime import (
    BotLimits,
    BotStartError,
    RemoteBot,
    RunningBot,
    connect_remote,
    load_manifest,
    start_bot,
    supervisor,
)

BOTS = Path(__file__).parent / "bots"
ECHO_SCRIPT = BOTS / "runtime_echo" / "bot.py"
SAMPLE_BOTS = Path(__file__).parent.parent / "sample_bots"


@pytest.fixture
def bot_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A short temporary root for the bots' private directories; afterwards, it must be empty
    and no process may be left that was started under it. (It asks for ``tmp_path`` first so
    that pytest's own temporary directories never land under the patched root.)"""
    root = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root
    try:
        assert processes_under(root) == [], "bot processes were left behind"
        assert list(root.iterdir()) == [], "a bot's private directory was left behind"
    finally:
        supervisor.signal_pids(processes_under(root), signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)


def processes_under(root: Path) -> list[int]:
    """Live processes whose environment gives them a bot address under ``root``."""
    needle = f"ARENA_BOT_ADDRESS=unix:{root}/".encode()
    table = supervisor.process_table()
    found = []
    for pid, (_ppid, _pgid, alive) in table.items():
        if not alive or pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue
        if needle in environ:
            found.append(pid)
    return found


def assert_gone(*pids: int) -> None:
    """Each pid is gone, or a zombie whose parent (init, when the arena died) has yet to reap it."""
    table = supervisor.process_table()
    for pid in pids:
        if pid in table:
            assert not table[pid][2], f"process {pid} is still alive"
        else:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)


def assert_nothing_left(bot: RunningBot) -> None:
    assert not bot.alive()
    assert supervisor.group_members(bot.pgid) == []
    assert_gone(bot.pid, bot.supervisor_pid)


def wait_for(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def log_text(bot: RunningBot) -> str:
    return bot.log_path.read_text(errors="replace")


def bid(channel: grpc.Channel, match_id: str, legal: list[int]) -> int:
    stub = pb_grpc.BotServiceStub(channel)
    answer = stub.Bid(pb.BidRequest(match_id=match_id, legal_bids=legal), timeout=5)
    return answer.tricks


def echo_manifest(tmp_path: Path, **env: str) -> Path:
    """A manifest of the echo bot with extra environment variables."""
    directory = tmp_path / "echo"
    directory.mkdir()
    lines = [
        'name = "echo_variant"',
        f'command = ["{{python}}", "{ECHO_SCRIPT}"]',
        "[env]",
        *(f'{key} = "{value}"' for key, value in env.items()),
    ]
    (directory / "bot.toml").write_text("\n".join(lines) + "\n")
    return directory


# -- a bot that behaves ------------------------------------------------------------------------


def test_start_serve_and_stop(
    bot_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "must-not-reach-the-bot")
    manifest = load_manifest(BOTS / "runtime_echo")
    bot = start_bot(manifest, log_dir=tmp_path / "logs")
    private_dir = Path(bot.target.removeprefix("unix:")).parent

    assert bot.name == "runtime_echo"
    assert bot.manifest is manifest
    assert bot.target == f"unix:{private_dir}/bot.sock"
    assert private_dir.parent == bot_root
    assert stat.S_IMODE(private_dir.stat().st_mode) == 0o700
    assert bot.alive()
    assert bot.returncode is None
    assert bot.serving()
    # The supervisor leads the group; the bot is in it, in the same session.
    assert os.getpgid(bot.pid) == bot.pgid == bot.supervisor_pid != bot.pid
    assert os.getsid(bot.pid) == bot.pgid

    # One channel, many matches at once.
    results: dict[str, int] = {}

    def ask(i: int) -> None:
        results[f"m{i}"] = bid(bot.channel, f"m{i}", [i, i + 1, 13])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {f"m{i}": i for i in range(8)}

    log = log_text(bot)
    assert bot.log_path == (tmp_path / "logs" / "runtime_echo.log").resolve()
    assert f"RLIMIT_DATA={1024 << 20}" in log
    assert "RLIMIT_CORE=0" in log
    assert "RLIMIT_AS=unlimited" in log
    assert "RLIMIT_CPU=unlimited" in log
    assert f"address argument {bot.target}" in log  # the {address} placeholder
    assert f"env ARENA_BOT_ADDRESS={bot.target}" in log  # and the environment
    assert "env ARENA_BOT_NAME=runtime_echo" in log
    assert "env RUNTIME_SECRET=from-the-manifest" in log
    assert "env ARENA_TEST_SECRET=None" in log  # the arena's environment is not passed on
    assert f"env TMPDIR={private_dir}" in log

    started = time.monotonic()
    bot.stop()
    assert time.monotonic() - started < 5.0
    assert bot.returncode == 0  # it shut down on SIGTERM, cleanly
    assert_nothing_left(bot)
    assert not private_dir.exists()
    assert bot.log_path.exists()  # kept: it was given a log_dir
    assert not bot.serving()
    bot.stop()  # idempotent


def echo_env_line(bot: RunningBot, name: str) -> str:
    wait_for(lambda: f"env {name}=" in log_text(bot), 10, what=f"the bot's {name} line")
    return next(line for line in log_text(bot).splitlines() if line.startswith(f"env {name}="))


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_the_arena_sets_no_grpc_experiments_for_a_bot(
    bot_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    # Experiments are named per grpcio version, not its public API: grpc's defaults, unless
    # the operator says otherwise.
    monkeypatch.delenv("GRPC_EXPERIMENTS", raising=False)
    with start_bot(load_manifest(BOTS / "runtime_echo"), sandbox=sandbox) as bot:
        assert echo_env_line(bot, "GRPC_EXPERIMENTS") == "env GRPC_EXPERIMENTS=None"
        assert bid(bot.channel, "m1", [2, 3]) == 2  # and it serves


def test_grpc_experiments_the_operators_then_the_manifests(
    bot_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The operator's choice goes to every bot.
    monkeypatch.setenv("GRPC_EXPERIMENTS", "-event_engine_callback_cq")
    with start_bot(load_manifest(BOTS / "runtime_echo"), sandbox="off") as bot:
        line = echo_env_line(bot, "GRPC_EXPERIMENTS")
        assert line == "env GRPC_EXPERIMENTS='-event_engine_callback_cq'"
    # A manifest's [env] has the last word.
    monkeypatch.delenv("GRPC_EXPERIMENTS")
    manifest = load_manifest(echo_manifest(tmp_path, GRPC_EXPERIMENTS="-event_engine_client"))
    with start_bot(manifest, sandbox="off") as bot:
        line = echo_env_line(bot, "GRPC_EXPERIMENTS")
        assert line == "env GRPC_EXPERIMENTS='-event_engine_client'"


def test_an_idle_sample_bot_costs_next_to_no_cpu(bot_root: Path) -> None:
    # A lane may wait for its twin game through most of a run: waiting must not poll. Measured
    # at about 0.01 s of CPU in 10 s (docs/benchmarks.md); the bound is generous.
    with start_bot(load_manifest(SAMPLE_BOTS / "random"), sandbox="off") as bot:
        assert bot.serving()
        time.sleep(0.5)  # past its start-up
        before = process_tree_cpu_s(bot.pid)
        time.sleep(3.0)
        idle = process_tree_cpu_s(bot.pid) - before
    assert idle < 0.3, f"an idle bot process used {idle:.2f} s of CPU in 3 s"


def process_tree_cpu_s(pid: int) -> float:
    """User and system CPU time of ``pid`` and its descendants, from /proc."""
    table = supervisor.process_table()
    total = 0
    for p in (pid, *supervisor.descendants(pid, table)):
        with contextlib.suppress(OSError):
            with open(f"/proc/{p}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def test_context_manager_and_log_in_private_dir(bot_root: Path) -> None:
    with start_bot(load_manifest(BOTS / "runtime_echo")) as bot:
        assert bot.serving()
        assert bot.log_path.parent == Path(bot.target.removeprefix("unix:")).parent
        assert "env ARENA_BOT_NAME=runtime_echo" in log_text(bot)
    assert_nothing_left(bot)
    assert not bot.log_path.exists()  # no log_dir: it went with the private directory
    assert "address argument" in bot.log_tail(20)  # the tail stays in memory


def test_a_dropped_bot_is_stopped_by_its_finalizer(bot_root: Path) -> None:
    bot = start_bot(load_manifest(BOTS / "runtime_echo"))
    pids = (bot.pid, bot.supervisor_pid)
    del bot
    gc.collect()
    wait_for(lambda: not processes_under(bot_root), 5, "the finalizer to stop the bot")
    assert_gone(*pids)


def test_two_instances_of_one_bot_get_two_logs(bot_root: Path, tmp_path: Path) -> None:
    manifest = load_manifest(BOTS / "runtime_echo")
    with (
        start_bot(manifest, log_dir=tmp_path) as first,
        start_bot(manifest, log_dir=tmp_path) as second,
    ):
        assert first.log_path.name == "runtime_echo.log"
        assert second.log_path.name == "runtime_echo-2.log"
        assert first.target != second.target
        assert bid(first.channel, "a", [2]) == bid(second.channel, "b", [2]) == 2


# -- bots that fail to start -------------------------------------------------------------------


def test_command_not_found(bot_root: Path) -> None:
    started = time.monotonic()
    with pytest.raises(BotStartError) as info:
        start_bot(load_manifest(BOTS / "runtime_missing_command"))
    assert time.monotonic() - started < 1.0
    assert str(info.value).startswith(
        "bot 'runtime_missing_command': command 'arena-no-such-bot-program' not found"
    )


def test_relative_command_missing_or_not_executable(bot_root: Path, tmp_path: Path) -> None:
    directory = tmp_path / "b"
    directory.mkdir()
    (directory / "bot.toml").write_text('name = "b"\ncommand = ["./run.sh"]\n')
    with pytest.raises(BotStartError, match=r"command '\./run\.sh' not found"):
        start_bot(load_manifest(directory))
    (directory / "run.sh").write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(BotStartError, match=r"command '\./run\.sh' is not executable"):
        start_bot(load_manifest(directory))


def test_missing_bot_directory_or_bad_log_dir(bot_root: Path, tmp_path: Path) -> None:
    directory = echo_manifest(tmp_path)
    manifest = load_manifest(directory)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(BotStartError, match=r"bot 'echo_variant': cannot start: .*file"):
        start_bot(manifest, log_dir=not_a_dir)
    shutil.rmtree(directory)
    with pytest.raises(BotStartError, match=r"bot 'echo_variant': cannot start: .*echo"):
        start_bot(manifest)


def test_a_failure_after_the_log_pipe_closes_every_pipe(
    bot_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No file descriptor left for the control pipe: the log pipe is closed all the same, so
    its reader ends and no descriptor of the arena stays open."""
    manifest = load_manifest(echo_manifest(tmp_path))
    real_pipe = os.pipe
    made: list[int] = []

    def pipe() -> tuple[int, int]:
        if made:
            raise OSError(errno.EMFILE, "Too many open files")
        r, w = real_pipe()
        made.append(os.fstat(r).st_ino)
        return r, w

    with (
        monkeypatch.context() as patch,
        pytest.raises(BotStartError, match=r"cannot start: .*Too many open files"),
    ):
        patch.setattr(os, "pipe", pipe)
        start_bot(manifest)
    readers = [t for t in threading.enumerate() if t.name == "arena-bot-log-echo_variant"]
    assert not any(t.is_alive() for t in readers)
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    assert f"pipe:[{made[0]}]" not in links


def test_exec_failure_is_reported(bot_root: Path, tmp_path: Path) -> None:
    """A file that is executable but cannot be run (no interpreter line) fails at exec."""
    directory = tmp_path / "b"
    directory.mkdir()
    (directory / "bot.toml").write_text('name = "b"\ncommand = ["./run"]\n')
    (directory / "run").write_bytes(b"\x7fELF not really")
    (directory / "run").chmod(0o755)
    started = time.monotonic()
    with pytest.raises(BotStartError, match=r"bot 'b': cannot run its command: Exec format"):
        start_bot(load_manifest(directory))
    assert time.monotonic() - started < 5.0


def test_exits_at_once(bot_root: Path) -> None:
    manifest = load_manifest(BOTS / "runtime_exits_at_once")
    started = time.monotonic()
    with pytest.raises(BotStartError) as info:
        start_bot(manifest, startup_timeout=30)
    assert time.monotonic() - started < 10  # at once, not at the timeout
    message = str(info.value)
    assert message.startswith("bot 'runtime_exits_at_once' exited during startup with exit code 3")
    assert "cannot start: the model file is missing" in message
    assert info.value.returncode == 3
    assert "the model file is missing" in info.value.log_tail


def test_never_ready_is_killed_after_the_startup_timeout(bot_root: Path) -> None:
    started = time.monotonic()
    with pytest.raises(BotStartError) as info:
        start_bot(load_manifest(BOTS / "runtime_never_ready"), startup_timeout=1.5)
    elapsed = time.monotonic() - started
    assert 1.5 <= elapsed < 4.0  # the timeout, then a SIGKILL (generous: the machine may be busy)
    message = str(info.value)
    assert message.startswith("bot 'runtime_never_ready' was not ready within 1.5 s (")
    assert "and was killed" in message


def test_without_health_service(bot_root: Path) -> None:
    started = time.monotonic()
    with pytest.raises(BotStartError, match="does not serve the gRPC health checking service"):
        start_bot(load_manifest(BOTS / "runtime_no_health"), startup_timeout=30)
    assert time.monotonic() - started < 10  # at once, not at the timeout


# -- stopping what a bot started ----------------------------------------------------------------


def forked_pids(bot: RunningBot) -> tuple[int, int]:
    def both() -> bool:
        text = log_text(bot)
        return "child " in text and "escaped " in text

    wait_for(both, 5, "the bot to report its children")
    words = log_text(bot).split()
    return int(words[words.index("child") + 1]), int(words[words.index("escaped") + 1])


def test_children_that_ignore_sigterm_are_gone_after_stop(bot_root: Path, tmp_path: Path) -> None:
    bot = start_bot(load_manifest(BOTS / "runtime_forks"), log_dir=tmp_path)
    child, escaped = forked_pids(bot)
    assert os.getpgid(child) == bot.pgid
    assert os.getpgid(escaped) != bot.pgid  # it left the process group (setsid)
    assert bot.serving()
    started = time.monotonic()
    bot.stop(grace=1.0)
    assert time.monotonic() - started < 6.0
    assert_nothing_left(bot)
    assert_gone(child, escaped)


def test_a_bot_that_ignores_sigterm_is_killed_after_the_grace(
    bot_root: Path, tmp_path: Path
) -> None:
    directory = echo_manifest(tmp_path, RUNTIME_MODE="fork", RUNTIME_IGNORE_TERM="1")
    bot = start_bot(load_manifest(directory), log_dir=tmp_path)
    child, escaped = forked_pids(bot)
    started = time.monotonic()
    bot.stop(grace=0.5)
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 6.0
    assert bot.returncode == -signal.SIGKILL
    assert_nothing_left(bot)
    assert_gone(child, escaped)


def test_children_die_with_the_bot_when_it_exits_by_itself(bot_root: Path, tmp_path: Path) -> None:
    bot = start_bot(load_manifest(BOTS / "runtime_forks"), log_dir=tmp_path)
    child, escaped = forked_pids(bot)
    os.kill(bot.pid, signal.SIGKILL)  # the bot crashes
    wait_for(lambda: not bot.alive(), 5, "the supervisor to notice")
    assert bot.returncode == -signal.SIGKILL
    assert_gone(bot.pid, child, escaped)
    bot.stop()
    assert_nothing_left(bot)


ARENA_SCRIPT = """
import json, sys, tempfile
tempfile.tempdir = sys.argv[1]
from arena.runtime import load_manifest, start_bot
bot = start_bot(load_manifest(sys.argv[2]), log_dir=sys.argv[3])
words = open(bot.log_path).read().split()
while "escaped" not in words:
    words = open(bot.log_path).read().split()
print(json.dumps([bot.pid, bot.supervisor_pid, int(words[words.index("child") + 1]),
                  int(words[words.index("escaped") + 1])]), flush=True)
if sys.argv[4] == "exit":
    sys.exit(0)  # without stopping the bot: the exit handler must
import time
time.sleep(3600)
"""


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_nothing_outlives_the_arena(bot_root: Path, tmp_path: Path, how: str) -> None:
    """The arena exits without stopping its bot, or is killed: the bot's tree dies with it."""
    arena = subprocess.Popen(
        [
            sys.executable,
            "-c",
            ARENA_SCRIPT,
            str(bot_root),
            str(BOTS / "runtime_forks"),
            str(tmp_path),
            how,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert arena.stdout is not None
        pids = json.loads(arena.stdout.readline())
        assert len(pids) == 4
        if how == "sigkill":
            arena.kill()
        assert arena.wait(10) == (0 if how == "exit" else -signal.SIGKILL)
        wait_for(lambda: not processes_under(bot_root), 5, "the bot's processes to die")
        assert_gone(*pids)
        wait_for(lambda: not list(bot_root.iterdir()), 5, "the private directory to go")
    finally:
        arena.kill()
        arena.wait()


# -- output ------------------------------------------------------------------------------------


def test_stderr_flood_is_capped_and_the_arena_unaffected(bot_root: Path, tmp_path: Path) -> None:
    limit = 256 << 10
    bot = start_bot(load_manifest(BOTS / "runtime_stderr_flood"), log_dir=tmp_path, log_limit=limit)
    wait_for(lambda: bot.log_bytes > 16 << 20, 20, "16 MiB of output")
    for i in range(5):
        before = bot.log_bytes
        assert bot.serving(timeout=2.0)  # the bot, and the arena, keep answering
        assert bid(bot.channel, f"m{i}", [4, 5]) == 4
        # Still writing: the pipe is drained, so the bot never blocks on it.
        wait_for(lambda before=before: bot.log_bytes > before, 5, "more output")
    assert bot.log_dropped_bytes == bot.log_bytes - limit
    assert bot.log_path.stat().st_size <= limit + 200
    started = time.monotonic()
    bot.stop()
    assert time.monotonic() - started < 5.0
    assert_nothing_left(bot)
    text = log_text(bot)
    assert text.startswith("[arena] BotStart runtime_stderr_flood\nlimits ")
    assert f"log limit of {limit} bytes reached" in text
    assert text.endswith(f"[arena] {bot.log_dropped_bytes} more bytes of output were dropped\n")
    assert bot.log_path.stat().st_size <= limit + 300
    assert set(bot.log_tail(1)) == {"x"}  # the tail is the real end of the output


# -- limits ------------------------------------------------------------------------------------


def test_memory_limit_makes_a_large_allocation_fail(bot_root: Path, tmp_path: Path) -> None:
    manifest = load_manifest(BOTS / "runtime_memory_hog")
    assert manifest.limits.memory_mb == 256
    with start_bot(manifest, log_dir=tmp_path / "limited") as bot:
        assert bot.serving()
        log = log_text(bot)
        assert f"RLIMIT_DATA={256 << 20}" in log
        assert "allocation of 512 MiB failed: MemoryError" in log
    # The control: the same bot without the limit allocates (the memory is never touched).
    unlimited = BotLimits(memory_mb=None)
    with start_bot(manifest, log_dir=tmp_path / "free", limits=unlimited) as bot:
        assert bot.serving()
        log = log_text(bot)
        assert "RLIMIT_DATA=unlimited" in log
        assert "allocation of 512 MiB succeeded" in log


def test_limits_given_to_start_bot_replace_the_manifest(bot_root: Path, tmp_path: Path) -> None:
    limits = BotLimits(memory_mb=None, address_space_mb=8192, processes=4000)
    with start_bot(load_manifest(BOTS / "runtime_echo"), log_dir=tmp_path, limits=limits) as bot:
        log = log_text(bot)
    assert "RLIMIT_DATA=unlimited" in log
    assert f"RLIMIT_AS={8192 << 20}" in log
    # RLIMIT_NPROC counts every process of the arena's user: it is set only when the bot runs
    # under a uid of its own (in the sandbox; tests/test_sandbox.py).
    assert "RLIMIT_NPROC=4000" not in log
    assert "RLIMIT_CORE=0" in log


def test_cpu_limit_kills_a_bot_that_burns_cpu(bot_root: Path, tmp_path: Path) -> None:
    bot = start_bot(load_manifest(BOTS / "runtime_cpu_burner"), log_dir=tmp_path)
    assert "RLIMIT_CPU=1" in log_text(bot)
    wait_for(lambda: not bot.alive(), 20, "the CPU limit")
    assert bot.returncode == -signal.SIGXCPU
    bot.stop()
    assert_nothing_left(bot)


# -- remote bots ---------------------------------------------------------------------------------


def test_remote_bot(bot_root: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, str(ECHO_SCRIPT), "--address", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        assert line.startswith("listening on 127.0.0.1:")
        target = line.removeprefix("listening on ")
        bot = connect_remote("remote-echo", target, timeout=5)
        assert isinstance(bot, RemoteBot)
        assert (bot.name, bot.target, bot.pid, bot.log_path, bot.manifest) == (
            "remote-echo",
            target,
            None,
            None,
            None,
        )
        assert bot.alive()
        assert bid(bot.channel, "m1", [7, 8]) == 7
        with bot:
            pass
        assert not bot.alive()
        with pytest.raises(ValueError):
            bid(bot.channel, "m2", [1])  # the channel is closed
        assert server.poll() is None  # the remote process is not the arena's to stop
    finally:
        server.terminate()
        server.wait(5)


def test_remote_bot_not_answering(bot_root: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once it is closed
    started = time.monotonic()
    with pytest.raises(BotStartError, match=r"remote bot 'gone' at 127\.0\.0\.1:\d+ did not"):
        connect_remote("gone", f"127.0.0.1:{port}", timeout=0.5)
    assert time.monotonic() - started < 4.0


@pytest.mark.parametrize(
    "target",
    ["localhost", "127.0.0.1:", ":50051", "a b:1", "h:70000", "unix:relative.sock", "unix:///a"],
)
def test_remote_bot_bad_address(target: str) -> None:
    with pytest.raises(BotStartError, match="is not a host:port or unix:PATH address"):
        connect_remote("x", target)


# -- the sample bots ---------------------------------------------------------------------------


def sample_bot_params() -> list[object]:
    params: list[object] = []
    for directory in sorted(SAMPLE_BOTS.iterdir()):
        if not (directory / "bot.toml").exists():
            continue
        marks = [pytest.mark.node] if (directory / "package.json").exists() else []
        params.append(pytest.param(directory, marks=marks, id=directory.name))
    return params


@pytest.mark.parametrize("directory", sample_bot_params())
def test_sample_bot_starts_serves_and_stops(bot_root: Path, directory: Path) -> None:
    if (directory / "package.json").exists() and not (directory / "node_modules").exists():
        if os.environ.get("CI"):
            pytest.fail(f"{directory}/node_modules is missing: `make setup` installs it")
        pytest.skip(f"run `npm ci` in {directory} first")
    with start_bot(load_manifest(directory)) as bot:
        assert bot.serving()
    assert bot.returncode == 0
    assert_nothing_left(bot)
