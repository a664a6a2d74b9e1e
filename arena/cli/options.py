"""Options that several ``arena`` commands share, declared once so they read the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL or SQLite file (default: $ARENA_DB, else ./arena.db).",
        show_default=False,
    ),
]
