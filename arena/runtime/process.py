"""Starting a bot from its manifest as a child process, and stopping it with all it started.

A bot runs under a supervisor (``supervisor.py``) that leads a new session and process group,
applies the limits and keeps every process the bot starts in its tree. The bot listens on a Unix
domain socket in a private directory (mode 0700), so there is no TCP port to race for and no
other user can connect to it. Its stdout and stderr go to a size-capped log.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType

import grpc

from arena.errors import ArenaError
from arena.runtime import supervisor
from arena.runtime.botlog import DEFAULT_LOG_LIMIT, CappedLog
from arena.runtime.channel import SERVING, health_status, open_channel
from arena.runtime.jail import BotJail
from arena.runtime.manifest import ADDRESS_ENV, NAME_ENV, BotLimits, BotManifest
from arena.sandbox import SandboxMode, probe
from arena.sandbox import bwrap as bwrap_cmd
from arena.sandbox.cgroups import BotCgroup, CgroupLimits
from arena.sandbox.mode import resolve_mode

DEFAULT_GRACE_S = 2.0
SOCKET_NAME = "bot.sock"
_SUPERVISOR = Path(supervisor.__file__)
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes
# The environment a bot gets from the arena: enough to find programs and speak the locale, and
# nothing else (the arena's own variables may hold secrets such as a database URL).
_ENV_PASSED_ON = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "GRPC_EXPERIMENTS")
"""The arena's variables a bot gets (a manifest's ``[env]`` has the last word). The arena sets
no ``GRPC_EXPERIMENTS`` itself (experiments are named per grpcio version, not its public API);
an operator's choice of gRPC's I/O manager reaches every bot as it reaches the arena."""
_MB = 1 << 20
_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
MAX_STARTUP_TIMEOUT_S = 300.0
"""No bot waits longer than this to serve, whatever its manifest or the caller says."""

_active_logs: set[Path] = set()
_active_logs_lock = threading.Lock()


class BotStartError(ArenaError):
    """A bot could not be started, or did not become ready in time."""

    def __init__(
        self, message: str, *, name: str, returncode: int | None = None, log_tail: str = ""
    ) -> None:
        super().__init__(message)
        self.name = name
        self.returncode = returncode
        self.log_tail = log_tail


def describe_returncode(returncode: int) -> str:
    """``exit code 3`` or ``signal SIGKILL``, from a ``Popen.returncode``."""
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


def start_bot(
    manifest: BotManifest,
    *,
    startup_timeout: float | None = None,
    log_dir: str | os.PathLike[str] | None = None,
    limits: BotLimits | None = None,
    log_limit: int = DEFAULT_LOG_LIMIT,
    python: str = sys.executable,
    sandbox: str | SandboxMode | None = None,
    cancel: threading.Event | None = None,
) -> RunningBot:
    """Start the bot and return once its gRPC health check answers SERVING.

    ``limits`` replaces the manifest's limits, ``startup_timeout`` its startup timeout (capped
    at :data:`MAX_STARTUP_TIMEOUT_S`). The log goes to ``<log_dir>/<name>.log``; without
    ``log_dir`` it lives in the bot's private directory and goes away with
    :meth:`RunningBot.stop`. ``python`` fills the ``{python}`` placeholder. ``sandbox`` is
    ``auto`` (default, or ``$ARENA_SANDBOX``), ``on`` or ``off`` (``arena.sandbox``). Setting
    ``cancel`` (from another thread) ends the wait for the bot at once.
    Raises :class:`BotStartError` if the command is missing, the bot exits during startup, or it
    is not ready within the timeout (it is then killed).
    """
    limits = manifest.limits if limits is None else limits
    timeout = limits.startup_timeout_s if startup_timeout is None else startup_timeout
    if not math.isfinite(timeout) or timeout <= 0:
        raise BotStartError(
            f"bot '{manifest.name}': the startup timeout must be a positive number of seconds, "
            f"not {timeout!r}",
            name=manifest.name,
        )
    timeout = min(timeout, MAX_STARTUP_TIMEOUT_S)
    name = manifest.name
    deadline = time.monotonic() + timeout
    sandboxed = resolve_mode(sandbox)

    runtime_dir = Path(tempfile.mkdtemp(prefix="arena-bot-"))
    if len(str(runtime_dir / "sock" / SOCKET_NAME)) > _MAX_SOCKET_PATH:
        runtime_dir.rmdir()
        runtime_dir = Path(tempfile.mkdtemp(prefix="arena-bot-", dir="/tmp"))
    socket_dir = runtime_dir / "sock" if sandboxed else runtime_dir
    target = f"unix:{socket_dir / SOCKET_NAME}"
    address = f"unix:{bwrap_cmd.SOCKET_DIR}/{SOCKET_NAME}" if sandboxed else target
    env = _bot_environment(manifest, address, runtime_dir, sandboxed)
    argv = manifest.argv(python=python, address=address)
    log_path: Path | None = None
    jail: BotJail | None = None
    tracker: BotCgroup | None = None
    try:
        program = _resolve_program(name, argv[0], manifest.directory, env["PATH"])
        if sandboxed:
            jail = BotJail.create(manifest, limits, socket_dir, python)
            jail.environment(env)
            argv, program = jail.command(program, argv), probe().bwrap or "bwrap"
        else:
            tracker = _tracking_cgroup(name)
        log_path = _claim_log_path(Path(log_dir) if log_dir is not None else runtime_dir, name)
        out_r, out_w = os.pipe()
        # The log reader runs before the bot does, so a failed start still drains and closes.
        try:
            log = CappedLog(out_r, log_path, limit=log_limit, name=name)
        except BaseException:
            os.close(out_r)
            os.close(out_w)
            raise
        fds = [out_w]  # closed here if the bot cannot be started, so the log reader ends
        try:
            control_r, control_w = os.pipe()
            fds += (control_r, control_w)
            status_r, status_w = os.pipe()
            fds += (status_r, status_w)
            config = {
                "program": program,
                "argv": argv,
                "limits": _rlimits(limits, own_uid=jail is not None and jail.uid is not None),
                "control_fd": control_r,
                "status_fd": status_w,
                "runtime_dir": str(runtime_dir),
                "sandboxed": sandboxed,
                "cgroup_procs": (
                    jail.cgroup.procs_files
                    if jail and jail.cgroup
                    else tracker.procs_files
                    if tracker
                    else []
                ),
                "notes": jail.notes if jail else [],
            }
            popen = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_SUPERVISOR), json.dumps(config)],
                cwd=manifest.directory,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                pass_fds=(control_r, status_w),
                start_new_session=True,
            )
        except BaseException:
            for fd in fds:
                os.close(fd)
            log.close()
            raise
        for fd in (out_w, control_r, status_w):
            os.close(fd)
    except BaseException as exc:
        if log_path is not None:
            _release_log_path(log_path)
        if jail is not None:
            jail.close()
        if tracker is not None:
            tracker.kill_all(timeout=2.0)
            tracker.remove()
        shutil.rmtree(runtime_dir, ignore_errors=True)
        # A missing bot directory, an unwritable log directory, a NUL byte in an argument…
        if isinstance(exc, (OSError, ValueError)):
            raise BotStartError(f"bot '{name}': cannot start: {exc}", name=name) from exc
        raise
    process = _BotProcess(
        name=name,
        popen=popen,
        control_fd=control_w,
        log=log,
        runtime_dir=runtime_dir,
        target=target,
        jail=jail,
        tracker=tracker,
    )
    try:
        process.bot_pid = _await_exec(process, status_r, deadline, cancel)
        _await_serving(process, deadline, timeout, cancel)
        if jail is not None and (wrong := jail.seal_socket(Path(target.removeprefix("unix:")))):
            raise BotStartError(f"bot '{name}': {wrong}", name=name)
    except BaseException:
        process.stop(grace=0.0)
        raise
    finally:
        os.close(status_r)
    return RunningBot(manifest, process, log_kept=log_dir is not None)


class RunningBot:
    """A bot process started by :func:`start_bot`. Stop it (or use it as a context manager);
    if it is dropped or the interpreter exits, it is stopped all the same."""

    def __init__(self, manifest: BotManifest, process: _BotProcess, *, log_kept: bool) -> None:
        self.manifest = manifest
        self._process = process
        self._log_kept = log_kept
        self._finalizer = weakref.finalize(self, process.stop, DEFAULT_GRACE_S)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def target(self) -> str:
        """The gRPC target of the bot, ``unix:/…/bot.sock``."""
        return self._process.target

    @property
    def channel(self) -> grpc.Channel:
        """The one channel to the bot; many matches share it."""
        return self._process.channel

    @property
    def pid(self) -> int:
        """The pid of the bot's main process (the manifest's command)."""
        assert self._process.bot_pid is not None
        return self._process.bot_pid

    @property
    def pgid(self) -> int:
        """The bot's process group, led by its supervisor."""
        return self._process.popen.pid

    @property
    def supervisor_pid(self) -> int:
        return self._process.popen.pid

    @property
    def log_path(self) -> Path:
        """The log file; it outlives :meth:`stop` only when ``start_bot`` was given a log_dir."""
        return self._process.log.path

    @property
    def log_bytes(self) -> int:
        """Bytes of output the bot wrote, including those past the log limit."""
        return self._process.log.total_bytes

    @property
    def log_dropped_bytes(self) -> int:
        return self._process.log.dropped_bytes

    def log_tail(self, lines: int = 10) -> str:
        """The last lines of the bot's output, kept in memory even past the log limit; of a
        bot that has exited, once its output is read to the end (a moment at most)."""
        exited = self._process.popen.poll() is not None
        return self._process.log.tail(lines, wait_s=0.5 if exited else 0.0)

    @property
    def returncode(self) -> int | None:
        """The bot's exit code, or minus the signal that killed it; None while it runs.
        (In the sandbox, a bot killed by signal N exits with 128 + N, as bubblewrap reports.)"""
        return self._process.popen.poll()

    @property
    def sandboxed(self) -> bool:
        return self._process.jail is not None

    @property
    def uid(self) -> int | None:
        """The unprivileged uid the bot runs as in the sandbox (None: the arena's own)."""
        jail = self._process.jail
        return jail.uid if jail is not None else None

    @property
    def exit_description(self) -> str | None:
        """How the bot ended, for a crash's reason: ``killed by SIGKILL``, ``exit code 1``,
        ``killed by SIGKILL at its memory limit (512 MB)``; None while it runs."""
        code = self._process.popen.poll()
        if code is None:
            return None
        jail = self._process.jail
        signum = -code if code < 0 else code - 128 if jail is not None and code > 128 else None
        text = f"exit code {code}"
        if signum is not None:
            try:
                text = f"killed by {signal.Signals(signum).name}"
            except ValueError:
                text = f"killed by signal {signum}"
        if jail is not None and jail.memory_killed():
            text += f" at its memory limit ({jail.limits.memory_mb} MB)"
        return text

    def alive(self) -> bool:
        """Whether the bot's main process is still running."""
        return self._process.popen.poll() is None

    def serving(self, timeout: float = 1.0) -> bool:
        """Whether the bot answers its health check with SERVING within ``timeout``."""
        return self.alive() and health_status(self.channel, timeout) == SERVING

    def stop(self, grace: float = DEFAULT_GRACE_S) -> None:
        """SIGTERM the bot and all it started, SIGKILL what is left after ``grace`` seconds,
        close the channel and remove the private directory. Idempotent."""
        self._process.stop(grace)
        self._finalizer.detach()

    def __enter__(self) -> RunningBot:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.alive() else "stopped"
        return f"<RunningBot {self.name!r} pid={self._process.bot_pid} {state}>"


class _BotProcess:
    """What stopping a bot needs, apart from the RunningBot, so that its finalizer can run it."""

    def __init__(
        self,
        *,
        name: str,
        popen: subprocess.Popen[bytes],
        control_fd: int,
        log: CappedLog,
        runtime_dir: Path,
        target: str,
        jail: BotJail | None = None,
        tracker: BotCgroup | None = None,
    ) -> None:
        self.jail = jail
        self.tracker = tracker
        """A plain process's cgroup (no limits): what the bot started, wherever it went."""
        self.name = name
        self.popen = popen
        self.control_fd: int | None = control_fd
        self.log = log
        self.runtime_dir = runtime_dir
        self.target = target
        self.channel = open_channel(target)
        self.bot_pid: int | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self, grace: float) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            try:
                # The arena's connection goes first: a gRPC server's graceful stop waits for
                # its clients' connections, and a channel on gRPC's classic I/O manager (an
                # operator's GRPC_EXPERIMENTS) that nobody polls would hold one through the
                # bot's whole grace. A match still in play on it ends as the arena's doing.
                self.channel.close()
                if self.popen.poll() is None:
                    self._terminate()
                    try:
                        self.popen.wait(grace)
                    except subprocess.TimeoutExpired:
                        self._kill()
                self._sweep_group()
                if self.jail is not None and self.jail.cgroup is not None:
                    self.jail.cgroup.kill_all()
                if self.tracker is not None:
                    # A daemon that left the session of a supervisor the bot killed is no
                    # longer below anything: its cgroup still holds it.
                    self.tracker.kill_all()
            finally:
                if self.jail is not None:
                    self.jail.close()
                if self.tracker is not None:
                    self.tracker.remove()
                if self.control_fd is not None:
                    os.close(self.control_fd)
                    self.control_fd = None
                self.log.close()
                _release_log_path(self.log.path)
                shutil.rmtree(self.runtime_dir, ignore_errors=True)

    def _terminate(self) -> None:
        """SIGTERM the process group, and every descendant that left it."""
        pgid = self.popen.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        table = supervisor.process_table()
        sandbox_pid = self.bot_pid if self.jail is not None else None
        escaped = supervisor.term_targets(pgid, table, pgid, sandbox_pid)
        supervisor.signal_pids(escaped, signal.SIGTERM)

    def _kill(self) -> None:
        """SIGKILL everything below the supervisor, then the supervisor.

        The supervisor goes last: while it lives, whatever the bot started stays in its tree.
        Closing the control pipe asks the supervisor to do the same from inside.
        """
        if self.control_fd is not None:
            os.close(self.control_fd)
            self.control_fd = None
        if self.jail is not None and self.jail.cgroup is not None:
            self.jail.cgroup.kill_all()
        if self.tracker is not None:
            self.tracker.kill_all()
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            left = supervisor.descendants(self.popen.pid)
            if not left:
                break
            supervisor.signal_pids(left, signal.SIGKILL)
            time.sleep(0.005)
        try:
            self.popen.wait(2.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def _sweep_group(self) -> None:
        """Kill anything still in the bot's process group (nothing should be)."""
        for _ in range(100):
            left = supervisor.group_members(self.popen.pid)
            if not left:
                return
            supervisor.signal_pids(left, signal.SIGKILL)
            time.sleep(0.005)


def _tracking_cgroup(name: str) -> BotCgroup | None:
    """A cgroup without limits for a bot run as a plain process, where the host offers one
    (the arena as root, or a delegated cgroup tree): a process cannot leave it by ``setsid``
    or by killing its supervisor, so stopping the bot kills all it started. None elsewhere:
    the supervisor's tree is then all there is (docs/bots-and-manifests.md)."""
    try:
        group, _ = BotCgroup.create(name, CgroupLimits(None, None, None))
    except OSError:
        return None
    return group


def _check_cancel(process: _BotProcess, cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        process.stop(grace=0.0)
        raise BotStartError(f"bot '{process.name}': start-up cancelled", name=process.name)


def _await_exec(
    process: _BotProcess, status_fd: int, deadline: float, cancel: threading.Event | None
) -> int:
    """Wait for the supervisor to report that the bot's command runs; the bot's pid."""
    poller = select.poll()
    poller.register(status_fd, select.POLLIN)
    line = b""
    while not line.endswith(b"\n"):
        _check_cancel(process, cancel)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            _fail_not_ready(process, "its command did not start")
        if not poller.poll(min(remaining, 0.1) * 1000):
            continue
        chunk = os.read(status_fd, 4096)
        if not chunk:
            _fail_exited(process)
        line += chunk
    event = json.loads(line.splitlines()[0])
    if event["event"] == "exec_failed":
        process.popen.wait()
        raise BotStartError(
            f"bot '{process.name}': cannot run its command: {event['error']}", name=process.name
        )
    return int(event["pid"])


def _await_serving(
    process: _BotProcess, deadline: float, timeout: float, cancel: threading.Event | None
) -> None:
    """Poll the health check until SERVING; fail fast if the bot exits or lacks the service."""
    socket_path = Path(process.target.removeprefix("unix:"))
    pause = 0.01
    last = "no answer"
    while True:
        _check_cancel(process, cancel)
        if process.popen.poll() is not None:
            _fail_exited(process)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            _fail_not_ready(process, f"last health check: {last}", timeout)
        if socket_path.exists():
            last = health_status(process.channel, min(0.5, remaining), wait_for_ready=True)
            if last == SERVING:
                return
            if last == "UNIMPLEMENTED":
                process.stop(grace=0.0)
                raise BotStartError(
                    f"bot '{process.name}' does not serve the gRPC health checking service "
                    "(grpc.health.v1.Health), which the arena uses to know it is ready",
                    name=process.name,
                    log_tail=process.log.tail(),
                )
        else:
            last = f"nothing listens on {socket_path} yet"
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 0.1)


def _fail_exited(process: _BotProcess) -> None:
    returncode = process.popen.wait()
    process.stop(grace=0.0)  # the jail keeps its count of memory kills once closed
    tail = process.log.tail(5)
    said = f"; its last output: {_one_line(tail)}" if tail else "; it printed nothing"
    how = f"exited during startup with {describe_returncode(returncode)}"
    jail = process.jail
    if jail is not None and jail.memory_killed():
        # bubblewrap reports its child's SIGKILL as exit code 137; the cgroup says why.
        how = f"was killed during startup at its memory limit ({jail.limits.memory_mb} MB)"
    raise BotStartError(
        f"bot '{process.name}' {how}{said}",
        name=process.name,
        returncode=returncode,
        log_tail=tail,
    )


def _fail_not_ready(process: _BotProcess, why: str, timeout: float | None = None) -> None:
    process.stop(grace=0.0)
    tail = process.log.tail(5)
    said = f"; its last output: {_one_line(tail)}" if tail else ""
    within = f" within {timeout:g} s" if timeout is not None else ""
    raise BotStartError(
        f"bot '{process.name}' was not ready{within} ({why}) and was killed{said}",
        name=process.name,
        returncode=process.popen.returncode,
        log_tail=tail,
    )


def _one_line(text: str, limit: int = 400) -> str:
    line = " | ".join(text.splitlines())
    return line if len(line) <= limit else "…" + line[-limit:]


def _resolve_program(name: str, program: str, directory: Path, path: str) -> str:
    """The absolute path of the command's program, or a BotStartError saying what is wrong."""
    if "/" in program:
        # Not resolve(): a virtualenv's python is a symlink that must be run by its own path.
        candidate = Path(os.path.normpath(directory / program))
        if not candidate.exists():
            raise BotStartError(
                f"bot '{name}': command '{program}' not found (no {candidate})", name=name
            )
        if not os.access(candidate, os.X_OK) or candidate.is_dir():
            raise BotStartError(
                f"bot '{name}': command '{program}' is not executable ({candidate})", name=name
            )
        return str(candidate)
    found = shutil.which(program, path=path)
    if found is None:
        raise BotStartError(
            f"bot '{name}': command '{program}' not found (PATH is {path})", name=name
        )
    return found


def _bot_environment(
    manifest: BotManifest, address: str, runtime_dir: Path, sandboxed: bool
) -> dict[str, str]:
    env = {key: os.environ[key] for key in _ENV_PASSED_ON if key in os.environ}
    env.update({key: value for key, value in os.environ.items() if key.startswith("LC_")})
    env.setdefault("PATH", os.defpath)
    env["TMPDIR"] = str(runtime_dir)
    if sandboxed:
        # What exists inside: the system's programs, and a private /tmp as home.
        env.update(PATH=_SANDBOX_PATH, HOME="/tmp", TMPDIR="/tmp", USER="bot", LOGNAME="bot")
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # the bot's directory is read-only
    env["PYTHONUNBUFFERED"] = "1"
    env.update(manifest.env)
    env[ADDRESS_ENV] = address
    env[NAME_ENV] = manifest.name
    return env


def _rlimits(limits: BotLimits, own_uid: bool) -> dict[str, list[int]]:
    """The resource limits as ``RLIMIT_* name -> [soft, hard]`` for the supervisor."""
    out: dict[str, list[int]] = {"RLIMIT_CORE": [0, 0]}
    if limits.memory_mb is not None:
        out["RLIMIT_DATA"] = [limits.memory_mb * _MB] * 2
    if limits.address_space_mb is not None:
        out["RLIMIT_AS"] = [limits.address_space_mb * _MB] * 2
    if limits.cpu_seconds is not None:
        # SIGXCPU at the soft limit; SIGKILL a second later for a bot that catches it.
        soft = max(1, math.ceil(limits.cpu_seconds))
        out["RLIMIT_CPU"] = [soft, soft + 1]
    if limits.processes is not None and own_uid:
        # RLIMIT_NPROC counts every process of the user: a bot's own only under its own uid.
        out["RLIMIT_NPROC"] = [limits.processes] * 2
    # A hard limit cannot be raised above the arena's own.
    for name, (soft, hard) in out.items():
        _, current_hard = resource.getrlimit(getattr(resource, name))
        if current_hard != resource.RLIM_INFINITY:
            out[name] = [min(soft, current_hard), min(hard, current_hard)]
    return out


def _claim_log_path(directory: Path, name: str) -> Path:
    """``<name>.log``, or ``<name>-2.log``… if a running bot of this process already writes it."""
    directory.mkdir(parents=True, exist_ok=True)
    with _active_logs_lock:
        for n in range(1, 10_000):
            path = (directory / (f"{name}.log" if n == 1 else f"{name}-{n}.log")).resolve()
            if path not in _active_logs:
                _active_logs.add(path)
                return path
    raise BotStartError(f"bot '{name}': too many logs in {directory}", name=name)


def _release_log_path(path: Path) -> None:
    with _active_logs_lock:
        _active_logs.discard(path)
