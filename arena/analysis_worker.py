"""The background analysis of recorded matches: a bounded, low-priority pool of processes.

``arena serve`` and ``arena web`` start one (``--analysis N``: N processes, default 1; ``off``:
none). Each process runs at the lowest CPU priority the system offers (``SCHED_IDLE`` on Linux,
else nice 19), so it takes only a core that refereeing leaves idle, and analyses one match at a
time: the newest matches without an analysis of the current solver first, each process taking
its share of them (by a hash of the match id), stored with the solver's version
(its search under ``SCHED_IDLE``, its write to the database at nice 19: a process at idle
priority must not hold the database's write lock), and waiting while the machine's load is at
its number of CPUs or more. A match whose record cannot be analysed is
logged and skipped until the process restarts. Processes, not threads: a thread would hold the
server's GIL.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import math
import multiprocessing
import os
import signal
import zlib
from multiprocessing.synchronize import Event

from arena.errors import ArenaError

log = logging.getLogger(__name__)

DEFAULT_PROCESSES = 1
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent ends."""
POLL_S = 2.0
"""How long an idle process waits before it looks for new matches again."""
BATCH = 200
"""Matches without analysis read per look (the newest first)."""


def parse_analysis(text: str) -> int:
    """``--analysis off|N``: the number of worker processes (0 for off)."""
    t = text.strip().lower()
    if t == "off":
        return 0
    if t.isdigit() and 0 <= int(t) <= 64:
        return int(t)
    raise ArenaError(f"--analysis takes off or a number of processes 0-64, got {text!r}")


def lower_priority() -> str:
    """Make this process the last to get a CPU (nice 19, then SCHED_IDLE where there is one);
    says which way it did."""
    os.nice(19 - os.nice(0))
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return "SCHED_IDLE"
    except (AttributeError, OSError):
        return "nice 19"


def _idle(on: bool) -> None:
    """SCHED_IDLE while searching; plain nice 19 while writing to the database, so that the
    worker is never preempted for long while it holds the database's write lock (the referee's
    writes would wait on an idle-priority process: priority inversion)."""
    policy = os.SCHED_IDLE if on else os.SCHED_OTHER
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, policy, os.sched_param(0))


def _end_with_parent() -> None:
    """Ask the kernel (Linux) to kill this process when its parent ends: a process at idle
    priority on a busy machine may not run for long enough to see it go itself."""
    with contextlib.suppress(AttributeError, OSError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def busy(max_load: float) -> bool:
    """Whether the machine's 1-minute load is at ``max_load`` or more (then the worker waits:
    SCHED_IDLE alone is not enough on every kernel and machine, measured in
    docs/benchmarks.md)."""
    try:
        return os.getloadavg()[0] >= max_load
    except OSError:
        return False


def work(
    db: str,
    index: int,
    processes: int,
    stop: Event,
    parent: int,
    poll_s: float = POLL_S,
    max_load: float = math.inf,
) -> None:
    """One worker process: analyse this process's share of unanalysed matches until ``stop``,
    or until its parent ``parent`` is gone (killed without a chance to stop it)."""
    _end_with_parent()
    if os.getppid() != parent:  # gone before the kernel was asked
        return
    # imports and the database opened at the usual priority: at idle priority, on a busy
    # machine, this start could take minutes, and the process would not see its parent go
    from arena.referee.analysed import analyse_result
    from arena.store import Store

    skipped: set[str] = set()
    with Store.open(db) as store:
        lower_priority()
        while not stop.is_set() and os.getppid() == parent:  # ends if the server was killed
            mine = [
                m
                for m in store.unanalysed_matches(BATCH)
                if m not in skipped and zlib.crc32(m.encode()) % processes == index
            ]
            if not mine or busy(max_load):
                stop.wait(poll_s)
                continue
            for match_id in mine:
                if stop.is_set() or os.getppid() != parent or busy(max_load):
                    break
                try:
                    analysis = analyse_result(store.get_match(match_id).result)
                    _idle(False)
                    try:
                        store.save_analysis(match_id, analysis)
                    finally:
                        _idle(True)
                except Exception as exc:  # a bad record must not stop the others' analysis
                    log.warning("analysis of match %s skipped: %s", match_id, exc)
                    skipped.add(match_id)


class AnalysisWorkers:
    """``processes`` worker processes over the database at ``db``; ``stop`` ends them."""

    def __init__(
        self,
        db: str,
        processes: int = DEFAULT_PROCESSES,
        poll_s: float = POLL_S,
        max_load: float | None = None,
    ):
        """``max_load``: the machine's 1-minute load at which the workers wait (default: its
        number of CPUs; ``math.inf``: never)."""
        if max_load is None:
            max_load = float(os.cpu_count() or 1)
        self._ctx = multiprocessing.get_context("spawn")
        self._stop = self._ctx.Event()
        self._procs = [
            self._ctx.Process(
                target=work,
                args=(db, i, processes, self._stop, os.getpid(), poll_s, max_load),
                name=f"arena-analysis-{i}",
                daemon=True,
            )
            for i in range(processes)
        ]

    @property
    def pids(self) -> list[int | None]:
        return [p.pid for p in self._procs]

    def start(self) -> None:
        """Start the processes. Linux ends them with the thread that starts them (prctl's
        parent-death signal): start them from a thread that lives as long as they should."""
        for p in self._procs:
            p.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        self._stop.set()
        for p in self._procs:
            if p.pid is None:
                continue
            p.join(timeout_s)
            if p.is_alive():  # in the middle of a long match: its work is not stored, redone later
                p.terminate()
                p.join()
