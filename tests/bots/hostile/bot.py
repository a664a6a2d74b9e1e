"""A bot that misbehaves on purpose, to test the referee's clocks and fault handling.

It is written on raw gRPC (not the SDK, which would refuse to send most of these answers) and
plays the first legal option until its misbehaviour is due. The misbehaviour is the first
argument or $HOSTILE_MODE (the ``tests/bots/hostile_*`` manifests set it); $HOSTILE_AFTER
(default 5) is how many decisions it answers well first, $HOSTILE_FRACTION the share of the
limit that ``slow`` uses, $HOSTILE_TIMES (default: no limit) how many decisions it misbehaves
on. It listens on $ARENA_BOT_ADDRESS, as the runtime sets it. With $HOSTILE_ONLY_AGAINST it
misbehaves only in matches whose StartMatch names that opponent (a "shill" throwing its matches
to its owner's "star"), and plays well in every other; it then writes each StartMatch's
``told opponent: 'NAME'`` to stderr (its log), so a test sees what the arena told it.

With $HOSTILE_SESSION=1 it also serves PlaySession (and server reflection, which lists it), each
request of the stream answered by the same handler as its unary RPC, so that every misbehaviour
can be played over a session too; with $HOSTILE_SESSION=unimplemented it lists PlaySession
through reflection but does not serve it.

Modes:
  sleep           sleep far past the deadline
  slow            answer after HOSTILE_FRACTION (0.7) of the move limit, every decision or
                  every HOSTILE_SLOW_EVERY-th
  illegal         play a card of its hand that does not follow suit when it must (R-4.3)
  not_in_hand     play a card that is not in its hand (R-4)
  opponent_card   play $HOSTILE_CARD (e.g. Qs), a card the opponent holds: a cheat that knows
                  the deal, told the card by the test that worked it out (R-4.1)
  out_of_range    play a card with the raw suit value 15
  unspecified     play a card with no suit (SUIT_UNSPECIFIED)
  missing         answer Play with no card at all
  garbage         answer with bytes that are not a protobuf message
  lead_spade      lead a spade before spades are broken while holding another suit (R-4.5)
  bid14, bid_neg  bid 14 or -1 (R-3.1)
  exchange4       declare Double Nil, then exchange four cards (R-3.4)
  error           fail a decision with status INTERNAL
  unavailable     fail a decision with status UNAVAILABLE (and go on serving)
  error_start     fail StartMatch with status PERMISSION_DENIED
  sleep_start     sleep past the deadline on StartMatch
  error_end_hand  fail every EndHand notice with status INTERNAL
  crash           exit the process in the middle of a decision
  close           stop the gRPC server (the process lives on)
  flood           write megabytes to stderr on every decision, and play well
  fork_exit       start children that ignore SIGTERM and hold the connection, then exit
  good            play well (a control)
  session_seq     (sessions) answer a decision with the next request's seq
  session_kind    (sessions) answer a Draw request with a Bid answer
  session_linger  (sessions) play well, but hold each stream open for 30 s after the arena
                  has ended its side
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.rules.cards import parse_card

MODE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HOSTILE_MODE", "good")
SESSION = os.environ.get("HOSTILE_SESSION", "")
AFTER = int(os.environ.get("HOSTILE_AFTER", "5"))
FRACTION = float(os.environ.get("HOSTILE_FRACTION", "0.7"))
SLOW_EVERY = int(os.environ.get("HOSTILE_SLOW_EVERY", "1"))
TIMES = int(os.environ.get("HOSTILE_TIMES", "0")) or None
ONLY_AGAINST = os.environ.get("HOSTILE_ONLY_AGAINST")
CARD = parse_card(os.environ["HOSTILE_CARD"]) if MODE == "opponent_card" else None

_lock = threading.Lock()
_decisions = 0
_asked = 0
_misbehaved = 0
_server: Any = None
_opponents: dict[str, str] = {}


def _due(request: Any = None) -> bool:
    """Count a decision; True once the misbehaviour is due (at most HOSTILE_TIMES times), and
    with HOSTILE_ONLY_AGAINST only in a match against that opponent."""
    global _decisions, _misbehaved
    if ONLY_AGAINST is not None and (
        request is None or _opponents.get(request.match_id) != ONLY_AGAINST
    ):
        return False
    with _lock:
        _decisions += 1
        if _decisions <= AFTER or (TIMES is not None and _misbehaved >= TIMES):
            return False
        _misbehaved += 1
        return True


def _card(c: int) -> pb.Card:
    return pb.Card(suit=c // 13 + 1, rank=c % 13 + 2)


def _cards(msgs: Any) -> list[int]:
    return [messages.card_from_pb(m) for m in msgs]


def _misbehave(context: grpc.ServicerContext, request: Any) -> bytes | None:
    """The misbehaviours that fit any decision; None when there is none to do now."""
    if MODE == "sleep":
        time.sleep(30)
    elif MODE == "error":
        context.abort(grpc.StatusCode.INTERNAL, "hostile bot: a deliberate error")
    elif MODE == "unavailable":
        context.abort(grpc.StatusCode.UNAVAILABLE, "hostile bot: busy, try later")
    elif MODE == "crash":
        print("hostile bot: crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    elif MODE == "garbage":
        return b"\xff\xff\xff\xff"
    elif MODE == "fork_exit":
        for _ in range(2):
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    time.sleep(60)
        os._exit(4)
    elif MODE == "close":
        # Answer this one, then stop serving: the next call finds nobody at the address.
        threading.Thread(target=lambda: (time.sleep(0.05), _server.stop(0)), daemon=True).start()
    return None


def _slow(request: Any) -> None:
    global _asked
    if MODE == "slow":
        with _lock:
            _asked += 1
            due = _asked % SLOW_EVERY == 0
        if due:
            time.sleep(request.clock.move_time_ms * FRACTION / 1000)
    elif MODE == "flood":
        sys.stderr.write("x" * 1_000_000 + "\n")
        sys.stderr.flush()


def double_nil(request: pb.DecideDoubleNilRequest, context: grpc.ServicerContext) -> Any:
    _slow(request)
    if MODE == "exchange4":
        return pb.DecideDoubleNilResponse(choice=pb.DOUBLE_NIL_CHOICE_DECLARE)
    if _due(request) and (bad := _misbehave(context, request)) is not None:
        return bad
    return pb.DecideDoubleNilResponse(choice=pb.DOUBLE_NIL_CHOICE_DECLINE)


def draw(request: pb.DrawRequest, context: grpc.ServicerContext) -> Any:
    _slow(request)
    if _due(request) and (bad := _misbehave(context, request)) is not None:
        return bad
    card = messages.card_from_pb(request.info.looking_at)
    # Keep spades and low cards: a hand with spades and other suits makes testable.
    keep = card // 13 == 3 or card % 13 < 6
    return pb.DrawResponse(choice=pb.DRAW_CHOICE_KEEP if keep else pb.DRAW_CHOICE_REJECT)


def exchange(request: pb.ExchangeRequest, context: grpc.ServicerContext) -> Any:
    _slow(request)
    if MODE == "exchange4":
        return pb.ExchangeResponse(cards=list(request.info.hand)[:4])
    if _due(request) and (bad := _misbehave(context, request)) is not None:
        return bad
    return pb.ExchangeResponse()


def bid(request: pb.BidRequest, context: grpc.ServicerContext) -> Any:
    _slow(request)
    if MODE == "bid14":
        return pb.BidResponse(tricks=14)
    if MODE == "bid_neg":
        return pb.BidResponse(tricks=-1)
    if _due(request) and (bad := _misbehave(context, request)) is not None:
        return bad
    return pb.BidResponse(tricks=request.legal_bids[len(request.legal_bids) // 4])


def play(request: pb.PlayRequest, context: grpc.ServicerContext) -> Any:
    _slow(request)
    legal = _cards(request.legal_cards)
    hand = _cards(request.info.hand)
    if _due(request):
        bad = _misbehave(context, request)
        if bad is not None:
            return bad
        wrong = _wrong_card(request, legal, hand)
        if wrong is not None:
            return pb.PlayResponse(card=wrong) if isinstance(wrong, pb.Card) else wrong
    return pb.PlayResponse(card=request.legal_cards[0])


def _wrong_card(request: pb.PlayRequest, legal: list[int], hand: list[int]) -> Any:
    """The bad card of the card-playing modes, or None while no chance has come up."""
    tricks = request.info.tricks
    leading = not tricks or tricks[-1].HasField("winner")
    if MODE == "illegal":
        # Answer a lead with another suit while holding the suit led.
        off = [c for c in hand if c not in legal]
        return _card(off[0]) if off and not leading else None
    if MODE == "not_in_hand":
        seen = set(hand)
        for trick in request.info.tricks:
            seen.update(_cards(trick.cards))
        return _card(next(c for c in range(52) if c not in seen))
    if MODE == "opponent_card" and CARD is not None and CARD not in hand:
        return _card(CARD)
    if MODE == "out_of_range":
        return pb.Card(suit=15, rank=5)  # type: ignore[arg-type]
    if MODE == "unspecified":
        return pb.Card(rank=pb.RANK_FIVE)
    if MODE == "missing":
        return pb.PlayResponse()
    if MODE == "lead_spade":
        spades = [c for c in hand if c // 13 == 3]
        if leading and not request.info.spades_broken and spades and len(spades) < len(hand):
            return _card(spades[0])
    return None


def start_match(request: pb.StartMatchRequest, context: grpc.ServicerContext) -> Any:
    _opponents[request.match_id] = request.opponent
    if ONLY_AGAINST is not None:
        sys.stderr.write(f"told opponent: {request.opponent!r}\n")  # one write: one line
        sys.stderr.flush()
    if MODE == "error_start":
        context.abort(grpc.StatusCode.PERMISSION_DENIED, "hostile bot: not playing today")
    if MODE == "sleep_start":
        time.sleep(30)
    return pb.StartMatchResponse()


def notice(response: Any) -> Any:
    def handler(request: Any, context: grpc.ServicerContext) -> Any:
        return response

    return handler


def end_hand(request: pb.EndHandRequest, context: grpc.ServicerContext) -> Any:
    if MODE == "error_end_hand":
        context.abort(grpc.StatusCode.INTERNAL, "hostile bot: no more notices")
    return pb.EndHandResponse()


def _serialize(message: Any) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class _SessionContext:
    """What the handlers need of a context, in a session: abort becomes a SessionError."""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise _Aborted(code, details)


_SESSION_RPCS = {
    "start_match": "StartMatch",
    "decide_double_nil": "DecideDoubleNil",
    "draw": "Draw",
    "exchange": "Exchange",
    "bid": "Bid",
    "play": "Play",
    "end_hand": "EndHand",
    "end_match": "EndMatch",
}


def play_session(handlers: dict[str, Any]) -> Any:
    def handler(requests: Any, context: grpc.ServicerContext) -> Any:
        ctx = _SessionContext()
        for request in requests:
            kind = request.WhichOneof("request")
            response = pb.PlaySessionResponse(seq=request.seq)
            if MODE == "session_seq" and kind == "draw" and _due(request):
                response.seq += 1
            try:
                answer = handlers[_SESSION_RPCS[kind]][0](getattr(request, kind), ctx)
            except _Aborted as exc:
                response.error.code = exc.code.value[0]
                response.error.message = exc.details
                yield response.SerializeToString()
                continue
            if isinstance(answer, bytes):
                yield answer
                continue
            if MODE == "session_kind" and kind == "draw" and _due(request):
                response.bid.tricks = 3
            else:
                getattr(response, kind).CopyFrom(answer)
            yield response.SerializeToString()
        if MODE == "session_linger":
            time.sleep(30)

    return handler


def main() -> None:
    global _server
    address = os.environ["ARENA_BOT_ADDRESS"]
    handlers = {
        "StartMatch": (start_match, pb.StartMatchRequest),
        "DecideDoubleNil": (double_nil, pb.DecideDoubleNilRequest),
        "Draw": (draw, pb.DrawRequest),
        "Exchange": (exchange, pb.ExchangeRequest),
        "Bid": (bid, pb.BidRequest),
        "Play": (play, pb.PlayRequest),
        "EndHand": (end_hand, pb.EndHandRequest),
        "EndMatch": (notice(pb.EndMatchResponse()), pb.EndMatchRequest),
    }
    methods = {
        name: grpc.unary_unary_rpc_method_handler(
            fn, request_deserializer=req.FromString, response_serializer=_serialize
        )
        for name, (fn, req) in handlers.items()
    }
    if SESSION == "1":
        methods["PlaySession"] = grpc.stream_stream_rpc_method_handler(
            play_session(handlers), request_deserializer=pb.PlaySessionRequest.FromString
        )
    service = grpc.method_handlers_generic_handler(messages.SERVICE_NAME, methods)
    _server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    _server.add_generic_rpc_handlers((service,))
    if SESSION:
        from grpc_reflection.v1alpha import reflection

        reflection.enable_server_reflection((messages.SERVICE_NAME,), _server)
    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, _server)
    _server.add_insecure_port(address)
    _server.start()
    for name in ("", messages.SERVICE_NAME):
        checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    while not stopping.wait(0.5):
        pass
    _server.stop(0)
    os._exit(0)  # not waiting for a handler that sleeps on purpose


if __name__ == "__main__":
    main()
