"""The gRPC servicer that turns spades.v1 requests into calls of a :class:`Bot`.

:class:`BotHandler` does the conversion without gRPC, so the same code answers real RPCs (through
``arena.sdk.aio_service.AioBotServicer``) and in-process matches (``arena.sdk.local``).
"""

from __future__ import annotations

import dataclasses
import logging
import operator
from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf.message import Message

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.rules.decisions import Action, Decision
from arena.rules.observation import Observation
from arena.sdk.bot import Bot
from arena.sdk.match_tags import serving
from arena.sdk.view import Clock, HandEnd, MatchEnd, MatchStart, View

log = logging.getLogger("arena.sdk")


class BotAnswerError(TypeError):
    """A bot method returned a value of the wrong type (None from a forgotten ``return``…)."""


_CLOCKS: dict[tuple[int, int], Clock] = {}


def _clock(msg: pb.Clock) -> Clock:
    key = (msg.move_time_ms, msg.time_bank_ms)
    clock = _CLOCKS.get(key)
    if clock is None:
        clock = Clock(move_time_ms=key[0], time_bank_ms=key[1])
        if len(_CLOCKS) >= 4096:
            _CLOCKS.clear()
        _CLOCKS[key] = clock
    return clock


_OBSERVATION_FIELDS = {f.name for f in dataclasses.fields(Observation)}
_SHARED = tuple(f.name for f in dataclasses.fields(View) if f.name in _OBSERVATION_FIELDS)
"""The fields a View takes from the engine's observation as they are."""
_VIEW_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(View) if f.default is not dataclasses.MISSING
}
_unfilled = {f.name for f in dataclasses.fields(View)} - set(_SHARED) - set(_VIEW_DEFAULTS)
if _unfilled != {"match_id", "clock"}:  # pragma: no cover - caught by any test on import
    raise RuntimeError(f"view_of does not fill View fields {sorted(_unfilled)}")


def view_of(decision: Decision, request: Any) -> View:
    """The bot's view of a decision request.

    Built without ``View.__init__`` (a frozen dataclass's sets each of its 17 fields through
    ``object.__setattr__``, a fifth of the conversion's time): the same object, field for
    field."""
    obs = messages.observation_from_pb(request.info, decision)
    fields = dict(_VIEW_DEFAULTS)
    for name in _SHARED:
        fields[name] = getattr(obs, name)
    fields["match_id"] = request.match_id
    fields["clock"] = _clock(request.clock)
    if decision is Decision.PLAY:
        fields["legal_cards"] = messages.cards_from_pb(request.legal_cards, "legal card")
    elif decision is Decision.BID:
        fields["legal_bids"] = tuple(request.legal_bids)
    elif decision is Decision.EXCHANGE:
        fields["max_cards"] = request.max_cards
    view = object.__new__(View)
    view.__dict__.update(fields)
    return view


def _as_bool(value: object, method: str) -> bool:
    if not isinstance(value, bool):
        raise BotAnswerError(f"{method}() must return True or False, got {value!r}")
    return value


def _as_int(value: object, method: str, what: str) -> int:
    if isinstance(value, bool):
        raise BotAnswerError(f"{method}() must return {what}, got {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise BotAnswerError(f"{method}() must return {what}, got {value!r}") from None


def _as_card(value: object, method: str) -> int:
    card = _as_int(value, method, "a card (an int 0..51)")
    if not 0 <= card < 52:
        raise BotAnswerError(f"{method}() must return a card (an int 0..51), got {card}")
    return card


def _as_cards(value: object, method: str) -> tuple[int, ...]:
    if not isinstance(value, Iterable) or isinstance(value, (str, bytes)):
        raise BotAnswerError(f"{method}() must return a collection of cards, got {value!r}")
    try:
        items: tuple[object, ...] = tuple(value)
    except TypeError:
        raise BotAnswerError(
            f"{method}() must return a collection of cards, got {value!r}"
        ) from None
    return tuple(_as_card(c, method) for c in items)


class BotHandler:
    """Answers protocol requests with a bot's methods; bot errors propagate as they are."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._decide: dict[Decision, Callable[[View], Action]] = {
            Decision.DOUBLE_NIL: lambda v: _as_bool(bot.decide_double_nil(v), "decide_double_nil"),
            Decision.DRAW: lambda v: _as_bool(bot.draw(v), "draw"),
            Decision.EXCHANGE: lambda v: _as_cards(bot.exchange(v), "exchange"),
            Decision.BID: lambda v: _as_int(bot.bid(v), "bid", "an int 0..13"),
            Decision.PLAY: lambda v: _as_card(bot.play(v), "play"),
        }

    def answer(self, decision: Decision, request: Message) -> Message:
        with serving(request.match_id):  # type: ignore[attr-defined]
            action = self._decide[decision](view_of(decision, request))
        return messages.action_to_response(decision, action)

    def start_match(self, request: pb.StartMatchRequest) -> pb.StartMatchResponse:
        with serving(request.match_id):
            self._start_match(request)
        return pb.StartMatchResponse()

    def _start_match(self, request: pb.StartMatchRequest) -> None:
        self.bot.start_match(
            MatchStart(
                match_id=request.match_id,
                seat=request.seat,
                rules=messages.ruleset_from_pb(request.rules),
                opponent=request.opponent,
                clock=_clock(request.clock),
            )
        )

    def end_hand(self, request: pb.EndHandRequest) -> pb.EndHandResponse:
        result = messages.hand_result_from_pb(request.result, request.tricks)
        with serving(request.match_id):
            self.bot.end_hand(HandEnd(match_id=request.match_id, seat=request.seat, result=result))
        return pb.EndHandResponse()

    def end_match(self, request: pb.EndMatchRequest) -> pb.EndMatchResponse:
        with serving(request.match_id):
            self._end_match(request)
        return pb.EndMatchResponse()

    def _end_match(self, request: pb.EndMatchRequest) -> None:
        self.bot.end_match(
            MatchEnd(
                match_id=request.match_id,
                seat=request.seat,
                winner=request.winner if request.HasField("winner") else None,
                scores=tuple(request.scores),
                hands_played=request.hands_played,
                termination=messages.termination_from_pb(request.termination),
                detail=request.detail,
            )
        )


# PlaySession: each request field of the stream and the decision it asks (None for a notice).
_SESSION_DECISIONS: dict[str, Decision | None] = {
    "decide_double_nil": Decision.DOUBLE_NIL,
    "draw": Decision.DRAW,
    "exchange": Decision.EXCHANGE,
    "bid": Decision.BID,
    "play": Decision.PLAY,
    "start_match": None,
    "end_hand": None,
    "end_match": None,
}
