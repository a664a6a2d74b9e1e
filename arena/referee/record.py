"""The record of a played match: how it ended, and every decision in a compact byte form.

With the seed and the rule set, the decisions rebuild the match exactly through the engine
(the design's "deterministic" principle); the times say how long each bot took.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

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
    """The bot could not be started for this match; the opponent wins without play."""
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


def encode_decisions(decisions: tuple[DecisionRecord, ...] | list[DecisionRecord]) -> bytes:
    """Pack decisions into bytes: about 3 bytes a decision.

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


def decode_decisions(data: bytes) -> tuple[DecisionRecord, ...]:
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
