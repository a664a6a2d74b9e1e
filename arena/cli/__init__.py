"""The ``arena`` command line: thin commands over the library API.

Errors a user can act on (``arena.errors.ArenaError`` and the engine's rule errors) are printed
as one line on stderr with a non-zero exit, never as a traceback.
"""

from __future__ import annotations

import sys

import typer

from arena.cli import bench

app = typer.Typer(
    name="arena",
    help="Spades Arena: play Spades bots against each other and rate them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(bench.app, name="bench")


def main() -> None:
    from arena.errors import ArenaError
    from arena.rules.errors import InvalidRuleSetError, RulesError

    try:
        app()
    except (ArenaError, RulesError, InvalidRuleSetError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        sys.exit(2)
