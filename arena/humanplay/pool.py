"""Opponents' bot processes, shared by every table of a web server.

A bot process serves many matches at once (the bot protocol names the match in every request),
so a person's table does not start a process of its own: it leases one from its opponent's pool
for the match and gives it back at the end. Starting a process per table cost more than the
match (hundreds of tables starved the machine: process start-up, not play).

Fair play (``arena.tournament.lanes``): a process must never play both seatings of one deal, nor
one seating twice. A person's table and its "beat the bot" twin play the same deal, so the pool
keeps *lanes*: the opponent of the person's match plays on lane 0, the opponent of the twin on
lane 1, and the reference bot (in the person's seat) on lane 0, or on lane 2 when it is the
opponent bot itself. Lanes share no process. Each table's deal seed is its own, so the tables
sharing a lane's process never share a deal.

A process is not told any table's deal seed: it gets a bot seed of its own (``ARENA_BOT_SEED``,
63 random bits), as a tournament's bots do.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from arena.runtime import BotManifest, bot_content_hash, load_manifest, start_bot
from arena.tournament.workers import with_bot_seed

__all__ = ["BotPool", "Lease", "twin_lanes"]

OPPONENT_LANE = 0
TWIN_OPPONENT_LANE = 1


def twin_lanes(reference: Path, opponent: Path) -> tuple[int, int]:
    """The lanes of a twin match: (the reference bot's, the opponent's). The person's match has
    the opponent on lane 0; the twin plays the same deal, so its opponent (same seat) takes
    lane 1, and the reference bot (the person's seat) lane 0, or lane 2 when it is the opponent
    bot too (lane 0 of that bot plays the other seating of this deal)."""
    same = reference.resolve() == opponent.resolve()
    return (2 if same else OPPONENT_LANE), TWIN_OPPONENT_LANE


@dataclass
class _Process:
    bot: Any
    """A ``RunningBot``."""
    matches: int = 0
    """Matches it plays now."""


@dataclass
class _Lane:
    processes: list[_Process] = field(default_factory=list)
    starting: int = 0
    """Processes being started now (outside the pool's lock)."""


class Lease:
    """One match's use of a pooled process: a bot connection (``name``, ``channel``,
    ``target``, ``alive()``) for the referee; ``release()`` gives it back."""

    __slots__ = ("_pool", "_proc", "_released", "name")

    def __init__(self, pool: BotPool, proc: _Process) -> None:
        self._pool = pool
        self._proc = proc
        self._released = False
        self.name: str = proc.bot.name

    @property
    def channel(self) -> grpc.Channel:
        return self._proc.bot.channel

    @property
    def target(self) -> str | None:
        """The bot's gRPC target, where the referee opens its sessions (``grpc.aio``)."""
        return getattr(self._proc.bot, "target", None)

    def alive(self) -> bool:
        return bool(self._proc.bot.alive())

    @property
    def returncode(self) -> int | None:
        return getattr(self._proc.bot, "returncode", None)

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._pool._release(self._proc)


class BotPool:
    """Bot processes by (bot folder, lane), each serving up to ``matches_per_process`` matches
    at once; a process is started when every one of its lane is full, and a dead one is
    replaced at the next lease. ``close()`` stops them all."""

    def __init__(self, *, sandbox: str | None = None, matches_per_process: int = 64) -> None:
        if matches_per_process < 1:
            raise ValueError("a process serves at least one match")
        self.sandbox = sandbox
        self.matches_per_process = matches_per_process
        self._lanes: dict[tuple[Path, int], _Lane] = {}
        self._manifests: dict[Path, tuple[BotManifest, str]] = {}
        self._lock = threading.Condition()
        self._closed = False
        self.started = 0
        """Processes started so far (a figure for the benchmark and the tests)."""

    def manifest(self, directory: Path) -> tuple[BotManifest, str]:
        """The bot's manifest and content hash, read once per folder (``ManifestError``)."""
        key = directory.resolve()
        with self._lock:
            known = self._manifests.get(key)
        if known is None:
            known = (load_manifest(key), bot_content_hash(key))
            with self._lock:
                self._manifests.setdefault(key, known)
        return known

    def lease(self, directory: Path, lane: int, cancel: threading.Event | None = None) -> Lease:
        """A process of this bot on this lane with room for one more match, started if need
        be (``BotStartError`` when it cannot start)."""
        key = (directory.resolve(), lane)
        manifest, _ = self.manifest(directory)
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            state = self._lanes.setdefault(key, _Lane())
            while True:
                for p in [p for p in state.processes if not p.bot.alive()]:
                    state.processes.remove(p)
                    if p.matches == 0:
                        p.bot.stop()
                room = [p for p in state.processes if p.matches < self.matches_per_process]
                if room:
                    proc = min(room, key=lambda p: p.matches)
                    proc.matches += 1
                    return Lease(self, proc)
                if state.starting == 0:
                    state.starting += 1
                    break
                # Another table starts this lane's next process: wait for it, not start two.
                self._lock.wait(1.0)
        try:
            seeded = with_bot_seed(manifest, secrets.randbits(63))
            bot = start_bot(seeded, sandbox=self.sandbox, cancel=cancel)
        except BaseException:
            with self._lock:
                state.starting -= 1
                self._lock.notify_all()
            raise
        proc = _Process(bot, matches=1)
        with self._lock:
            state.starting -= 1
            self.started += 1
            if self._closed:
                bot.stop()
                raise RuntimeError("the bot pool is closed")
            state.processes.append(proc)
            self._lock.notify_all()
        return Lease(self, proc)

    def _release(self, proc: _Process) -> None:
        with self._lock:
            proc.matches -= 1
            dead = not proc.bot.alive() and proc.matches == 0
            self._lock.notify_all()
        if dead:
            proc.bot.stop()

    def processes(self) -> int:
        """Processes running now, over all bots and lanes."""
        with self._lock:
            return sum(len(s.processes) for s in self._lanes.values())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            procs = [p for s in self._lanes.values() for p in s.processes]
            self._lanes.clear()
            self._lock.notify_all()
        for p in procs:
            p.bot.stop()
