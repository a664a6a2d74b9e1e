from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_TWO: _ClassVar[Rank]
    RANK_THREE: _ClassVar[Rank]
    RANK_FOUR: _ClassVar[Rank]
    RANK_FIVE: _ClassVar[Rank]
    RANK_SIX: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_TEN: _ClassVar[Rank]
    RANK_JACK: _ClassVar[Rank]
    RANK_QUEEN: _ClassVar[Rank]
    RANK_KING: _ClassVar[Rank]
    RANK_ACE: _ClassVar[Rank]

class DrawChoice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_CHOICE_UNSPECIFIED: _ClassVar[DrawChoice]
    DRAW_CHOICE_KEEP: _ClassVar[DrawChoice]
    DRAW_CHOICE_REJECT: _ClassVar[DrawChoice]

class DoubleNilChoice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOUBLE_NIL_CHOICE_UNSPECIFIED: _ClassVar[DoubleNilChoice]
    DOUBLE_NIL_CHOICE_DECLARE: _ClassVar[DoubleNilChoice]
    DOUBLE_NIL_CHOICE_DECLINE: _ClassVar[DoubleNilChoice]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_TARGET_REACHED: _ClassVar[Termination]
    TERMINATION_HAND_LIMIT: _ClassVar[Termination]
    TERMINATION_FORFEIT_TIMEOUT: _ClassVar[Termination]
    TERMINATION_FORFEIT_ILLEGAL_ACTION: _ClassVar[Termination]
    TERMINATION_FORFEIT_MALFORMED_ANSWER: _ClassVar[Termination]
    TERMINATION_FORFEIT_ERROR_STATUS: _ClassVar[Termination]
    TERMINATION_FORFEIT_CRASH: _ClassVar[Termination]
    TERMINATION_FORFEIT_NO_START: _ClassVar[Termination]
    TERMINATION_ABORTED: _ClassVar[Termination]
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_HEARTS: Suit
SUIT_SPADES: Suit
RANK_UNSPECIFIED: Rank
RANK_TWO: Rank
RANK_THREE: Rank
RANK_FOUR: Rank
RANK_FIVE: Rank
RANK_SIX: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
RANK_NINE: Rank
RANK_TEN: Rank
RANK_JACK: Rank
RANK_QUEEN: Rank
RANK_KING: Rank
RANK_ACE: Rank
DRAW_CHOICE_UNSPECIFIED: DrawChoice
DRAW_CHOICE_KEEP: DrawChoice
DRAW_CHOICE_REJECT: DrawChoice
DOUBLE_NIL_CHOICE_UNSPECIFIED: DoubleNilChoice
DOUBLE_NIL_CHOICE_DECLARE: DoubleNilChoice
DOUBLE_NIL_CHOICE_DECLINE: DoubleNilChoice
TERMINATION_UNSPECIFIED: Termination
TERMINATION_TARGET_REACHED: Termination
TERMINATION_HAND_LIMIT: Termination
TERMINATION_FORFEIT_TIMEOUT: Termination
TERMINATION_FORFEIT_ILLEGAL_ACTION: Termination
TERMINATION_FORFEIT_MALFORMED_ANSWER: Termination
TERMINATION_FORFEIT_ERROR_STATUS: Termination
TERMINATION_FORFEIT_CRASH: Termination
TERMINATION_FORFEIT_NO_START: Termination
TERMINATION_ABORTED: Termination

class Card(_message.Message):
    __slots__ = ("suit", "rank")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: Rank
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[_Union[Rank, str]] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("target_score", "max_hands", "draw_decision_public", "double_nil_allowed", "nil_tricks_count_as_bags")
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    DRAW_DECISION_PUBLIC_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_NIL_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    NIL_TRICKS_COUNT_AS_BAGS_FIELD_NUMBER: _ClassVar[int]
    target_score: int
    max_hands: int
    draw_decision_public: bool
    double_nil_allowed: bool
    nil_tricks_count_as_bags: bool
    def __init__(self, target_score: _Optional[int] = ..., max_hands: _Optional[int] = ..., draw_decision_public: _Optional[bool] = ..., double_nil_allowed: _Optional[bool] = ..., nil_tricks_count_as_bags: _Optional[bool] = ...) -> None: ...

class SeatState(_message.Message):
    __slots__ = ("score", "bags", "bid", "double_nil", "tricks_won", "cards_exchanged", "draw_choices")
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BAGS_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_NIL_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    CARDS_EXCHANGED_FIELD_NUMBER: _ClassVar[int]
    DRAW_CHOICES_FIELD_NUMBER: _ClassVar[int]
    score: int
    bags: int
    bid: int
    double_nil: bool
    tricks_won: int
    cards_exchanged: int
    draw_choices: _containers.RepeatedScalarFieldContainer[DrawChoice]
    def __init__(self, score: _Optional[int] = ..., bags: _Optional[int] = ..., bid: _Optional[int] = ..., double_nil: _Optional[bool] = ..., tricks_won: _Optional[int] = ..., cards_exchanged: _Optional[int] = ..., draw_choices: _Optional[_Iterable[_Union[DrawChoice, str]]] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class InformationSet(_message.Message):
    __slots__ = ("seat", "rules", "hand_number", "first_drawer", "hand", "looking_at", "own_discards", "stock_size", "seats", "tricks", "spades_broken", "own_put_aside")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DRAWER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LOOKING_AT_FIELD_NUMBER: _ClassVar[int]
    OWN_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    SPADES_BROKEN_FIELD_NUMBER: _ClassVar[int]
    OWN_PUT_ASIDE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rules: RuleSet
    hand_number: int
    first_drawer: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    looking_at: Card
    own_discards: _containers.RepeatedCompositeFieldContainer[Card]
    stock_size: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatState]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    spades_broken: bool
    own_put_aside: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., hand_number: _Optional[int] = ..., first_drawer: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., looking_at: _Optional[_Union[Card, _Mapping]] = ..., own_discards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., stock_size: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatState, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., spades_broken: _Optional[bool] = ..., own_put_aside: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_time_ms", "time_bank_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    time_bank_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "rules", "opponent", "clock")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    rules: RuleSet
    opponent: str
    clock: Clock
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., opponent: _Optional[str] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class StartMatchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DecideDoubleNilRequest(_message.Message):
    __slots__ = ("match_id", "info", "clock")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    info: InformationSet
    clock: Clock
    def __init__(self, match_id: _Optional[str] = ..., info: _Optional[_Union[InformationSet, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class DecideDoubleNilResponse(_message.Message):
    __slots__ = ("choice",)
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    choice: DoubleNilChoice
    def __init__(self, choice: _Optional[_Union[DoubleNilChoice, str]] = ...) -> None: ...

class DrawRequest(_message.Message):
    __slots__ = ("match_id", "info", "clock")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    info: InformationSet
    clock: Clock
    def __init__(self, match_id: _Optional[str] = ..., info: _Optional[_Union[InformationSet, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class DrawResponse(_message.Message):
    __slots__ = ("choice",)
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    choice: DrawChoice
    def __init__(self, choice: _Optional[_Union[DrawChoice, str]] = ...) -> None: ...

class ExchangeRequest(_message.Message):
    __slots__ = ("match_id", "info", "clock", "max_cards")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    MAX_CARDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    info: InformationSet
    clock: Clock
    max_cards: int
    def __init__(self, match_id: _Optional[str] = ..., info: _Optional[_Union[InformationSet, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., max_cards: _Optional[int] = ...) -> None: ...

class ExchangeResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class BidRequest(_message.Message):
    __slots__ = ("match_id", "info", "clock", "legal_bids")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    LEGAL_BIDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    info: InformationSet
    clock: Clock
    legal_bids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., info: _Optional[_Union[InformationSet, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., legal_bids: _Optional[_Iterable[int]] = ...) -> None: ...

class BidResponse(_message.Message):
    __slots__ = ("tricks",)
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    tricks: int
    def __init__(self, tricks: _Optional[int] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("match_id", "info", "clock", "legal_cards")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    LEGAL_CARDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    info: InformationSet
    clock: Clock
    legal_cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, match_id: _Optional[str] = ..., info: _Optional[_Union[InformationSet, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., legal_cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: Card
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class HandResult(_message.Message):
    __slots__ = ("hand_number", "first_drawer", "bids", "double_nil", "tricks_won", "points", "bag_penalties", "scores", "bags")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DRAWER_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_NIL_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    BAG_PENALTIES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BAGS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    first_drawer: int
    bids: _containers.RepeatedScalarFieldContainer[int]
    double_nil: _containers.RepeatedScalarFieldContainer[bool]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    bag_penalties: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    bags: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_number: _Optional[int] = ..., first_drawer: _Optional[int] = ..., bids: _Optional[_Iterable[int]] = ..., double_nil: _Optional[_Iterable[bool]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., bag_penalties: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., bags: _Optional[_Iterable[int]] = ...) -> None: ...

class EndHandRequest(_message.Message):
    __slots__ = ("match_id", "seat", "result", "tricks")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    result: HandResult
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[HandResult, _Mapping]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ...) -> None: ...

class EndHandResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EndMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "winner", "scores", "hands_played", "termination", "detail")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    winner: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    hands_played: int
    termination: Termination
    detail: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., winner: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., hands_played: _Optional[int] = ..., termination: _Optional[_Union[Termination, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class EndMatchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PlaySessionRequest(_message.Message):
    __slots__ = ("seq", "start_match", "decide_double_nil", "draw", "exchange", "bid", "play", "end_hand", "end_match")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    START_MATCH_FIELD_NUMBER: _ClassVar[int]
    DECIDE_DOUBLE_NIL_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    END_HAND_FIELD_NUMBER: _ClassVar[int]
    END_MATCH_FIELD_NUMBER: _ClassVar[int]
    seq: int
    start_match: StartMatchRequest
    decide_double_nil: DecideDoubleNilRequest
    draw: DrawRequest
    exchange: ExchangeRequest
    bid: BidRequest
    play: PlayRequest
    end_hand: EndHandRequest
    end_match: EndMatchRequest
    def __init__(self, seq: _Optional[int] = ..., start_match: _Optional[_Union[StartMatchRequest, _Mapping]] = ..., decide_double_nil: _Optional[_Union[DecideDoubleNilRequest, _Mapping]] = ..., draw: _Optional[_Union[DrawRequest, _Mapping]] = ..., exchange: _Optional[_Union[ExchangeRequest, _Mapping]] = ..., bid: _Optional[_Union[BidRequest, _Mapping]] = ..., play: _Optional[_Union[PlayRequest, _Mapping]] = ..., end_hand: _Optional[_Union[EndHandRequest, _Mapping]] = ..., end_match: _Optional[_Union[EndMatchRequest, _Mapping]] = ...) -> None: ...

class PlaySessionResponse(_message.Message):
    __slots__ = ("seq", "start_match", "decide_double_nil", "draw", "exchange", "bid", "play", "end_hand", "end_match", "error")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    START_MATCH_FIELD_NUMBER: _ClassVar[int]
    DECIDE_DOUBLE_NIL_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    END_HAND_FIELD_NUMBER: _ClassVar[int]
    END_MATCH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    seq: int
    start_match: StartMatchResponse
    decide_double_nil: DecideDoubleNilResponse
    draw: DrawResponse
    exchange: ExchangeResponse
    bid: BidResponse
    play: PlayResponse
    end_hand: EndHandResponse
    end_match: EndMatchResponse
    error: SessionError
    def __init__(self, seq: _Optional[int] = ..., start_match: _Optional[_Union[StartMatchResponse, _Mapping]] = ..., decide_double_nil: _Optional[_Union[DecideDoubleNilResponse, _Mapping]] = ..., draw: _Optional[_Union[DrawResponse, _Mapping]] = ..., exchange: _Optional[_Union[ExchangeResponse, _Mapping]] = ..., bid: _Optional[_Union[BidResponse, _Mapping]] = ..., play: _Optional[_Union[PlayResponse, _Mapping]] = ..., end_hand: _Optional[_Union[EndHandResponse, _Mapping]] = ..., end_match: _Optional[_Union[EndMatchResponse, _Mapping]] = ..., error: _Optional[_Union[SessionError, _Mapping]] = ...) -> None: ...

class SessionError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...
