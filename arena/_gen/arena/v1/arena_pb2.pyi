import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from arena._gen.spades.v1 import bot_pb2 as _bot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FaultPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_POLICY_UNSPECIFIED: _ClassVar[FaultPolicy]
    FAULT_POLICY_FORFEIT: _ClassVar[FaultPolicy]
    FAULT_POLICY_SUBSTITUTE: _ClassVar[FaultPolicy]

class TournamentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATE_UNSPECIFIED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_RUNNING: _ClassVar[TournamentState]
    TOURNAMENT_STATE_FINISHED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_INTERRUPTED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_CANCELLED: _ClassVar[TournamentState]

class DealMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEAL_MODE_UNSPECIFIED: _ClassVar[DealMode]
    DEAL_MODE_DUPLICATE: _ClassVar[DealMode]
    DEAL_MODE_INDEPENDENT: _ClassVar[DealMode]
    DEAL_MODE_PAIRS: _ClassVar[DealMode]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_DOUBLE_NIL: _ClassVar[DecisionKind]
    DECISION_KIND_DRAW: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE: _ClassVar[DecisionKind]
    DECISION_KIND_BID: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL_ACTION: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED_ANSWER: _ClassVar[FaultKind]
    FAULT_KIND_ERROR_STATUS: _ClassVar[FaultKind]
    FAULT_KIND_CRASH: _ClassVar[FaultKind]
FAULT_POLICY_UNSPECIFIED: FaultPolicy
FAULT_POLICY_FORFEIT: FaultPolicy
FAULT_POLICY_SUBSTITUTE: FaultPolicy
TOURNAMENT_STATE_UNSPECIFIED: TournamentState
TOURNAMENT_STATE_RUNNING: TournamentState
TOURNAMENT_STATE_FINISHED: TournamentState
TOURNAMENT_STATE_INTERRUPTED: TournamentState
TOURNAMENT_STATE_CANCELLED: TournamentState
DEAL_MODE_UNSPECIFIED: DealMode
DEAL_MODE_DUPLICATE: DealMode
DEAL_MODE_INDEPENDENT: DealMode
DEAL_MODE_PAIRS: DealMode
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_DOUBLE_NIL: DecisionKind
DECISION_KIND_DRAW: DecisionKind
DECISION_KIND_EXCHANGE: DecisionKind
DECISION_KIND_BID: DecisionKind
DECISION_KIND_PLAY: DecisionKind
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_ILLEGAL_ACTION: FaultKind
FAULT_KIND_MALFORMED_ANSWER: FaultKind
FAULT_KIND_ERROR_STATUS: FaultKind
FAULT_KIND_CRASH: FaultKind

class BotVersion(_message.Message):
    __slots__ = ("version", "content_hash", "created_at")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    version: str
    content_hash: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, version: _Optional[str] = ..., content_hash: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Bot(_message.Message):
    __slots__ = ("name", "owner", "latest_version", "versions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    LATEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    latest_version: BotVersion
    versions: _containers.RepeatedCompositeFieldContainer[BotVersion]
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., latest_version: _Optional[_Union[BotVersion, _Mapping]] = ..., versions: _Optional[_Iterable[_Union[BotVersion, _Mapping]]] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("archive", "name")
    ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    archive: bytes
    name: str
    def __init__(self, archive: _Optional[bytes] = ..., name: _Optional[str] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("bot", "version", "created")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    version: BotVersion
    created: bool
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ..., version: _Optional[_Union[BotVersion, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[Bot]
    def __init__(self, bots: _Optional[_Iterable[_Union[Bot, _Mapping]]] = ...) -> None: ...

class GetBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ...) -> None: ...

class Entrant(_message.Message):
    __slots__ = ("bot", "version")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bot: str
    version: str
    def __init__(self, bot: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("id", "state", "bots", "games", "concurrency", "seed", "move_timeout_ms", "policy", "rules", "matches_total", "matches_done", "created_at", "entrants", "time_bank_ms", "max_faults", "deals", "standings", "seed_secret")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    MATCHES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_DONE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_FAULTS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    SEED_SECRET_FIELD_NUMBER: _ClassVar[int]
    id: int
    state: TournamentState
    bots: _containers.RepeatedScalarFieldContainer[str]
    games: int
    concurrency: int
    seed: int
    move_timeout_ms: int
    policy: FaultPolicy
    rules: _bot_pb2.RuleSet
    matches_total: int
    matches_done: int
    created_at: _timestamp_pb2.Timestamp
    entrants: _containers.RepeatedCompositeFieldContainer[Entrant]
    time_bank_ms: int
    max_faults: int
    deals: DealMode
    standings: TournamentStandings
    seed_secret: bool
    def __init__(self, id: _Optional[int] = ..., state: _Optional[_Union[TournamentState, str]] = ..., bots: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., concurrency: _Optional[int] = ..., seed: _Optional[int] = ..., move_timeout_ms: _Optional[int] = ..., policy: _Optional[_Union[FaultPolicy, str]] = ..., rules: _Optional[_Union[_bot_pb2.RuleSet, _Mapping]] = ..., matches_total: _Optional[int] = ..., matches_done: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entrants: _Optional[_Iterable[_Union[Entrant, _Mapping]]] = ..., time_bank_ms: _Optional[int] = ..., max_faults: _Optional[int] = ..., deals: _Optional[_Union[DealMode, str]] = ..., standings: _Optional[_Union[TournamentStandings, _Mapping]] = ..., seed_secret: _Optional[bool] = ...) -> None: ...

class TournamentStandings(_message.Message):
    __slots__ = ("leaderboard", "head_to_head", "faults")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    HEAD_TO_HEAD_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    leaderboard: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    head_to_head: _containers.RepeatedCompositeFieldContainer[HeadToHead]
    faults: _containers.RepeatedCompositeFieldContainer[BotFaults]
    def __init__(self, leaderboard: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., head_to_head: _Optional[_Iterable[_Union[HeadToHead, _Mapping]]] = ..., faults: _Optional[_Iterable[_Union[BotFaults, _Mapping]]] = ...) -> None: ...

class HeadToHead(_message.Message):
    __slots__ = ("bot_a", "bot_b", "matches", "wins_a", "wins_b", "draws", "pairs_won_a", "pairs_won_b", "pairs_split", "margin_a", "pairs", "score_a", "score_a_low", "score_a_high")
    BOT_A_FIELD_NUMBER: _ClassVar[int]
    BOT_B_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_A_FIELD_NUMBER: _ClassVar[int]
    WINS_B_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    PAIRS_WON_A_FIELD_NUMBER: _ClassVar[int]
    PAIRS_WON_B_FIELD_NUMBER: _ClassVar[int]
    PAIRS_SPLIT_FIELD_NUMBER: _ClassVar[int]
    MARGIN_A_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    SCORE_A_FIELD_NUMBER: _ClassVar[int]
    SCORE_A_LOW_FIELD_NUMBER: _ClassVar[int]
    SCORE_A_HIGH_FIELD_NUMBER: _ClassVar[int]
    bot_a: str
    bot_b: str
    matches: int
    wins_a: int
    wins_b: int
    draws: int
    pairs_won_a: int
    pairs_won_b: int
    pairs_split: int
    margin_a: int
    pairs: int
    score_a: float
    score_a_low: float
    score_a_high: float
    def __init__(self, bot_a: _Optional[str] = ..., bot_b: _Optional[str] = ..., matches: _Optional[int] = ..., wins_a: _Optional[int] = ..., wins_b: _Optional[int] = ..., draws: _Optional[int] = ..., pairs_won_a: _Optional[int] = ..., pairs_won_b: _Optional[int] = ..., pairs_split: _Optional[int] = ..., margin_a: _Optional[int] = ..., pairs: _Optional[int] = ..., score_a: _Optional[float] = ..., score_a_low: _Optional[float] = ..., score_a_high: _Optional[float] = ...) -> None: ...

class BotFaults(_message.Message):
    __slots__ = ("bot", "faults", "forfeits")
    class ForfeitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    BOT_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    faults: int
    forfeits: _containers.ScalarMap[str, int]
    def __init__(self, bot: _Optional[str] = ..., faults: _Optional[int] = ..., forfeits: _Optional[_Mapping[str, int]] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("bots", "games", "concurrency", "seed", "move_timeout_ms", "policy", "rules", "time_bank_ms", "max_faults", "deals", "reveal_opponents", "compare")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_FAULTS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    REVEAL_OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    COMPARE_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    games: int
    concurrency: int
    seed: int
    move_timeout_ms: int
    policy: FaultPolicy
    rules: _bot_pb2.RuleSet
    time_bank_ms: int
    max_faults: int
    deals: DealMode
    reveal_opponents: bool
    compare: Comparison
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., concurrency: _Optional[int] = ..., seed: _Optional[int] = ..., move_timeout_ms: _Optional[int] = ..., policy: _Optional[_Union[FaultPolicy, str]] = ..., rules: _Optional[_Union[_bot_pb2.RuleSet, _Mapping]] = ..., time_bank_ms: _Optional[int] = ..., max_faults: _Optional[int] = ..., deals: _Optional[_Union[DealMode, str]] = ..., reveal_opponents: _Optional[bool] = ..., compare: _Optional[_Union[Comparison, _Mapping]] = ...) -> None: ...

class Comparison(_message.Message):
    __slots__ = ("elo0", "elo1", "alpha", "beta", "max_pairs")
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MAX_PAIRS_FIELD_NUMBER: _ClassVar[int]
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_pairs: int
    def __init__(self, elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., max_pairs: _Optional[int] = ...) -> None: ...

class StartTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class CancelTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class ResumeTournamentRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ResumeTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("tournament", "match")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    match: Match
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class MatchSeat(_message.Message):
    __slots__ = ("bot", "version", "faults", "score")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    version: str
    faults: int
    score: int
    def __init__(self, bot: _Optional[str] = ..., version: _Optional[str] = ..., faults: _Optional[int] = ..., score: _Optional[int] = ...) -> None: ...

class Match(_message.Message):
    __slots__ = ("id", "tournament_id", "pair_id", "seed", "rules", "engine_version", "seats", "winner", "hands_played", "termination", "detail", "started_at", "finished_at", "rated", "unrated_reason", "sealed")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAIR_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    UNRATED_REASON_FIELD_NUMBER: _ClassVar[int]
    SEALED_FIELD_NUMBER: _ClassVar[int]
    id: str
    tournament_id: int
    pair_id: str
    seed: int
    rules: _bot_pb2.RuleSet
    engine_version: str
    seats: _containers.RepeatedCompositeFieldContainer[MatchSeat]
    winner: int
    hands_played: int
    termination: _bot_pb2.Termination
    detail: str
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    rated: bool
    unrated_reason: str
    sealed: bool
    def __init__(self, id: _Optional[str] = ..., tournament_id: _Optional[int] = ..., pair_id: _Optional[str] = ..., seed: _Optional[int] = ..., rules: _Optional[_Union[_bot_pb2.RuleSet, _Mapping]] = ..., engine_version: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[MatchSeat, _Mapping]]] = ..., winner: _Optional[int] = ..., hands_played: _Optional[int] = ..., termination: _Optional[_Union[_bot_pb2.Termination, str]] = ..., detail: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rated: _Optional[bool] = ..., unrated_reason: _Optional[str] = ..., sealed: _Optional[bool] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("seat", "kind", "double_nil", "draw", "exchange", "bid", "play", "elapsed_us", "fault")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_NIL_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_US_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: DecisionKind
    double_nil: _bot_pb2.DoubleNilChoice
    draw: _bot_pb2.DrawChoice
    exchange: ExchangedCards
    bid: int
    play: _bot_pb2.Card
    elapsed_us: int
    fault: FaultKind
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., double_nil: _Optional[_Union[_bot_pb2.DoubleNilChoice, str]] = ..., draw: _Optional[_Union[_bot_pb2.DrawChoice, str]] = ..., exchange: _Optional[_Union[ExchangedCards, _Mapping]] = ..., bid: _Optional[int] = ..., play: _Optional[_Union[_bot_pb2.Card, _Mapping]] = ..., elapsed_us: _Optional[int] = ..., fault: _Optional[_Union[FaultKind, str]] = ...) -> None: ...

class ExchangedCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[_bot_pb2.Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[_bot_pb2.Card, _Mapping]]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("tournament_id", "bot", "page_size", "page_token")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament_id: int
    bot: str
    page_size: int
    page_token: str
    def __init__(self, tournament_id: _Optional[int] = ..., bot: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[Match]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[Match, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "decisions")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    match: Match
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]] = ...) -> None: ...

class GetMatchLogRequest(_message.Message):
    __slots__ = ("match_id", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class GetMatchLogResponse(_message.Message):
    __slots__ = ("kept", "text")
    KEPT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kept: bool
    text: str
    def __init__(self, kept: _Optional[bool] = ..., text: _Optional[str] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "bot", "version", "mu", "sigma", "score", "matches", "wins", "losses", "draws", "faults", "mu_low", "mu_high")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    MU_LOW_FIELD_NUMBER: _ClassVar[int]
    MU_HIGH_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    version: str
    mu: float
    sigma: float
    score: float
    matches: int
    wins: int
    losses: int
    draws: int
    faults: int
    mu_low: float
    mu_high: float
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., version: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., score: _Optional[float] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., draws: _Optional[int] = ..., faults: _Optional[int] = ..., mu_low: _Optional[float] = ..., mu_high: _Optional[float] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ...) -> None: ...

class GetLadderStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LadderPair(_message.Message):
    __slots__ = ("tournament_id", "bots", "why")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: int
    bots: _containers.RepeatedScalarFieldContainer[str]
    why: str
    def __init__(self, tournament_id: _Optional[int] = ..., bots: _Optional[_Iterable[str]] = ..., why: _Optional[str] = ...) -> None: ...

class LadderEntrant(_message.Message):
    __slots__ = ("bot", "version_id", "mu", "sigma", "pairs", "house")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    HOUSE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    version_id: int
    mu: float
    sigma: float
    pairs: int
    house: bool
    def __init__(self, bot: _Optional[str] = ..., version_id: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., pairs: _Optional[int] = ..., house: _Optional[bool] = ...) -> None: ...

class LadderPause(_message.Message):
    __slots__ = ("bot", "version_id", "reason", "at")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    version_id: int
    reason: str
    at: str
    def __init__(self, bot: _Optional[str] = ..., version_id: _Optional[int] = ..., reason: _Optional[str] = ..., at: _Optional[str] = ...) -> None: ...

class LadderWaiting(_message.Message):
    __slots__ = ("bot", "version_id", "why")
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    bot: str
    version_id: int
    why: str
    def __init__(self, bot: _Optional[str] = ..., version_id: _Optional[int] = ..., why: _Optional[str] = ...) -> None: ...

class CollusionFlag(_message.Message):
    __slots__ = ("bot", "opponent", "forfeits_against", "matches_against", "forfeits_others", "matches_others", "p_value", "why")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_AGAINST_FIELD_NUMBER: _ClassVar[int]
    MATCHES_AGAINST_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_OTHERS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_OTHERS_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    bot: str
    opponent: str
    forfeits_against: int
    matches_against: int
    forfeits_others: int
    matches_others: int
    p_value: float
    why: str
    def __init__(self, bot: _Optional[str] = ..., opponent: _Optional[str] = ..., forfeits_against: _Optional[int] = ..., matches_against: _Optional[int] = ..., forfeits_others: _Optional[int] = ..., matches_others: _Optional[int] = ..., p_value: _Optional[float] = ..., why: _Optional[str] = ...) -> None: ...

class GetLadderStatusResponse(_message.Message):
    __slots__ = ("updated_at", "pairs_scheduled", "matches_last_24h", "daily_budget", "playing", "entrants", "paused", "per_owner", "reveal_opponents", "waiting", "flags", "idle_reason")
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PAIRS_SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_LAST_24H_FIELD_NUMBER: _ClassVar[int]
    DAILY_BUDGET_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    PER_OWNER_FIELD_NUMBER: _ClassVar[int]
    REVEAL_OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    FLAGS_FIELD_NUMBER: _ClassVar[int]
    IDLE_REASON_FIELD_NUMBER: _ClassVar[int]
    updated_at: str
    pairs_scheduled: int
    matches_last_24h: int
    daily_budget: int
    playing: _containers.RepeatedCompositeFieldContainer[LadderPair]
    entrants: _containers.RepeatedCompositeFieldContainer[LadderEntrant]
    paused: _containers.RepeatedCompositeFieldContainer[LadderPause]
    per_owner: int
    reveal_opponents: bool
    waiting: _containers.RepeatedCompositeFieldContainer[LadderWaiting]
    flags: _containers.RepeatedCompositeFieldContainer[CollusionFlag]
    idle_reason: str
    def __init__(self, updated_at: _Optional[str] = ..., pairs_scheduled: _Optional[int] = ..., matches_last_24h: _Optional[int] = ..., daily_budget: _Optional[int] = ..., playing: _Optional[_Iterable[_Union[LadderPair, _Mapping]]] = ..., entrants: _Optional[_Iterable[_Union[LadderEntrant, _Mapping]]] = ..., paused: _Optional[_Iterable[_Union[LadderPause, _Mapping]]] = ..., per_owner: _Optional[int] = ..., reveal_opponents: _Optional[bool] = ..., waiting: _Optional[_Iterable[_Union[LadderWaiting, _Mapping]]] = ..., flags: _Optional[_Iterable[_Union[CollusionFlag, _Mapping]]] = ..., idle_reason: _Optional[str] = ...) -> None: ...
