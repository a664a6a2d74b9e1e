"""How ``arena --help`` names things: a flag is shown without a type (``--json``, not
``--json <bool>``, since ``--json true`` is an error) and an argument in the usage line the way
its help names it (``BOT_A``, not ``{bot_a}``).

Typer builds its parameters itself and takes no class for them, so the top-level group tidies
the whole command tree once it is built (``ArenaGroup``).
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption


class UsageArgument(TyperArgument):
    """An argument named in upper case, as its help names it: ``BOT_A``, ``[SEED]``, ``FILES...``
    in the usage line, ``BOT_A`` in the arguments panel and in errors."""

    @property
    def display_name_raw(self) -> str:
        return self.metavar or (self.name or "").upper()

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if not self.required:
            name = f"[{name}]"
        return f"{name}..." if self.nargs != 1 else name


def _tidy_param(param: Any) -> None:
    if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
        param.metavar = ""  # shown in the type column: nothing for a flag
    elif type(param) is TyperArgument:
        param.__class__ = UsageArgument  # same fields, another usage name


def tidy(command: Any) -> None:
    """Tidy ``command``'s parameters, its --help and those of every subcommand below it."""
    for param in command.params:
        _tidy_param(param)
    help_option = command.get_help_option(typer.Context(command))
    if help_option is not None:
        _tidy_param(help_option)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)


class ArenaGroup(TyperGroup):
    """The ``arena`` group: built after its subcommands, it tidies their help (``tidy``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy(self)
