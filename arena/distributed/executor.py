"""The tournament's matches on a Ray cluster: a ``MatchExecutor`` for the tournament runner.

One worker actor per node slot (a slot is ``worker_cpus`` CPUs of a node, reserved for the
actor, which is pinned to its node), each playing up to K matches at once. The coordinator (the
process running the tournament) ships each bot version's archive once through the object store,
hands out matches, gets the results back and, as in a local run, alone records them.

Exactly once: a worker is never restarted and Ray never retries its tasks (``max_restarts=0``,
``max_task_retries=0``). When a worker dies (its process, or its node), every match it had in play
fails here with ``RayActorError``; each is handed whole to another worker and played again from
scratch under the same match id, so a partial match is never recorded. A result that arrived twice
would still be recorded once: the store refuses a second record of a game.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import (
    GetTimeoutError,
    ObjectLostError,
    OwnerDiedError,
    RayActorError,
    RayTaskError,
)
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from arena.distributed.archives import pack_bot
from arena.distributed.worker import MatchWorker
from arena.errors import ArenaError
from arena.referee import MatchResult
from arena.tournament.execution import MatchJob, TournamentConfig

log = logging.getLogger(__name__)

DEFAULT_WORKER_CPUS = 2.0
START_TIMEOUT_S = 300.0
"""How long workers may take to be placed, fetch their bots and start them."""
CLOSE_TIMEOUT_S = 15.0
JOIN_POLL_S = 2.0
"""How often the coordinator looks for nodes that joined the cluster during the run."""


@dataclass
class _Worker:
    handle: Any
    node_id: str = ""
    address: str = ""
    pid: int = 0
    in_play: int = 0
    alive: bool = True


@dataclass
class NodeCount:
    """What one node did in this run: its workers, the matches it played, the ones it lost."""

    node_id: str
    address: str
    workers: int = 0
    matches: int = 0
    lost: int = 0
    """Matches in play when its worker died, played again elsewhere."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "address": self.address,
            "workers": self.workers,
            "matches": self.matches,
            "lost": self.lost,
        }


@dataclass
class _Stats:
    nodes: dict[str, NodeCount] = field(default_factory=dict)
    replayed: int = 0


def worker_slots(nodes: list[dict[str, Any]], worker_cpus: float) -> list[tuple[str, str]]:
    """(node id, address) once per slot of every live node: ``CPU // worker_cpus`` each."""
    slots = []
    for node in sorted(nodes, key=lambda n: n["NodeID"]):
        if not node.get("Alive"):
            continue
        cpus = float(node.get("Resources", {}).get("CPU", 0))
        slots += [(node["NodeID"], node["NodeManagerAddress"])] * int(cpus // worker_cpus)
    return slots


class RayExecutor:
    """Plays a run's matches on the cluster ``ray`` is connected to (``connect`` first)."""

    def __init__(
        self,
        concurrency: int,
        stop: threading.Event,
        *,
        worker_cpus: float = DEFAULT_WORKER_CPUS,
        cache_root: str | None = None,
        start_timeout: float = START_TIMEOUT_S,
        simulate: tuple[Any, tuple[Any, ...], int] | None = None,
    ) -> None:
        if worker_cpus <= 0:
            raise ArenaError(f"--ray-worker-cpus must be positive, got {worker_cpus}")
        self._k = concurrency
        self._stop = stop
        self._abort = threading.Event()
        self._worker_cpus = worker_cpus
        self._cache_root = cache_root
        self._start_timeout = start_timeout
        self._workers: list[_Worker] = []
        self._queue: collections.deque[tuple[MatchJob, Future[MatchResult | None]]] = (
            collections.deque()
        )
        self._lock = threading.Lock()
        self._given_up: dict[int, str] = {}
        self._given_up_new: list[int] = []
        self._stats = _Stats()
        self._archives: dict[str, Any] = {}
        self._closed = threading.Event()
        self._config: TournamentConfig | None = None
        self._needed: list[int] = []
        self._placed_nodes: set[str] = set()
        self._simulate = simulate
        """(actor class, its arguments, actors): the benchmark's simulated nodes
        (``arena.distributed.simulated``) in place of match workers, all on the head's node."""

    # -- the MatchExecutor interface -----------------------------------------------------------

    def start(
        self, config: TournamentConfig, needed: list[int], abort: threading.Event
    ) -> dict[int, str]:
        self._abort = abort
        slots = worker_slots(ray.nodes(), self._worker_cpus)
        if self._simulate is not None:
            slots = slots[:1] * self._simulate[2]
        if not slots:
            raise ArenaError(
                f"the Ray cluster has no node with {self._worker_cpus:g} CPUs free for a worker "
                "(--ray-worker-cpus)"
            )
        self._config, self._needed = config, list(needed)
        for node_id, address in slots:
            self._workers.append(self._place(node_id, address))
            self._placed_nodes.add(node_id)
        # Each bot version once into the object store; a worker fetches only what its node lacks.
        for i in needed:
            e = config.entrants[i]
            self._archives[e.content_hash] = ray.put(pack_bot(e.source))
        failures: dict[int, str] = {}
        refs = {w.handle.prepare.remote(config, needed, self._archives): w for w in self._workers}
        infos = [w.handle.info.remote() for w in self._workers]
        try:
            for w, info in zip(
                self._workers, ray.get(infos, timeout=self._start_timeout), strict=True
            ):
                w.pid, w.address = info["pid"], info["address"]
            for ref, w in refs.items():
                try:
                    reasons = ray.get(ref, timeout=self._start_timeout)
                except RayActorError:
                    w.alive = False
                    continue
                for i, reason in reasons.items():
                    failures.setdefault(i, reason)
        except RayTaskError as exc:
            # ArchiveMismatchError (a bot refused on a node) and the arena's other errors.
            if isinstance(exc.cause, ArenaError):
                raise ArenaError(str(exc.cause)) from None
            raise
        except GetTimeoutError:
            raise ArenaError(
                f"the Ray workers were not ready within {self._start_timeout:g} s (placed on "
                "their nodes, bots fetched and started)"
            ) from None
        alive = [w for w in self._workers if w.alive]
        if not alive:
            raise ArenaError("every Ray worker died while starting")
        for w in alive:
            count = self._stats.nodes.setdefault(w.node_id, NodeCount(w.node_id, w.address))
            count.workers += 1
        threading.Thread(target=self._watch_abort, name="ray-abort", daemon=True).start()
        if self._simulate is None:
            threading.Thread(target=self._watch_joins, name="ray-joins", daemon=True).start()
        return failures

    def _place(self, node_id: str, address: str) -> _Worker:
        if self._simulate is not None:
            cls, args, _ = self._simulate
            handle = ray.remote(cls).options(
                num_cpus=0, max_restarts=0, max_task_retries=0, max_concurrency=self._k + 4,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(*args)  # fmt: skip
            return _Worker(handle, node_id, address)
        handle = (
            ray.remote(MatchWorker)
            .options(
                num_cpus=self._worker_cpus,
                max_restarts=0,
                max_task_retries=0,
                max_concurrency=self._k + 4,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            )
            .remote(self._cache_root)
        )
        return _Worker(handle, node_id, address)

    def _watch_joins(self) -> None:
        """Nodes that join the cluster while the run plays get workers too: placed, prepared
        (bots fetched, checked and started as at the start), then handed matches."""
        while not self._closed.wait(JOIN_POLL_S):
            if self._stop.is_set() or self._abort.is_set():
                return
            try:
                nodes = ray.nodes()
            except Exception as exc:  # the cluster's state service briefly out of reach
                log.warning("could not list the Ray cluster's nodes: %s", exc)
                continue
            fresh = [
                (node_id, address)
                for node_id, address in worker_slots(nodes, self._worker_cpus)
                if node_id not in self._placed_nodes
            ]
            for node_id in {n for n, _ in fresh}:
                self._placed_nodes.add(node_id)
            for node_id, address in fresh:
                if self._closed.is_set():
                    return
                self._join(node_id, address)

    def _join(self, node_id: str, address: str) -> None:
        assert self._config is not None
        w = self._place(node_id, address)
        try:
            info = ray.get(w.handle.info.remote(), timeout=self._start_timeout)
            failures = ray.get(
                w.handle.prepare.remote(self._config, self._needed, self._archives),
                timeout=self._start_timeout,
            )
        except (RayActorError, RayTaskError, GetTimeoutError) as exc:
            log.warning("Ray node %s joined but its worker did not start: %s", address, exc)
            with contextlib.suppress(Exception):
                ray.kill(w.handle, no_restart=True)
            return
        if failures:
            # A bot that starts on the other nodes but not here: this node plays nothing.
            log.warning(
                "Ray node %s joined but left out: %s",
                address,
                "; ".join(f"{self._config.entrants[i].name}: {why}" for i, why in failures.items()),
            )
            with contextlib.suppress(Exception):
                ray.get(w.handle.close.remote(), timeout=CLOSE_TIMEOUT_S)
            ray.kill(w.handle, no_restart=True)
            return
        w.pid, w.address = info["pid"], info["address"]
        with self._lock:
            if self._closed.is_set():
                closed = True
            else:
                closed = False
                self._workers.append(w)
                count = self._stats.nodes.setdefault(w.node_id, NodeCount(w.node_id, w.address))
                count.workers += 1
        if closed:
            ray.kill(w.handle, no_restart=True)
            return
        log.info("Ray node %s joined the run", address)
        self._dispatch()

    def capacity(self) -> int:
        with self._lock:
            return self._k * sum(w.alive for w in self._workers)

    def submit(self, job: MatchJob) -> Future[MatchResult | None]:
        outer: Future[MatchResult | None] = Future()
        with self._lock:
            self._queue.append((job, outer))
        self._dispatch()
        return outer

    def ready(self, entrant: int, lane: int = 0) -> bool:
        return True  # a worker starts lane 0 before it takes a match, other lanes on demand

    def given_up(self) -> list[tuple[int, str]]:
        with self._lock:
            out, self._given_up_new = self._given_up_new, []
            return [(i, self._given_up[i]) for i in out]

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            workers = [w for w in self._workers if w.alive]
            queued = list(self._queue)
            self._queue.clear()
        for _, outer in queued:
            if not outer.done():
                outer.set_result(None)
        # Let the workers stop their bots; a worker that is gone took its bots with it.
        with contextlib.suppress(RayActorError, GetTimeoutError, RayTaskError):
            ray.get([w.handle.close.remote() for w in workers], timeout=CLOSE_TIMEOUT_S)
        for w in self._workers:
            ray.kill(w.handle, no_restart=True)
        self._archives.clear()

    # -- what the coordinator tells of the run -------------------------------------------------

    def node_counts(self) -> list[dict[str, Any]]:
        with self._lock:
            return [c.to_dict() for c in self._stats.nodes.values()]

    @property
    def replayed(self) -> int:
        return self._stats.replayed

    def workers(self) -> list[dict[str, Any]]:
        """Each worker's node, address, pid, whether it is alive and how many matches it has in
        play (for tests and logs)."""
        with self._lock:
            return [
                {
                    "node_id": w.node_id,
                    "address": w.address,
                    "pid": w.pid,
                    "alive": w.alive,
                    "in_play": w.in_play,
                }
                for w in self._workers
            ]

    # -- dispatching ---------------------------------------------------------------------------

    def _dispatch(self) -> None:
        settle: list[tuple[Future[MatchResult | None], Any]] = []
        with self._lock:
            while self._queue:
                if self._stop.is_set() or self._abort.is_set() or self._closed.is_set():
                    # Not started: the game stays pending.
                    settle += [(outer, None) for _, outer in self._queue]
                    self._queue.clear()
                    break
                alive = [w for w in self._workers if w.alive]
                if not alive:
                    error = ArenaError(
                        "every Ray worker is gone (their nodes died?); the games not recorded "
                        "stay pending: resume the tournament when the cluster is back"
                    )
                    settle += [(outer, error) for _, outer in self._queue]
                    self._queue.clear()
                    break
                free = [w for w in alive if w.in_play < self._k]
                if not free:
                    break
                w = min(free, key=lambda w: w.in_play)
                job, outer = self._queue.popleft()
                w.in_play += 1
                ref = w.handle.play.remote(job)
                ref.future().add_done_callback(
                    lambda fut, w=w, job=job, outer=outer: self._done(w, job, outer, fut)
                )
        for outer, value in settle:
            if isinstance(value, BaseException):
                outer.set_exception(value)
            else:
                outer.set_result(value)

    def _done(
        self, w: _Worker, job: MatchJob, outer: Future[MatchResult | None], fut: Future[Any]
    ) -> None:
        exc = fut.exception()
        settle: tuple[str, Any] | None = None
        with self._lock:
            w.in_play -= 1
            if exc is None:
                result, given_up = fut.result()
                for i, reason in given_up:
                    if i not in self._given_up:
                        self._given_up[i] = reason
                        self._given_up_new.append(i)
                if result is not None:
                    self._stats.nodes[w.node_id].matches += 1
                settle = ("result", result)
            elif isinstance(exc, (RayActorError, ObjectLostError, OwnerDiedError)):
                # The worker (or its node) died with the match in play: nothing of it counts.
                # Play it again, whole, on a worker still alive.
                if isinstance(exc, RayActorError) and w.alive:
                    w.alive = False
                    log.warning("Ray worker on node %s died: %s", w.address, exc)
                self._stats.nodes[w.node_id].lost += 1
                self._stats.replayed += 1
                self._queue.appendleft((job, outer))
            else:
                settle = ("error", exc)
        if settle is not None:
            kind, value = settle
            if kind == "result":
                outer.set_result(value)
            else:
                cause = value.cause if isinstance(value, RayTaskError) else value
                outer.set_exception(cause if isinstance(cause, BaseException) else value)
        self._dispatch()

    def _watch_abort(self) -> None:
        while not self._closed.is_set():
            if self._abort.wait(0.2):
                with self._lock:
                    workers = [w for w in self._workers if w.alive]
                for w in workers:
                    w.handle.abort.remote()
                self._dispatch()
                return


def wait_for_nodes(count: int, timeout: float = 60.0) -> None:
    """Wait until the cluster has ``count`` live nodes (benchmarks and tests)."""
    deadline = time.monotonic() + timeout
    while sum(1 for n in ray.nodes() if n.get("Alive")) < count:
        if time.monotonic() > deadline:
            raise ArenaError(f"the Ray cluster did not reach {count} nodes in {timeout:g} s")
        time.sleep(0.2)
