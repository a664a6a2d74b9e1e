"""``arena web``: the web arena (leaderboard, bots, live tournaments, replays) over a database."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from arena.cli.options import AnalysisOption, DataDirOption, DbOption, SignupOption, check_signup
from arena.runtime.archive import ArchiveLimits
from arena.runtime.start_check import check_starts
from arena.service.permissions import Quotas
from arena.service.submission import BotSubmissions, default_data_dir
from arena.store import Store
from arena.store.database import resolve_url

DEFAULT_WEB_LISTEN = "127.0.0.1:8080"


def web(
    listen: Annotated[
        str,
        typer.Option(
            "--listen",
            help="Address to serve HTTP on, HOST:PORT (port 0 picks a free one).",
        ),
    ] = DEFAULT_WEB_LISTEN,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    behind_tls: Annotated[
        bool,
        typer.Option(
            "--behind-tls",
            help="The site is reached over HTTPS through a proxy in front: cookies are "
            "Secure and every response carries HSTS.",
        ),
    ] = False,
    analysis: AnalysisOption = "1",
    signup: SignupOption = "closed",
) -> None:
    """Serve the web arena for a database: open the printed URL in a browser.

    People sign in with an account's password or an API token; who may sign up is --signup's
    to say. The pages update live while a tournament is played into the
    same database by another process (`arena tournament run`). Ctrl-C stops it.
    """
    # Here, not at the top: the web (Starlette, Jinja, Hypercorn: some 170 modules) is not
    # needed by `arena --help` or any other command.
    from arena.analysis_worker import AnalysisWorkers, parse_analysis
    from arena.web import WebConfig, WebServer, parse_listen

    parse_listen(listen)  # a bad address is told before the database is opened
    processes = parse_analysis(analysis)
    check_signup(signup)
    with Store.open(db) as store:
        # The bots' logs (the owner's logs page) are in the database's data folder.
        folder = data_dir or default_data_dir(db)
        # Uploads on /submit take the service's path: its archive rules, quotas and start check.
        submissions = BotSubmissions(
            store, folder, ArchiveLimits(), Quotas(), start_check=check_starts
        )
        config = WebConfig(
            data_dir=folder, secure_cookies=behind_tls, signup=signup, submissions=submissions
        )
        server = WebServer(store, listen, config)
        print(
            f"arena: web arena on {server.url} (database {store.url}); Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        workers = None
        if processes:
            workers = AnalysisWorkers(resolve_url(db).render_as_string(False), processes)
            workers.start()
        try:
            server.run()
        finally:
            if workers is not None:
                workers.stop()
