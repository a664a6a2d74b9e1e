"""Plots of a bot's versions as inline SVG: a value (mu, or the card-play loss) after each of
the bot's matches, with a band of ± 2 sigma, one line per version, and a legend. Drawn on the
server, so the page needs no plotting library and works without script.

The x-axis is shared by every version: the bot's matches in the order they were recorded, over
its whole history, so version 2 starts where version 1 stood when it came in (a version's first
point, its initial rating, sits one match before its first match). The plot fills its
container's width: the lines are drawn in a nested SVG stretched to the plot area (strokes that
do not scale with it), and the text, the ticks and the markers are placed in percentages of
the width, so nothing is distorted from 390 px to a desktop.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from html import escape

from arena.web.history import Point

HEIGHT = 240
"""The plot's height in CSS pixels; its width is the container's."""
TOP, BOTTOM = 8, 34
"""Room above the plot area, and below it for the x ticks and the axis's name."""
PAD = 1.5
"""The plot area's horizontal margin, in percent of the width (room for the end markers)."""
UNITS = 1000
"""The nested SVG's coordinate span on both axes (stretched to the plot area)."""
BAND = 2.0


def ticks(lo: float, hi: float, n: int = 5) -> list[float]:
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


def _positions(drawn: Sequence[tuple[str, Sequence[Point]]]) -> list[list[int]]:
    """Each point's place on the shared axis: its ``order``'s rank among all the drawn points
    (1 for the first), the initial rating (order 0) one before its version's first match."""
    order = sorted({p.order for _, pts in drawn for p in pts if p.order > 0})
    out = []
    for _, pts in drawn:
        xs = [bisect_left(order, p.order) + 1 if p.order > 0 else -1 for p in pts]
        for i in range(len(xs) - 1, -1, -1):
            if xs[i] < 0:  # the initial rating: just before the next point (0 with none)
                xs[i] = xs[i + 1] - 1 if i + 1 < len(xs) else 0
        out.append(xs)
    return out


def rating_plot(
    series: Sequence[tuple[str, Sequence[Point]]],
    title: str,
    axis: str = "the bot's rated matches, in order",
    value: str = "μ",
) -> str:
    """The SVG and its legend: one line and band per version (label, points oldest first, each
    with the sequence of the match it follows, 0 for the initial rating)."""
    drawn = [(label, pts) for label, pts in series if pts]
    if not drawn:
        return ""
    xs_of = _positions(drawn)
    x_lo = min(min(xs) for xs in xs_of)
    x_hi = max(max(xs) for xs in xs_of)
    lo = min(p.mu - BAND * p.sigma for _, pts in drawn for p in pts)
    hi = max(p.mu + BAND * p.sigma for _, pts in drawn for p in pts)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    plot_h = HEIGHT - TOP - BOTTOM

    def fx(i: int) -> float:
        """0 to 1 across the plot area."""
        return (i - x_lo) / (x_hi - x_lo) if x_hi > x_lo else 0.5

    def pct(i: int) -> str:
        return f"{PAD + (100 - 2 * PAD) * fx(i):.2f}%"

    def fy(v: float) -> float:
        return (hi - v) / (hi - lo)

    def y(v: float) -> float:
        return TOP + plot_h * fy(v)

    def u(f: float) -> str:
        return f"{f * UNITS:.1f}"

    parts = [
        f'<svg class="plot" width="100%" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'data-x-first="{x_lo}" data-x-last="{x_hi}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="{TOP}" width="100%" height="{plot_h}" class="plot-bg"/>',
    ]
    y_ticks = ticks(lo, hi)
    for t in y_ticks:
        parts.append(
            f'<line x1="0" x2="100%" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>'
            f'<text x="3" y="{y(t) - 3:.1f}" class="tick y-tick">{t:g}</text>'
        )
    for t in ticks(x_lo, x_hi, 6):
        i = int(t)
        if x_lo <= i <= x_hi and i == t:
            parts.append(
                f'<line x1="{pct(i)}" x2="{pct(i)}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 4}" '
                f'class="grid"/><text x="{pct(i)}" y="{HEIGHT - 18}" class="tick x-tick" '
                f'text-anchor="middle">{i}</text>'
            )
    parts.append(
        f'<svg class="area" x="{PAD}%" y="{TOP}" width="{100 - 2 * PAD:g}%" height="{plot_h}" '
        f'viewBox="0 0 {UNITS} {UNITS}" preserveAspectRatio="none" overflow="visible">'
    )
    for k, ((label, pts), xs) in enumerate(zip(drawn, xs_of, strict=True)):
        upper = " ".join(
            f"{u(fx(i))},{u(fy(p.mu + BAND * p.sigma))}" for i, p in zip(xs, pts, strict=True)
        )
        lower = " ".join(
            f"{u(fx(i))},{u(fy(p.mu - BAND * p.sigma))}"
            for i, p in reversed(list(zip(xs, pts, strict=True)))
        )
        line = " ".join(f"{u(fx(i))},{u(fy(p.mu))}" for i, p in zip(xs, pts, strict=True))
        parts.append(
            f'<g class="series s{k % 6}" data-version="{escape(label)}" '
            f'data-x-first="{xs[0]}" data-x-last="{xs[-1]}">'
            f'<polygon class="band" points="{upper} {lower}"/>'
            f'<polyline class="mu" points="{line}"/></g>'
        )
    parts.append("</svg>")
    legend = []
    for k, ((label, pts), xs) in enumerate(zip(drawn, xs_of, strict=True)):
        last = pts[-1]
        said = f"{escape(label)}: {value} {last.mu:.2f} ± {BAND * last.sigma:.2f} at match {xs[-1]}"
        parts.append(
            f'<circle class="end s{k % 6}" cx="{pct(xs[-1])}" cy="{y(last.mu):.1f}" r="3.5">'
            f"<title>{said}</title></circle>"
        )
        initial = pts[0].order == 0
        span = "" if len(pts) == initial else f", matches {xs[int(initial)]} to {xs[-1]}"
        legend.append(
            f'<li class="s{k % 6}" data-version="{escape(label)}">'
            f'<svg class="swatch" width="22" height="10" aria-hidden="true">'
            f'<rect class="band" x="0" y="0" width="22" height="10"/>'
            f'<line class="mu" x1="0" x2="22" y1="5" y2="5"/></svg>'
            f'<span class="name">{escape(label)}</span> '
            f'<span class="figure">{value} {last.mu:.2f} ± {BAND * last.sigma:.2f}{span}</span>'
            f"</li>"
        )
    parts.append(
        f'<text x="50%" y="{HEIGHT - 3}" class="axis" text-anchor="middle">{escape(axis)}</text>'
    )
    parts.append("</svg>")
    parts.append(f'<ul class="legend" aria-label="versions">{"".join(legend)}</ul>')
    return "".join(parts)


def interval_axis(lo: float, hi: float) -> str:
    """The leaderboard interval column's axis, the scale every row's bar is drawn on: ticks
    placed in percent of the bar's width (the bars are as wide, in CSS)."""
    span = (hi - lo) or 1.0
    parts = [
        f'<svg class="bar-axis" height="18" role="img" aria-label="the bars\' scale: '
        f'{lo:.1f} to {hi:.1f}" data-low="{lo:.6g}" data-high="{hi:.6g}" '
        'xmlns="http://www.w3.org/2000/svg" overflow="visible">'
        '<line class="base" x1="0" x2="100%" y1="17" y2="17"/>'
    ]
    marks = [(lo, f"{lo:.1f}", "start"), (hi, f"{hi:.1f}", "end")]
    marks += [(t, f"{t:g}", "middle") for t in ticks(lo, hi, 4) if 0.3 < (t - lo) / span < 0.7]
    for t, label, anchor in marks:
        x = f"{(t - lo) / span * 100:.2f}%"
        parts.append(
            f'<line x1="{x}" x2="{x}" y1="13" y2="17" data-value="{t:.6g}"/>'
            f'<text x="{x}" y="11" text-anchor="{anchor}">{label}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
