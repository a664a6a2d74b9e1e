"""Tournaments on a real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``,
every node on the loopback interface): the same results as a local run, matches played again
when a node dies, resume after the coordinator is killed, and archives checked on the node."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.runtime.supervisor import descendants, process_table
from arena.store import GameStatus, Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.tournament.progress import QuietReporter

ray = pytest.importorskip("ray", reason="needs the ray extra (pip install 'spades-arena[ray]')")

from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

from arena.distributed import ray_executor_factory  # noqa: E402
from arena.distributed.archives import ArchiveMismatchError, pack_bot  # noqa: E402
from arena.distributed.cluster import connect, local_cluster, stop_local_cluster  # noqa: E402
from arena.distributed.worker import MatchWorker  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
# Seeded, fast bots (see test_tournament_resume.py); three hands a match keeps a match short.
BOTS = [str(SAMPLES / "random"), str(SAMPLES / "heuristic"), str(SAMPLES / "cautious")]
GAMES, SEED, MAX_HANDS = 3, 31, 3
TOTAL = 3 * GAMES * 2
CLI_ARGS = [
    *BOTS,
    "-n",
    str(GAMES),
    "--seed",
    str(SEED),
    "-k",
    "2",
    "--move-timeout",
    "10000",
    "--max-hands",
    str(MAX_HANDS),
]


def settings() -> TournamentSettings:
    from arena.rules.ruleset import RuleSet

    return TournamentSettings(
        bots=BOTS,
        games=GAMES,
        concurrency=2,
        seed=SEED,
        move_timeout_ms=10000,
        rules=RuleSet(max_hands=MAX_HANDS),
    )


def outcomes(url: str, tournament_id: int = 1) -> list[tuple[Any, ...]]:
    """Every recorded match, as comparable facts, decisions included (times left out)."""
    with Store.open(url) as store:
        matches = store.list_matches(tournament_id=tournament_id)
        games = store.tournament_games(tournament_id)
        actions = {
            m.match_id: tuple(
                (d.seat, d.decision.value, str(d.action), d.fault)
                for d in store.get_match(m.match_id).result.decisions
            )
            for m in matches
        }
    ordinal = {g.id: g.ordinal for g in games}
    return sorted(
        (
            ordinal[m.tournament_game_id],
            m.match_id,
            m.seed,
            m.seat_versions,
            m.winner,
            m.scores,
            m.hands_played,
            m.termination.value,
            actions[m.match_id],
        )
        for m in matches
    )


def report(url: str, tournament_id: int = 1) -> dict[str, Any]:
    from arena.cli.tournament_format import to_json
    from arena.tournament import tournament_standings

    with Store.open(url) as store:
        info, config, standings = tournament_standings(store, tournament_id)
    out = to_json(info, config, standings)
    return {"leaderboard": out["leaderboard"], "head_to_head": out["head_to_head"]}


def arena_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def raylet_pid(node: Any) -> int:
    return int(node.all_processes["raylet"][0].process.pid)


def bot_processes(root_pids: list[int]) -> list[int]:
    """The bot supervisors and everything below them, under these processes."""
    out = []
    for root in root_pids:
        for pid in descendants(root):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"arena/runtime/supervisor.py" in cmd:
                out += [pid, *descendants(pid)]
    return out


def wait_gone(pids: list[int], limit: float = 30.0) -> list[int]:
    deadline = time.monotonic() + limit
    while True:
        table = process_table()
        alive = [p for p in pids if p in table and table[p][2]]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # The nodes' workers inherit it: their unpacked bots go with the test's temporary files.
    old = os.environ.get("ARENA_RAY_BOT_DIR")
    os.environ["ARENA_RAY_BOT_DIR"] = str(tmp_path_factory.mktemp("ray-bots"))
    c = local_cluster(2, cpus_per_node=2, object_store_mb=100)
    try:
        connect(c.address)
        yield c
    finally:
        stop_local_cluster(c)
        if old is None:
            os.environ.pop("ARENA_RAY_BOT_DIR", None)
        else:
            os.environ["ARENA_RAY_BOT_DIR"] = old


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[Any], dict[str, Any]]:
    """The same tournament played locally (no Ray), the result to match."""
    url = f"sqlite:///{tmp_path_factory.mktemp('local') / 'local.db'}"
    with Store.open(url) as store:
        tid = create_tournament(store, settings())
        run_tournament(store, tid)
    got = outcomes(url)
    assert len(got) == TOTAL
    return url, got, report(url)


def test_same_results_as_local_run(cluster: Any, reference: Any, tmp_path: Path) -> None:
    _, local, local_report = reference
    url = f"sqlite:///{tmp_path / 'ray.db'}"
    factory, made = ray_executor_factory(cluster.address)
    with Store.open(url) as store:
        tid = create_tournament(store, settings())
        run_tournament(store, tid, executor=factory)
    assert outcomes(url) == local
    assert report(url) == local_report
    nodes = made[0].node_counts()
    assert len(nodes) == 2, nodes  # one worker on each node, and both played
    assert all(n["workers"] == 1 and n["matches"] > 0 for n in nodes), nodes
    assert sum(n["matches"] for n in nodes) == TOTAL
    assert all(n["lost"] == 0 for n in nodes)


def test_no_process_on_any_worker_plays_a_deal_twice(cluster: Any, tmp_path: Path) -> None:
    """Twin lanes on the cluster: the coordinator fixes each game's lanes and a worker plays it
    in its own processes of those lanes, so the bot that remembers every card it is offered
    (tests/test_twin_lanes.py) meets no deal again, on either node."""
    from test_twin_lanes import HOSTILE, check_played

    from arena.rules.ruleset import RuleSet

    url = f"sqlite:///{tmp_path / 'lanes.db'}"
    factory, made = ray_executor_factory(cluster.address)
    with Store.open(url) as store:
        tid = create_tournament(
            store,
            TournamentSettings(
                bots=[str(HOSTILE), BOTS[0], BOTS[2]], games=2, concurrency=2, seed=9,
                move_timeout_ms=10000, rules=RuleSet(max_hands=MAX_HANDS),
            ),
        )  # fmt: skip
        run_tournament(store, tid, executor=factory)
        check_played(store.list_matches(tournament_id=tid), 12)
    assert all(n["matches"] > 0 for n in made[0].node_counts())


def test_archive_hash_mismatch_is_refused_on_the_node(cluster: Any, tmp_path: Path) -> None:
    from arena.tournament.runner import load_config

    url = f"sqlite:///{tmp_path / 'db.db'}"
    with Store.open(url) as store:
        tid = create_tournament(store, settings())
        _, config = load_config(store, tid)
    cache = tmp_path / "node-cache"
    worker = ray.remote(MatchWorker).options(max_concurrency=4).remote(str(cache))
    info = ray.get(worker.info.remote())
    random_bot = config.entrants[0]
    assert random_bot.name == "random"
    # The random bot's hash, with another bot's archive: refused before anything runs.
    wrong = ray.put(pack_bot(SAMPLES / "heuristic"))
    with pytest.raises(ray.exceptions.RayTaskError) as caught:
        ray.get(worker.prepare.remote(config, [0], {random_bot.content_hash: wrong}))
    assert isinstance(caught.value.cause, ArchiveMismatchError)
    assert "refused" in str(caught.value.cause)
    node_dir = cache / info["node_id"][:16]
    assert not (node_dir / random_bot.content_hash).exists()
    assert [p.name for p in node_dir.iterdir()] == []  # the scratch copy is gone too
    assert bot_processes([info["pid"]]) == []
    # The right archive is accepted and unpacked; a copy on the node changed since is refused.
    right = ray.put(pack_bot(SAMPLES / "random"))
    assert ray.get(worker.prepare.remote(config, [0], {random_bot.content_hash: right})) == {}
    unpacked = node_dir / random_bot.content_hash
    assert (unpacked / "bot.toml").is_file()
    ray.get(worker.close.remote())
    (unpacked / "bot.py").write_text("print('not the random bot')\n")
    # Another worker on the same node (another node has a folder of its own).
    same_node = NodeAffinitySchedulingStrategy(info["node_id"], soft=False)
    other = ray.remote(MatchWorker).options(scheduling_strategy=same_node).remote(str(cache))
    with pytest.raises(ray.exceptions.RayTaskError) as caught:
        ray.get(other.prepare.remote(config, [0], {random_bot.content_hash: right}))
    assert isinstance(caught.value.cause, ArchiveMismatchError)
    for w in (worker, other):
        ray.kill(w)


def test_coordinator_sigkill_then_resume(cluster: Any, reference: Any, tmp_path: Path) -> None:
    _, local, local_report = reference
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    env = {**os.environ}
    proc = subprocess.Popen(
        arena_cmd("tournament", "run", *CLI_ARGS, "--db", url, "--json", "--ray", cluster.address),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    raylets = [raylet_pid(cluster.head_node), *(raylet_pid(n) for n in cluster.worker_nodes)]
    deadline = time.monotonic() + 240
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            done = len(outcomes(url))
        except Exception:  # not created yet
            done = 0
        if done >= 3:
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    assert 3 <= done < TOTAL
    bots = bot_processes(raylets)
    assert bots, "the workers' bot processes should be running"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if proc.stderr:
        proc.stderr.close()
    # The dead coordinator's workers go, and their bots with them.
    assert wait_gone(bots, limit=60) == []
    done = len(outcomes(url))  # a match may have been recorded after the count above

    resumed = subprocess.run(
        arena_cmd("tournament", "resume", "1", "--db", url, "--json", "--ray", cluster.address),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert outcomes(url) == local
    assert {"leaderboard": out["leaderboard"], "head_to_head": out["head_to_head"]} == local_report
    # The resumed run played the rest, on both nodes, and says so per node.
    assert sum(n["matches"] for n in out["nodes"]) == TOTAL - done
    assert len(out["nodes"]) == 2
    with Store.open(url) as store:
        assert all(g.status is GameStatus.DONE for g in store.tournament_games(1))


class _KillAfter(QuietReporter):
    def __init__(self, after: int) -> None:
        self.after, self.done, self.reached = after, 0, threading.Event()

    def match_done(self, game: Any) -> None:
        self.done += 1
        if self.done >= self.after:
            self.reached.set()


def test_the_service_plays_its_tournaments_on_the_cluster(
    cluster: Any, reference: Any, tmp_path: Path
) -> None:
    """``arena serve --ray ADDRESS``: a tournament started through the service is played by the
    cluster's nodes (its bots run under their raylets, none under the server), with the same
    results as the local run."""
    from test_service import ArenaProcess, make_admin_token

    from arena._gen.arena.v1 import arena_pb2 as pb
    from arena.bot_protocol.messages import ruleset_to_pb
    from arena.rules import RuleSet
    from arena.service.client import ArenaClient

    _, local, local_report = reference
    db = tmp_path / "served.db"
    token = make_admin_token(db, "organiser")  # an admin may pick the seed
    server = ArenaProcess(db, "--ray", cluster.address)
    raylets = [raylet_pid(node) for node in cluster.list_all_nodes()]
    on_nodes = under_server = 0
    events: list[Any] = []
    try:
        with ArenaClient(server.address, token=token) as client:
            started = client.start_tournament(
                ["random", "heuristic", "cautious"], games=GAMES, concurrency=2, seed=SEED,
                move_timeout_ms=10000, rules=ruleset_to_pb(RuleSet(max_hands=MAX_HANDS)),
            )  # fmt: skip
            watch = threading.Thread(
                target=lambda: events.extend(client.watch_tournament(started.id)), daemon=True
            )
            watch.start()
            deadline = time.monotonic() + 300
            while watch.is_alive():
                assert time.monotonic() < deadline, "".join(server.lines)
                on_nodes += bool(bot_processes(raylets))
                under_server += bool(bot_processes([server.proc.pid]))
                time.sleep(0.1)
    finally:
        assert server.stop() == 0, "".join(server.lines)
    assert events and events[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED
    assert on_nodes > 0, "no bot ran on the cluster's nodes"
    assert under_server == 0, "bots ran under the server itself"
    assert outcomes(f"sqlite:///{db}", started.id) == local
    assert report(f"sqlite:///{db}", started.id) == local_report


def test_node_killed_mid_tournament(cluster: Any, reference: Any, tmp_path: Path) -> None:
    """Last in this module: it takes the second node away."""
    _, local, local_report = reference
    url = f"sqlite:///{tmp_path / 'node-killed.db'}"
    factory, made = ray_executor_factory(cluster.address)
    reporter = _KillAfter(3)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with Store.open(url) as store:
                tid = create_tournament(store, settings())
                run_tournament(store, tid, executor=factory, reporter=reporter)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert reporter.reached.wait(240), errors
    victim = (
        cluster.worker_nodes[0]
        if isinstance(cluster.worker_nodes, list)
        else next(iter(cluster.worker_nodes))
    )
    # Killed with a match in play there: the match that reached the count may have been the
    # node's last one, and its next not yet given to it.
    deadline = time.monotonic() + 60
    while not any(w["node_id"] == victim.node_id and w["in_play"] for w in made[0].workers()):
        assert time.monotonic() < deadline, made[0].workers()
        time.sleep(0.005)
    bots = bot_processes([raylet_pid(victim)])
    assert bots, "the second node's worker should be running bots"
    # A node's death takes all of its processes at once. Removing the node kills its raylet,
    # but its worker can outlive the raylet by a moment (it answers its caller directly) and,
    # on a loaded machine, finish the matches it had: so its worker is killed first, with them.
    (worker_pid,) = [w["pid"] for w in made[0].workers() if w["node_id"] == victim.node_id]
    os.kill(worker_pid, signal.SIGKILL)
    cluster.remove_node(victim, allow_graceful=False)
    thread.join(300)
    assert not thread.is_alive()
    assert errors == []
    assert wait_gone(bots) == [], "bot processes outlived their node"

    # Nothing lost, nothing doubled: every game recorded once, as in the local run.
    assert outcomes(url) == local
    assert report(url) == local_report
    nodes = {n["node_id"]: n for n in made[0].node_counts()}
    killed = nodes[victim.node_id]
    assert killed["lost"] >= 1, nodes  # it died with matches in play, played again elsewhere
    assert sum(n["matches"] for n in nodes.values()) == TOTAL
    assert made[0].replayed == killed["lost"]
