"""A recorded match's card play analysed double-dummy (arena.analysis), from its record.

The record's actions replay through the engine; actions the referee substituted for a faulting
bot are marked, so that they count against no bot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from arena.analysis import (
    LossSummary,
    MatchAnalysis,
    PlayAnalysis,
    PlayClass,
    analyse_match,
    summarise,
)
from arena.referee.record import MatchResult


class MatchSummaryLike(Protocol):
    # Read-only, as the frozen records that have them (a summary, a result) keep them.
    @property
    def match_id(self) -> str: ...
    @property
    def players(self) -> tuple[str, str]: ...
    @property
    def winner(self) -> int | None: ...


def analyse_result(result: MatchResult) -> MatchAnalysis:
    decisions = result.decisions
    return analyse_match(
        result.seed,
        result.rules,
        [d.action for d in decisions],
        substituted={i for i, d in enumerate(decisions) if d.fault is not None},
    )


@dataclass
class PlayerLoss:
    """One player's (``name@version``) card play over some analysed matches."""

    player: str
    matches: int = 0
    wins: int = 0
    hand_losses: list[int] = field(default_factory=list)
    hand_trick_losses: list[int] = field(default_factory=list)
    """Its trick loss in each complete hand without a Nil bid."""
    plays: list[tuple[str, PlayAnalysis]] = field(default_factory=list)
    """Its analysed plays, each with its match id (substitutes left out)."""
    bids: list[tuple[int, int]] = field(default_factory=list)
    """(bid, double-dummy tricks) of each hand it bid in (Double Nil left out)."""

    def summary(self) -> LossSummary | None:
        return summarise(self.hand_losses) if self.hand_losses else None

    def trick_summary(self) -> LossSummary | None:
        """Its card-play loss in tricks (``MatchAnalysis.hand_trick_losses``)."""
        return summarise(self.hand_trick_losses) if self.hand_trick_losses else None

    def count(self, kind: PlayClass) -> int:
        return sum(1 for _, p in self.plays if p.kind is kind)

    def worst(self, n: int) -> list[tuple[str, PlayAnalysis]]:
        """Its ``n`` costliest plays, the earliest first among equals."""
        return sorted(self.plays, key=lambda mp: -mp[1].loss)[:n]


def losses_by_player(
    matches: Iterable[tuple[MatchSummaryLike, MatchAnalysis]],
) -> dict[str, PlayerLoss]:
    """Each player's card-play loss over ``matches`` (a match summary with its analysis)."""
    out: dict[str, PlayerLoss] = {}
    for summary, analysis in matches:
        for seat in (0, 1):
            name = summary.players[seat]
            entry = out.setdefault(name, PlayerLoss(name))
            entry.matches += 1
            entry.wins += summary.winner == seat
            entry.hand_losses.extend(analysis.hand_losses(seat))
            entry.hand_trick_losses.extend(analysis.hand_trick_losses(seat))
            for hand in analysis.hands:
                if not hand.double_nil[seat]:
                    entry.bids.append((hand.bids[seat], hand.dd_tricks[seat]))
                entry.plays.extend(
                    (summary.match_id, p)
                    for p in hand.plays
                    if p.seat == seat and not p.substituted
                )
    return out
