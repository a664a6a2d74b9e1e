"""The ``arena`` command line: thin commands over the library API.

Errors a user can act on (``arena.errors.ArenaError`` and the engine's rule errors) are printed
as one line on stderr with a non-zero exit, never as a traceback.
"""

from __future__ import annotations

import sys

import typer

from arena.cli import account as account_cli
from arena.cli import analyse as analyse_cli
from arena.cli import bench, match_group
from arena.cli import bot as bot_cli
from arena.cli import compare as compare_cli
from arena.cli import db as db_cli
from arena.cli import demo as demo_cli
from arena.cli import doctor as doctor_cli
from arena.cli import h2h as h2h_cli
from arena.cli import ladder as ladder_cli
from arena.cli import ratings as ratings_cli
from arena.cli import replay as replay_cli
from arena.cli import serve as serve_cli
from arena.cli import token as token_cli
from arena.cli import tournament as tournament_cli
from arena.cli import web as web_cli
from arena.cli.help_text import ArenaGroup
from arena.errors import ArenaError
from arena.rules.errors import InvalidRuleSetError, RulesError

app = typer.Typer(
    name="arena",
    cls=ArenaGroup,
    help="Spades Arena: play Spades bots against each other and rate them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(bench.app, name="bench")
app.add_typer(match_group.app, name="match")
app.command("compare")(compare_cli.compare)
app.command("replay")(replay_cli.replay)
app.command("analyse")(analyse_cli.analyse)
app.add_typer(db_cli.app, name="db")
app.command("ratings")(ratings_cli.ratings)
app.command("serve")(serve_cli.serve)
app.add_typer(bot_cli.app, name="bot")
app.add_typer(token_cli.app, name="token")
app.add_typer(account_cli.app, name="account")
app.add_typer(tournament_cli.app, name="tournament")
app.add_typer(ladder_cli.app, name="ladder")
app.command("demo")(demo_cli.demo)
app.command("doctor")(doctor_cli.doctor)
app.command("web")(web_cli.web)
app.command("h2h")(h2h_cli.h2h)


# Click's UsageError as typer ships it (typer names BadParameter, a kind of it).
_UsageError: type[Exception] = typer.BadParameter.__mro__[1]


def main() -> None:
    try:
        code = app(prog_name="arena", standalone_mode=False)
    except _UsageError as exc:
        # One line, with click's suggestion ("Did you mean 'match'?"), never a box.
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "arena"
        message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
        print(f"arena: error: {message} (see `{where} --help`)", file=sys.stderr)
        sys.exit(2)
    except (ArenaError, RulesError, InvalidRuleSetError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Abort:
        print("arena: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
