"""Conversion between the engine's values and the spades.v1 bot protocol messages.

This sits on the referee's per-decision hot path, so the 52 protocol cards are built once and
requests are filled in place (no intermediate message is copied into the request). It checks
only the *form* of an answer: a card with an unspecified or out-of-range suit or rank, a missing
bid, an unspecified choice, a card named twice in an exchange are malformed
(:class:`MalformedAnswerError`). Whether a well-formed answer is *legal* is the engine's
question (``Match.is_legal``), never decided here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol, cast

from google.protobuf.message import Message

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.rules.cards import card_name
from arena.rules.decisions import Action, Decision
from arena.rules.observation import Observation, SeatView, TrickView
from arena.rules.outcome import HandResult
from arena.rules.ruleset import RuleSet

__all__ = [
    "EXCHANGE_MAX_CARDS",
    "RPCS",
    "SERVICE_NAME",
    "ClockLike",
    "DecisionRpc",
    "MalformedAnswerError",
    "MalformedMessageError",
    "action_from_response",
    "action_to_response",
    "build_request",
    "card_from_pb",
    "card_to_pb",
    "cards_from_pb",
    "end_hand_request",
    "end_match_request",
    "hand_result_from_pb",
    "hand_result_to_pb",
    "info_set",
    "observation_from_pb",
    "rpc_for",
    "ruleset_from_pb",
    "ruleset_to_pb",
    "start_match_request",
    "termination_from_pb",
    "termination_to_pb",
    "trick_from_pb",
    "trick_to_pb",
]

SERVICE_NAME = "spades.v1.BotService"
"""The full name of the service every bot serves (also its gRPC health check name)."""

EXCHANGE_MAX_CARDS = 3
"""R-3.4: a Double Nil bidder puts aside at most three cards."""

_INT32_MAX = 2**31 - 1


class MalformedMessageError(ValueError):
    """A protocol message whose content cannot be converted: a card that is not a card, an
    information set without its two seats."""


class MalformedAnswerError(MalformedMessageError):
    """A bot's answer that is not a well-formed action: a missing field, an unspecified enum, an
    out-of-range card. The referee records it as a malformed-answer fault (never guesses)."""


# -- cards -----------------------------------------------------------------------------------

_PB_CARDS: tuple[pb.Card, ...] = tuple(
    pb.Card(suit=cast(pb.Suit, c // 13 + 1), rank=cast(pb.Rank, c % 13 + 2)) for c in range(52)
)
"""Protocol card of each engine card. Engine suits 0..3 are enum values 1..4 (0 is
UNSPECIFIED); ranks 2..14 are the enum values themselves."""


def card_to_pb(card: int) -> pb.Card:
    """The protocol card of an engine card (0..51), a new message."""
    return pb.Card(suit=cast(pb.Suit, card // 13 + 1), rank=cast(pb.Rank, card % 13 + 2))


def card_from_pb(card: pb.Card, what: str = "card") -> int:
    """The engine card of a protocol card; MalformedAnswerError for an unspecified or
    out-of-range suit or rank (open proto3 enums let any int32 through)."""
    suit = card.suit
    rank = card.rank
    if 1 <= suit <= 4 and 2 <= rank <= 14:
        return (suit - 1) * 13 + rank - 2
    raise MalformedAnswerError(
        f"{what} is not a card: suit {_enum_text(pb.Suit, suit)}, rank {_enum_text(pb.Rank, rank)}"
        " (a card needs a suit SUIT_CLUBS..SUIT_SPADES and a rank RANK_TWO..RANK_ACE, R-1.1)"
    )


def _enum_text(enum: Any, value: int) -> str:
    try:
        return str(enum.Name(value))
    except ValueError:
        return str(value)


_CARD_OF: dict[tuple[int, int], int] = {(c // 13 + 1, c % 13 + 2): c for c in range(52)}


def cards_from_pb(field: Iterable[pb.Card], what: str) -> tuple[int, ...]:
    """The engine cards of a repeated Card field (one dict lookup a card)."""
    get = _CARD_OF.get
    out = tuple([get((c.suit, c.rank), -1) for c in field])
    if -1 in out:
        for c in field:
            card_from_pb(c, what)  # raises, naming the bad card
    return out


# -- rule set, tricks, hand results ---------------------------------------------------------


def ruleset_to_pb(rules: RuleSet) -> pb.RuleSet:
    msg = pb.RuleSet()
    _fill_ruleset(msg, rules)
    return msg


def _fill_ruleset(msg: pb.RuleSet, rules: RuleSet) -> None:
    msg.target_score = rules.target_score
    msg.max_hands = rules.max_hands
    msg.draw_decision_public = rules.draw_decision_public
    msg.double_nil_allowed = rules.double_nil_allowed
    msg.nil_tricks_count_as_bags = rules.nil_tricks_count_as_bags


def ruleset_from_pb(msg: pb.RuleSet) -> RuleSet:
    """The engine rule set; InvalidRuleSetError if its values cannot be played."""
    return RuleSet(
        target_score=msg.target_score,
        max_hands=msg.max_hands,
        draw_decision_public=msg.draw_decision_public,
        double_nil_allowed=msg.double_nil_allowed,
        nil_tricks_count_as_bags=msg.nil_tricks_count_as_bags,
    )


_RULESETS_OF: dict[bytes, RuleSet] = {}
"""Decoded rule sets by their wire bytes (a bot sees the same one or two all the time)."""


def _ruleset_from_pb_cached(msg: pb.RuleSet) -> RuleSet:
    key = msg.SerializeToString(deterministic=True)
    rules = _RULESETS_OF.get(key)
    if rules is None:
        rules = ruleset_from_pb(msg)
        if len(_RULESETS_OF) < 64:
            _RULESETS_OF[key] = rules
    return rules


def trick_to_pb(trick: TrickView) -> pb.Trick:
    msg = pb.Trick(leader=trick.leader, cards=[_PB_CARDS[c] for c in trick.cards])
    if trick.winner is not None:
        msg.winner = trick.winner
    return msg


_PB_TRICKS: dict[TrickView, pb.Trick] = {}
"""Protocol trick of each trick seen so far. A trick is a leader and one or two cards (its
winner follows from them), so there are at most 5,408 of them: the cache needs no eviction, and
copying a built trick is about three times faster than building it."""


def _pb_trick(trick: TrickView) -> pb.Trick:
    msg = _PB_TRICKS.get(trick)
    if msg is None:
        msg = _PB_TRICKS[trick] = trick_to_pb(trick)
    return msg


def _fill_tricks(field: Any, tricks: Iterable[TrickView]) -> None:
    field.extend([_pb_trick(t) for t in tricks])


def trick_from_pb(msg: pb.Trick) -> TrickView:
    return TrickView(
        leader=msg.leader,
        cards=cards_from_pb(msg.cards, "trick card"),
        winner=msg.winner if msg.HasField("winner") else None,
    )


_TRICKS_OF: dict[bytes, TrickView] = {}
"""Decoded tricks by their wire bytes, for the bot side: the same few thousand tricks come in
request after request. Only tricks of seats 0 and 1 with at most two cards are kept, and at
most ``_TRICKS_CACHED`` of them: the wire bytes keep unknown fields, so a sender could otherwise
make every trick a new key."""
_TRICKS_CACHED = 8192
"""Above the 5,408 real tricks (2 leaders x (52 + 52 x 51) cards; see ``_PB_TRICKS``)."""


def _tricks_from_pb(field: Iterable[pb.Trick]) -> tuple[TrickView, ...]:
    out = []
    cache = _TRICKS_OF
    for msg in field:
        key = msg.SerializeToString(deterministic=True)
        trick = cache.get(key)
        if trick is None:
            trick = trick_from_pb(msg)
            if (
                trick.leader in (0, 1)
                and trick.winner in (None, 0, 1)
                and len(trick.cards) <= 2
                and len(cache) < _TRICKS_CACHED
            ):
                cache[key] = trick
        out.append(trick)
    return tuple(out)


def hand_result_to_pb(result: HandResult) -> pb.HandResult:
    return pb.HandResult(
        hand_number=result.hand_number,
        first_drawer=result.first_drawer,
        bids=result.bids,
        double_nil=result.double_nil,
        tricks_won=result.tricks_won,
        points=result.points,
        bag_penalties=result.bag_penalties,
        scores=result.scores,
        bags=result.bags,
    )


def hand_result_from_pb(msg: pb.HandResult, tricks: Iterable[pb.Trick] = ()) -> HandResult:
    def pair(values: Sequence[Any]) -> tuple[Any, Any]:
        if len(values) != 2:
            raise MalformedMessageError(f"a hand result needs one value per seat, got {values!r}")
        return (values[0], values[1])

    return HandResult(
        hand_number=msg.hand_number,
        first_drawer=msg.first_drawer,
        bids=pair(msg.bids),
        double_nil=pair(msg.double_nil),
        tricks_won=pair(msg.tricks_won),
        points=pair(msg.points),
        bag_penalties=pair(msg.bag_penalties),
        scores=pair(msg.scores),
        bags=pair(msg.bags),
        tricks=tuple(trick_from_pb(t) for t in tricks),
    )


# -- the information set --------------------------------------------------------------------

_KEEP = pb.DRAW_CHOICE_KEEP
_REJECT = pb.DRAW_CHOICE_REJECT


def _fill_info(info: pb.InformationSet, obs: Observation) -> None:
    """Write ``obs`` into ``info`` in place (an empty message, usually a request's field)."""
    cards = _PB_CARDS
    info.seat = obs.seat
    _fill_ruleset(info.rules, obs.rules)
    info.hand_number = obs.hand_number
    info.first_drawer = obs.first_drawer
    info.hand.extend([cards[c] for c in obs.hand])
    if obs.looking_at is not None:
        info.looking_at.CopyFrom(cards[obs.looking_at])
    if obs.own_discards:
        info.own_discards.extend([cards[c] for c in obs.own_discards])
    info.stock_size = obs.stock_size
    add_seat = info.seats.add
    for seat in obs.seats:
        msg = add_seat(
            score=seat.score,
            bags=seat.bags,
            double_nil=seat.double_nil,
            tricks_won=seat.tricks_won,
        )
        if seat.bid is not None:
            msg.bid = seat.bid
        if seat.cards_exchanged is not None:
            msg.cards_exchanged = seat.cards_exchanged
        if seat.draw_choices:
            msg.draw_choices.extend([_KEEP if k else _REJECT for k in seat.draw_choices])
    if obs.tricks:
        _fill_tricks(info.tricks, obs.tricks)
    info.spades_broken = obs.spades_broken
    if obs.own_put_aside:
        info.own_put_aside.extend([cards[c] for c in obs.own_put_aside])


def info_set(obs: Observation) -> pb.InformationSet:
    """The protocol information set of an observation."""
    info = pb.InformationSet()
    _fill_info(info, obs)
    return info


_SEAT_VIEWS: dict[tuple[bytes, bool], SeatView] = {}
"""Decoded seats by their wire bytes: a seat changes a few times a hand, and is asked for at
every decision."""


def _seat_view(s: pb.SeatState, public: bool) -> SeatView:
    key = (s.SerializeToString(deterministic=True), public)
    view = _SEAT_VIEWS.get(key)
    if view is None:
        view = SeatView(
            score=s.score,
            bags=s.bags,
            bid=s.bid if s.HasField("bid") else None,
            double_nil=s.double_nil,
            tricks_won=s.tricks_won,
            cards_exchanged=s.cards_exchanged if s.HasField("cards_exchanged") else None,
            draw_choices=tuple(c == _KEEP for c in s.draw_choices) if public else None,
        )
        if len(_SEAT_VIEWS) >= 16384:
            _SEAT_VIEWS.clear()
        _SEAT_VIEWS[key] = view
    return view


def observation_from_pb(info: pb.InformationSet, decision: Decision | None = None) -> Observation:
    """The engine observation of a protocol information set, as asked of ``info.seat``.

    Raises MalformedMessageError for a malformed card or seat list, InvalidRuleSetError for
    rules that cannot be played."""
    public = info.rules.draw_decision_public
    seats = tuple([_seat_view(s, public) for s in info.seats])
    if len(seats) != 2:
        raise MalformedMessageError(f"an information set needs 2 seats, got {len(seats)}")
    return Observation(
        seat=info.seat,
        rules=_ruleset_from_pb_cached(info.rules),
        hand_number=info.hand_number,
        first_drawer=info.first_drawer,
        to_act=info.seat if decision is not None else None,
        decision=decision,
        hand=cards_from_pb(info.hand, "hand card"),
        looking_at=card_from_pb(info.looking_at, "looking_at")
        if info.HasField("looking_at")
        else None,
        own_discards=cards_from_pb(info.own_discards, "discard"),
        stock_size=info.stock_size,
        seats=(seats[0], seats[1]),
        tricks=_tricks_from_pb(info.tricks),
        spades_broken=info.spades_broken,
        own_put_aside=cards_from_pb(info.own_put_aside, "put-aside card"),
    )


# -- RPCs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecisionRpc:
    """The RPC that asks one kind of decision."""

    decision: Decision
    name: str
    """The method name on the BotService stub: ``"Draw"``."""
    path: str
    """The full gRPC method path: ``"/spades.v1.BotService/Draw"``."""
    request_type: type[Message]
    response_type: type[Message]


def _rpc(decision: Decision, name: str) -> DecisionRpc:
    return DecisionRpc(
        decision=decision,
        name=name,
        path=f"/{SERVICE_NAME}/{name}",
        request_type=getattr(pb, f"{name}Request"),
        response_type=getattr(pb, f"{name}Response"),
    )


RPCS: dict[Decision, DecisionRpc] = {
    Decision.DOUBLE_NIL: _rpc(Decision.DOUBLE_NIL, "DecideDoubleNil"),
    Decision.DRAW: _rpc(Decision.DRAW, "Draw"),
    Decision.EXCHANGE: _rpc(Decision.EXCHANGE, "Exchange"),
    Decision.BID: _rpc(Decision.BID, "Bid"),
    Decision.PLAY: _rpc(Decision.PLAY, "Play"),
}


def rpc_for(decision: Decision) -> DecisionRpc:
    return RPCS[decision]


class ClockLike(Protocol):
    """Anything with the two clock fields, in milliseconds (``pb.Clock`` is one)."""

    @property
    def move_time_ms(self) -> int: ...

    @property
    def time_bank_ms(self) -> int: ...


def _ms(value: float) -> int:
    return max(0, min(int(value), _INT32_MAX))


def _fill_clock(msg: pb.Clock, clock: ClockLike) -> None:
    msg.move_time_ms = _ms(clock.move_time_ms)
    msg.time_bank_ms = _ms(clock.time_bank_ms)


def build_request(
    decision: Decision,
    match_id: str,
    obs: Observation,
    legal: Sequence[Action],
    clock: ClockLike,
) -> Message:
    """The request that asks ``decision`` of ``obs.seat``.

    ``legal`` is the engine's ``legal_actions()``: it becomes ``legal_cards`` of a play and
    ``legal_bids`` of a bid, and is not used for the other decisions."""
    if decision is Decision.PLAY:
        req: Any = pb.PlayRequest(match_id=match_id)
        cards = _PB_CARDS
        req.legal_cards.extend([cards[c] for c in legal])  # type: ignore[index]
    elif decision is Decision.DRAW:
        req = pb.DrawRequest(match_id=match_id)
    elif decision is Decision.BID:
        req = pb.BidRequest(match_id=match_id, legal_bids=cast("Sequence[int]", legal))
    elif decision is Decision.DOUBLE_NIL:
        req = pb.DecideDoubleNilRequest(match_id=match_id)
    elif decision is Decision.EXCHANGE:
        req = pb.ExchangeRequest(match_id=match_id, max_cards=EXCHANGE_MAX_CARDS)
    else:
        raise ValueError(f"not a decision: {decision!r}")
    _fill_info(req.info, obs)
    _fill_clock(req.clock, clock)
    return req


def _choice(value: int, enum: Any, yes: int, no: int, field: str, rule: str) -> bool:
    if value == yes:
        return True
    if value == no:
        return False
    raise MalformedAnswerError(
        f"{field} is {_enum_text(enum, value)}; the answer must be "
        f"{enum.Name(yes)} or {enum.Name(no)} ({rule})"
    )


def action_from_response(decision: Decision, response: Message) -> Action:
    """The engine action a bot's response names; MalformedAnswerError if it names none.

    Only the form is checked: a well-formed action may still be illegal (the engine says)."""
    r: Any = response
    if decision is Decision.PLAY:  # the most frequent answer: the card read first
        try:
            return card_from_pb(r.card, "PlayResponse.card")
        except MalformedAnswerError:
            if not r.HasField("card"):  # an absent card reads as suit and rank 0
                raise MalformedAnswerError("PlayResponse.card is not set (R-4)") from None
            raise
    if decision is Decision.DRAW:
        return _choice(r.choice, pb.DrawChoice, _KEEP, _REJECT, "DrawResponse.choice", "R-2.1")
    if decision is Decision.BID:
        if not r.HasField("tricks"):
            raise MalformedAnswerError(
                "BidResponse.tricks is not set; an absent bid is malformed, never Nil (R-3.1)"
            )
        return int(r.tricks)
    if decision is Decision.DOUBLE_NIL:
        return _choice(
            r.choice,
            pb.DoubleNilChoice,
            pb.DOUBLE_NIL_CHOICE_DECLARE,
            pb.DOUBLE_NIL_CHOICE_DECLINE,
            "DecideDoubleNilResponse.choice",
            "R-3.3",
        )
    if decision is Decision.EXCHANGE:
        cards = [card_from_pb(c, "ExchangeResponse card") for c in r.cards]
        out = tuple(sorted(cards))
        if len(set(out)) != len(out):
            twice = next(a for a, b in pairwise(out) if a == b)
            raise MalformedAnswerError(
                f"ExchangeResponse names the card {card_name(twice)} twice (R-3.4)"
            )
        return out
    raise ValueError(f"not a decision: {decision!r}")


def action_to_response(decision: Decision, action: Action) -> Message:
    """The response message that answers ``decision`` with ``action`` (the bot side)."""
    if decision is Decision.PLAY:
        return pb.PlayResponse(card=_PB_CARDS[_as_card(action)])
    if decision is Decision.DRAW:
        return pb.DrawResponse(choice=_KEEP if action else _REJECT)
    if decision is Decision.BID:
        if isinstance(action, bool) or not isinstance(action, int):
            raise TypeError(f"a bid is an int 0..13, got {action!r}")
        return pb.BidResponse(tricks=action)
    if decision is Decision.DOUBLE_NIL:
        return pb.DecideDoubleNilResponse(
            choice=pb.DOUBLE_NIL_CHOICE_DECLARE if action else pb.DOUBLE_NIL_CHOICE_DECLINE
        )
    if decision is Decision.EXCHANGE:
        if not isinstance(action, Iterable):
            raise TypeError(f"an exchange is a collection of cards, got {action!r}")
        return pb.ExchangeResponse(cards=[_PB_CARDS[_as_card(c)] for c in action])
    raise ValueError(f"not a decision: {decision!r}")


def _as_card(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 52:
        raise TypeError(f"a card is an int 0..51, got {value!r}")
    return value


# -- notices --------------------------------------------------------------------------------


def start_match_request(
    match_id: str, seat: int, rules: RuleSet, opponent: str, clock: ClockLike
) -> pb.StartMatchRequest:
    req = pb.StartMatchRequest(match_id=match_id, seat=seat, opponent=opponent)
    _fill_ruleset(req.rules, rules)
    _fill_clock(req.clock, clock)
    return req


def end_hand_request(match_id: str, seat: int, result: HandResult) -> pb.EndHandRequest:
    req = pb.EndHandRequest(match_id=match_id, seat=seat, result=hand_result_to_pb(result))
    _fill_tricks(req.tricks, result.tricks)
    return req


def termination_to_pb(termination: Any) -> pb.Termination:
    """The protocol value of a termination: the engine's (arena.rules.outcome.Termination) or
    the referee's (arena.referee.record.Termination); both name their values the same way."""
    name = "TERMINATION_" + str(termination.value).upper()
    return cast(pb.Termination, pb.Termination.Value(name))


def termination_from_pb(value: int) -> str:
    """The termination's lowercase name (``"target_reached"``, ``"forfeit_timeout"``), the
    value of the referee's Termination enum; ``"unspecified"`` for an unknown value."""
    name = _enum_text(pb.Termination, value)
    return (
        name.removeprefix("TERMINATION_").lower()
        if name.startswith("TERMINATION_")
        else ("unspecified")
    )


def end_match_request(
    match_id: str,
    seat: int,
    winner: int | None,
    scores: Sequence[int],
    hands_played: int,
    termination: Any,
    detail: str = "",
) -> pb.EndMatchRequest:
    req = pb.EndMatchRequest(
        match_id=match_id,
        seat=seat,
        scores=scores,
        hands_played=hands_played,
        termination=termination_to_pb(termination),
        detail=detail,
    )
    if winner is not None:
        req.winner = winner
    return req
