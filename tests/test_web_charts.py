"""The charts people read, in chromium: the bot page's rating history and card-play loss share
one x-axis over the bot's whole history (matches in order, version 2 after version 1), carry a
legend with one entry per version and fill their container's width (at 1280 and 390 px); the
leaderboard's interval bars are all drawn on one labelled axis (bar widths proportional to the
intervals, bar positions linear in them). A real store with real rated and analysed matches,
served by the real server. ``ARENA_CHART_SCREENSHOTS=docs`` keeps the bot page's two charts at
both widths and the leaderboard's head there (docs/web-charts-*.png, web-leaderboard-bars.png)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.store import Store
from arena.web.server import WebServer
from tests.test_analyse_cli import played

pytestmark = [pytest.mark.web, pytest.mark.slow]

V1_MATCHES, V2_MATCHES = 5, 4
ANALYSED = ("a0", "a1", "b0", "b1")
"""The matches analysed: two of each version (for the card-play loss chart)."""

POINTS_X = """sel => [...document.querySelectorAll(sel + ' g.series')].map(g => {
  const line = g.querySelector('polyline.mu'), m = line.getScreenCTM();
  return [...line.points].map(p => new DOMPoint(p.x, p.y).matrixTransform(m).x);
})"""
"""Each version's points' x on the screen, in CSS pixels, as drawn."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    store = Store.open(str(tmp_path_factory.mktemp("charts") / "arena.db"))
    v1 = store.register_bot_version("alpha", "1", "h1", "/a1").id
    other = store.register_bot_version("beta", "1", "hb", "/b").id
    for i in range(V1_MATCHES):
        seats = (v1, other) if i % 2 == 0 else (other, v1)
        names = ("alpha@1", "beta@1") if i % 2 == 0 else ("beta@1", "alpha@1")
        store.record_match(played(f"a{i}", 10 + i, names, hands=1), seat_versions=seats)
    v2 = store.register_bot_version("alpha", "2", "h2", "/a2").id
    for i in range(V2_MATCHES):
        store.record_match(
            played(f"b{i}", 30 + i, ("alpha@2", "beta@1"), hands=1), seat_versions=(v2, other)
        )
    for match_id in ANALYSED:
        store.analysis_for(match_id)
    server = WebServer(store, "127.0.0.1:0")
    server.start()
    try:
        yield server.url.rstrip("/"), store
    finally:
        server.stop()
        store.close()


def _page(browser: Any, width: int) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return context, page, errors


@pytest.mark.parametrize("width", [1280, 390])
def test_the_bot_pages_charts_share_an_axis_carry_a_legend_and_fill_the_width(
    site: tuple[str, Store], browser: Any, width: int
) -> None:
    url, _ = site
    context, page, errors = _page(browser, width)
    page.goto(url + "/bots/alpha")
    for figure, matches in (("#rating-plot", (V1_MATCHES, V2_MATCHES)), ("#loss-plot", (2, 2))):
        legend = page.locator(f"{figure} ul.legend li .name").all_inner_texts()
        assert legend == ["alpha@1", "alpha@2"], figure
        v1, v2 = page.evaluate(POINTS_X, figure)
        initial = figure == "#rating-plot"  # the rating starts from the initial rating
        assert [len(v1), len(v2)] == [n + initial for n in matches], figure
        # One axis: version 2's matches come after version 1's, and its line starts where
        # version 1's ends (its initial rating just before its first match).
        assert v2[int(initial)] > v1[-1] + 1, (figure, v1, v2)
        if initial:
            assert v2[0] == pytest.approx(v1[-1], abs=0.5)
        xs = v1 + v2[int(initial) :]
        steps = [b - a for a, b in pairwise(xs)]
        assert min(steps) > 0 and max(steps) - min(steps) < 0.5, (figure, steps)
        # The whole width of its box: from its left edge to its right edge, at any width.
        box = page.evaluate(
            "sel => { const f = document.querySelector(sel), s = f.querySelector('svg.plot'); "
            "const cs = getComputedStyle(f); const r = s.getBoundingClientRect(); "
            "return [r.left, r.width, f.clientWidth - parseFloat(cs.paddingLeft) "
            "- parseFloat(cs.paddingRight)]; }",
            figure,
        )
        left, svg_width, content_width = box
        assert svg_width == pytest.approx(content_width, abs=1), (figure, box)
        assert xs[0] - left < 0.03 * svg_width and left + svg_width - xs[-1] < 0.03 * svg_width
        ticks = page.eval_on_selector_all(
            f"{figure} text.x-tick", "ts => ts.map(t => t.textContent)"
        )
        assert ticks[0] == ("0" if initial else "1") and int(ticks[-1]) <= sum(matches)
    sizes = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], sizes
    if shots := os.environ.get("ARENA_CHART_SCREENSHOTS"):
        top = page.locator("#rating-plot").bounding_box()
        bottom = page.locator("#loss-plot").bounding_box()
        assert top is not None and bottom is not None
        page.screenshot(
            path=str(Path(shots) / f"web-charts-{width}.png"), full_page=True,
            clip={"x": 0, "y": top["y"] - 50, "width": width,
                  "height": bottom["y"] + bottom["height"] - top["y"] + 60},
        )  # fmt: skip
    context.close()
    assert not errors, errors


def test_the_leaderboards_interval_bars_share_one_labelled_axis(
    site: tuple[str, Store], browser: Any
) -> None:
    url, _ = site
    rows = httpx.get(url + "/api/leaderboard", timeout=30).json()
    axis = rows["interval_axis"]
    assert axis == {
        "low": min(r["low"] for r in rows["rows"]),
        "high": max(r["high"] for r in rows["rows"]),
    }
    widths = sorted(r["high"] - r["low"] for r in rows["rows"])
    assert widths[-1] - widths[0] > 1, "the test needs intervals of different widths"
    context, page, errors = _page(browser, 1280)
    page.goto(url + "/")
    drawn = page.evaluate(
        "() => [...document.querySelectorAll('#leaderboard tbody tr')].map(tr => { "
        "const r = tr.querySelector('td.interval rect.span').getBoundingClientRect(); "
        "return [tr.dataset.bot, tr.querySelector('td.version').textContent, r.left, r.width]; })"
    )
    by_row = {(r["bot"], r["version"]): r for r in rows["rows"]}
    scale = drawn[0][3] / (by_row[tuple(drawn[0][:2])]["high"] - by_row[tuple(drawn[0][:2])]["low"])
    origin = drawn[0][2] - scale * (by_row[tuple(drawn[0][:2])]["low"] - axis["low"])
    for bot, version, left, width in drawn:
        r = by_row[(bot, version)]
        # Same scale: pixels proportional to the interval's width, positions linear in it.
        assert width == pytest.approx(scale * (r["high"] - r["low"]), abs=1), (bot, version)
        assert left == pytest.approx(origin + scale * (r["low"] - axis["low"]), abs=1)
    # The axis in the column's head, labelled at its ends (and between), on that same scale.
    ticks = page.evaluate(
        "() => [...document.querySelectorAll('#leaderboard th svg.bar-axis line[data-value]')]"
        ".map(t => [Number(t.dataset.value), t.getBoundingClientRect().left])"
    )
    labels = page.eval_on_selector_all(
        "#leaderboard th svg.bar-axis text", "ts => ts.map(t => t.textContent)"
    )
    assert labels[:2] == [f"{axis['low']:.1f}", f"{axis['high']:.1f}"]
    assert len(ticks) == len(labels) >= 2
    for value, x in ticks:
        assert axis["low"] - 1e-3 <= value <= axis["high"] + 1e-3
        assert x == pytest.approx(origin + scale * (value - axis["low"]), abs=1.5)
    if shots := os.environ.get("ARENA_CHART_SCREENSHOTS"):
        page.locator("#leaderboard").screenshot(path=str(Path(shots) / "web-leaderboard-bars.png"))
    context.close()
    assert not errors, errors
