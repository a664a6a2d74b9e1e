"""Card-play loss: a bot's mean loss per hand, with a 95 % interval.

Each complete hand a bot plays is one sample: the sum over its cards in that hand of their
shares of the stake (``par.HandAnalysis.share``), the card-play loss; or of their par losses in
points (``HandAnalysis.loss``), or of their trick losses (``HandAnalysis.trick_loss``, hands
without Nil), beside it. The mean over hands measures how well it plays the cards it holds,
whatever it was dealt and whoever sat against it: par is taken afresh at every card, so an
opponent's or the deal's gift is not counted to its credit. The interval is the normal one,
``mean ± 1.96 · s / sqrt(n)`` with the sample deviation ``s`` over ``n`` hands (hands are close
to independent: each is dealt afresh, only scores and bags carry over).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class LossSummary:
    hands: int
    mean: float
    low: float | None
    """The 95 % interval's ends; None with fewer than two hands."""
    high: float | None

    def to_dict(self) -> dict[str, float | int | None]:
        return {"hands": self.hands, "mean": self.mean, "low": self.low, "high": self.high}


def summarise(losses: Sequence[float]) -> LossSummary:
    """The card-play loss of ``losses``, one per hand."""
    n = len(losses)
    if n == 0:
        raise ValueError("no hand to summarise")
    mean = math.fsum(losses) / n
    if n < 2:
        return LossSummary(hands=n, mean=mean, low=None, high=None)
    var = math.fsum((x - mean) ** 2 for x in losses) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return LossSummary(hands=n, mean=mean, low=mean - half, high=mean + half)
