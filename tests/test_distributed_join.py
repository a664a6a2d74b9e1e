"""A node that joins a running tournament is used: a one-node Ray cluster on this machine plays
a tournament, a second node (a raylet joining the head, as ``ray start --address`` starts one)
joins while the run plays, and the coordinator places a worker there that plays some of the
run's matches. (``ray start --address`` itself cannot join a cluster kept on the loopback
interface: Ray refuses a second node of a single-machine cluster, and told otherwise it moves the
cluster off loopback; docs/distributed.md.)"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.rules.ruleset import RuleSet
from arena.runtime.supervisor import descendants, signal_pids
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.tournament.progress import QuietReporter

ray = pytest.importorskip("ray", reason="needs the ray extra (pip install 'spades-arena[ray]')")

from arena.distributed import ray_executor_factory  # noqa: E402
from arena.distributed.cluster import add_local_node, local_cluster, stop_local_cluster  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"
BOTS = [str(SAMPLES / "random"), str(SAMPLES / "heuristic"), str(SAMPLES / "cautious")]
GAMES = 4
TOTAL = 3 * GAMES * 2


class _HoldUntilJoined(QuietReporter):
    """After the first result, holds the run (no new match handed out) until the executor has
    placed a worker on a second node, so the joined node has matches left to play."""

    def __init__(self, made: list[Any], joined: threading.Event) -> None:
        self.made = made
        self.joined = joined
        self.first = threading.Event()

    def match_done(self, game: Any) -> None:
        self.first.set()
        if self.joined.is_set():
            return
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if len({w["node_id"] for w in self.made[0].workers() if w["alive"]}) >= 2:
                self.joined.set()
                return
            time.sleep(0.2)


def test_a_node_that_joins_mid_run_gets_matches(tmp_path: Path) -> None:
    cluster = local_cluster(1, cpus_per_node=2, object_store_mb=100)
    before = set(descendants(os.getpid()))
    try:
        url = f"sqlite:///{tmp_path / 'join.db'}"
        factory, made = ray_executor_factory(cluster.address)
        with Store.open(url) as store:
            tid = create_tournament(store, TournamentSettings(
                bots=BOTS, games=GAMES, concurrency=1, seed=5, move_timeout_ms=10000,
                rules=RuleSet(max_hands=3),
            ))  # fmt: skip
        joined = threading.Event()
        reporter = _HoldUntilJoined(made, joined)
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                with Store.open(url) as store:
                    outcome["standings"] = run_tournament(
                        store, tid, reporter=reporter, executor=factory
                    )
            except BaseException as exc:  # reported below
                outcome["error"] = exc

        runner = threading.Thread(target=run)
        runner.start()
        assert reporter.first.wait(240), "the first match never finished"
        add_local_node(cluster, cpus=2)
        runner.join(600)
        assert not runner.is_alive(), "the run did not finish"
        assert "error" not in outcome, outcome.get("error")
        assert joined.is_set(), "no worker was placed on the node that joined"
        assert outcome["standings"].played == TOTAL
        counts = made[0].node_counts()
        assert len(counts) == 2, counts
        head = cluster.head_node.node_id
        new = [c for c in counts if c["node_id"] != head]
        assert new and new[0]["matches"] > 0, counts
        assert sum(c["matches"] for c in counts) == TOTAL
    finally:
        stop_local_cluster(cluster)
        signal_pids(sorted(set(descendants(os.getpid())) - before), signal.SIGKILL)
