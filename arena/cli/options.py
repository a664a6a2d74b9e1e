"""Options that several ``arena`` commands share, declared once so they read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.errors import ArenaError
from arena.sandbox import SandboxMode, resolve_mode
from arena.service.client import CA_FILE_ENV, SERVER_ENV, TOKEN_ENV
from arena.service.submission import default_data_dir
from arena.tournament.botlogs import logs_root, tournament_log_dir

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL or SQLite file (default: $ARENA_DB, else ./arena.db).",
        show_default=False,
    ),
]
ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar=SERVER_ENV,
        help="Talk to a running arena service at HOST:PORT (https://HOST:PORT for TLS) instead "
        "of the local database.",
        show_default=False,
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar=TOKEN_ENV,
        help="API token for --server (`arena token create NAME` makes one).",
        show_default=False,
    ),
]
CaFileOption = Annotated[
    Path | None,
    typer.Option(
        "--ca-file",
        envvar=CA_FILE_ENV,
        help="PEM CA certificate to check the server's TLS certificate; implies TLS.",
        show_default=False,
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure",
        envvar="ARENA_INSECURE",
        help="Send the token over plaintext to a non-loopback --server (refused otherwise: use "
        "TLS).",
    ),
]

SandboxOption = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help="Run bots in the sandbox: auto (when bubblewrap works here), on (or fail), off "
        "(trusted bots only). Default: $ARENA_SANDBOX, else auto. `arena doctor` says what "
        "this host offers.",
        show_default=False,
    ),
]


def check_sandbox(value: str | None) -> str:
    """The mode, checked now: ``on`` without bubblewrap is a one-line error before anything
    starts, ``auto`` without it a warning."""
    mode = SandboxMode.parse(value)
    resolve_mode(mode)
    return mode.value


LogDirOption = Annotated[
    Path | None,
    typer.Option(
        "--log-dir",
        help="Keep the bots' logs in DIR (default: the logs folder of the database's data "
        "dir, where `arena match logs` finds them).",
        show_default=False,
    ),
]

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="ARENA_DATA_DIR",
        help="The database's data folder: submitted bots (bots/) and the bots' logs (logs/). "
        "Default: <database>-data beside a SQLite file; ./arena-data for PostgreSQL, so give "
        "it (or $ARENA_DATA_DIR) to every command on a PostgreSQL database.",
        show_default=False,
    ),
]


def data_dir_of(db: str | None, given: Path | None) -> Path:
    """``--data-dir`` (or $ARENA_DATA_DIR), else the database's own (``default_data_dir``)."""
    return Path(given).expanduser() if given is not None else default_data_dir(db)


def tournament_logs(
    db: str | None, tournament_id: int, log_dir: Path | None, data_dir: Path | None
) -> Path:
    """Where a tournament's bot logs go: ``--log-dir``, else its folder in the logs of the data
    dir (``data_dir_of``), where ``arena match logs`` finds them."""
    if log_dir is not None:
        return Path(log_dir)
    return tournament_log_dir(logs_root(data_dir_of(db, data_dir)), tournament_id)


WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Every column of every table, with full headers, however narrow the terminal "
        "(default: fitted to it, leaving out the least needed columns, never cutting a cell).",
    ),
]

HOUSE_HELP = (
    "house bots, opponents for the submitted bots (never for each other), so that a lone first "
    "submission is played at once: none, sample (every sample bot, the expert too) or "
    "comma-separated sample bot names."
)


SignupOption = Annotated[
    str,
    typer.Option(
        "--signup",
        help="Who may sign up on the web arena's /signup: open (anyone), invite (with a code "
        "an admin makes: `arena account invite` or the admin's account page), closed (no one; "
        "accounts come from `arena token create`).",
    ),
]


def check_signup(mode: str) -> str:
    """``--signup``'s value, or a one-line error naming the choices."""
    if mode not in ("open", "invite", "closed"):
        raise ArenaError(f"--signup must be open, invite or closed, not {mode!r}")
    return mode


AnalysisOption = Annotated[
    str,
    typer.Option(
        "--analysis",
        envvar="ARENA_ANALYSIS",
        help="Analyse recorded matches in the background (docs/analysis.md): off, or the "
        "number of low-priority processes.",
    ),
]
