"""The rating-history plot as inline SVG: mu over a bot version's matches, with a mu ± 1.96 sigma
band. Drawn on the server, so the page needs no plotting library and works without script."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from arena.web.history import Point

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
BAND = 2.0


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=raw)
    first = math.ceil(lo / step) * step
    out = []
    v = first
    while v <= hi + 1e-9:
        out.append(round(v, 6))
        v += step
    return out


def rating_plot(
    series: Sequence[tuple[str, Sequence[Point]]],
    title: str,
    axis: str = "rated matches",
    value: str = "μ",
) -> str:
    """One line and band per version (label, points from the initial rating on); x is the
    number of rated matches the version had played (``axis`` names it), y ``value`` with a band
    of ± 2 ``sigma``."""
    drawn = [(label, pts) for label, pts in series if pts]
    if not drawn:
        return ""
    n_max = max(len(p) for _, p in drawn)
    lo = min(p.mu - BAND * p.sigma for _, pts in drawn for p in pts)
    hi = max(p.mu + BAND * p.sigma for _, pts in drawn for p in pts)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n_max - 1) if n_max > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (hi - v) / (hi - lo)

    parts = [
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="plot-bg"/>',
    ]
    for t in _ticks(lo, hi):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
            f'class="grid"/><text x="{LEFT - 4}" y="{y(t) + 4:.1f}" class="tick" '
            f'text-anchor="end">{t:g}</text>'
        )
    for t in _ticks(0, n_max - 1, 6):
        i = int(t)
        if 0 <= i < n_max and i == t:
            parts.append(
                f'<text x="{x(i):.1f}" y="{HEIGHT - 10}" class="tick" '
                f'text-anchor="middle">{i}</text>'
            )
    for k, (label, pts) in enumerate(drawn):
        cls = f"series s{k % 6}"
        upper = " ".join(f"{x(i):.1f},{y(p.mu + BAND * p.sigma):.1f}" for i, p in enumerate(pts))
        lower = " ".join(
            f"{x(i):.1f},{y(p.mu - BAND * p.sigma):.1f}" for i, p in reversed(list(enumerate(pts)))
        )
        line = " ".join(f"{x(i):.1f},{y(p.mu):.1f}" for i, p in enumerate(pts))
        parts.append(f'<g class="{cls}" data-version="{escape(label)}">')
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
        parts.append(f'<polyline class="mu" points="{line}"/>')
        last = pts[-1]
        parts.append(
            f'<circle class="end" cx="{x(len(pts) - 1):.1f}" cy="{y(last.mu):.1f}" r="3">'
            f"<title>{escape(label)}: {value} {last.mu:.2f} ± {BAND * last.sigma:.2f} after "
            f"{len(pts) - 1} {escape(axis)}</title></circle>"
        )
        parts.append("</g>")
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 0}" class="axis" '
        f'text-anchor="middle">{escape(axis)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
