"""The bot processes of a tournament run: per bot, one process per lane, each shared by the
matches of its lane.

A bot process serves many matches at once (the protocol tells them apart by match id), but
never two games of one deal: the games of a bot are spread over its lanes so that no process
plays a deal seed twice, in either seat (``arena.tournament.lanes``). A bot that cannot start
is reported once with its reason and every match it was to play becomes its forfeit; a lane
that dies during the run is restarted for its next match, a few times per bot at most.

The bots start at once, each on a thread of its own, and the runner plays first the games whose
bots are ready, so a bot slow to start holds up only its own games. Each runs under the
runtime's supervisor (in the sandbox, when the host has one), which kills the bot's whole
process tree when the arena goes away, even by SIGKILL (``arena.runtime.supervisor``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import grpc

from arena.errors import ArenaError
from arena.runtime import bot_content_hash
from arena.tournament.entrants import TournamentEntrant

MAX_RESTARTS = 3
"""Restarts of a bot's processes (over all its lanes) that died during a run before its further
matches are forfeits."""
BOT_SEED_ENV = "ARENA_BOT_SEED"


def with_bot_seed(manifest: Any, seed: int) -> Any:
    """The manifest with ``ARENA_BOT_SEED`` set, so that a seeded bot repeats its choices run
    after run; a manifest that sets the variable itself keeps its own value."""
    return dataclasses.replace(manifest, env={BOT_SEED_ENV: str(seed), **manifest.env})


class SeatBot:
    """A started bot as the referee sees it, under the tournament's name for it."""

    __slots__ = ("_bot", "name")

    def __init__(self, name: str, bot: Any) -> None:
        self.name = name
        self._bot = bot

    @property
    def channel(self) -> grpc.Channel:
        return self._bot.channel

    @property
    def target(self) -> str | None:
        """The bot's gRPC target, where the referee opens its sessions (``grpc.aio``)."""
        return getattr(self._bot, "target", None)

    def alive(self) -> bool:
        return bool(self._bot.alive())

    @property
    def returncode(self) -> int | None:
        """How the process ended (the referee tells it in a crash's detail), None while it runs."""
        return getattr(self._bot, "returncode", None)

    @property
    def exit_description(self) -> str | None:
        """How the process ended in words, a memory kill included (``RunningBot``)."""
        return getattr(self._bot, "exit_description", None)

    @property
    def log_path(self) -> Path | None:
        """The bot's log file, when the runtime keeps one (a remote bot has none)."""
        return getattr(self._bot, "log_path", None)

    def log_tail(self, lines: int = 10) -> str:
        """The last lines of the bot's output (a crash's recorded reason carries them)."""
        tail = getattr(self._bot, "log_tail", None)
        return str(tail(lines)) if callable(tail) else ""


class BotPool:
    """The bot processes of one run: per bot, one process per lane (``arena.tournament.lanes``).
    A lane starts on a thread of its own as soon as it is asked for (``start`` for lane 0,
    ``ready`` for the others), so that a bot slow to start (or that never serves) holds only its
    own matches; ``ready`` tells the runner which games can be played now.

    Lanes share nothing but the bot's read-only code: each is its own process under its own
    supervisor (in the sandbox its own instance, with its own tmpfs and uid), so that a process
    never plays a deal it, or the bot's other seating of it, has seen. A lane that died is
    restarted fresh; a bot that cannot start in any lane is failed as a whole.

    Each bot runs from a private, read-only copy of its directory, checked against the content
    hash it was registered with: a bot that rewrites its files (or anyone else) cannot make a
    restart run other code under the same version."""

    def __init__(
        self,
        entrants: Sequence[TournamentEntrant],
        *,
        bot_seed: int,
        start_bot: Callable[..., Any] | None = None,
        max_restarts: int = MAX_RESTARTS,
        sandbox: str | None = None,
        cancel: threading.Event | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self._entrants = entrants
        self._log_dir = log_dir
        self._bot_seed = bot_seed
        self._start_bot = start_bot
        self._max_restarts = max_restarts
        self._sandbox = sandbox
        self._cancel = cancel or threading.Event()
        self._running: dict[tuple[int, int], Any] = {}
        """Per (entrant, lane), its process."""
        self._failed: dict[int, str] = {}
        self._restarts = [0] * len(entrants)
        self._exits = [0] * len(entrants)
        self._lanes_lock = threading.Lock()
        self._locks: dict[tuple[int, int], threading.Lock] = {}
        self._settled: dict[tuple[int, int], threading.Event] = {}
        self._starters: list[threading.Thread] = []
        self._closed = False
        self._given_up: list[int] = []
        self._new_failures: list[int] = []
        self._report_lock = threading.Lock()
        self._copies: Path | None = None
        self._copy_of: dict[int, Path] = {}
        self._copies_lock = threading.Lock()

    def _lane(self, i: int, lane: int) -> tuple[threading.Lock, threading.Event, bool]:
        """The lock and settled event of bot ``i``'s lane, and whether it was new."""
        if not 0 <= i < len(self._entrants) or lane < 0:
            raise IndexError(f"no lane {lane} of entrant {i}")
        with self._lanes_lock:
            key = (i, lane)
            new = key not in self._locks
            if new:
                self._locks[key] = threading.Lock()
                self._settled[key] = threading.Event()
            return self._locks[key], self._settled[key], new

    def _copy(self, i: int) -> Path:
        """The read-only copy of bot ``i``'s directory (made once per run)."""
        with self._copies_lock:
            if i in self._copy_of:
                return self._copy_of[i]
            if self._copies is None:
                self._copies = Path(tempfile.mkdtemp(prefix="arena-bots-"))
            entrant = self._entrants[i]
            # The entrant's index too: a bot compared with itself is two entrants of one content.
            target = self._copies / f"{i}-{entrant.name}-{entrant.content_hash[:12]}"
            try:
                shutil.copytree(entrant.source, target, symlinks=True)
            except (OSError, shutil.Error) as exc:
                raise ArenaError(f"cannot copy its directory {entrant.source}: {exc}") from exc
            now = bot_content_hash(target)
            if now != entrant.content_hash:
                raise ArenaError(
                    f"the files in {entrant.source} are not the version it was registered with "
                    f"(content hash {now[:12]}, registered {entrant.content_hash[:12]})"
                )
            _make_read_only(target)
            self._copy_of[i] = target
            return target

    def _launch(self, i: int) -> Any:
        from arena.runtime import load_manifest, start_bot

        manifest = with_bot_seed(load_manifest(self._copy(i)), self._bot_seed)
        kwargs: dict[str, Any] = {"sandbox": self._sandbox, "cancel": self._cancel}
        if self._log_dir is not None:
            # One folder per entrant: two versions of one bot share a manifest name. Its lanes
            # write a log each there (``<name>.log``, ``<name>-2.log``…).
            from arena.tournament.botlogs import entrant_log_dir

            kwargs["log_dir"] = entrant_log_dir(self._log_dir, self._entrants[i].name)
        return (self._start_bot or start_bot)(manifest, **kwargs)

    def _start_locked(self, i: int, lane: int) -> str | None:
        """Start bot ``i``'s lane (its lock held); the reason the bot cannot play, or None."""
        if self._closed:
            return "the tournament is stopping"
        if i in self._failed:
            return self._failed[i]
        try:
            self._running[i, lane] = self._launch(i)
        except ArenaError as exc:
            reason = str(exc)
        except (OSError, ValueError) as exc:
            reason = f"cannot run its command: {exc}"
        except Exception as exc:  # whatever a bot's start does wrong is its forfeit alone
            reason = f"cannot start: {type(exc).__name__}: {exc}"
        else:
            return None
        with self._report_lock:
            if i not in self._failed:  # reported once, whichever lane failed first
                self._failed[i] = reason
                self._new_failures.append(i)
        return self._failed[i]

    def _start_thread(self, i: int, lane: int) -> None:
        lock, settled, _ = self._lane(i, lane)

        def one() -> None:
            try:
                with lock:
                    if (i, lane) not in self._running and i not in self._failed:
                        self._start_locked(i, lane)
            finally:
                settled.set()

        thread = threading.Thread(target=one, name=f"start-bot-{i}-{lane}", daemon=True)
        with self._lanes_lock:
            self._starters.append(thread)
        thread.start()

    def start(self, indices: Iterable[int]) -> None:
        """Start lane 0 of these bots, each on a thread of its own; returns at once."""
        for i in indices:
            _, _, new = self._lane(i, 0)
            if new:
                self._start_thread(i, 0)

    def ready(self, i: int, lane: int = 0) -> bool:
        """Whether bot ``i``'s lane is started or known not to start (its games can be
        settled); a lane not asked for before starts now, on a thread of its own."""
        _, settled, new = self._lane(i, lane)
        if new:
            if i in self._failed or self._closed:
                settled.set()
            else:
                self._start_thread(i, lane)
        return settled.is_set()

    def connection(self, i: int, lane: int = 0) -> SeatBot | str:
        """Bot ``i``'s lane ready to play (started, or restarted if it died); or why the bot
        cannot play."""
        lock, settled, _ = self._lane(i, lane)
        with lock:
            if i in self._failed:
                settled.set()
                return self._failed[i]
            bot = self._running.get((i, lane))
            if bot is not None and bot.alive():
                return SeatBot(self._entrants[i].name, bot)
            if bot is not None:
                self._running.pop((i, lane)).stop()
                with self._report_lock:
                    self._exits[i] += 1
                    if self._restarts[i] >= self._max_restarts:
                        self._failed[i] = (
                            f"its processes exited {self._exits[i]} times during the "
                            "tournament; it is not restarted again"
                        )
                        self._given_up.append(i)
                        return self._failed[i]
                    self._restarts[i] += 1
            reason = self._start_locked(i, lane)
            settled.set()
            if reason is not None:
                return reason
            return SeatBot(self._entrants[i].name, self._running[i, lane])

    def failed_to_start(self) -> list[tuple[int, str]]:
        """Bots that could not start since the last call, with the reason."""
        with self._report_lock:
            out, self._new_failures = self._new_failures, []
        return [(i, self._failed[i]) for i in out if i in self._failed]

    def given_up(self) -> list[tuple[int, str]]:
        """Bots given up on since the last call (they kept dying), with the reason."""
        with self._report_lock:
            out, self._given_up = self._given_up, []
        return [(i, self._failed[i]) for i in out]

    def stop(self) -> None:
        """Stop every bot process, those still starting included, and remove the copies."""
        self._closed = True
        self._cancel.set()
        while True:
            with self._lanes_lock:
                starters, self._starters = self._starters, []
            if not starters:
                break
            for thread in starters:
                thread.join()
        with self._lanes_lock:
            keys = list(self._locks)
        for key in keys:
            with self._locks[key]:
                bot = self._running.pop(key, None)
            if bot is not None:
                bot.stop()
        if self._copies is not None:
            _make_writable(self._copies)
            shutil.rmtree(self._copies, ignore_errors=True)


def _make_read_only(root: Path) -> None:
    for current, dirs, files in os.walk(root):
        for name in files:
            path = Path(current) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
        Path(current).chmod(Path(current).stat().st_mode & ~0o222)
        del dirs  # walked top-down; a directory made read-only can still be listed


def _make_writable(root: Path) -> None:
    for current, _dirs, _files in os.walk(root):
        with contextlib.suppress(OSError):
            Path(current).chmod(0o755)
