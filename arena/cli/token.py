"""``arena token …``: API tokens for the arena service (only a hash of each is stored)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.options import DbOption
from arena.store import Store

app = typer.Typer(
    help="API tokens: each lets its holder submit bots and start tournaments on `arena serve`.",
    no_args_is_help=True,
)


@app.command()
def create(
    name: Annotated[str, typer.Argument(help="Who the token is for; bots it submits are theirs.")],
    db: DbOption = None,
    admin: Annotated[
        bool,
        typer.Option(
            "--admin",
            help="An admin token: may start tournaments of anyone's bots and cancel any "
            "(docs/service.md, who may do what).",
        ),
    ] = False,
) -> None:
    """Create an account with its first token and print the token. It is shown only this once:
    the database keeps a hash. More tokens, each named, are made on the account's web page."""
    with Store.open(db) as store:
        token = store.create_token(name, role="admin" if admin else "member")
    typer.echo(token)


@app.command("list")
def list_tokens(db: DbOption = None) -> None:
    """List the tokens' names (never the tokens)."""
    with Store.open(db) as store:
        tokens = store.list_tokens()
    for t in tokens:
        typer.echo(f"{t.name}\t{t.role}\tcreated {t.created_at:%Y-%m-%d %H:%M:%S} UTC")


@app.command()
def revoke(
    name: Annotated[str, typer.Argument(help="The token's (its account's) name.")],
    db: DbOption = None,
) -> None:
    """Revoke every token of the account: none authenticates any more; its bots stay its."""
    with Store.open(db) as store:
        store.revoke_token(name)
    typer.echo(f"token {name!r} revoked")
