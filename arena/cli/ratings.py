"""``arena ratings``: the leaderboard of bot versions by TrueSkill (mu - 3 sigma)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.open_arena import open_arena
from arena.cli.options import CaFileOption, DbOption, ServerOption, TokenOption, WideOption
from arena.cli.ratings_format import print_leaderboard
from arena.store.rows import PLAYER_FILTERS


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
    wide: WideOption = False,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            help="Whom to show: all (default), bots, or humans (people rated at /play share "
            "the bots' pool; their names start with human:).",
        ),
    ] = "all",
) -> None:
    """Print the leaderboard: bot versions ranked by the conservative rating mu - 3 sigma."""
    if players not in PLAYER_FILTERS:
        offered = ", ".join(PLAYER_FILTERS)
        raise typer.BadParameter(f"--players is one of {offered}, not {players!r}")
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file)
    print_leaderboard(arena.leaderboard(players=players, recompute=recompute), as_json, wide)
