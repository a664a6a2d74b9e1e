"""How a leaderboard prints, for ``arena ratings`` local or from ``--server`` and for a
tournament's report: one table, fitted to the terminal (``arena.cli.fitted_table``)."""

from __future__ import annotations

import json
from typing import Any

import typer

from arena.cli.fitted_table import Column, Fitted, fit, table_width
from arena.store import LeaderboardRow

COLUMNS = (
    Column("rank", "#"),
    Column("bot", left=True),
    Column("version", left=True, drop=1),
    Column("mu"),
    Column("sigma", drop=5),
    Column("95% interval", "95%", drop=6),
    Column("score"),
    Column("matches", "n", drop=3),
    Column("W"),
    Column("L"),
    Column("D", drop=2),
    Column("faults", "F", drop=4),
)
"""The interval is the skill's, mu ± 1.96 sigma; the table is ranked by score = mu - 3 sigma.
At a narrow width the interval goes first, then sigma, faults, matches, draws and the version."""


def print_leaderboard(board: list[LeaderboardRow], as_json: bool, wide: bool = False) -> None:
    """A JSON list of rows (``LEADERBOARD_KEYS``), or the table."""
    if as_json:
        typer.echo(json.dumps([row.to_json() for row in board], indent=2))
    else:
        typer.echo(format_table(board, table_width(wide)))


def leaderboard(board: list[Any], width: int | None) -> Fitted:
    """The leaderboard's rows (``LeaderboardRow``s or a tournament's standings) at ``width``."""
    cells = [
        (
            str(r.rank), r.bot, r.version, f"{r.mu:.2f}", f"{r.sigma:.2f}",
            f"[{r.mu_low:.2f}, {r.mu_high:.2f}]", f"{r.score:.2f}", str(r.matches),
            str(r.wins), str(r.losses), str(r.draws), str(r.faults),
        )
        for r in board
    ]  # fmt: skip
    return fit(COLUMNS, cells, width)


def format_table(board: list[LeaderboardRow], width: int | None = None) -> str:
    """A plain, aligned table (whole for pipes and logs; ``width`` fits it to a terminal)."""
    if not board:
        return "no rated matches yet"
    table = leaderboard(board, width)
    note = table.note()
    return "\n".join(table.lines + ([note] if note else []))
