"""``arena ratings``: the leaderboard of bot versions by TrueSkill (mu - 3 sigma), each with the
95 % interval of its skill (mu ± 1.96 sigma)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from arena.cli.options import DbOption
from arena.cli.remote import CaFileOption, ServerOption, TokenOption
from arena.store import LeaderboardRow, Store

COLUMNS = (
    "rank", "bot", "version", "mu", "sigma", "95% interval", "score", "matches", "W", "L", "D",
    "faults",
)  # fmt: skip


def ratings(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of objects, one per bot version.")
    ] = False,
    recompute: Annotated[
        bool,
        typer.Option(
            "--recompute",
            help="Rebuild every rating from the match history first (by tournament, then "
            "schedule position: the same figures).",
        ),
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Print the leaderboard: bot versions ranked by the conservative rating mu - 3 sigma."""
    if server:
        from arena.cli import remote

        if recompute:
            raise typer.BadParameter("--recompute works on a local database, not with --server")
        remote.ratings(server, token, as_json, ca_file)
        return
    with Store.open(db) as store:
        if recompute:
            applied = store.recompute_ratings()
            print(f"recomputed ratings from {applied} rated matches", file=sys.stderr)
        board = store.leaderboard()
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
