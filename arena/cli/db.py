"""``arena db …``: the database's schema (create, upgrade, show the revision)."""

from __future__ import annotations

import typer

from arena.cli.options import DbOption
from arena.store import Store, database_revision, upgrade_database

app = typer.Typer(help="The arena's database: create or upgrade its schema.", no_args_is_help=True)


@app.command()
def upgrade(db: DbOption = None) -> None:
    """Create the schema in a new database, or bring an older one up to date."""
    before, after = upgrade_database(db)
    shown, _, _ = database_revision(db)
    if before == after:
        typer.echo(f"{shown}: schema at revision {after} (already current)")
    elif before is None:
        typer.echo(f"{shown}: schema created at revision {after}")
    else:
        typer.echo(f"{shown}: schema upgraded from revision {before} to {after}")
    _rebuild_stale_ratings(db)


def _rebuild_stale_ratings(db: str | None) -> None:
    """Ratings stored in an older order (before revision 0002) are rebuilt in the current one."""
    with Store.open(db) as store:
        if store.ratings_stale():
            applied = store.recompute_ratings()
            typer.echo(
                f"ratings rebuilt from {applied} rated matches, by tournament then schedule "
                "position (arena/store/rating_order.py)"
            )


@app.command()
def current(db: DbOption = None) -> None:
    """Print the database's schema revision and the newest this arena knows."""
    shown, revision, head = database_revision(db)
    if revision is None:
        state = "empty (created on first use, or by `arena db upgrade`)"
    elif revision == head:
        state = "current"
    else:
        state = f"not the arena's newest ({head}): see `arena db upgrade`"
    typer.echo(f"{shown}: revision {revision or '-'}, {state}")
