"""How a running tournament shows itself: a progress bar and a live fault line on a terminal.

The runner talks to a ``Reporter``, from its main thread only: ``TerminalReporter`` draws with
rich; ``LineReporter`` (output that is not a terminal, ``--json``) only names a bot that cannot
play, on stderr; ``QuietReporter`` (benchmarks, the library) says nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Protocol

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from arena.tournament.standings import GameRecord


class Reporter(Protocol):
    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None: ...

    def bot_failed(self, bot: str, reason: str) -> None:
        """A bot could not be started, or kept dying: its further matches are its forfeits."""

    def match_done(self, game: GameRecord) -> None: ...

    def stop(self) -> None: ...


class QuietReporter:
    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None:
        pass

    def bot_failed(self, bot: str, reason: str) -> None:
        pass

    def match_done(self, game: GameRecord) -> None:
        pass

    def stop(self) -> None:
        pass


class LineReporter(QuietReporter):
    """Off a terminal: no progress, but a bot that cannot play is named, with why, on stderr."""

    def bot_failed(self, bot: str, reason: str) -> None:
        print(f"arena: bot {bot} cannot play: {reason} (its matches are forfeits)",
              file=sys.stderr, flush=True)


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} matches/s", style="progress.data.speed")


def time_left(task: Task, now: float) -> float | None:
    """Seconds left, counted down between match ends: the time the remaining matches take at
    this run's rate, less the time since the last one ended (rich's own estimate stands still
    until the next match ends). None before the first match of this run has ended."""
    done = task.completed - task.fields.get("start_done", 0)
    start = task.start_time
    last = task.fields.get("last_end")
    if task.total is None or done <= 0 or start is None or last is None:
        return None
    per_match = (last - start) / done
    return max(0.0, (task.total - task.completed) * per_match - (now - last))


class _CountdownColumn(ProgressColumn):
    max_refresh = 0.5

    def render(self, task: Task) -> Text:
        left = time_left(task, task.get_time())
        if left is None:
            return Text("-:--:-- left", style="progress.remaining")
        m, sec = divmod(int(left + 0.999), 60)
        h, m = divmod(m, 60)
        return Text(f"{h}:{m:02d}:{sec:02d} left", style="progress.remaining")


class _FaultProgress(Progress):
    """A progress bar with one more line under it: the faults so far."""

    fault_line: Text = Text("")

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        if self.fault_line:
            yield self.fault_line


class TerminalReporter:
    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._bots: list[str] = []
        self._faults: dict[int, int] = {}
        self._forfeits: dict[int, int] = {}
        # At most 80 columns: "tournament 12 ━━━━ 120/360 1.2 matches/s 0:01:40 0:03:20 left".
        self._progress = _FaultProgress(
            TextColumn("[bold]tournament {task.fields[tid]}"),
            BarColumn(bar_width=14),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeElapsedColumn(),
            _CountdownColumn(),
            console=self._console,
            transient=False,
        )
        self._task = self._progress.add_task("", total=0, tid="?", visible=False)

    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None:
        self._bots = list(bots)
        self._progress.update(
            self._task, total=total, completed=done, tid=tournament_id, visible=True
        )
        # The rate and time left should reflect this run, not matches played before a resume.
        self._progress.reset(self._task, total=total, completed=done)
        self._progress.update(self._task, start_done=done, last_end=None)
        self._progress.start()

    def bot_failed(self, bot: str, reason: str) -> None:
        self._progress.console.print(
            f"[bold red]bot {bot} cannot play:[/] {reason} (its matches are forfeits)",
            highlight=False,
        )

    def match_done(self, game: GameRecord) -> None:
        for seat, bot in enumerate(game.seats):
            if game.faults[seat]:
                self._faults[bot] = self._faults.get(bot, 0) + game.faults[seat]
            if game.forfeit and game.winner is not None and game.winner != seat:
                self._forfeits[bot] = self._forfeits.get(bot, 0) + 1
        if self._faults or self._forfeits:
            parts = [
                f"{self._bots[b]}: {self._faults.get(b, 0)} faults, "
                f"{self._forfeits.get(b, 0)} forfeits"
                for b in sorted(set(self._faults) | set(self._forfeits))
            ]
            self._progress.fault_line = Text("faults  " + "  |  ".join(parts), style="yellow")
        self._progress.advance(self._task)
        self._progress.update(self._task, last_end=self._progress.get_time())

    def stop(self) -> None:
        self._progress.stop()
