"""``arena.cli.estimate_format``: the score scored, not the regularized one, and an Elo end
the clamp made finite shown unbounded (``arena.stats``'s real estimates)."""

from __future__ import annotations

from arena.cli.estimate_format import elo_text, score_text
from arena.stats import estimate


def test_no_win_is_below_the_other_end_not_minus_1199() -> None:
    e = estimate([3, 0, 0, 0, 0])  # three pairs, A lost all six matches
    assert e.raw_score == 0.0 and e.score > 0.0  # regularized: 0.1%, not what was scored
    assert score_text(e.raw_score, e.score_low, e.score_high).startswith("0.0% [0.0, ")
    text = elo_text(e)
    assert text == f"< {e.elo_high:+.1f}" and "1199" not in text


def test_only_wins_read_100_per_cent_and_above_the_lower_end() -> None:
    e = estimate([0, 0, 0, 0, 3])
    assert e.raw_score == 1.0
    assert score_text(e.raw_score, e.score_low, e.score_high).startswith("100.0% [")
    assert elo_text(e) == f"> {e.elo_low:+.1f}"


def test_an_open_end_and_the_usual_case() -> None:
    one_sided = estimate([0, 0, 1, 0, 1])  # 75 %: the upper end of the score interval is 100 %
    assert elo_text(one_sided).endswith(", +inf]") and "±" not in elo_text(one_sided)
    usual = estimate([2, 5, 10, 5, 2])
    assert usual.raw_score == 0.5
    low, high = f"{usual.elo_low:+.1f}", f"{usual.elo_high:+.1f}"
    assert elo_text(usual) == f"+0.0 ± {usual.elo95:.1f} [{low}, {high}]"
    assert score_text(0.45, 0.401, 0.5) == "45.0% [40.1, 50.0]"
