"""What a command of the ``arena`` CLI asks of an arena, whether its own database or a server.

``Arena`` is the one interface; ``arena.cli.local.LocalArena`` answers it from a database (the
store and the tournament runner), ``arena.cli.remote.RemoteArena`` from a running arena service
(its gRPC client). A command gets one from ``arena.cli.open_arena.open_arena`` and its options,
makes one call, and prints the answer with the formatters both sides share
(``arena.cli.ratings_format``, ``arena.cli.tournament_format``, ``arena.cli.match_list``), so
that ``--server`` changes where the answer comes from, never how it reads.

An option that only one side can honour (``--recompute``, ``--startup``, ``--ray``,
``--reveal-opponents`` …) is refused by the other side in one line, before anything is stored
or any call is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.referee.record import MatchResult
from arena.rules.ruleset import RuleSet


@dataclass(frozen=True, slots=True)
class TournamentRequest:
    """A round robin to play, as ``arena tournament run`` asks for it."""

    bots: list[str]
    """Bot directories or registered names (a server: submitted names); empty: the sample bots
    that can run here (locally)."""
    games: int
    concurrency: int | None
    seed: int | None
    move_timeout_ms: int
    time_bank_ms: int
    policy: str
    max_faults: int
    rules: RuleSet
    deals: str
    reveal_opponents: bool = False
    """Tell bots their opponent's name: a server's choice only (a local run always does)."""


@dataclass(frozen=True, slots=True)
class LocalPlay:
    """How this machine plays a tournament's matches: what only a local arena can honour."""

    concurrency: int | None = None
    """Matches at once on resume (None: as the tournament was started)."""
    log_dir: Path | None = None
    sandbox: str | None = None
    ray: str | None = None
    ray_worker_cpus: float = 2.0


@dataclass(slots=True)
class TournamentReport:
    """A tournament as its report prints it (``arena.cli.tournament_format.report``)."""

    info: Any
    config: Any
    standings: Any
    comparison: Any = None
    """A comparison's state (``arena compare``'s figures), None for a round robin."""
    matches: list[dict[str, Any]] | None = None
    """Its matches as ``arena.cli.match_list.match_row`` gives them, oldest first, when asked."""
    nodes: list[dict[str, Any]] | None = None
    """This run's work per Ray node (``--ray``)."""
    unfinished: str | None = None
    """Why a tournament followed to its end did not finish (cancelled, interrupted), or None."""

    @property
    def parts(self) -> tuple[Any, Any, Any]:
        return self.info, self.config, self.standings


class Arena(Protocol):
    """What the CLI asks of an arena. Every method opens what it needs and closes it again."""

    def submit_bot(self, directory: Path, name: str | None) -> pb.SubmitBotResponse:
        """Pack DIRECTORY and submit it as a version of the bot (checked as the service checks
        a submission); the same content again changes nothing."""
        ...

    def bots(self, name: str | None = None) -> list[pb.Bot]:
        """Every bot with its latest version, or the one named with all its versions."""
        ...

    def leaderboard(self, *, players: str = "all", recompute: bool = False) -> list[Any]:
        """The rated bot versions, best first (``arena.store.rows.LeaderboardRow``)."""
        ...

    def ladder_status(self) -> dict[str, Any] | None:
        """What the ladder plays and why (``arena.ladder.runner.describe_status`` reads it), or None
        if no ladder ever ran here."""
        ...

    def match_record(self, ref: str) -> MatchResult:
        """A match's full record, to replay and check here."""
        ...

    def match_rows(
        self, *, tournament_id: int | None = None, bot: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Recorded matches, newest first (at least ``limit`` of them when there are so many),
        as ``arena.cli.match_list.match_row`` gives them."""
        ...

    def match_log(
        self, match_id: str, seat: int, *, log_dir: Path | None = None, startup: bool = False
    ) -> str:
        """Seat SEAT's log of a recorded match (``startup``: what the bot printed while
        starting)."""
        ...

    def tournament_rows(self) -> list[dict[str, Any]]:
        """Every tournament, oldest first: id, status, done, total, bots, created_at."""
        ...

    def tournament_report(self, tournament_id: int, *, matches: bool = False) -> TournamentReport:
        """A tournament's report as it stands (with its matches when asked)."""
        ...

    def watch_tournament(self, tournament_id: int, reporter: Any) -> TournamentReport | None:
        """Feed the tournament's progress to ``reporter`` until it ends or stops; its report
        then (None when nothing was told)."""
        ...

    def cancel_tournament(self, tournament_id: int) -> tuple[int, int]:
        """Cancel it: (matches played, matches in all)."""
        ...

    def run_tournament(
        self, request: TournamentRequest, local: LocalPlay, *, as_json: bool
    ) -> TournamentReport:
        """Create the tournament and play it to its end, progress shown unless ``as_json``."""
        ...

    def resume_tournament(
        self, tournament_id: int, local: LocalPlay, *, as_json: bool, wide: bool = False
    ) -> TournamentReport:
        """Play a stopped tournament's pending matches to its end."""
        ...
