"""The one place a command turns its ``--server``/``--db``/``--token`` options into an arena."""

from __future__ import annotations

from pathlib import Path

from arena.cli.interface import Arena
from arena.cli.local import LocalArena
from arena.cli.remote import RemoteArena


def open_arena(
    *,
    db: str | None = None,
    server: str | None = None,
    token: str | None = None,
    ca_file: Path | None = None,
    insecure: bool = False,
    data_dir: Path | None = None,
) -> Arena:
    """The arena service at ``server`` when one is named (``--server`` or $ARENA_SERVER), else
    the database ``db``. Nothing is opened yet: each call of the arena opens what it needs, so
    an option refused by the side chosen is refused before any connection or file is made."""
    if server:
        return RemoteArena(server, token, ca_file, insecure, db=db)
    return LocalArena(db, data_dir)
