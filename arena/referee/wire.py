"""The referee's fast path to a decision request: protobuf wire bytes put together directly.

``arena.bot_protocol.messages.build_request`` builds a message object field by field and serializes
it; per decision that costs more than the rest of the referee's work together. A request is mostly
parts that do not change (the rule set, the match id, the completed tricks of the hand, every card's
encoding), so this encoder keeps their bytes and joins them. The output parses to a message equal to
``build_request``'s (tests check it over whole matches); ``arena.bot_protocol.messages``
stays the reference for what a request means.

Protobuf's wire format allows it: a message is a sequence of (tag, value) fields, a nested
message is its bytes with a length prefix, and a parser accepts fields in any order.

Two encoders give the same bytes: ``PythonRequestEncoder`` here, the reference, and the C
extension ``arena.referee._wire`` (built by ``pip install``, optional: without a compiler the
install goes on and the referee uses the Python one). ``RequestEncoder`` is the C one where it
was built, unless ``ARENA_WIRE=python`` asks for the reference.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from arena.bot_protocol.messages import EXCHANGE_MAX_CARDS, ClockLike
from arena.rules.cards import cards_of
from arena.rules.decisions import Decision
from arena.rules.match import MAX_BID, Match
from arena.rules.observation import SeatView
from arena.rules.outcome import HandResult
from arena.rules.ruleset import RuleSet

__all__ = [
    "C_ENCODER",
    "PythonRequestEncoder",
    "RequestEncoder",
    "end_hand_requests",
]


def _varint(n: int) -> bytes:
    """A varint; negative int32 values take ten bytes (two's complement, as protobuf does)."""
    if n < 0:
        n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = tuple(_varint(n) for n in range(512))


_LARGE: dict[int, bytes] = {}
"""Varints of other values seen (scores above 511 or below 0), kept up to a bound."""


def _v(n: int) -> bytes:
    if 0 <= n < 512:
        return _SMALL[n]
    out = _LARGE.get(n)
    if out is None:
        out = _varint(n)
        if len(_LARGE) < 8192:
            _LARGE[n] = out
    return out


def _len_field(tag: int, body: bytes) -> bytes:
    return bytes((tag,)) + _v(len(body)) + body


def _card_body(card: int) -> bytes:
    return bytes((0x08, card // 13 + 1, 0x10, card % 13 + 2))


def _card_entries(tag: int) -> tuple[bytes, ...]:
    """Each card as one entry of a repeated ``Card`` field with this tag byte."""
    return tuple(bytes((tag, 4)) + _card_body(c) for c in range(52))


# Tag bytes: (field number << 3) | wire type (0 varint, 2 length-delimited).
_INFO_HAND = _card_entries(0x2A)  # InformationSet.hand = 5
_INFO_LOOKING = _card_entries(0x32)  # InformationSet.looking_at = 6
_INFO_DISCARDS = _card_entries(0x3A)  # InformationSet.own_discards = 7
_INFO_PUT_ASIDE = _card_entries(0x62)  # InformationSet.own_put_aside = 12
_TRICK_CARDS = _card_entries(0x12)  # Trick.cards = 2
_HAND_TO_LEGAL = bytes.maketrans(b"\x2a", b"\x22")
"""Hand entries made legal cards' (``PlayRequest.legal_cards`` = 4): the tag is the only byte
of an entry that can be 0x2a (a suit is 1-4, a rank 2-14, the lengths 4)."""
_SEAT = (b"", b"\x08\x01")  # InformationSet.seat = 1 (0 is the default: omitted)
_KEEP, _REJECT = 1, 2  # DrawChoice values
_PLAY, _BID, _EXCHANGE = Decision.PLAY, Decision.BID, Decision.EXCHANGE
_BID_LEGAL = _len_field(0x22, bytes(range(MAX_BID + 1)))  # BidRequest.legal_bids = 4
_EXCHANGE_MAX = b"\x20" + _v(EXCHANGE_MAX_CARDS)  # ExchangeRequest.max_cards = 4


def _suit_tables(entries: tuple[bytes, ...]) -> tuple[tuple[bytes, ...], ...]:
    """Per suit, the entries of each of the 8192 sets of its cards, lowest first, indexed by the
    suit's 13 bits of a card mask."""
    tables = []
    for suit in range(4):
        table = [b""] * 8192
        for k in range(1, 8192):
            low = k & -k
            table[k] = entries[13 * suit + low.bit_length() - 1] + table[k ^ low]
        tables.append(tuple(table))
    return tuple(tables)


_HAND_SUITS: tuple[tuple[bytes, ...], ...] = ()
"""``_suit_tables`` of the hand's entries, made for the first encoder (some 10 ms and 2.5 MB):
a hand is then four lookups, whatever cards it holds."""


def _hand_bytes(mask: int) -> bytes:
    """The cards of ``mask`` as ``InformationSet.hand`` entries, lowest first."""
    clubs, diamonds, hearts, spades = _HAND_SUITS
    return (
        clubs[mask & 0x1FFF]
        + diamonds[mask >> 13 & 0x1FFF]
        + hearts[mask >> 26 & 0x1FFF]
        + spades[mask >> 39]
    )


def _trick_entry(tag: int, leader: int, cards: Sequence[int], winner: int | None) -> bytes:
    """A ``Trick`` as the field ``tag`` (a request's ``tricks``, EndHand's ``tricks``)."""
    entries = _TRICK_CARDS
    return _len_field(
        tag,
        (b"\x08\x01" if leader else b"")  # Trick.leader = 1
        + b"".join([entries[c] for c in cards])
        + (b"" if winner is None else b"\x18" + _SMALL[winner]),  # Trick.winner = 3
    )


def _seat_entry(view: SeatView) -> bytes:
    """``InformationSet.seats`` (9): one seat's public facts."""
    small = _SMALL
    score = view.score
    body = (b"\x08" + _v(score)) if score else b""
    if view.bags:
        body += b"\x10" + small[view.bags]
    if view.bid is not None:
        body += b"\x18" + small[view.bid]
    if view.double_nil:
        body += b"\x20\x01"
    if view.tricks_won:
        body += b"\x28" + small[view.tricks_won]
    if view.cards_exchanged is not None:
        body += b"\x30" + small[view.cards_exchanged]
    if view.draw_choices:
        body += _len_field(0x3A, bytes(_KEEP if k else _REJECT for k in view.draw_choices))
    return b"\x4a" + small[len(body)] + body


def _rules_bytes(rules: RuleSet) -> bytes:
    body = b"".join(
        (
            b"\x08" + _v(rules.target_score),
            b"\x10" + _v(rules.max_hands),
            b"\x18\x01" if rules.draw_decision_public else b"",
            b"\x20\x01" if rules.double_nil_allowed else b"",
            b"\x28\x01" if rules.nil_tricks_count_as_bags else b"",
        )
    )
    return _len_field(0x12, body)  # InformationSet.rules = 2


class PythonRequestEncoder:
    """Encodes the decision requests of one match. Not shared between threads."""

    __slots__ = (
        "_bank",
        "_clock_bytes",
        "_discards",
        "_hand",
        "_match_id",
        "_move",
        "_rules",
        "_seat_bytes",
        "_seats",
        "_tricks",
    )

    def __init__(self, match_id: str, rules: RuleSet) -> None:
        global _HAND_SUITS
        if not _HAND_SUITS:  # two threads may both make them: the same tables either way
            _HAND_SUITS = _suit_tables(_INFO_HAND)
        self._match_id = _len_field(0x0A, match_id.encode())  # *Request.match_id = 1
        self._rules = _rules_bytes(rules)
        self._move = self._bank = -1
        self._clock_bytes = b""
        """The last clock's field (``*Request.clock``) and its move time and bank."""
        self._hand = 0
        self._tricks: list[bytes] = []
        """The encoded completed tricks of hand ``_hand``: both seats see the same ones."""
        self._discards: list[tuple[int, int, bytes]] = [(0, 0, b""), (0, 0, b"")]
        """Each seat's encoded discards: (hand number, how many, the bytes); a draw adds one."""
        self._seats: tuple[object, object] = (None, None)
        self._seat_bytes = (b"", b"")
        """The engine's last pair of seat views and their encoded entries: the engine gives
        the same pair for as long as the seats' public facts are unchanged, and one frozen
        view per seat state, so the same object means the same bytes."""

    def _clock(self, clock: ClockLike) -> bytes:
        """The clock's field made anew and kept; ``encode`` asks for it only when the move
        time or the bank differs from the kept one's."""
        move, bank = clock.move_time_ms, clock.time_bank_ms
        body = (b"\x08" + _v(move) if move else b"") + (b"\x10" + _v(bank) if bank else b"")
        self._clock_bytes = _len_field(0x1A, body)  # *Request.clock = 3
        self._move, self._bank = move, bank
        return self._clock_bytes

    def encode(
        self, m: Match, seat: int | None, decision: Decision | None, clock: ClockLike
    ) -> bytes:
        """The serialized request of ``m``'s decision to the seat to act, with ``clock`` (as
        ``build_request`` of ``m.observation(seat)`` and ``m.legal_actions()``); ``seat`` and
        ``decision`` are ``m.to_act`` and ``m.decision``, which the caller has read.

        One function, the clock's and the length's checks inlined: it runs once a decision,
        after a round trip that has left the caches cold, where each call and line costs
        several times its warm cost."""
        if decision is None or seat is None:
            raise ValueError("the match is over: there is no decision to ask")
        small = _SMALL  # hand numbers, counts, bids: always below 512
        (
            number,
            fd,
            hand,
            looking_at,
            discards,
            stock_size,
            seats,
            plays,
            winners,
            broken,
            aside,
        ) = m.information_set(seat)
        # *Request.info (2): the seat's information set
        held = _hand_bytes(hand)
        parts = [_SEAT[seat], self._rules, b"\x18", small[number], b"\x20\x01" if fd else b"", held]
        if looking_at is not None:
            parts.append(_INFO_LOOKING[looking_at])
        if discards:
            kept = self._discards[seat]
            count = len(discards)
            if kept[1] != count or kept[0] != number:
                entries = _INFO_DISCARDS
                if kept[0] == number and kept[1] == count - 1:  # one more: a draw's
                    kept = (number, count, kept[2] + entries[discards[-1]])
                else:
                    kept = (number, count, b"".join([entries[c] for c in discards]))
                self._discards[seat] = kept
            parts.append(kept[2])
        if stock_size:
            parts += (b"\x40", small[stock_size])
        if seats is not self._seats:  # a seat's facts changed: re-encode that seat's
            before = self._seats
            self._seats = seats
            view0, view1 = seats
            self._seat_bytes = (
                (self._seat_bytes[0] if view0 is before[0] else _seat_entry(view0)),
                (self._seat_bytes[1] if view1 is before[1] else _seat_entry(view1)),
            )
        parts += self._seat_bytes
        if plays:
            if number != self._hand:
                self._hand = number
                self._tricks = []
            cache = self._tricks
            done = len(winners)
            if len(cache) < done:
                leader = winners[len(cache) - 1] if cache else fd ^ 1
                for t in range(len(cache), done):
                    winner = winners[t]
                    # InformationSet.tricks = 10
                    cache.append(_trick_entry(0x52, leader, plays[2 * t : 2 * t + 2], winner))
                    leader = winner
            parts += cache
            if len(plays) > 2 * done:  # the open trick, its leader's card (_trick_entry's)
                lead = _TRICK_CARDS[plays[-1]]
                leader = winners[-1] if winners else fd ^ 1
                parts.append(b"\x52\x08\x08\x01" + lead if leader else b"\x52\x06" + lead)
        if broken:
            parts.append(b"\x58\x01")
        if aside:
            entries = _INFO_PUT_ASIDE
            parts.append(b"".join([entries[c] for c in cards_of(aside)]))
        info = b"".join(parts)
        # the legal options
        if decision is _PLAY:
            legal = m.legal_mask
            # the hand's own entries, or a part of the hand (a suit to follow, no spade to lead)
            cards = held if legal == hand else _hand_bytes(legal)
            tail = cards.translate(_HAND_TO_LEGAL)
        elif decision is _BID:
            tail = _BID_LEGAL
        elif decision is _EXCHANGE:
            tail = _EXCHANGE_MAX
        else:
            tail = b""
        n = len(info)
        return b"".join(
            (
                self._match_id,
                b"\x12",
                small[n] if n < 512 else _v(n),
                info,
                self._clock_bytes
                if clock.move_time_ms == self._move and clock.time_bank_ms == self._bank
                else self._clock(clock),
                tail,
            )
        )


try:
    from arena.referee._wire import Encoder as _Encoder
except ImportError:  # not built (no compiler at install): the reference serves
    _Encoder = None

C_ENCODER: Any = None
"""The C encoder's class (``PythonRequestEncoder``'s interface and bytes), or None when the
extension was not built."""

if _Encoder is not None:

    class _CRequestEncoder(_Encoder):
        """Encodes the decision requests of one match in C. Not shared between threads."""

        __slots__ = ()

        def __init__(self, match_id: str, rules: RuleSet) -> None:
            super().__init__(
                _len_field(0x0A, match_id.encode()),
                _rules_bytes(rules),
                _PLAY,
                _BID,
                _EXCHANGE,
                _BID_LEGAL,
                _EXCHANGE_MAX,
            )

    C_ENCODER = _CRequestEncoder

RequestEncoder: Any = (
    C_ENCODER
    if C_ENCODER is not None and os.environ.get("ARENA_WIRE", "c") != "python"
    else PythonRequestEncoder
)
"""The referee's encoder: ``RequestEncoder(match_id, rules).encode(m, seat, decision,
clock)`` gives a request's bytes."""


def _packed(tag: int, values: tuple[int, int] | tuple[bool, bool]) -> bytes:
    """A packed repeated int32 (or bool) field of a seat pair: each value as a varint."""
    return _len_field(tag, _v(values[0]) + _v(values[1]))


def end_hand_requests(match_id: str, result: HandResult) -> tuple[bytes, bytes]:
    """Both seats' serialized ``EndHandRequest`` (what ``end_hand_request`` builds), put
    together once: seat 1's is seat 0's with the seat field appended (``seat = 2``), which seat
    0's lacks (0 is the default)."""
    body = b"".join(
        (
            b"\x08" + _v(result.hand_number) if result.hand_number else b"",  # HandResult
            b"\x10\x01" if result.first_drawer else b"",
            _packed(0x1A, result.bids),
            _packed(0x22, result.double_nil),
            _packed(0x2A, result.tricks_won),
            _packed(0x32, result.points),
            _packed(0x3A, result.bag_penalties),
            _packed(0x42, result.scores),
            _packed(0x4A, result.bags),
        )
    )
    tricks = [  # EndHandRequest.tricks = 4
        _trick_entry(0x22, trick.leader, trick.cards, trick.winner) for trick in result.tricks
    ]
    data = b"".join((_len_field(0x0A, match_id.encode()), _len_field(0x1A, body), *tricks))
    return data, data + b"\x10\x01"
