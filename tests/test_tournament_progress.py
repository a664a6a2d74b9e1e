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


def _render(
    width: int, reporter_games: int, bots: list[str] | None = None, total: int = 360
) -> str:
    """The last frame a reporter draws at ``width`` after ``reporter_games`` matches, one
    every 2 s of a fake clock (seat 0 wins, bots paired in turn)."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=width, color_system=None)
    now = [0.0]
    reporter = TerminalReporter(console, get_time=lambda: now[0])
    names = bots or ["alpha", "beta"]
    reporter.start(123, names, done=0, total=total)
    for i in range(reporter_games):
        now[0] += 2.0
        a, b = i % len(names), (i + 1) % len(names)
        reporter.match_done(GameRecord(i, i // 2, (a, b), 0, (500, 100), "target_reached",
                                       (0, 0)))  # fmt: skip
    reporter.stop()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    return text.replace("\r", "\n")


def test_the_bar_uses_the_width_on_one_line() -> None:
    for width in (80, 100, 160):
        text = _render(width, 120)
        lines = [line.rstrip() for line in text.splitlines() if "120/360" in line]
        assert lines, text
        line = lines[-1]
        # One line from the name to "left", as wide as the terminal and no wider.
        assert line.startswith("tournament 123 ") and line.endswith(" left"), line
        assert width - 2 <= len(line) <= width, (width, line)
        # The bar (drawn and still blank) takes what the other columns leave.
        bar = line[len("tournament 123 ") : line.index("120/360")]
        assert len(bar) >= width - 60 and bar.strip(" ━") == "" and "━" in bar, bar


def test_the_rate_and_the_time_left_come_from_the_same_window() -> None:
    """2 of 18 matches in 4 s: 0.5 matches/s, and 16 matches at that rate are 32 s."""
    text = _render(100, 2, total=18)
    line = next(line for line in reversed(text.splitlines()) if "2/18" in line)
    assert "0.5 matches/s" in line and "0:00:32 left" in line, line


def test_live_standings_under_the_bar_show_the_top_bots_by_points() -> None:
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]
    text = _render(100, 14, bots=names)
    frame = text[text.rindex("14/360") :]
    lines = frame.splitlines()[1:]
    assert lines[0].split() == ["#", "bot", "played", "W-L-D", "points"]
    # Seat 0 wins: bot i beats bot i+1, twice over the 14 matches, so each bot has 2 wins and
    # 2 losses (alpha's losses to eta); the top 5 by points, ties by name.
    top = [line.split() for line in lines[1:6]]
    assert [row[1] for row in top] == ["alpha", "beta", "delta", "epsilon", "eta"]
    assert top[0] == ["1", "alpha", "4", "2-2-0", "2.0"]
    assert "(2 more below; the full table at the end)" in frame


def test_time_left_counts_down_between_match_ends() -> None:
    from rich.progress import Progress

    from arena.tournament.progress import time_left

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
