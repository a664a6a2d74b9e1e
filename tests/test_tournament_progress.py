"""The progress display a person sees on a terminal (rendered by rich into a string)."""

from __future__ import annotations

import io
import re

from rich.console import Console

from arena.tournament.progress import QuietReporter, TerminalReporter
from arena.tournament.standings import GameRecord


def _game(index: int, winner: int | None, termination: str, faults=(0, 0)) -> GameRecord:
    return GameRecord(index, index // 2, (0, 1), winner, (500, 100), termination, faults)


def test_terminal_progress_shows_count_rate_and_a_live_fault_line() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    reporter = TerminalReporter(console)
    reporter.start(7, ["alpha", "beta"], done=1, total=4)
    reporter.bot_failed("gamma", "exited with exit code 3 during start-up")
    reporter.match_done(_game(1, 0, "target_reached"))
    reporter.match_done(_game(2, 0, "forfeit_timeout", faults=(0, 1)))
    reporter.stop()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "tournament 7" in text
    assert "3/4" in text, "resumed at 1 of 4, then two more"
    assert "matches/s" in text
    assert "bot gamma cannot play: exited with exit code 3 during start-up" in text
    assert "beta: 1 faults, 1 forfeits" in text
    assert "alpha" not in text.split("faults", 1)[1].split("\n")[0], "no faults for alpha"


def test_quiet_reporter_says_nothing(capsys) -> None:  # type: ignore[no-untyped-def]
    reporter = QuietReporter()
    reporter.start(1, ["a", "b"], 0, 2)
    reporter.bot_failed("a", "why")
    reporter.match_done(_game(0, 1, "forfeit_crash", faults=(1, 0)))
    reporter.stop()
    assert capsys.readouterr() == ("", "")


def test_the_progress_line_fits_80_columns_and_its_time_left_counts_down() -> None:
    from rich.progress import Progress

    from arena.tournament.progress import time_left

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=200, color_system=None)
    reporter = TerminalReporter(console)
    reporter.start(123, ["alpha", "beta"], done=0, total=360)
    for i in range(120):
        reporter.match_done(_game(i, 0, "target_reached"))
    reporter.stop()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    lines = [line.rstrip() for line in text.replace("\r", "\n").splitlines() if "120/360" in line]
    assert lines and all(len(line) <= 80 for line in lines), lines

    now = [100.0]
    progress = Progress(get_time=lambda: now[0])
    task_id = progress.add_task("", total=10, start_done=0, last_end=None)
    progress.start_task(task_id)
    task = progress.tasks[0]
    assert time_left(task, now[0]) is None  # no match ended yet in this run
    now[0] = 110.0
    progress.update(task_id, completed=2, last_end=110.0)  # two matches in 10 s: 5 s each
    assert time_left(task, 110.0) == 40.0
    assert time_left(task, 113.0) == 37.0  # moves between match ends
    assert time_left(task, 200.0) == 0.0
