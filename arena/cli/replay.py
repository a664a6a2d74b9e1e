"""``arena replay MATCH``: a recorded match, hand by hand and trick by trick.

MATCH is a match id in the database or a file written by ``arena match --json``. The match is
rebuilt through the engine from its seed, rule set and decisions, and checked against the
record before it is shown.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import CaFileOption, DbOption, ServerOption, TokenOption
from arena.errors import ArenaError
from arena.referee import MatchResult, ReplayError, render_text, replay_to_dict, verify
from arena.referee.record import result_from_dict


def load(ref: str, db: str | None) -> MatchResult:
    """The match ``ref`` names: a JSON file of ``arena match --json``, or a recorded match id."""
    path = Path(ref)
    if path.is_file():
        try:
            return result_from_dict(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError) as exc:
            raise ArenaError(
                f"{ref}: not a match written by `arena match --json` ({exc})"
            ) from None
    from arena.store import Store

    with Store.open(db) as store:
        return store.get_match(ref).result


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
    if server:
        from arena.cli import remote

        result = remote.fetch_match(server, token, match_id, ca_file)
    else:
        result = load(match_id, db)
    try:
        verify(result)
    except ReplayError as exc:
        raise ArenaError(f"cannot show match {result.match_id}: {exc}") from None
    if as_json:
        typer.echo(json.dumps(replay_to_dict(result)))
    else:
        from arena.referee.draw_story import draw_lines

        view = views[draws]
        shown = {} if view == "none" else draw_lines(result, result.players, view=view)  # type: ignore[arg-type]
        seat = view if isinstance(view, int) else None
        typer.echo(render_text(result, draws=shown, view=seat))
