"""How a running tournament shows itself on a terminal: a progress bar as wide as the terminal,
with a rate and a time left from the same window, the live standings under it (the top bots by
match points) and a live fault line.

The runner talks to a ``Reporter``, from its main thread only: ``TerminalReporter`` draws with
rich; ``LineReporter`` (output that is not a terminal, ``--json``) only names a bot that cannot
play, on stderr; ``QuietReporter`` (benchmarks, the library) says nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
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
        print(
            f"arena: bot {bot} cannot play: {reason} (its matches are forfeits)",
            file=sys.stderr,
            flush=True,
        )


def run_rate(task: Task) -> float | None:
    """Matches a second over this run: the matches it has ended over the time from its start to
    the last of them. The time left (``time_left``) is counted from the same window, so the two
    always agree (rich's own speed is a sliding window of its own)."""
    done = task.completed - task.fields.get("start_done", 0)
    start = task.start_time
    last = task.fields.get("last_end")
    if done <= 0 or start is None or last is None or last <= start:
        return None
    return done / (last - start)


def time_left(task: Task, now: float) -> float | None:
    """Seconds left, counted down between match ends: the time the remaining matches take at
    this run's rate (``run_rate``), less the time since the last one ended (rich's own estimate
    stands still until the next match ends). None before the first match of this run has
    ended."""
    rate = run_rate(task)
    last = task.fields.get("last_end")
    if task.total is None or rate is None or last is None:
        return None
    return max(0.0, (task.total - task.completed) / rate - (now - last))


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        rate = run_rate(task)
        return Text("" if rate is None else f"{rate:.1f} matches/s", style="progress.data.speed")


class _CountdownColumn(ProgressColumn):
    max_refresh = 0.5

    def render(self, task: Task) -> Text:
        left = time_left(task, task.get_time())
        if left is None:
            return Text("-:--:-- left", style="progress.remaining")
        m, sec = divmod(int(left + 0.999), 60)
        h, m = divmod(m, 60)
        return Text(f"{h}:{m:02d}:{sec:02d} left", style="progress.remaining")


STANDINGS_SHOWN = 5
"""Bots in the live standings under the bar: the top ones by match points."""


def standings_lines(
    bots: Sequence[str],
    points: dict[int, float],
    played: dict[int, int],
    record: dict[int, list[int]],
    top: int = STANDINGS_SHOWN,
) -> list[str]:
    """The live standings: the ``top`` bots by match points (a win 1, a draw ½), then by
    points per match; a header, one line a bot, names and numbers whole."""
    ranked = sorted(
        played, key=lambda b: (-points.get(b, 0.0), -points.get(b, 0.0) / played[b], bots[b])
    )[:top]
    if not ranked:
        return []
    name_w = max(3, *(len(bots[b]) for b in ranked))
    wld = {b: "-".join(str(n) for n in record[b]) for b in ranked}
    wld_w = max(5, *(len(v) for v in wld.values()))
    lines = [f"  #  {'bot'.ljust(name_w)}  played  {'W-L-D'.ljust(wld_w)}  points"]
    for rank, b in enumerate(ranked, 1):
        lines.append(
            f"{rank:>3}  {bots[b].ljust(name_w)}  {played[b]:>6}  {wld[b].ljust(wld_w)}  "
            f"{points.get(b, 0.0):>6.1f}"
        )
    if len(played) > top:
        lines.append(f"     ({len(played) - top} more below; the full table at the end)")
    return lines


class _LiveProgress(Progress):
    """A progress bar with the live standings under it, then the faults so far."""

    standings: list[str] = []
    fault_line: Text = Text("")

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        for line in self.standings:
            yield Text(line, style="bold" if line.startswith("  #") else "")
        if self.fault_line:
            yield self.fault_line


class TerminalReporter:
    def __init__(
        self, console: Console | None = None, get_time: Callable[[], float] | None = None
    ) -> None:
        self._console = console or Console(stderr=True)
        self._bots: list[str] = []
        self._faults: dict[int, int] = {}
        self._forfeits: dict[int, int] = {}
        self._points: dict[int, float] = {}
        self._played: dict[int, int] = {}
        self._record: dict[int, list[int]] = {}
        # The bar takes the width the other columns leave: "tournament 12 ━━━━…━━ 120/360
        # 1.2 matches/s 0:01:40 0:03:20 left".
        self._progress = _LiveProgress(
            TextColumn("[bold]tournament {task.fields[tid]}"),
            BarColumn(bar_width=None),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeElapsedColumn(),
            _CountdownColumn(),
            console=self._console,
            transient=False,
            expand=True,
            get_time=get_time,
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
            if game.rated:
                self._played[bot] = self._played.get(bot, 0) + 1
                wld = self._record.setdefault(bot, [0, 0, 0])
                if game.winner is None:
                    wld[2] += 1
                    self._points[bot] = self._points.get(bot, 0.0) + 0.5
                elif game.winner == seat:
                    wld[0] += 1
                    self._points[bot] = self._points.get(bot, 0.0) + 1.0
                else:
                    wld[1] += 1
        if self._bots:
            self._progress.standings = standings_lines(
                self._bots, self._points, self._played, self._record
            )
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
