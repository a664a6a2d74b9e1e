"""``arena replay MATCH``: a recorded match, hand by hand and trick by trick.

MATCH is a match id in the database or a file written by ``arena match --json``. The match is
rebuilt through the engine from its seed, rule set and decisions, and checked against the
record before it is shown.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from arena.cli.open_arena import open_arena
from arena.cli.options import CaFileOption, DbOption, ServerOption, TokenOption
from arena.errors import ArenaError
from arena.referee import ReplayError, render_text, replay_to_dict, verify
from arena.referee.draw_story import draw_lines


def replay(
    match_id: Annotated[
        str, typer.Argument(help="A recorded match id, or a file from `arena match --json`.")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object: the match and every hand.")
    ] = False,
    draws: Annotated[
        str,
        typer.Option(
            "--draws",
            help="Show the draw phase and the Double Nil exchanges: 'all' (a spectator's view, "
            "every card), '0' or '1' (what that seat saw), or 'none'.",
        ),
    ] = "all",
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Show a recorded match hand by hand: the draws, bids, every trick and who won it, the
    scores."""
    views = {"all": None, "0": 0, "1": 1, "none": "none"}
    if draws not in views:
        raise typer.BadParameter("use all, 0, 1 or none", param_hint="--draws")
    result = open_arena(db=db, server=server, token=token, ca_file=ca_file).match_record(match_id)
    try:
        verify(result)
    except ReplayError as exc:
        raise ArenaError(f"cannot show match {result.match_id}: {exc}") from None
    if as_json:
        typer.echo(json.dumps(replay_to_dict(result)))
    else:
        view = views[draws]
        shown = {} if view == "none" else draw_lines(result, result.players, view=view)  # type: ignore[arg-type]
        seat = view if isinstance(view, int) else None
        typer.echo(render_text(result, draws=shown, view=seat))
