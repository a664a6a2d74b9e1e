"""The first process of every bot: applies its limits, starts it, and outlives nothing it started.

The arena runs this file as a script (``python -I -S supervisor.py CONFIG``) as the leader of a
new session and process group; it imports only the standard library. The arena also imports it
as a module for the process-tree functions, so there is one reading of ``/proc``.

Why a separate process rather than ``preexec_fn``:

- Limits (``setrlimit``) must be set between fork and exec of the bot. ``preexec_fn`` runs Python
  in the child of a fork of the arena, which has threads (gRPC, log readers); such a child can
  deadlock on a lock another thread held. The supervisor is single-threaded, so its own
  fork, setrlimit, exec is safe.
- It is a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process the bot starts that leaves the
  process group (``setsid``, double fork) is reparented here instead of to init, so it stays in
  this process tree, where the arena and the supervisor can find and kill it.
- When the bot's main process exits, it kills everything the bot left behind; when the arena
  dies, even by SIGKILL, its end of the control pipe closes and the supervisor kills the bot's
  whole tree and removes the bot's private directory. No bot process outlives the bot or the
  arena.

Its exit status mirrors the bot's: the bot's exit code, or death by the same signal.
Linux only (``/proc``, ``prctl``).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import shutil
import signal
import sys
import time
from typing import Any

PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
_TERM_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# Python ignores SIGPIPE and SIGXFSZ; ignored signals stay ignored across exec, so reset them.
_RESET_IN_CHILD = (*_TERM_SIGNALS, signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ)
_DEAD_STATES = (b"Z", b"X")


# -- the process tree, from /proc -----------------------------------------------------------


def process_table() -> dict[int, tuple[int, int, bool]]:
    """Every process as ``pid -> (ppid, pgid, alive)``; zombies are not alive."""
    table: dict[int, tuple[int, int, bool]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: the fields follow the last ')'.
        fields = data[data.rindex(b")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0] not in _DEAD_STATES)
    return table


def descendants(pid: int, table: dict[int, tuple[int, int, bool]] | None = None) -> list[int]:
    """The live processes below ``pid`` in the tree, nearest first (``pid`` excluded)."""
    table = process_table() if table is None else table
    children: dict[int, list[int]] = {}
    for child, (ppid, _pgid, _alive) in table.items():
        children.setdefault(ppid, []).append(child)
    found: list[int] = []
    seen = {pid}
    frontier = [pid]
    while frontier:
        nxt: list[int] = []
        for parent in frontier:
            for child in children.get(parent, ()):
                if child not in seen:
                    seen.add(child)
                    found.append(child)
                    nxt.append(child)
        frontier = nxt
    return [p for p in found if table[p][2]]


def group_members(pgid: int, table: dict[int, tuple[int, int, bool]] | None = None) -> list[int]:
    """The live processes of process group ``pgid``."""
    table = process_table() if table is None else table
    return [pid for pid, (_ppid, group, alive) in table.items() if group == pgid and alive]


def term_targets(
    root: int, table: dict[int, tuple[int, int, bool]], group: int, sandbox_pid: int | None
) -> list[int]:
    """The descendants of ``root`` outside process group ``group`` that SIGTERM should reach.

    In the sandbox, ``sandbox_pid`` is bubblewrap and its child the init of the bot's PID
    namespace: SIGTERM to bubblewrap would end the sandbox at once (``--die-with-parent``)
    instead of letting the bot exit in its grace period, so both are left out.
    """
    skip: set[int] = set()
    if sandbox_pid is not None:
        skip = {sandbox_pid, *(p for p, (ppid, _g, _a) in table.items() if ppid == sandbox_pid)}
    return [p for p in descendants(root, table) if table[p][1] != group and p not in skip]


def signal_pids(pids: list[int], sig: int) -> None:
    """Send ``sig`` to each pid that still exists."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


# -- the supervisor ---------------------------------------------------------------------------


def _report(fd: int, event: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, (json.dumps(event) + "\n").encode())


def _reap(bot_pid: int) -> int | None:
    """Reap every exited child; the bot's wait status if the bot was one of them."""
    status = None
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == bot_pid:
            status = wait_status


def _has_children() -> bool:
    """Whether any process is still below this one: as a subreaper, every orphan of the tree is
    reparented here, so "no child at all" (ECHILD) proves the tree is empty, where a snapshot of
    ``/proc`` can miss a process that forks and exits while it is being read."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _kill_everything_below(bot_pid: int, limit_s: float = 5.0) -> int | None:
    """SIGKILL every descendant until none is left; returns the bot's status if reaped here.

    A fork-hopping daemon (a new pid and session every generation) is never missed: the loop
    ends only when this process has no child left, not at the first empty snapshot."""
    status = None
    deadline = time.monotonic() + limit_s
    me = os.getpid()
    while True:
        reaped = _reap(bot_pid)
        status = reaped if reaped is not None else status
        if not _has_children() or time.monotonic() > deadline:
            return status
        signal_pids(descendants(me), signal.SIGKILL)
        time.sleep(0.001)


def _exec_bot(config: dict[str, Any], err_w: int) -> None:
    """In the forked child: reset signals, join the cgroups, apply the limits, become the bot
    (or the sandbox that runs it). Never returns."""
    try:
        signal.set_wakeup_fd(-1)
        for sig in _RESET_IN_CHILD:
            signal.signal(sig, signal.SIG_DFL)
        for procs in config.get("cgroup_procs", ()):
            with open(procs, "w") as fh:
                fh.write(str(os.getpid()))
        if config.get("sandboxed"):
            # Out of the supervisor's group, so that the arena's SIGTERM to the group does not
            # end bubblewrap (and with it the bot) before the bot's grace period.
            os.setpgid(0, 0)
        else:
            # Dies with the supervisor: a bot that kills its supervisor does not serve on.
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() == 1:
                os._exit(137)
        for name, (soft, hard) in config["limits"].items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        os.execv(config["program"], config["argv"])
    except OSError as exc:
        os.write(err_w, f"{exc.strerror or exc}".encode())
    except BaseException as exc:  # anything at all must reach the arena
        os.write(err_w, repr(exc).encode())
    os._exit(127)


def _exit_like(status: int) -> None:
    """Exit with the bot's exit code, or die of the signal that killed it."""
    with contextlib.suppress(OSError):
        sys.stdout.flush()
        sys.stderr.flush()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.set_wakeup_fd(-1)
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main(config_json: str) -> None:
    config = json.loads(config_json)
    argv: list[str] = config["argv"]
    control_fd: int = config["control_fd"]
    status_fd: int = config["status_fd"]
    runtime_dir: str | None = config.get("runtime_dir")
    for fd in (control_fd, status_fd):
        os.set_inheritable(fd, False)

    for note in config.get("notes", ()):
        print(f"[arena] {note}", file=sys.stderr, flush=True)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("[arena] warning: cannot become a child subreaper", file=sys.stderr, flush=True)

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    terminate = False

    def on_terminate(_sig: int, _frame: object) -> None:
        nonlocal terminate
        terminate = True

    signal.signal(signal.SIGCHLD, lambda _sig, _frame: None)
    for sig in _TERM_SIGNALS:
        signal.signal(sig, on_terminate)

    err_r, err_w = os.pipe()
    bot_pid = os.fork()
    if bot_pid == 0:
        os.close(err_r)
        _exec_bot(config, err_w)
    os.close(err_w)
    failure = b""
    while chunk := os.read(err_r, 4096):
        failure += chunk
    os.close(err_r)
    if failure:
        message = failure.decode(errors="replace")
        print(f"[arena] cannot start {argv[0]!r}: {message}", file=sys.stderr, flush=True)
        _report(status_fd, {"event": "exec_failed", "error": message})
        os.waitpid(bot_pid, 0)
        os._exit(127)
    _report(status_fd, {"event": "started", "pid": bot_pid})

    watched = [control_fd, wake_r]
    status: int | None = None
    while status is None:
        status = _reap(bot_pid)
        if status is not None:
            break
        if terminate:
            # The group already got the signal; pass it on to those who left the group.
            terminate = False
            table = process_table()
            sandbox_pid = bot_pid if config.get("sandboxed") else None
            signal_pids(term_targets(os.getpid(), table, os.getpgrp(), sandbox_pid), signal.SIGTERM)
        readable, _, _ = select.select(watched, [], [])
        if control_fd in readable and not os.read(control_fd, 64):
            # The arena closed the pipe or died: kill the bot and all it started, now.
            watched.remove(control_fd)
            status = _kill_everything_below(bot_pid)
            if runtime_dir:
                shutil.rmtree(runtime_dir, ignore_errors=True)
        if wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                while os.read(wake_r, 512):
                    pass

    _kill_everything_below(bot_pid)
    _exit_like(status)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: supervisor.py CONFIG_JSON (arena.runtime starts it; not for direct use)")
    main(sys.argv[1])
