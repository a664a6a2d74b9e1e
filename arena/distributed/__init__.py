"""Tournaments on many machines: the matches of a run played on a Ray cluster.

Imported only when a run asks for it (``--ray``): nothing else in the arena imports ``ray``.
See docs/distributed.md.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.tournament.execution import MatchExecutor

if TYPE_CHECKING:
    from arena.distributed.executor import RayExecutor


def ray_executor_factory(
    address: str, *, worker_cpus: float | None = None, cache_root: str | None = None
) -> tuple[Callable[[int, threading.Event], MatchExecutor], list[RayExecutor]]:
    """Join the cluster and return (a factory for the runner's ``executor``, the executors it
    made, for their per-node counts once the run is over)."""
    from arena.distributed.cluster import connect
    from arena.distributed.executor import DEFAULT_WORKER_CPUS, RayExecutor

    connect(address)
    made: list[RayExecutor] = []

    def factory(concurrency: int, stop: threading.Event) -> MatchExecutor:
        ex = RayExecutor(
            concurrency,
            stop,
            worker_cpus=DEFAULT_WORKER_CPUS if worker_cpus is None else worker_cpus,
            cache_root=cache_root,
        )
        made.append(ex)
        return ex

    return factory, made
