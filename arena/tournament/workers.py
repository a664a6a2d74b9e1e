"""The bot processes of a tournament run: each started once and shared by all its matches.

A bot process serves many matches at once (the protocol tells them apart by match id), so a
round robin of B bots needs B processes however many matches run at a time. A bot that cannot
start is reported once with its reason and every match it was to play becomes its forfeit; a
bot that dies during the run is restarted for its next match, a few times at most.

The bots start at once, on the match pool's threads (start-up is mostly waiting for a process
to serve). Each runs under the runtime's supervisor, which kills the bot's whole process tree
when the arena goes away, even by SIGKILL (``arena.runtime.supervisor``).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import grpc

from arena.errors import ArenaError
from arena.tournament.entrants import Entrant

MAX_RESTARTS = 3
"""Restarts of a bot that died during a run before its further matches are forfeits."""
BOT_SEED_ENV = "ARENA_BOT_SEED"


class SeatBot:
    """A started bot as the referee sees it, under the tournament's name for it."""

    __slots__ = ("_bot", "name")

    def __init__(self, name: str, bot: Any) -> None:
        self.name = name
        self._bot = bot

    @property
    def channel(self) -> grpc.Channel:
        return self._bot.channel

    def alive(self) -> bool:
        return bool(self._bot.alive())

    @property
    def returncode(self) -> int | None:
        """How the process ended (the referee tells it in a crash's detail), None while it runs."""
        return getattr(self._bot, "returncode", None)

    @property
    def log_path(self) -> Path | None:
        """The bot's log file, when the runtime keeps one (a remote bot has none)."""
        return getattr(self._bot, "log_path", None)

    def log_tail(self, lines: int = 10) -> str:
        """The last lines of the bot's output (a crash's recorded reason carries them)."""
        tail = getattr(self._bot, "log_tail", None)
        return str(tail(lines)) if callable(tail) else ""


class BotPool:
    def __init__(
        self,
        entrants: list[Entrant],
        *,
        bot_seed: int,
        start_bot: Callable[..., Any] | None = None,
        max_restarts: int = MAX_RESTARTS,
        log_dir: Path | None = None,
    ) -> None:
        self._entrants = entrants
        self._log_dir = log_dir
        self._bot_seed = bot_seed
        self._start_bot = start_bot
        self._max_restarts = max_restarts
        self._running: dict[int, Any] = {}
        self._failed: dict[int, str] = {}
        self._restarts = [0] * len(entrants)
        self._locks = [threading.Lock() for _ in entrants]
        self._closed = False
        self._given_up: list[int] = []
        self._given_up_lock = threading.Lock()

    def _launch(self, i: int) -> Any:
        from arena.runtime import load_manifest, start_bot

        manifest = load_manifest(Path(self._entrants[i].source))
        # Seeded bots (ARENA_BOT_SEED) then repeat their choices run after run; a manifest
        # that sets the variable itself keeps its own value.
        env = {BOT_SEED_ENV: str(self._bot_seed), **manifest.env}
        kwargs: dict[str, Any] = {}
        if self._log_dir is not None:
            # One folder per entrant: two versions of one bot share a manifest name.
            from arena.tournament.botlogs import entrant_log_dir

            kwargs["log_dir"] = entrant_log_dir(self._log_dir, self._entrants[i].name)
        return (self._start_bot or start_bot)(dataclasses.replace(manifest, env=env), **kwargs)

    def _start_locked(self, i: int) -> str | None:
        """Start bot ``i`` (its lock held); the reason it failed, or None."""
        if self._closed:
            return "the tournament is stopping"
        try:
            self._running[i] = self._launch(i)
        except ArenaError as exc:
            self._failed[i] = str(exc)
        except OSError as exc:
            self._failed[i] = f"cannot run its command: {exc}"
        return self._failed.get(i)

    def start(self, indices: Iterable[int], executor: Executor) -> dict[int, str]:
        """Start these bots at once on the match threads; the failures, by bot index."""
        indices = list(indices)

        def one(i: int) -> str | None:
            with self._locks[i]:
                if i in self._running or i in self._failed:
                    return self._failed.get(i)
                return self._start_locked(i)

        reasons = list(executor.map(one, indices))
        return {i: r for i, r in zip(indices, reasons, strict=True) if r is not None}

    def connection(self, i: int) -> SeatBot | str:
        """Bot ``i`` ready to play, restarted if it died; or why it cannot play."""
        with self._locks[i]:
            if i in self._failed:
                return self._failed[i]
            bot = self._running.get(i)
            if bot is not None and bot.alive():
                return SeatBot(self._entrants[i].name, bot)
            if bot is not None:
                self._running.pop(i).stop()
                if self._restarts[i] >= self._max_restarts:
                    self._failed[i] = (
                        f"its process exited {self._restarts[i] + 1} times during the "
                        "tournament; it is not restarted again"
                    )
                    with self._given_up_lock:
                        self._given_up.append(i)
                    return self._failed[i]
                self._restarts[i] += 1
            reason = self._start_locked(i)
            if reason is not None:
                return reason
            return SeatBot(self._entrants[i].name, self._running[i])

    def given_up(self) -> list[tuple[int, str]]:
        """Bots given up on since the last call (they kept dying), with the reason."""
        with self._given_up_lock:
            out, self._given_up = self._given_up, []
        return [(i, self._failed[i]) for i in out]

    def stop(self) -> None:
        """Stop every bot process (and its process group)."""
        self._closed = True
        for i in range(len(self._entrants)):
            with self._locks[i]:
                bot = self._running.pop(i, None)
            if bot is not None:
                bot.stop()
