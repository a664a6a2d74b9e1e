"""``arena account …``: the web arena's accounts from the server's shell: invitation codes,
disabling and enabling, and the list (an account's password is set on the web only)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.options import DbOption
from arena.store import Store

app = typer.Typer(
    help="Accounts of the web arena: invitation codes for `--signup invite`, disabling.",
    no_args_is_help=True,
)


@app.command()
def invite(
    db: DbOption = None,
    days: Annotated[float, typer.Option("--days", help="How long the code is valid.")] = 14.0,
) -> None:
    """Make an invitation code for one sign-up and print it (shown once; a hash is kept)."""
    with Store.open(db) as store:
        code = store.create_invite("the organiser (arena account invite)", days=days)
    typer.echo(code)


@app.command("list")
def list_accounts(db: DbOption = None) -> None:
    """List the accounts: name, role, whether a password is set, active or disabled."""
    with Store.open(db) as store:
        accounts = store.list_accounts()
    for a in accounts:
        password = "password" if a.has_password else "no-password"
        state = "disabled" if a.disabled else "active"
        typer.echo(f"{a.name}\t{a.role}\t{password}\t{state}")


@app.command()
def disable(
    name: Annotated[str, typer.Argument(help="The account's name.")], db: DbOption = None
) -> None:
    """Disable an account: its browsers are signed out, its token and password stop working;
    its bots and matches stay."""
    with Store.open(db) as store:
        store.set_account_disabled(name, True)
    typer.echo(f"account {name!r} disabled")


@app.command()
def enable(
    name: Annotated[str, typer.Argument(help="The account's name.")], db: DbOption = None
) -> None:
    """Enable a disabled account again."""
    with Store.open(db) as store:
        store.set_account_disabled(name, False)
    typer.echo(f"account {name!r} enabled")
