"""How ``arena ratings`` prints a leaderboard, local or from ``--server``: both print with this."""

from __future__ import annotations

import json

import typer

from arena.store import LeaderboardRow

COLUMNS = (
    "rank", "bot", "version", "mu", "sigma", "95% interval", "score", "matches", "W", "L", "D",
    "faults",
)  # fmt: skip
"""The interval is the skill's, mu ± 1.96 sigma; the table is ranked by score = mu - 3 sigma."""


def print_leaderboard(board: list[LeaderboardRow], as_json: bool) -> None:
    """A JSON list of rows (``LEADERBOARD_KEYS``), or the table."""
    if as_json:
        typer.echo(json.dumps([row.to_json() for row in board], indent=2))
    else:
        typer.echo(format_table(board))


def format_table(board: list[LeaderboardRow]) -> str:
    """A plain, aligned table (stable for pipes and logs)."""
    if not board:
        return "no rated matches yet"
    cells = [
        (
            str(r.rank),
            r.bot,
            r.version,
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"[{r.mu_low:.2f}, {r.mu_high:.2f}]",
            f"{r.score:.2f}",
            str(r.matches),
            str(r.wins),
            str(r.losses),
            str(r.draws),
            str(r.faults),
        )
        for r in board
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(COLUMNS)]
    left = {1, 2}

    def line(values: tuple[str, ...]) -> str:
        padded = (
            v.ljust(w) if i in left else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        )
        return "  ".join(padded).rstrip()

    return "\n".join([line(COLUMNS), *(line(c) for c in cells)])
