"""``arena bot …``: submit a bot directory (to the local arena or to a server) and list bots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.cli import bot_check
from arena.cli.open_arena import open_arena
from arena.cli.options import (
    CaFileOption,
    DataDirOption,
    InsecureOption,
    ServerOption,
    TokenOption,
)

app = typer.Typer(help="Bots: submit a bot directory, list and show bots.", no_args_is_help=True)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL or SQLite file, without --server (default: $ARENA_DB, else ./arena.db).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@app.command()
def submit(
    directory: Annotated[Path, typer.Argument(help="The bot's directory, with its bot.toml.")],
    name: Annotated[
        str | None,
        typer.Option("--name", help="Register under this name (default: bot.toml's name)."),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    insecure: InsecureOption = False,
    db: DbOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Pack DIRECTORY (a deterministic tar.gz) and submit it as a new version of the bot.

    With --server it is uploaded and checked by the service; otherwise it is checked the same
    way and stored in the local arena. The same content again changes nothing.
    """
    arena = open_arena(
        db=db, server=server, token=token, ca_file=ca_file, insecure=insecure, data_dir=data_dir
    )
    _print_submitted(arena.submit_bot(directory, name))


def _print_submitted(response: pb.SubmitBotResponse) -> None:
    v = response.version
    what = "new version" if response.created else "unchanged (same content as before)"
    typer.echo(f"{response.bot.name}@{v.version} {v.content_hash[:12]}: {what}")


def _version_json(v: pb.BotVersion) -> dict[str, str]:
    return {
        "version": v.version,
        "content_hash": v.content_hash,
        "created_at": v.created_at.ToDatetime().isoformat() + "Z",
    }


@app.command("list")
def list_bots(
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the bots, each with its latest version and owner."""
    bots = open_arena(db=db, server=server, token=token, ca_file=ca_file).bots()
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {"name": b.name, "owner": b.owner, **_version_json(b.latest_version)}
                    for b in bots
                ],
                indent=2,
            )
        )
        return
    if not bots:
        typer.echo("no bots registered yet")
        return
    rows = [("bot", "version", "content hash", "owner")] + [
        (b.name, b.latest_version.version, b.latest_version.content_hash[:12], b.owner or "-")
        for b in bots
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        typer.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


@app.command()
def show(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one bot and all its versions, oldest first."""
    (bot,) = open_arena(db=db, server=server, token=token, ca_file=ca_file).bots(name)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "name": bot.name,
                    "owner": bot.owner,
                    "versions": [_version_json(v) for v in bot.versions],
                },
                indent=2,
            )
        )
        return
    typer.echo(f"{bot.name} (owner: {bot.owner or '-'})")
    for v in bot.versions:
        created = v.created_at.ToDatetime()
        typer.echo(f"  {v.version}  {v.content_hash[:12]}  {created:%Y-%m-%d %H:%M:%S} UTC")


app.command("check")(bot_check.check)
