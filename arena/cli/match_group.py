"""``arena match``: play a match (``arena match BOT_A BOT_B``, short for ``arena match play``),
and find recorded ones (``arena match list``, ``arena match logs``)."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from arena.cli import match as match_cli
from arena.cli import match_list, match_logs

PLAY = "play"


class _MatchGroup(TyperGroup):
    """A group whose default subcommand is ``play``: ``arena match A B`` plays a match."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [PLAY, *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: Any) -> list[str]:
        return [PLAY, "list", "logs"]


def _group(**kwargs: Any) -> typer.Typer:
    return typer.Typer(cls=_MatchGroup, no_args_is_help=True, **kwargs)


app = _group(
    help="Play one match (`arena match BOT_A BOT_B`), list recorded ones, show a bot's log.",
)
app.command(PLAY)(match_cli.match)
app.command("list")(match_list.list_matches)
app.command("logs")(match_logs.logs)
