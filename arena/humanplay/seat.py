"""A person's seat: answered from a browser, asked by the referee in this process.

The referee asks it as it asks a bot's ``PlaySession`` (``local_session``: the same serialized
requests, the decision's deadline on the referee's own clock, the same judgement of what comes
back), on its loop, with no gRPC between: the seat publishes the request (the information set
the protocol carries, as the page shows it) and waits for the person's answer until that
deadline. A person's answer names the request it answers (``seq``): a stale or duplicate answer,
or one the rules forbid, is refused with a message and never reaches the referee, which still
judges what does (a timeout is the fault a bot would get).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from google.protobuf.json_format import MessageToDict

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol.messages import RPCS, card_from_pb, card_to_pb, cards_from_pb
from arena.referee.session import FIELDS, Answer
from arena.rules.cards import card_name, parse_card

__all__ = ["AnswerRefused", "HumanSeat", "TooManyListeners"]

_SUITS = "cdhs"
_SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_KINDS = {decision: decision.value for decision in RPCS}
"""The page's name of each decision (``request.kind``)."""
_NOTICE_RESPONSES = {
    "StartMatch": pb.StartMatchResponse(),
    "EndHand": pb.EndHandResponse(),
    "EndMatch": pb.EndMatchResponse(),
}
_CANCELLED = 1
"""gRPC's CANCELLED status code: the seat was stopped while a request was open."""
_TIMED_OUT = object()
_STOPPED = object()


class AnswerRefused(Exception):
    """A person's answer that is not applied: stale, duplicate or against the rules."""


def _name(card: pb.Card) -> str:
    return card_name(card_from_pb(card))


def _names(cards: Any) -> list[str]:
    return [card_name(c) for c in cards_from_pb(cards, "card")]


class TooManyListeners(Exception):
    """One more waiting page than a seat serves."""


class _Pending:
    """One request waiting for the person's answer: its future on the referee's loop."""

    __slots__ = ("future", "kind", "loop", "request", "seq", "view")

    def __init__(
        self, seq: int, kind: str, request: Any, view: dict[str, Any], loop: Any, future: Any
    ) -> None:
        self.seq = seq
        self.kind = kind
        self.request = request
        self.view = view
        self.loop: asyncio.AbstractEventLoop = loop
        self.future: asyncio.Future[Any] = future


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


class HumanSeat:
    """A seat for a person: ``name`` and ``local_session`` make it a ``BotConnection``.

    ``state()`` is what the page shows (the open request, the hands' results, the end);
    ``answer(seq, ...)`` gives the person's answer to the open request (from any thread)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Condition()
        self._seq = 0
        self._pending: _Pending | None = None
        self._answered: set[int] = set()
        self._stopped = False
        self._rules: tuple[bytes, dict[str, Any]] | None = None
        self.version = 0
        """Bumped at every change of ``state()``: a page waits for a version after its own.
        An answer bumps it without waking the pages that wait (the next change does)."""
        self.hands: list[dict[str, Any]] = []
        self.last_tricks: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None
        self.seat: int | None = None
        self.opponent = ""
        self._listeners: set[Callable[[], object]] = set()
        self.started = True
        """A session's flag (``arena.referee.session.Session``): this one always serves."""

    # -- the connection the referee uses ----------------------------------------------------

    def local_session(self) -> HumanSeat:
        """The referee's session to this seat (the seat itself: one match a seat)."""
        return self

    def stop(self) -> None:
        """No more requests: one still open is answered as a closed seat (an error status)."""
        with self._lock:
            self._stopped = True
            p = self._pending
            if p is not None:
                self._pending = None
                self._bump()
        if p is not None:
            self._resolve(p, _STOPPED)

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

    def answer(self, seq: int, value: Any) -> int:
        """The person's answer to request ``seq``: the state's version it made (what comes
        next is after it; the referee may have asked the next request before this returns).
        ``AnswerRefused`` (never applied) when it is stale, a duplicate, or not a legal answer
        to that request. It reaches the referee's loop without waiting for it."""
        with self._lock:
            p = self._pending
            if seq in self._answered:
                raise AnswerRefused(f"request {seq} was already answered: the duplicate is ignored")
            if p is None or p.seq != seq:
                now = "no request is open" if p is None else f"the open request is {p.seq}"
                raise AnswerRefused(f"request {seq} is stale ({now}): it is not applied")
            response = _response(p, value)  # raises AnswerRefused
            self._answered.add(seq)
            self._pending = None
            # The page that answered knows; a waiting page is woken by what comes next (the
            # next request, a hand's end, the match's end), a moment later: one wake-up and
            # one response fewer an answer, which is what 200 tables at once cost.
            self._bump(notify=False)
            version = self.version
        self._resolve(p, response)
        return version

    @staticmethod
    def _resolve(p: _Pending, value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the referee's loop is closed: nobody waits
            p.loop.call_soon_threadsafe(_settle, p.future, value)

    def touch(self) -> None:
        """Tell waiting pages that something beside the seat's own state changed."""
        with self._lock:
            self._bump()

    def listen(self, callback: Callable[[], object], limit: int = 16) -> Callable[[], None]:
        """Call ``callback`` (from the referee's thread; it must not block) at every change;
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

    # -- the session the referee asks ----------------------------------------------------

    async def ask(self, kind: Any, data: bytes, timeout: float, _pb: Any = None) -> Answer:
        """One request of the referee (``data``: the unary RPC's serialized request) and the
        person's answer within ``timeout`` seconds (else a timed-out answer, as a bot's
        session gives); a notice is taken at once."""
        answer = Answer()
        if isinstance(kind, str):
            self._notice(kind, data)
            answer.response = _NOTICE_RESPONSES[kind]
            answer.kind = FIELDS[kind][0]
            return answer
        request = RPCS[kind].request_type.FromString(data)
        page_kind = _KINDS[kind]
        view = self._view(page_kind, request, timeout)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            if self._stopped:
                value: Any = _STOPPED
            else:
                self._seq += 1
                pending = _Pending(self._seq, page_kind, request, view, loop, future)
                self._pending = pending
                self._bump()
                value = None
        if value is None:
            timer = loop.call_later(timeout, self._expire, pending)
            try:
                value = await future
            finally:
                timer.cancel()
                with self._lock:
                    if self._pending is pending:  # cancelled with the match: nothing is open
                        self._pending = None
                        self._bump()
        if value is _TIMED_OUT:
            answer.timed_out = True
        elif value is _STOPPED:
            answer.error = pb.SessionError(code=_CANCELLED, message="the seat was closed")
        else:
            answer.response = value
            answer.kind = FIELDS[kind][0]
        return answer

    def _expire(self, pending: _Pending) -> None:
        """The deadline came (on the referee's loop): the request closes unanswered, unless an
        answer was taken just before (it is on its way: the referee's clock judges it)."""
        with self._lock:
            if self._pending is not pending:
                return
            self._pending = None
            self._bump()
        _settle(pending.future, _TIMED_OUT)

    async def close(self) -> None:
        """The end of the match's session: nothing to close."""

    def cancel(self) -> None:
        """The referee drops the session: nothing to close."""

    def _view(self, kind: str, request: Any, timeout: float) -> dict[str, Any]:
        view = _info_view(request.info, self._rules_view(request.info.rules))
        if kind == "exchange":
            view["max_cards"] = request.max_cards
        elif kind == "bid":
            view["legal_bids"] = list(request.legal_bids)
        elif kind == "play":
            legal = _names(request.legal_cards)
            view["legal_cards"] = legal
            view["why_not"] = _why_not(request.info, legal)
        view["clock"] = {
            "move_ms": request.clock.move_time_ms,
            "bank_ms": request.clock.time_bank_ms,
        }
        view["deadline_ms"] = int(time.time() * 1000 + timeout * 1000)
        return view

    def _rules_view(self, rules: pb.RuleSet) -> dict[str, Any]:
        """The rules as the page shows them, made once a match (they do not change)."""
        raw = rules.SerializeToString()
        if self._rules is None or self._rules[0] != raw:
            self._rules = (raw, MessageToDict(rules, preserving_proto_field_name=True))
        return self._rules[1]

    def _notice(self, kind: str, data: bytes) -> None:
        if kind == "StartMatch":
            start = pb.StartMatchRequest.FromString(data)
            with self._lock:
                self.seat = start.seat
                self.opponent = start.opponent
                self._bump()
        elif kind == "EndHand":
            r = pb.EndHandRequest.FromString(data).result
            with self._lock:
                self.hands.append({
                    "hand": r.hand_number, "bids": list(r.bids), "double_nil": list(r.double_nil),
                    "tricks_won": list(r.tricks_won), "points": list(r.points),
                    "bag_penalties": list(r.bag_penalties), "scores": list(r.scores),
                    "bags": list(r.bags),
                })  # fmt: skip
                self._bump()
        else:
            end = pb.EndMatchRequest.FromString(data)
            self.finish({
                "winner": end.winner if end.HasField("winner") else None,
                "scores": list(end.scores), "hands_played": end.hands_played,
                "termination": pb.Termination.Name(end.termination)
                .removeprefix("TERMINATION_").lower(), "detail": end.detail,
            })  # fmt: skip

    def finish(self, end: dict[str, Any]) -> None:
        """Mark the match over (EndMatch, or the table's own word when the referee sent none)."""
        with self._lock:
            if self.end is None:
                self.end = end
                self._pending = None
                self._bump()


def _info_view(info: pb.InformationSet, rules: dict[str, Any]) -> dict[str, Any]:
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
        draws = {"keep": pb.DRAW_CHOICE_KEEP, "reject": pb.DRAW_CHOICE_REJECT}
        if value not in draws:
            raise AnswerRefused("a draw is answered 'keep' or 'reject' (R-2.2)")
        return pb.DrawResponse(choice=draws[value])
    if kind == "double_nil":
        declares = {
            "declare": pb.DOUBLE_NIL_CHOICE_DECLARE,
            "decline": pb.DOUBLE_NIL_CHOICE_DECLINE,
        }
        if value not in declares:
            raise AnswerRefused("Double Nil is answered 'declare' or 'decline' (R-3.3)")
        return pb.DecideDoubleNilResponse(choice=declares[value])
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
