"""``arena bot …``: submit a bot directory (to the local arena or to a server) and list bots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.cli import bot_check
from arena.cli.options import (
    CaFileOption,
    DataDirOption,
    InsecureOption,
    ServerOption,
    TokenOption,
    data_dir_of,
)
from arena.cli.remote import connect

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
    from arena.service.archive import pack_directory

    if server:
        with connect(server, token, ca_file, insecure=insecure) as client:
            response = client.submit_bot(directory, name)
        _print_submitted(response)
        return
    from arena.service.archive import ArchiveLimits
    from arena.service.convert import bot_to_pb, bot_version_to_pb
    from arena.service.submission import BotSubmissions
    from arena.store import Store

    archive = pack_directory(directory)
    with Store.open(db) as store:
        from arena.runtime.start_check import check_starts

        submissions = BotSubmissions(
            store, data_dir_of(db, data_dir), ArchiveLimits(), start_check=check_starts
        )
        done = submissions.submit(archive, name=name, owner_only=False)
        bot = next(b for b in store.list_bots() if b.name == done.version.name)
    _print_submitted(
        pb.SubmitBotResponse(
            bot=bot_to_pb(bot, bot.owner, with_versions=False),
            version=bot_version_to_pb(done.version),
            created=done.created,
        )
    )


def _print_submitted(response: pb.SubmitBotResponse) -> None:
    v = response.version
    what = "new version" if response.created else "unchanged (same content as before)"
    typer.echo(f"{response.bot.name}@{v.version} {v.content_hash[:12]}: {what}")


def _bots(
    server: str | None,
    token: str | None,
    ca_file: Path | None,
    db: str | None,
    name: str | None = None,
) -> list[pb.Bot]:
    if server:
        with connect(server, token, ca_file) as client:
            return [client.get_bot(name)] if name else client.list_bots()
    from arena.service.convert import bot_to_pb
    from arena.store import NotFoundError, Store

    with Store.open(db) as store:
        bots = store.list_bots()
    if name is None:
        return [bot_to_pb(b, b.owner, with_versions=False) for b in bots]
    for b in bots:
        if b.name == name:
            return [bot_to_pb(b, b.owner, with_versions=True)]
    known = ", ".join(b.name for b in bots) or "none registered yet"
    raise NotFoundError(f"unknown bot {name!r}; known bots: {known}")


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
    bots = _bots(server, token, ca_file, db)
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
    (bot,) = _bots(server, token, ca_file, db, name)
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
