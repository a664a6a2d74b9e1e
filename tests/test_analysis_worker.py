"""The background analysis (arena.analysis_worker): real processes over a real database."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import pytest

from arena.analysis_worker import AnalysisWorkers, busy, parse_analysis
from arena.errors import ArenaError
from arena.store import Store
from tests.test_analyse_cli import played


def test_workers_analyse_every_match_once_and_stop(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        a = store.register_bot_version("alpha", "1", "ha", "/a").id
        b = store.register_bot_version("beta", "1", "hb", "/b").id
        for i in range(4):
            result = played(f"m{i}", 80 + i, ("alpha@1", "beta@1"), hands=2)
            store.record_match(result, seat_versions=(a, b))
        workers = AnalysisWorkers(sqlite_url, processes=2, poll_s=0.2, max_load=math.inf)
        workers.start()
        try:
            deadline = time.monotonic() + 120
            while store.unanalysed_matches(10) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert store.unanalysed_matches(10) == []
            # a match recorded later is picked up too
            late = played("late", 99, ("alpha@1", "beta@1"), hands=1)
            store.record_match(late, seat_versions=(a, b))
            while store.get_analysis("late") is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert store.get_analysis("late") is not None
        finally:
            pids = [p for p in workers.pids if p is not None]
            workers.stop()
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        assert sum(v.hands for v in store.card_play_losses().values()) == 2 * (4 * 2 + 1)


def test_a_worker_ends_when_its_server_is_killed(sqlite_url: str, tmp_path) -> None:
    with Store.open(sqlite_url):
        pass
    code = (
        "import sys, time; from arena.analysis_worker import AnalysisWorkers; "
        f"w = AnalysisWorkers({sqlite_url!r}, 1, poll_s=0.1); w.start(); "
        "print(w.pids[0], flush=True); time.sleep(60)"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    pid = int(server.stdout.readline())
    server.kill()
    server.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if not _running(pid):
            return
        time.sleep(0.1)
    pytest.fail(f"the worker {pid} outlived its killed server")


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: an ended process its new parent has not reaped yet (a zombie, as
    under a PID 1 that reaps nothing) has ended."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_worker_takes_the_lowest_priority() -> None:
    code = (
        "import os; from arena.analysis_worker import lower_priority; how = lower_priority(); "
        "print(how, os.sched_getscheduler(0) == os.SCHED_IDLE, os.nice(0))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[:2] == ["SCHED_IDLE", "True"] or (out[0] == "nice" and out[-1] == "19")


def test_a_busy_machine_makes_the_workers_wait(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        a = store.register_bot_version("alpha", "1", "ha", "/a").id
        b = store.register_bot_version("beta", "1", "hb", "/b").id
        result = played("m0", 80, ("alpha@1", "beta@1"), hands=1)
        store.record_match(result, seat_versions=(a, b))
        workers = AnalysisWorkers(sqlite_url, processes=1, poll_s=0.1, max_load=0.0)
        workers.start()
        try:
            time.sleep(3)  # long enough to analyse a one-hand match many times over
            assert store.unanalysed_matches(10) == ["m0"]
        finally:
            workers.stop()
    assert busy(0.0) and not busy(math.inf)


def test_the_option() -> None:
    assert parse_analysis("off") == 0 and parse_analysis("OFF") == 0
    assert parse_analysis("3") == 3 and parse_analysis("0") == 0
    for bad in ("-1", "many", "65", ""):
        with pytest.raises(ArenaError, match="--analysis takes off or a number"):
            parse_analysis(bad)
