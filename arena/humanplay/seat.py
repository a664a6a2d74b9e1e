"""A person's seat: a BotService served in-process whose answers come from a browser.

The referee calls it over real gRPC like any bot, with the decision's deadline: the seat
publishes the request (the information set the protocol carries, as JSON) and waits for the
person's answer until that deadline. A person's answer names the request it answers (``seq``):
a stale or duplicate answer, or one the rules forbid, is refused with a message and never
reaches the referee, which still judges what does (a timeout is the fault a bot would get).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc as pb_grpc
from arena.bot_protocol.messages import card_from_pb, card_to_pb, cards_from_pb
from arena.rules.cards import card_name, parse_card

__all__ = ["AnswerRefused", "HumanSeat", "TooManyListeners"]

_SUITS = "cdhs"
_SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


class AnswerRefused(Exception):
    """A person's answer that is not applied: stale, duplicate or against the rules."""


def _name(card: pb.Card) -> str:
    return card_name(card_from_pb(card))


def _names(cards: Any) -> list[str]:
    return [card_name(c) for c in cards_from_pb(cards, "card")]


class TooManyListeners(Exception):
    """One more waiting page than a seat serves."""


class _Pending:
    """One request waiting for the person's answer."""

    __slots__ = ("answer", "done", "kind", "request", "seq", "view")

    def __init__(self, seq: int, kind: str, request: Any, view: dict[str, Any]) -> None:
        self.seq = seq
        self.kind = kind
        self.request = request
        self.view = view
        self.answer: Any = None
        self.done = threading.Event()


class HumanSeat(pb_grpc.BotServiceServicer):
    """A seat for a person: ``name`` and ``channel`` make it a ``BotConnection``.

    ``start()`` serves the BotService on a loopback port; ``state()`` is what the page shows
    (the open request, the hands' results, the end); ``answer(seq, ...)`` gives the person's
    answer to the open request."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Condition()
        self._seq = 0
        self._pending: _Pending | None = None
        self._answered: set[int] = set()
        self.version = 0
        """Bumped at every change of ``state()``: a page waits for a version after its own.
        An answer bumps it without waking the pages that wait (the next change does)."""
        self.hands: list[dict[str, Any]] = []
        self.last_tricks: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None
        self.seat: int | None = None
        self.opponent = ""
        self._listeners: set[Callable[[], None]] = set()
        self._server: grpc.Server | None = None
        self._channel: grpc.Channel | None = None

    # -- the connection the referee uses ----------------------------------------------------

    def start(self) -> None:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        pb_grpc.add_BotServiceServicer_to_server(self, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self._server = server
        self._channel = grpc.insecure_channel(f"127.0.0.1:{port}")

    @property
    def channel(self) -> grpc.Channel:
        assert self._channel is not None, "start() the seat first"
        return self._channel

    def stop(self) -> None:
        with self._lock:
            if self._pending is not None:
                self._pending.done.set()
        if self._channel is not None:
            self._channel.close()
        if self._server is not None:
            self._server.stop(0)

    # -- what the page sees and sends -------------------------------------------------------

    def state(self) -> dict[str, Any]:
        with self._lock:
            p = self._pending
            return {
                "version": self.version,
                "seat": self.seat,
                "opponent": self.opponent,
                "request": None if p is None else {"seq": p.seq, "kind": p.kind, **p.view},
                "hands": list(self.hands),
                "end": self.end,
            }

    def wait_change(self, since: int, timeout: float) -> int:
        """Block until ``version`` passes ``since`` or ``timeout`` seconds pass."""
        with self._lock:
            self._lock.wait_for(lambda: self.version > since, timeout)
            return self.version

    def answer(self, seq: int, value: Any) -> None:
        """The person's answer to request ``seq``; ``AnswerRefused`` (never applied) when it is
        stale, a duplicate, or not a legal answer to that request."""
        with self._lock:
            p = self._pending
            if seq in self._answered:
                raise AnswerRefused(f"request {seq} was already answered: the duplicate is ignored")
            if p is None or p.seq != seq:
                now = "no request is open" if p is None else f"the open request is {p.seq}"
                raise AnswerRefused(f"request {seq} is stale ({now}): it is not applied")
            response = _response(p, value)  # raises AnswerRefused
            self._answered.add(seq)
            p.answer = response
            self._pending = None
            # The page that answered knows; a waiting page is woken by what comes next (the
            # next request, a hand's end, the match's end), a moment later: one wake-up and
            # one response fewer an answer, which is what 200 tables at once cost.
            self._bump(notify=False)
            p.done.set()

    def touch(self) -> None:
        """Tell waiting pages that something beside the seat's own state changed."""
        with self._lock:
            self._bump()

    def listen(self, callback: Callable[[], None], limit: int = 16) -> Callable[[], None]:
        """Call ``callback`` (from the seat's threads; it must not block) at every change;
        returns the function that stops it. A web page's long poll waits on it. More than
        ``limit`` at once is ``TooManyListeners`` (a table is one person's, not a crowd's)."""
        with self._lock:
            if len(self._listeners) >= limit:
                raise TooManyListeners(f"{limit} pages already wait on this table")
            self._listeners.add(callback)

        def stop() -> None:
            with self._lock:
                self._listeners.discard(callback)

        return stop

    def _bump(self, notify: bool = True) -> None:
        self.version += 1
        self._lock.notify_all()
        if notify:
            for callback in self._listeners:
                callback()

    # -- the BotService ---------------------------------------------------------------------

    def _ask(
        self, kind: str, request: Any, context: grpc.ServicerContext, extra: dict[str, Any]
    ) -> Any:
        info = request.info
        view = {**_info_view(info), **extra}
        view["clock"] = {
            "move_ms": request.clock.move_time_ms,
            "bank_ms": request.clock.time_bank_ms,
        }
        remaining = context.time_remaining()
        view["deadline_ms"] = int(time.time() * 1000 + (remaining or 0) * 1000)
        with self._lock:
            self._seq += 1
            pending = _Pending(self._seq, kind, request, view)
            self._pending = pending
            self._bump()
        pending.done.wait(remaining)
        with self._lock:
            if pending.answer is None:  # the deadline passed: the referee judges the timeout
                if self._pending is pending:
                    self._pending = None
                    self._bump()
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time")
            return pending.answer

    def StartMatch(self, request: pb.StartMatchRequest, context: Any) -> pb.StartMatchResponse:
        with self._lock:
            self.seat = request.seat
            self.opponent = request.opponent
            self._bump()
        return pb.StartMatchResponse()

    def DecideDoubleNil(self, request: Any, context: Any) -> Any:
        return self._ask("double_nil", request, context, {})

    def Draw(self, request: Any, context: Any) -> Any:
        return self._ask("draw", request, context, {})

    def Exchange(self, request: Any, context: Any) -> Any:
        return self._ask("exchange", request, context, {"max_cards": request.max_cards})

    def Bid(self, request: Any, context: Any) -> Any:
        return self._ask("bid", request, context, {"legal_bids": list(request.legal_bids)})

    def Play(self, request: Any, context: Any) -> Any:
        legal = _names(request.legal_cards)
        extra = {"legal_cards": legal, "why_not": _why_not(request.info, legal)}
        return self._ask("play", request, context, extra)

    def EndHand(self, request: pb.EndHandRequest, context: Any) -> pb.EndHandResponse:
        r = request.result
        with self._lock:
            self.hands.append({
                "hand": r.hand_number, "bids": list(r.bids), "double_nil": list(r.double_nil),
                "tricks_won": list(r.tricks_won), "points": list(r.points),
                "bag_penalties": list(r.bag_penalties), "scores": list(r.scores),
                "bags": list(r.bags),
            })  # fmt: skip
            self._bump()
        return pb.EndHandResponse()

    def EndMatch(self, request: pb.EndMatchRequest, context: Any) -> pb.EndMatchResponse:
        self.finish({
            "winner": request.winner if request.HasField("winner") else None,
            "scores": list(request.scores), "hands_played": request.hands_played,
            "termination": pb.Termination.Name(request.termination).removeprefix("TERMINATION_")
            .lower(), "detail": request.detail,
        })  # fmt: skip
        return pb.EndMatchResponse()

    def finish(self, end: dict[str, Any]) -> None:
        """Mark the match over (EndMatch, or the table's own word when the referee sent none)."""
        with self._lock:
            if self.end is None:
                self.end = end
                self._pending = None
                self._bump()


def _info_view(info: pb.InformationSet) -> dict[str, Any]:
    """The information set as the page shows it (cards by name, the rest as the protocol has)."""
    seats = []
    for s in info.seats:
        seats.append({
            "score": s.score, "bags": s.bags, "bid": s.bid if s.HasField("bid") else None,
            "double_nil": s.double_nil, "tricks_won": s.tricks_won,
            "cards_exchanged": s.cards_exchanged if s.HasField("cards_exchanged") else None,
        })  # fmt: skip
    tricks = [
        {
            "leader": t.leader,
            "cards": _names(t.cards),
            "winner": t.winner if t.HasField("winner") else None,
        }
        for t in info.tricks
    ]
    rules = MessageToDict(info.rules, preserving_proto_field_name=True)
    return {
        "seat": info.seat,
        "hand_number": info.hand_number,
        "first_drawer": info.first_drawer,
        "hand": sorted(_names(info.hand), key=_sort_key),
        "looking_at": _name(info.looking_at) if info.HasField("looking_at") else None,
        "own_discards": _names(info.own_discards),
        "own_put_aside": _names(info.own_put_aside),
        "stock_size": info.stock_size,
        "seats": seats,
        "tricks": tricks,
        "spades_broken": info.spades_broken,
        "rules": rules,
    }


def _sort_key(name: str) -> tuple[int, int]:
    card = parse_card(name)
    return ("cdsh".index(_SUITS[card // 13]), card % 13)


def _why_not(info: pb.InformationSet, legal: list[str]) -> dict[str, str]:
    """Why each card of the hand that may not be played now may not (rule ids)."""
    reasons: dict[str, str] = {}
    tricks = info.tricks
    current = tricks[-1] if tricks and len(tricks[-1].cards) == 1 else None
    for name in _names(info.hand):
        if name in legal:
            continue
        if current is not None:
            led = _SUIT_NAMES[_name(current.cards[0])[-1]]
            reasons[name] = f"follow suit: you hold {led}, which were led (R-4.3)"
        else:
            reasons[name] = "spades are not broken: you may not lead a spade yet (R-4.5)"
    return reasons


def _response(p: _Pending, value: Any) -> Any:
    """The protocol answer of the person's ``value`` to ``p``, checked against the request."""
    kind, req = p.kind, p.request
    if kind == "draw":
        choices = {"keep": pb.DRAW_CHOICE_KEEP, "reject": pb.DRAW_CHOICE_REJECT}
        if value not in choices:
            raise AnswerRefused("a draw is answered 'keep' or 'reject' (R-2.2)")
        return pb.DrawResponse(choice=choices[value])
    if kind == "double_nil":
        choices = {"declare": pb.DOUBLE_NIL_CHOICE_DECLARE, "decline": pb.DOUBLE_NIL_CHOICE_DECLINE}
        if value not in choices:
            raise AnswerRefused("Double Nil is answered 'declare' or 'decline' (R-3.3)")
        return pb.DecideDoubleNilResponse(choice=choices[value])
    if kind == "bid":
        if type(value) is not int or value not in req.legal_bids:
            raise AnswerRefused(f"{value!r} is not a bid: a bid is 0 (Nil) to 13 tricks (R-3.1)")
        return pb.BidResponse(tricks=value)
    hand = set(cards_from_pb(req.info.hand, "card"))
    if kind == "exchange":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise AnswerRefused("an exchange is a list of cards of your hand (R-3.4)")
        try:
            cards = [parse_card(v) for v in value]
        except ValueError as exc:
            raise AnswerRefused(str(exc)) from None
        if len(set(cards)) != len(cards) or not set(cards) <= hand:
            raise AnswerRefused("an exchange puts aside cards of your own hand, each once (R-3.4)")
        if len(cards) > req.max_cards:
            raise AnswerRefused(f"you may put aside at most {req.max_cards} cards (R-3.4)")
        return pb.ExchangeResponse(cards=[card_to_pb(c) for c in cards])
    assert kind == "play"
    try:
        card = parse_card(value) if isinstance(value, str) else -1
    except ValueError:
        card = -1
    if card not in hand:
        raise AnswerRefused(f"{value!r} is not a card of your hand")
    legal = _names(req.legal_cards)
    name = card_name(card)
    if name not in legal:
        why = p.view["why_not"].get(name, "not a legal card now")
        raise AnswerRefused(f"{name} may not be played: {why}")
    return pb.PlayResponse(card=card_to_pb(card))
