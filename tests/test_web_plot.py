"""The rating chart's x-axis follows the order ratings are applied in, not the recorded order
(a tournament's results are recorded as they arrive and rated in schedule order)."""

from __future__ import annotations

import re
from itertools import pairwise

from arena.web.history import Point
from arena.web.plot import rating_plot


def _xs(svg: str) -> list[float]:
    line = re.search(r'<polyline class="mu" points="([^"]*)"', svg)
    assert line is not None
    return [float(pt.split(",")[0]) for pt in line.group(1).split()]


def test_a_rating_line_moves_right_when_matches_were_recorded_out_of_order() -> None:
    # Rated in schedule order: recorded sequences 2, 3, 7, 1, 13 (the fourth game's result
    # arrived first), the rating order 1..5; the initial rating first.
    sequences = [0, 2, 3, 7, 1, 13]
    points = [Point(q, 25.0 + i, 8.0 - i, i) for i, q in enumerate(sequences)]
    xs = _xs(rating_plot([("bot@1", points)], "t"))
    assert len(xs) == len(points)
    assert all(a < b for a, b in pairwise(xs)), xs
