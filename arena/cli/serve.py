"""``arena serve``: run the arena as a gRPC service (arena.v1) for remote bot authors."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import (
    HOUSE_HELP,
    AnalysisOption,
    DataDirOption,
    DbOption,
    SandboxOption,
    check_signup,
)
from arena.errors import ArenaError
from arena.ladder import LadderSettings
from arena.ladder.house import parse_house
from arena.runtime.archive import ArchiveLimits
from arena.service.limits import ServiceLimits
from arena.service.permissions import Quotas, TournamentLimits

MIB = 1024 * 1024
_DEFAULTS = ArchiveLimits()
_SERVICE = ServiceLimits()
_TOURNAMENTS = TournamentLimits()
_QUOTAS = Quotas()


def serve(
    listen: Annotated[
        str,
        typer.Option(
            "--listen",
            help="Address to listen on, HOST:PORT (port 0 picks a free one; 0.0.0.0:PORT for "
            "every interface).",
        ),
    ] = "127.0.0.1:50051",
    db: DbOption = None,
    data_dir: DataDirOption = None,
    tls_cert: Annotated[
        Path | None,
        typer.Option("--tls-cert", help="PEM certificate chain: serve over TLS (with --tls-key)."),
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option("--tls-key", help="PEM private key of --tls-cert.")
    ] = None,
    open_reads: Annotated[
        bool,
        typer.Option(
            "--open-reads/--auth-reads",
            help="Whether reads (lists, matches, leaderboard) are open to all, or need a token "
            "like writes do.",
        ),
    ] = True,
    max_archive_mb: Annotated[
        float, typer.Option("--max-archive-mb", help="Largest bot archive accepted (compressed).")
    ] = _DEFAULTS.max_archive_bytes / MIB,
    max_files: Annotated[
        int, typer.Option("--max-files", help="Most entries (files, folders, links) in an archive.")
    ] = _DEFAULTS.max_entries,
    max_unpacked_mb: Annotated[
        float, typer.Option("--max-unpacked-mb", help="Largest unpacked size of an archive.")
    ] = _DEFAULTS.max_unpacked_bytes / MIB,
    max_streams: Annotated[
        int, typer.Option("--max-streams", help="Most streams open at once, over all clients.")
    ] = _SERVICE.max_streams,
    max_streams_per_peer: Annotated[
        int,
        typer.Option("--max-streams-per-peer", help="Most streams open at once from one address."),
    ] = _SERVICE.max_streams_per_peer,
    stream_idle_timeout: Annotated[
        float,
        typer.Option(
            "--stream-idle-timeout",
            help="Seconds a reflection stream may stay without a request before it is closed.",
        ),
    ] = _SERVICE.stream_idle_s,
    max_matches: Annotated[
        int, typer.Option("--max-matches", help="Most matches one tournament may schedule.")
    ] = _TOURNAMENTS.max_matches,
    submissions_per_hour: Annotated[
        int,
        typer.Option("--submissions-per-hour", help="Accepted submissions per token per hour."),
    ] = _QUOTAS.submissions_per_hour,
    stored_mb_per_token: Annotated[
        float,
        typer.Option("--stored-mb-per-token", help="Unpacked bot bytes a token may keep stored."),
    ] = _QUOTAS.stored_bytes_per_token / MIB,
    stored_mb: Annotated[
        float, typer.Option("--stored-mb", help="Unpacked bot bytes stored for everyone together.")
    ] = _QUOTAS.stored_bytes_total / MIB,
    running_per_token: Annotated[
        int,
        typer.Option("--running-per-token", help="Tournaments one token may have running at once."),
    ] = _QUOTAS.running_per_token,
    shutdown_grace: Annotated[
        float,
        typer.Option(
            "--shutdown-grace",
            help="Seconds running matches may take to finish on SIGTERM before they are "
            "recorded as aborted.",
        ),
    ] = 30.0,
    sandbox: SandboxOption = None,
    insecure_no_sandbox: Annotated[
        bool,
        typer.Option(
            "--insecure-no-sandbox",
            help="Run submitted bots even where the sandbox is off or unavailable: they then "
            "have the server's rights (its database, its network).",
        ),
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Play tournaments' matches on the Ray cluster at this address (HOST:PORT of its "
            "head, or auto); this server still records every result.",
            show_default=False,
        ),
    ] = None,
    ray_worker_cpus: Annotated[
        float, typer.Option("--ray-worker-cpus", help="With --ray: CPUs of a node per worker.")
    ] = 2.0,
    ladder: Annotated[
        bool,
        typer.Option(
            "--ladder",
            help="Run the ladder: the server schedules rated duplicate pairs itself, new and "
            "uncertain bots first (docs/ladder.md).",
        ),
    ] = False,
    ladder_concurrency: Annotated[
        int, typer.Option("--ladder-concurrency", help="With --ladder: pairs played at once.")
    ] = 1,
    ladder_daily_budget: Annotated[
        int | None,
        typer.Option("--ladder-daily-budget", help="With --ladder: at most N matches a day."),
    ] = None,
    ladder_bots: Annotated[
        str | None,
        typer.Option(
            "--ladder-bots",
            help="With --ladder: comma-separated bot names (default: every registered bot).",
        ),
    ] = None,
    ladder_per_owner: Annotated[
        int,
        typer.Option(
            "--ladder-per-owner",
            help="With --ladder: at most N bots of one owner take part at once.",
        ),
    ] = 2,
    ladder_reveal_opponents: Annotated[
        bool,
        typer.Option(
            "--ladder-reveal-opponents",
            help="With --ladder: tell bots their opponent's name (off: anonymous).",
        ),
    ] = False,
    ladder_house: Annotated[
        str,
        typer.Option("--ladder-house", help=f"With --ladder: {HOUSE_HELP}"),
    ] = "sample",
    web: Annotated[
        str | None,
        typer.Option(
            "--web",
            help="Also serve the web arena (pages and JSON API) on this HOST:PORT, "
            "e.g. 127.0.0.1:8080.",
            show_default=False,
        ),
    ] = None,
    web_behind_tls: Annotated[
        bool,
        typer.Option(
            "--web-behind-tls",
            help="With --web: the site is reached over HTTPS through a proxy in front "
            "(Secure cookies, HSTS).",
        ),
    ] = False,
    analysis: AnalysisOption = "1",
    web_signup: Annotated[
        str,
        typer.Option(
            "--web-signup",
            "--signup",
            help="With --web: who may sign up on /signup: open, invite (codes an admin makes) "
            "or closed.",
        ),
    ] = "closed",
) -> None:
    """Serve the arena over gRPC: submit bots, run and watch tournaments, read the leaderboard.

    Writes need a token (`arena token create NAME`). Health checking and server reflection are
    on, so grpcurl or `buf curl` can list and call the service. SIGTERM shuts down gracefully.
    """
    # Here, not at the top: the service's server (and grpc.aio) is not needed by `arena --help`.
    from arena.analysis_worker import parse_analysis
    from arena.service.server import ServerConfig
    from arena.service.server import serve as run

    if max_archive_mb <= 0 or max_files <= 0 or max_unpacked_mb <= 0 or shutdown_grace < 0:
        raise ArenaError("--max-archive-mb, --max-files and --max-unpacked-mb must be positive")
    if (
        min(max_matches, submissions_per_hour, running_per_token) <= 0
        or min(stored_mb_per_token, stored_mb) <= 0
    ):
        raise ArenaError("the quotas and --max-matches must be positive")
    if min(max_streams, max_streams_per_peer) <= 0 or stream_idle_timeout <= 0:
        raise ArenaError(
            "--max-streams, --max-streams-per-peer and --stream-idle-timeout must be positive"
        )
    check_signup(web_signup)
    if ray_worker_cpus <= 0:
        raise ArenaError(f"--ray-worker-cpus must be positive, got {ray_worker_cpus:g}")
    run(
        ServerConfig(
            listen=listen,
            db=db,
            data_dir=data_dir,
            tls_cert=tls_cert,
            tls_key=tls_key,
            auth_reads=not open_reads,
            limits=ArchiveLimits(
                max_archive_bytes=int(max_archive_mb * MIB),
                max_entries=max_files,
                max_unpacked_bytes=int(max_unpacked_mb * MIB),
            ),
            shutdown_grace_s=shutdown_grace,
            service_limits=dataclasses.replace(
                _SERVICE,
                max_streams=max_streams,
                max_streams_per_peer=max_streams_per_peer,
                stream_idle_s=stream_idle_timeout,
            ),
            tournament_limits=dataclasses.replace(_TOURNAMENTS, max_matches=max_matches),
            quotas=dataclasses.replace(
                _QUOTAS,
                submissions_per_hour=submissions_per_hour,
                stored_bytes_per_token=int(stored_mb_per_token * MIB),
                stored_bytes_total=int(stored_mb * MIB),
                running_per_token=running_per_token,
            ),
            sandbox=sandbox,
            insecure_no_sandbox=insecure_no_sandbox,
            ray=ray,
            ray_worker_cpus=ray_worker_cpus,
            web_listen=web,
            web_behind_tls=web_behind_tls,
            analysis_processes=parse_analysis(analysis),
            web_signup=web_signup,
            ladder=(
                LadderSettings(
                    concurrency=ladder_concurrency,
                    daily_budget=ladder_daily_budget,
                    bots=tuple(b.strip() for b in (ladder_bots or "").split(",") if b.strip()),
                    per_owner=ladder_per_owner,
                    reveal_opponents=ladder_reveal_opponents,
                    house=parse_house(ladder_house),
                )
                if ladder
                else None
            ),
        )
    )
