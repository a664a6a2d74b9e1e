"""Round-robin tournaments: the schedule, the runner that plays it K matches at a time and
resumes it after any stop, and the standings computed from what the store recorded."""

from arena.tournament.progress import QuietReporter, Reporter, TerminalReporter
from arena.tournament.runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_GAMES,
    DEFAULT_MOVE_TIMEOUT_MS,
    TournamentConfig,
    TournamentSettings,
    create_tournament,
    create_tournament_of,
    load_config,
    match_id,
    run_tournament,
    tournament_records,
    tournament_standings,
)
from arena.tournament.schedule import (
    DEFAULT_DEALS,
    DealMode,
    ScheduledGame,
    build_schedule,
    deal_seed,
    parse_deal_mode,
)
from arena.tournament.standings import (
    FaultRow,
    GameRecord,
    HeadToHead,
    Standings,
    compute_standings,
    rate_in_order,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_DEALS",
    "DEFAULT_GAMES",
    "DEFAULT_MOVE_TIMEOUT_MS",
    "DealMode",
    "FaultRow",
    "GameRecord",
    "HeadToHead",
    "QuietReporter",
    "Reporter",
    "ScheduledGame",
    "Standings",
    "TerminalReporter",
    "TournamentConfig",
    "TournamentSettings",
    "build_schedule",
    "compute_standings",
    "create_tournament",
    "create_tournament_of",
    "deal_seed",
    "load_config",
    "match_id",
    "parse_deal_mode",
    "rate_in_order",
    "run_tournament",
    "tournament_records",
    "tournament_standings",
]
