"""A bot that tries to get out of the sandbox, reports what it reached, and plays at random.

Each manifest of this directory (``*.toml``; ``bot.toml`` is the probe) is one escape attempt,
chosen by $ESCAPE_MODE. It writes one line ``ESCAPE-REPORT {json}`` to its log: for every
attempt, ``"blocked: why"`` or ``"REACHED: what"``. $ESCAPE_TARGETS (JSON, set by the test)
names what there is to reach outside: the arena's database, the bot store, another bot's
directory and socket, a TCP port on 127.0.0.1, the arena's pid.

Modes:
  probe           files, sockets, network, /proc, signals, writes outside /tmp (at start-up)
  tmpfs_fill      write /tmp until it is full (at start-up)
  fork_bomb       fork until it cannot (at start-up); the children sleep
  daemon          a double-forked setsid daemon and a fork-hopping one (at start-up)
  kill_supervisor leave the session, SIGKILL the parent, then kill(-1) in a sandbox only
                  (first decision); with $ESCAPE_DAEMON=1 it first starts a setsid daemon
  swap_socket     replace its socket by a symbolic link (first decision)
  shm_mmap        touch $ESCAPE_MB of MAP_SHARED memory on the first decision (at start-up
                  with $ESCAPE_AT_START=1, as every first-decision mode)
  dev_shm         write $ESCAPE_MB into /dev/shm on the first decision
  cpu_hog         fork processes spinning on every core at StartMatch, and play
"""

from __future__ import annotations

import errno
import json
import mmap
import os
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable

from arena.sdk import Bot, View, serve

MODE = os.environ.get("ESCAPE_MODE", "probe")
TARGETS: dict = json.loads(os.environ.get("ESCAPE_TARGETS", "{}"))
MB = int(os.environ.get("ESCAPE_MB", "300"))
report: dict[str, str] = {}


def attempt(name: str, action: Callable[[], str]) -> None:
    try:
        report[name] = "REACHED: " + action()
    except OSError as exc:
        report[name] = f"blocked: {errno.errorcode.get(exc.errno or 0, '?')} {exc.strerror}"
    except Exception as exc:
        report[name] = f"blocked: {type(exc).__name__} {exc}"


def emit() -> None:
    print("ESCAPE-REPORT " + json.dumps(report, sort_keys=True), flush=True)


def read(path: str) -> str:
    with open(path, "rb") as fh:
        return f"read {len(fh.read(4096))} bytes of {path}"


def listdir(path: str) -> str:
    return f"listed {path}: {sorted(os.listdir(path))[:20]}"


def write(path: str) -> str:
    with open(path, "w") as fh:
        fh.write("escaped")
    return f"wrote {path}"


def connect_unix(path: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        s.connect(path)
    return f"connected to {path}"


def connect_tcp(host: str, port: int) -> str:
    with socket.create_connection((host, port), timeout=1):
        pass
    return f"connected to {host}:{port}"


def no_route_out() -> str:
    """Reach a non-loopback address, but only when no route could carry a packet off the host
    (the test's network rule): the attempt then proves the kernel refuses it locally."""
    with open("/proc/net/route") as fh:
        routes = fh.read().splitlines()[1:]
    with open("/proc/net/if_inet6") as fh6:
        v6 = [line.split()[-1] for line in fh6.read().splitlines()]
    if routes or any(name != "lo" for name in v6):
        return f"a route out exists: {routes or v6} (not tried)"
    socket.getaddrinfo("example.com", 80)  # no resolver is reachable: this raises
    return "resolved example.com"


def connect_test_net() -> str:
    with open("/proc/net/route") as fh:
        if fh.read().splitlines()[1:]:
            return "a route out exists (not tried)"
    return connect_tcp("192.0.2.1", 80)  # TEST-NET-1; refused locally without a route


def signal_pid(pid: int) -> str:
    os.kill(pid, 0)
    return f"may signal pid {pid}"


def probe() -> None:
    t = TARGETS
    for key in ("database", "store_file", "other_bot_file", "arena_home_file", "secret_file"):
        if key in t:
            attempt(f"read {key}", lambda p=t[key]: read(p))
    for key in ("store_dir", "other_bot_dir", "arena_cwd"):
        if key in t:
            attempt(f"list {key}", lambda p=t[key]: listdir(p))
    if "other_socket" in t:
        attempt("connect other bot socket", lambda: connect_unix(t["other_socket"]))
    if "tcp_port" in t:
        attempt("connect tcp 127.0.0.1", lambda: connect_tcp("127.0.0.1", t["tcp_port"]))
    attempt("resolve a name", no_route_out)
    attempt("connect non-loopback", connect_test_net)
    for key in ("arena_pid", "other_pid"):
        if key in t:
            attempt(f"signal {key}", lambda p=t[key]: signal_pid(p))
            attempt(f"read /proc of {key}", lambda p=t[key]: read(f"/proc/{p}/cmdline"))
            attempt(f"write {key} stdout", lambda p=t[key]: write(f"/proc/{p}/fd/1"))
    if in_a_sandbox():  # never outside a sandbox: the writes would succeed
        here = os.getcwd()
        attempt("write own directory", lambda: write(os.path.join(here, "rewritten.py")))
        if "other_bot_dir" in t:
            attempt("write other bot dir", lambda: write(os.path.join(t["other_bot_dir"], "x")))
        attempt("write /", lambda: write("/escape"))
        attempt("write /usr", lambda: write("/usr/escape"))
        attempt("write /etc", lambda: write("/etc/escape"))
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    report["proc pids visible"] = str(len(pids))
    report["uid"] = str(os.getuid())
    attempt("read /etc/shadow", lambda: read("/etc/shadow"))
    attempt("open /dev/tty", lambda: read("/dev/tty"))
    attempt("setuid 0", lambda: (os.setuid(0), "became root")[1])
    attempt("list /root", lambda: listdir("/root"))
    attempt("list /sys/fs/cgroup", lambda: listdir("/sys/fs/cgroup"))


def tmpfs_fill() -> None:
    written = 0
    chunk = b"x" * (1 << 20)
    try:
        with open("/tmp/fill", "wb") as fh:
            while written < (1 << 40):
                fh.write(chunk)
                fh.flush()
                written += len(chunk)
    except OSError as exc:
        why = errno.errorcode.get(exc.errno or 0)
        report["tmpfs fill"] = f"blocked: {why} after {written >> 20} MB"
    os.unlink("/tmp/fill")
    report["tmp writable"] = "REACHED: /tmp is writable (that is allowed)"


def fork_bomb() -> None:
    """Fork until refused, then end the children, so that the bot can still serve: the test
    checks the limit held, and that the bot and the arena are fine after it."""
    children: list[int] = []
    try:
        while len(children) < 100_000:
            pid = os.fork()
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        why = errno.errorcode.get(exc.errno or 0)
        report["fork bomb"] = f"blocked: {why} after {len(children)}"
    else:
        report["fork bomb"] = f"REACHED: {len(children)} processes"
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:  # a daemon that outlives its parents
                time.sleep(0.05)
        os._exit(0)
    if os.fork() == 0:
        os.setsid()
        while True:  # a fork hopper: a new pid and session every generation
            if os.fork() != 0:
                os._exit(0)
            os.setsid()
            time.sleep(0.001)
    report["daemon"] = "started"


def in_a_sandbox() -> bool:
    """Whether destructive attempts are safe: the test asks for them ($ESCAPE_IN_SANDBOX=1)
    and this process is in a PID namespace of its own (few processes visible, pid 1 not the
    host's init). Outside a sandbox, kill(-1) as root would end every process of the host."""
    if os.environ.get("ESCAPE_IN_SANDBOX") != "1":
        return False
    visible = [p for p in os.listdir("/proc") if p.isdigit()]
    return len(visible) < 10 and os.getpid() < 10


def kill_supervisor() -> None:
    if os.environ.get("ESCAPE_DAEMON") == "1":
        # First a daemon of its own session, left behind once the supervisor is gone. A fresh
        # interpreter, not a fork: a child forked from a process serving gRPC may die in
        # grpcio's fork handlers before it runs a line, and the escape would not be tried.
        import subprocess

        subprocess.Popen(
            [sys.executable, "-c", "import time\nwhile True: time.sleep(0.05)"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    os.setsid()
    parent = os.getppid()
    attempt(f"SIGKILL parent {parent}", lambda: (os.kill(parent, signal.SIGKILL), "killed")[1])
    if in_a_sandbox():
        attempt("kill(-1)", lambda: (os.kill(-1, signal.SIGKILL), "signalled every process")[1])


def swap_socket() -> None:
    """Swap its socket for a link elsewhere: the arena, as root, would follow it on reconnect."""

    def swap() -> str:
        os.symlink("/run/elsewhere.sock", "/run/arena/swap")
        os.replace("/run/arena/swap", "/run/arena/bot.sock")
        return "replaced its socket by a link"

    attempt("swap socket", swap)
    attempt("remove socket", lambda: (os.unlink("/run/arena/bot.sock"), "removed")[1])


def shm_mmap() -> None:
    area = mmap.mmap(-1, MB << 20, flags=mmap.MAP_SHARED)
    for offset in range(0, MB << 20, 4096):
        area[offset] = 1
    report["shm mmap"] = f"REACHED: touched {MB} MB of shared memory"


def dev_shm() -> None:
    chunk = b"x" * (1 << 20)
    with open("/dev/shm/fill", "wb") as fh:
        for _ in range(MB):
            fh.write(chunk)
    report["dev shm"] = f"REACHED: wrote {MB} MB to /dev/shm"


def cpu_hog() -> None:
    for _ in range(2 * (os.cpu_count() or 1) + 2):
        if os.fork() == 0:
            while True:
                pass
    report["cpu hog"] = "spinning"


AT_START = {"probe": probe, "tmpfs_fill": tmpfs_fill, "fork_bomb": fork_bomb, "daemon": daemon}
AT_DECISION = {
    "shm_mmap": shm_mmap, "dev_shm": dev_shm, "kill_supervisor": kill_supervisor,
    "swap_socket": swap_socket,
}  # fmt: skip


class EscapeBot(Bot):
    name = "escape"

    def __init__(self) -> None:
        self._rng = random.Random(1)
        self._once = threading.Lock()
        self._done = False

    def _first_decision(self) -> None:
        with self._once:
            if self._done:
                return
            self._done = True
        if MODE in AT_DECISION:
            AT_DECISION[MODE]()
            emit()

    def start_match(self, start: object) -> None:
        if MODE == "cpu_hog":
            with self._once:
                if not self._done:
                    self._done = True
                    cpu_hog()
                    emit()

    def decide_double_nil(self, view: View) -> bool:
        self._first_decision()
        return False

    def draw(self, view: View) -> bool:
        self._first_decision()
        return self._rng.random() < 0.5

    def exchange(self, view: View) -> Iterable[int]:
        return []

    def bid(self, view: View) -> int:
        self._first_decision()
        return self._rng.choice(view.legal_bids)

    def play(self, view: View) -> int:
        self._first_decision()
        return self._rng.choice(view.legal_cards)


if __name__ == "__main__":
    if MODE in AT_START:
        AT_START[MODE]()
        emit()
    elif MODE in AT_DECISION and os.environ.get("ESCAPE_AT_START") == "1":
        AT_DECISION[MODE]()
        emit()
    sys.stdout.flush()
    serve(EscapeBot())
