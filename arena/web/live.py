"""Live tournament pages: one poller per server, one update per new result, fanned out to every
viewer as a server-sent event.

The tournament may be played by any process writing to the same database (``arena tournament
run``, or ``arena serve``'s runner), so the web learns of results by reading the store. However
many viewers a tournament has, the server reads the store once per interval for it (a count and
the highest sequence of its matches, from an index) and, when a match was added, builds the
update once (the new match rows, progress, standings) and hands the same bytes to every viewer's
queue. A slow viewer whose queue is full is dropped; its browser reconnects and reloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread

from arena.store import NotFoundError, Store

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.5
HEARTBEAT_S = 15.0
QUEUE_SIZE = 64

UpdateBuilder = Callable[[int, list[int]], dict[str, Any]]
"""(tournament id, new match sequences) -> the update's JSON data (built once for all)."""


@dataclass
class _Watched:
    viewers: set[asyncio.Queue[bytes | None]] = field(default_factory=set)
    seen: set[int] | None = None
    state: tuple[str, int, int] | None = None
    ready: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by the first viewer while it reads what has been played (the others wait)."""


class LiveHub:
    def __init__(
        self, store: Store, build_update: UpdateBuilder, interval_s: float = POLL_INTERVAL_S
    ) -> None:
        self._store = store
        self._build = build_update
        self._interval = interval_s
        self._watched: dict[int, _Watched] = {}
        self._task: asyncio.Task[None] | None = None
        self.updates_sent = 0
        """Updates built (each one reaches every viewer of its tournament)."""

    def viewers(self, tournament_id: int | None = None) -> int:
        if tournament_id is not None:
            w = self._watched.get(tournament_id)
            return 0 if w is None else len(w.viewers)
        return sum(len(w.viewers) for w in self._watched.values())

    async def stream(self, tournament_id: int) -> AsyncIterator[bytes]:
        """The event stream of one viewer, until it goes away or the server stops."""
        queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_SIZE)
        watched = self._watched.setdefault(tournament_id, _Watched())
        async with watched.ready:
            if watched.seen is None:
                watched.state = await anyio.to_thread.run_sync(
                    self._store.tournament_match_state, tournament_id
                )
                watched.seen = await anyio.to_thread.run_sync(
                    self._store.tournament_match_sequences, tournament_id
                )
        watched.viewers.add(queue)
        self._ensure_polling()
        try:
            yield b"retry: 2000\n: connected\n\n"
            while True:
                try:
                    # A timeout scope, not wait_for: no task is made for each event.
                    async with asyncio.timeout(HEARTBEAT_S):
                        item = await queue.get()
                except TimeoutError:
                    yield b": heartbeat\n\n"
                    continue
                if item is None:
                    return
                yield item
        finally:
            watched.viewers.discard(queue)
            if not watched.viewers:
                self._watched.pop(tournament_id, None)

    def _ensure_polling(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._poll())

    async def close(self) -> None:
        for w in self._watched.values():
            for q in list(w.viewers):
                with contextlib.suppress(asyncio.QueueFull):
                    q.put_nowait(None)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _poll(self) -> None:
        while self._watched:
            await asyncio.sleep(self._interval)
            for tid, watched in list(self._watched.items()):
                try:
                    await self._check(tid, watched)
                except NotFoundError:
                    continue
                except Exception:  # a passing database error must not end the live pages
                    log.exception("live update of tournament %s failed", tid)

    async def _check(self, tid: int, watched: _Watched) -> None:
        state = await anyio.to_thread.run_sync(self._store.tournament_match_state, tid)
        if state == watched.state:
            return
        seqs = await anyio.to_thread.run_sync(self._store.tournament_match_sequences, tid)
        new = sorted(seqs - (watched.seen or set()))
        watched.seen = seqs
        watched.state = state
        data = await anyio.to_thread.run_sync(self._build, tid, new)
        payload = f"event: update\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
        self.updates_sent += 1
        for q in list(watched.viewers):
            try:
                q.put_nowait(payload)
            except asyncio.QueueFull:
                # Too far behind: end its stream (the browser reconnects and catches up).
                watched.viewers.discard(q)
                while not q.empty():
                    q.get_nowait()
                q.put_nowait(None)
