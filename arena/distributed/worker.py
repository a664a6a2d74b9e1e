"""The worker actor: one per node slot, holding its own bot processes and playing the matches
the coordinator gives it with the same referee, clock and fault policy as a local run.

A worker records nothing: each ``play`` returns the match's result to the coordinator, the only
writer of results. Its bots run under the runtime's supervisor (``arena.runtime.start_bot``, the
same public entry point a local run uses), so when the worker's process dies, with its node or
alone, its bots' process trees are killed with it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from arena.distributed.archives import default_cache_root, node_bot_dir
from arena.referee import MatchResult
from arena.tournament.execution import MatchJob, play_game
from arena.tournament.runner import TournamentConfig
from arena.tournament.workers import BotPool


def _fetch(ref: Any) -> bytes:
    """The bytes of an archive sent as an object ref."""
    import ray

    data: bytes = ray.get(ref)
    return data


class MatchWorker:
    """Plays matches on its node. Methods are called concurrently (a threaded actor)."""

    def __init__(self, cache_root: str | None = None) -> None:
        import ray

        self.node_id: str = ray.get_runtime_context().get_node_id()
        root = Path(cache_root) if cache_root else default_cache_root()
        # One folder per node: two nodes sharing a file system (or a machine) never share one.
        self._cache = root / self.node_id[:16]
        self._config: TournamentConfig | None = None
        self._pool: BotPool | None = None
        self._threads = ThreadPoolExecutor(max_workers=8, thread_name_prefix="bot-start")
        self._aborts: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._aborted = False

    def info(self) -> dict[str, Any]:
        """Where this worker runs (the coordinator's per-node counts, the tests' process checks)."""
        import ray

        return {
            "node_id": self.node_id,
            "address": ray.util.get_node_ip_address(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
        }

    def prepare(
        self, config: TournamentConfig, needed: list[int], archives: dict[str, Any]
    ) -> dict[int, str]:
        """Fetch, check and unpack the bots ``needed`` (archives by content hash, as object
        refs), then start them; the bots that cannot start, with why. Raises
        ArchiveMismatchError, before anything runs, for a bot that is not what it was sent as."""

        entrants = list(config.entrants)
        for i in needed:
            e = entrants[i]
            ref = archives[e.content_hash]
            directory = node_bot_dir(
                self._cache, e.name, e.content_hash, functools.partial(_fetch, ref)
            )
            entrants[i] = dataclasses.replace(e, source=str(directory))
        self._config = dataclasses.replace(config, entrants=entrants)
        self._pool = BotPool(entrants, bot_seed=config.bot_seed)
        self._pool.start(needed)  # each bot on a thread of its own; wait for all to settle
        while not all(self._pool.ready(i) for i in needed):
            time.sleep(0.05)
        return dict(self._pool.failed_to_start())

    def play(self, job: MatchJob) -> tuple[MatchResult | None, list[tuple[int, str]]]:
        """Play one match; its result and the bots given up on since the last call."""
        assert self._pool is not None and self._config is not None, "prepare() first"
        abort = threading.Event()
        with self._lock:
            if self._aborted:
                return None, []
            self._aborts[job.match_id] = abort
        try:
            result = play_game(self._pool, self._config, job, abort)
        finally:
            with self._lock:
                self._aborts.pop(job.match_id, None)
        return result, self._pool.given_up()

    def abort(self) -> None:
        """Cut short every match in play (they end ABORTED, which is not recorded as played)."""
        with self._lock:
            self._aborted = True
            events = list(self._aborts.values())
        for event in events:
            event.set()

    def close(self) -> None:
        """Stop the bot processes."""
        self.abort()
        if self._pool is not None:
            self._pool.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)
