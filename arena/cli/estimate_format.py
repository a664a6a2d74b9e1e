"""How a score and an Elo estimate read, wherever they are printed: ``arena compare``'s lines
and the head-to-head "A score" of a tournament's report, local or from ``--server``.

Two honesties (docs/statistics.md): the score shown is the one scored (``raw_score``, 100.0%
after only wins, not the regularized 99.9%), and an Elo end that the clamp of
``arena.stats.score_to_elo`` made finite is shown unbounded: after no win at all A is not
"-1199.8 Elo" but "< -943" (below the other end of its interval).
"""

from __future__ import annotations

from arena.stats import ELO_CLAMP, Estimate


def score_text(score: float, low: float, high: float) -> str:
    """``45.0% [40.1, 50.0]``: a score and its 95 % interval, in per cent."""
    return f"{100 * score:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _unbounded_low(score: float) -> bool:
    return score <= ELO_CLAMP


def _unbounded_high(score: float) -> bool:
    return score >= 1.0 - ELO_CLAMP


def _elo(x: float) -> str:
    """Signed, one decimal; a value that rounds to zero is +0.0, never -0.0."""
    return "+0.0" if round(x, 1) == 0 else f"{x:+.1f}"


def elo_text(e: Estimate) -> str:
    """``+12.3 ± 35.2 [-22.9, +47.5]``; ``< -943.2`` or ``> +943.2`` when the score is 0 or 1;
    an end beyond the clamp as ``-inf`` / ``+inf``; ``unbounded`` when nothing bounds it."""
    low_open, high_open = _unbounded_low(e.score_low), _unbounded_high(e.score_high)
    if _unbounded_low(e.raw_score):
        return "unbounded" if high_open else f"< {_elo(e.elo_high)}"
    if _unbounded_high(e.raw_score):
        return "unbounded" if low_open else f"> {_elo(e.elo_low)}"
    low = "-inf" if low_open else _elo(e.elo_low)
    high = "+inf" if high_open else _elo(e.elo_high)
    if low_open or high_open:
        return f"{_elo(e.elo)} [{low}, {high}]"
    return f"{_elo(e.elo)} ± {e.elo95:.1f} [{low}, {high}]"
