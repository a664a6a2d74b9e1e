"""``arena match logs MATCH_ID --seat N``: what a bot wrote (stdout and stderr) during a match.

For a tournament match, its lines of the bot's tournament log: between the arena's
``StartMatch``/``EndMatch`` markers, less the lines the bot tagged with another match it was
playing at the same moment (``[match <id>] ``, as the SDK tags them); for an ``arena match``,
the seat's whole log. ``--startup``: what the bot printed while starting, in no match's log.
See ``arena.tournament.botlogs``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.open_arena import open_arena
from arena.cli.options import (
    CaFileOption,
    DataDirOption,
    DbOption,
    ServerOption,
    TokenOption,
)

SeatOption = Annotated[int, typer.Option("--seat", help="The seat: 0 or 1.")]


def logs(
    match_id: Annotated[str, typer.Argument(help="The match id (`arena match list` shows them).")],
    seat: SeatOption = 0,
    log_dir: Annotated[
        Path | None,
        typer.Option(
            "--log-dir",
            help="The --log-dir the match (or its tournament) was played with.",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    startup: Annotated[
        bool,
        typer.Option(
            "--startup",
            help="What the bot in that seat printed while starting (before its first match), "
            "in each of its runs, rather than the match's lines.",
        ),
    ] = False,
) -> None:
    """Print seat N's log of a recorded match."""
    if seat not in (0, 1):
        raise typer.BadParameter(f"must be 0 or 1, got {seat}", param_hint="--seat")
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file, data_dir=data_dir)
    typer.echo(arena.match_log(match_id, seat, log_dir=log_dir, startup=startup), nl=False)
