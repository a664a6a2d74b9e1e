"""How ``arena tournament watch ID`` shows a tournament's progress as it re-attaches to it:
locally (a process playing it on the same database: ``arena.cli.local`` follows its matches in
the store) or on a server (``arena.cli.remote`` follows its ``WatchTournament`` stream)."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from arena.tournament import QuietReporter, TerminalReporter


class _Lines:
    """Off a terminal: one line on stderr per match recorded (fits 80 columns)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._done = 0
        self._total = 0
        self._id = 0

    def start(self, tournament_id: int, bots: Any, done: int, total: int) -> None:
        self._id, self._names, self._done, self._total = tournament_id, list(bots), done, total

    def bot_failed(self, bot: str, reason: str) -> None:
        print(f"{bot} could not play: {reason}", file=sys.stderr)

    def match_done(self, game: Any) -> None:
        self._done += 1
        a, b = (self._names[i] if i < len(self._names) else "?" for i in game.seats)
        line = (
            f"[{self._done}/{self._total}] g{game.index} {a} vs {b} "
            f"{game.scores[0]} to {game.scores[1]} {game.termination}"
        )
        print(line[:80], file=sys.stderr)

    def stop(self) -> None:
        pass


def progress_reporter(as_json: bool) -> Any:
    """How ``arena tournament watch`` shows progress: nothing with --json, a live table on a
    terminal, else a line per match."""
    if as_json:
        return QuietReporter()
    return TerminalReporter(Console()) if sys.stdout.isatty() else _Lines()
