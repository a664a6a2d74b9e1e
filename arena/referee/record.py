"""The record of a played match: how it ended, and every decision in a compact byte form.

With the seed and the rule set, the decisions rebuild the match exactly through the engine
(the design's "deterministic" principle); the times say how long each bot took.
"""

from __future__ import annotations

import enum
import sys
import zlib
from array import array
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.rules.cards import card_name, parse_card
from arena.rules.decisions import Action, Decision
from arena.rules.ruleset import RuleSet


class Termination(enum.Enum):
    TARGET_REACHED = "target_reached"
    """R-6.2: a player reached the target with the higher score."""
    HAND_LIMIT = "hand_limit"
    """R-6.3: adjudicated at the hand limit."""
    FORFEIT_TIMEOUT = "forfeit_timeout"
    FORFEIT_ILLEGAL_ACTION = "forfeit_illegal_action"
    FORFEIT_MALFORMED_ANSWER = "forfeit_malformed_answer"
    FORFEIT_ERROR_STATUS = "forfeit_error_status"
    FORFEIT_CRASH = "forfeit_crash"
    FORFEIT_NO_START = "forfeit_no_start"
    """The bot could not be started for this match; the opponent is named the winner, and the
    store rates neither side (a win nobody played for)."""
    ABORTED = "aborted"
    """The arena stopped before the match ended; the match is not rated."""

    @property
    def is_forfeit(self) -> bool:
        return self.value.startswith("forfeit_")


class FaultKind(enum.Enum):
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    MALFORMED_ANSWER = "malformed_answer"
    ERROR_STATUS = "error_status"
    CRASH = "crash"

    @property
    def termination(self) -> Termination:
        return Termination("forfeit_" + self.value)


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    seat: int
    decision: Decision
    action: Action
    """The action applied to the engine: the bot's own, or the substitute after a fault."""
    elapsed_us: int
    """Time the bot took, on the referee's monotonic clock, in microseconds."""
    fault: FaultKind | None = None
    """Set when the bot faulted on this decision and ``action`` is a substitute."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    match_id: str
    seed: int
    rules: RuleSet
    engine_version: str
    players: tuple[str, str]
    """Who sat in seats 0 and 1 (bot name, or name@version)."""
    winner: int | None
    """The winning seat; None for a draw or an aborted match."""
    scores: tuple[int, int]
    hands_played: int
    termination: Termination
    faults: tuple[int, int]
    """Faults of each seat in this match, substituted or not."""
    detail: str
    """A readable reason for a forfeit or abort; empty for a clean match."""
    decisions: tuple[DecisionRecord, ...]
    started_at: datetime
    finished_at: datetime


_DECISIONS = list(Decision)
_FAULTS = [None, *FaultKind]


COLUMNAR = 0xC1
"""The first byte of the columnar form. The first form's first byte is a decision's header,
below 0x80, so the two are told apart by it (an empty record is empty in both)."""
_KIND_BITS = {k: i << 1 for i, k in enumerate(_DECISIONS)}
_FAULT_BITS = {f: i << 4 for i, f in enumerate(_FAULTS)}
_WIDTHS = {4: next(c for c in "ILQ" if array(c).itemsize == 4), 8: "Q"}


def _header_table() -> list[tuple[int, Decision, FaultKind | None, bool, bool] | None]:
    """Per header byte: seat, decision, fault, whether the action is a yes/no, an exchange."""
    table: list[tuple[int, Decision, FaultKind | None, bool, bool] | None] = []
    for h in range(256):
        kind, fault = h >> 1 & 7, h >> 4 & 7
        if h >= 0x80 or kind >= len(_DECISIONS) or fault >= len(_FAULTS):
            table.append(None)
            continue
        decision = _DECISIONS[kind]
        yes_no = decision in (Decision.DRAW, Decision.DOUBLE_NIL)
        table.append((h & 1, decision, _FAULTS[fault], yes_no, decision is Decision.EXCHANGE))
    return table


_HEADERS = _header_table()


def encode_decisions(decisions: tuple[DecisionRecord, ...] | list[DecisionRecord]) -> bytes:
    """Pack decisions into bytes, by column: about 3 bytes a decision, compressed.

    ``0xC1``, the width W of a time (4 or 8), the count N as a LEB128 varint, then zlib of:
    N header bytes (seat, decision kind << 1, fault << 4, as in the first form), N action bytes
    (a card, a bid, 0/1 for a yes/no; 0 for an exchange), N times in microseconds (W bytes each,
    little-endian, unsigned), then each exchange's count and cards, in order. Built column by
    column (the work is in C: ``bytes``, ``array``, ``zlib``), so that recording a match costs
    its coordinator little (docs/store-and-ratings.md).
    """
    n = len(decisions)
    if not n:
        return b""
    headers = bytes([d.seat | _KIND_BITS[d.decision] | _FAULT_BITS[d.fault] for d in decisions])
    actions = [d.action for d in decisions]
    exchanges = bytearray()
    try:
        action_bytes = bytes(actions)  # type: ignore[arg-type]
    except TypeError:  # an exchange's cards
        for cards in [a for a in actions if a.__class__ is tuple]:
            exchanges.append(len(cards))
            exchanges.extend(cards)
        action_bytes = bytes([0 if a.__class__ is tuple else a for a in actions])  # type: ignore[misc]
    elapsed = [d.elapsed_us for d in decisions]
    try:
        width, times = 4, array(_WIDTHS[4], elapsed)
    except OverflowError:  # a time past 71 minutes, or below zero (stored as 0)
        elapsed = [max(0, t) for t in elapsed]
        width = 4 if max(elapsed) < 2**32 else 8
        times = array(_WIDTHS[width], elapsed)
    if sys.byteorder == "big":
        times.byteswap()
    payload = b"".join((headers, action_bytes, times.tobytes(), exchanges))
    return bytes((COLUMNAR, width)) + _varint(n) + zlib.compress(payload, 1)


def decode_decisions(data: bytes) -> tuple[DecisionRecord, ...]:
    """The decisions of either stored form (the columnar one, or the first one)."""
    if not data or data[0] != COLUMNAR:
        return _decode_v0(data)
    try:
        return _decode_columnar(data)
    except (IndexError, ValueError, TypeError, zlib.error) as exc:
        raise ValueError(f"damaged decision record ({len(data)} bytes): {exc}") from None


def _decode_columnar(data: bytes) -> tuple[DecisionRecord, ...]:
    width = data[1]
    if width not in _WIDTHS:
        raise ValueError(f"time width {width}")
    n = shift = 0
    i = 2
    while True:
        byte = data[i]
        i += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    payload = zlib.decompress(data[i:])
    times = array(_WIDTHS[width])
    times.frombytes(payload[2 * n : (2 + width) * n])
    if sys.byteorder == "big":
        times.byteswap()
    if len(times) != n:
        raise ValueError(f"{len(times)} times for {n} decisions")
    exchanges = payload[(2 + width) * n :]
    at = 0
    out = []
    headers = _HEADERS
    for header, action, elapsed in zip(payload[:n], payload[n : 2 * n], times, strict=True):
        entry = headers[header]
        if entry is None:
            raise ValueError(f"header byte {header:#x}")
        seat, decision, fault, yes_no, exchange = entry
        value: Action = action
        if exchange:
            count = exchanges[at]
            value = tuple(exchanges[at + 1 : at + 1 + count])
            at += 1 + count
        elif yes_no:
            value = action != 0
        out.append(DecisionRecord(seat, decision, value, elapsed, fault))
    return tuple(out)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_decisions_v0(decisions: tuple[DecisionRecord, ...] | list[DecisionRecord]) -> bytes:
    """The first byte form (store revisions before 0011): decision by decision.

    Each decision is a header byte (seat, decision kind, fault), the action (one byte; an
    exchange is a count then its cards), and the elapsed microseconds as a LEB128 varint.
    """
    out = bytearray()
    for d in decisions:
        out.append(d.seat | _DECISIONS.index(d.decision) << 1 | _FAULTS.index(d.fault) << 4)
        if d.decision is Decision.EXCHANGE:
            cards = tuple(d.action)  # type: ignore[arg-type]
            out.append(len(cards))
            out.extend(cards)
        else:
            out.append(int(d.action))  # type: ignore[arg-type]
        n = max(0, d.elapsed_us)
        while True:
            byte = n & 0x7F
            n >>= 7
            if n:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
    return bytes(out)


def _decode_v0(data: bytes) -> tuple[DecisionRecord, ...]:
    out = []
    i = 0
    while i < len(data):
        header = data[i]
        seat, kind, fault = header & 1, _DECISIONS[header >> 1 & 7], _FAULTS[header >> 4 & 7]
        i += 1
        action: Action
        if kind is Decision.EXCHANGE:
            n = data[i]
            action = tuple(data[i + 1 : i + 1 + n])
            i += 1 + n
        elif kind in (Decision.DRAW, Decision.DOUBLE_NIL):
            action = bool(data[i])
            i += 1
        else:
            action = data[i]
            i += 1
        elapsed = shift = 0
        while True:
            byte = data[i]
            i += 1
            elapsed |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        out.append(DecisionRecord(seat, kind, action, elapsed, fault))
    return tuple(out)


# -- JSON form -----------------------------------------------------------------------------
# For ``arena match --json`` and for files a person can keep: readable actions ("As", "keep",
# a list of cards for an exchange), and every field of the record, so the result can be read
# back and replayed.


def action_to_json(decision: Decision, action: Action) -> Any:
    if decision is Decision.PLAY:
        return card_name(action)  # type: ignore[arg-type]
    if decision is Decision.EXCHANGE:
        return [card_name(c) for c in action]  # type: ignore[union-attr]
    if decision is Decision.DRAW:
        return "keep" if action else "reject"
    if decision is Decision.DOUBLE_NIL:
        return "declare" if action else "decline"
    return action


def action_from_json(decision: Decision, value: Any) -> Action:
    if decision is Decision.PLAY:
        return parse_card(value)
    if decision is Decision.EXCHANGE:
        return tuple(parse_card(c) for c in value)
    if decision is Decision.DRAW:
        return {"keep": True, "reject": False}[value]
    if decision is Decision.DOUBLE_NIL:
        return {"declare": True, "decline": False}[value]
    return int(value)


def result_to_dict(result: MatchResult) -> dict[str, Any]:
    """The result as JSON-ready data; ``result_from_dict`` reads it back unchanged."""
    return {
        "match_id": result.match_id,
        "players": list(result.players),
        "winner": result.winner,
        "scores": list(result.scores),
        "hands_played": result.hands_played,
        "termination": result.termination.value,
        "faults": list(result.faults),
        "detail": result.detail,
        "seed": result.seed,
        "rules": result.rules.to_dict(),
        "engine_version": result.engine_version,
        "started_at": result.started_at.isoformat(),
        "finished_at": result.finished_at.isoformat(),
        "decisions": [
            [d.seat, d.decision.value, action_to_json(d.decision, d.action), d.elapsed_us]
            + ([d.fault.value] if d.fault is not None else [])
            for d in result.decisions
        ],
    }


def result_from_dict(data: dict[str, Any]) -> MatchResult:
    """Read back ``result_to_dict``'s form; ValueError (or KeyError) when it is not one."""
    decisions = []
    for row in data["decisions"]:
        seat, kind, action, elapsed = row[:4]
        decision = Decision(kind)
        decisions.append(
            DecisionRecord(
                int(seat),
                decision,
                action_from_json(decision, action),
                int(elapsed),
                FaultKind(row[4]) if len(row) > 4 else None,
            )
        )
    p0, p1 = data["players"]
    s0, s1 = data["scores"]
    f0, f1 = data["faults"]
    return MatchResult(
        match_id=str(data["match_id"]),
        seed=int(data["seed"]),
        rules=RuleSet.from_dict(data["rules"]),
        engine_version=str(data["engine_version"]),
        players=(str(p0), str(p1)),
        winner=None if data["winner"] is None else int(data["winner"]),
        scores=(int(s0), int(s1)),
        hands_played=int(data["hands_played"]),
        termination=Termination(data["termination"]),
        faults=(int(f0), int(f1)),
        detail=str(data["detail"]),
        decisions=tuple(decisions),
        started_at=datetime.fromisoformat(data["started_at"]),
        finished_at=datetime.fromisoformat(data["finished_at"]),
    )
