"""The referee's fast path to a decision request: protobuf wire bytes put together directly.

``arena.protocol.build_request`` builds a message object field by field and serializes it; per
decision that costs more than the rest of the referee's work together. A request is mostly
parts that do not change (the rule set, the match id, the completed tricks of the hand, every
card's encoding), so this encoder keeps their bytes and joins them. The output parses to a
message equal to ``build_request``'s (tests check it over whole matches); the protocol module
stays the reference for what a request means.

Protobuf's wire format allows it: a message is a sequence of (tag, value) fields, a nested
message is its bytes with a length prefix, and a parser accepts fields in any order.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.protocol import EXCHANGE_MAX_CARDS, ClockLike
from arena.rules.decisions import Action, Decision
from arena.rules.observation import Observation
from arena.rules.ruleset import RuleSet

__all__ = ["RequestEncoder"]


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
_LEGAL_CARDS = _card_entries(0x22)  # PlayRequest.legal_cards = 4
_SEAT = (b"", b"\x08\x01")  # InformationSet.seat = 1 (0 is the default: omitted)
_BROKEN = (b"", b"\x58\x01")  # InformationSet.spades_broken = 11
_KEEP, _REJECT = 1, 2  # DrawChoice values


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


class RequestEncoder:
    """Encodes the decision requests of one match. Not shared between threads."""

    __slots__ = (
        "_clock_key",
        "_clocks",
        "_hand",
        "_match_id",
        "_rules",
        "_seat_bytes",
        "_seat_views",
        "_tricks",
    )

    def __init__(self, match_id: str, rules: RuleSet) -> None:
        self._match_id = _len_field(0x0A, match_id.encode())  # *Request.match_id = 1
        self._rules = _rules_bytes(rules)
        self._clocks: dict[tuple[int, int], bytes] = {}
        self._hand = 0
        self._tricks: list[bytes] = []
        """The encoded completed tricks of hand ``_hand``: both seats see the same ones."""
        self._seat_views: list[object] = [None, None]
        self._seat_bytes: list[bytes] = [b"", b""]
        """Each seat's last ``SeatView`` and its encoded entry: the engine shares one frozen
        object per seat state, which changes a few times a hand, so the same object means
        the same bytes."""

    def _clock(self, clock: ClockLike) -> bytes:
        key = (clock.move_time_ms, clock.time_bank_ms)
        cached = self._clocks.get(key)
        if cached is None:
            move, bank = key
            body = (b"\x08" + _v(move) if move else b"") + (b"\x10" + _v(bank) if bank else b"")
            cached = _len_field(0x1A, body)  # *Request.clock = 3
            if len(self._clocks) > 64:
                self._clocks.clear()
            self._clocks[key] = cached
        return cached

    def _info(self, obs: Observation) -> bytes:
        small = _SMALL  # hand numbers, counts, bids: always below 512
        parts = [_SEAT[obs.seat], self._rules, b"\x18", small[obs.hand_number]]
        if obs.first_drawer:
            parts.append(b"\x20\x01")
        hand = _INFO_HAND
        parts += [hand[c] for c in obs.hand]
        if obs.looking_at is not None:
            parts.append(_INFO_LOOKING[obs.looking_at])
        if obs.own_discards:
            discards = _INFO_DISCARDS
            parts += [discards[c] for c in obs.own_discards]
        if obs.stock_size:
            parts += (b"\x40", small[obs.stock_size])
        seen = self._seat_views
        for j, seat in enumerate(obs.seats):
            if seat is seen[j]:
                parts.append(self._seat_bytes[j])
                continue
            score = seat.score
            body = (b"\x08" + _v(score)) if score else b""
            if seat.bags:
                body += b"\x10" + small[seat.bags]
            if seat.bid is not None:
                body += b"\x18" + small[seat.bid]
            if seat.double_nil:
                body += b"\x20\x01"
            if seat.tricks_won:
                body += b"\x28" + small[seat.tricks_won]
            if seat.cards_exchanged is not None:
                body += b"\x30" + small[seat.cards_exchanged]
            if seat.draw_choices:
                body += _len_field(0x3A, bytes(_KEEP if k else _REJECT for k in seat.draw_choices))
            entry = b"\x4a" + small[len(body)] + body  # InformationSet.seats = 9
            seen[j] = seat
            self._seat_bytes[j] = entry
            parts.append(entry)
        tricks = obs.tricks
        if tricks:
            if obs.hand_number != self._hand:
                self._hand = obs.hand_number
                self._tricks = []
            cache = self._tricks
            done = len(cache)
            parts += cache
            for trick in tricks[done:]:
                cards = _TRICK_CARDS
                body = (b"\x08\x01" if trick.leader else b"") + b"".join(
                    [cards[c] for c in trick.cards]
                )
                if trick.winner is not None:
                    encoded = _len_field(0x52, body + b"\x18" + small[trick.winner])
                    cache.append(encoded)
                else:
                    encoded = _len_field(0x52, body)
                parts.append(encoded)
        if obs.spades_broken:
            parts.append(b"\x58\x01")
        if obs.own_put_aside:
            aside = _INFO_PUT_ASIDE
            parts += [aside[c] for c in obs.own_put_aside]
        info = b"".join(parts)
        return b"\x12" + _v(len(info)) + info  # *Request.info = 2

    def encode(
        self, decision: Decision, obs: Observation, legal: Sequence[Action], clock: ClockLike
    ) -> bytes:
        """The serialized request asking ``decision`` of ``obs.seat`` (as ``build_request``)."""
        head = self._match_id + self._info(obs) + self._clock(clock)
        if decision is Decision.PLAY:
            cards = _LEGAL_CARDS
            return head + b"".join([cards[c] for c in legal])  # type: ignore[index]
        if decision is Decision.BID:
            return head + _len_field(0x22, b"".join([_v(b) for b in legal]))  # type: ignore[arg-type]
        if decision is Decision.EXCHANGE:
            return head + b"\x20" + _v(EXCHANGE_MAX_CARDS)
        return head
