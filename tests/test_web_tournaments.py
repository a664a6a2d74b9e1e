"""The tournaments page (``/tournaments``) and ``/api/tournaments`` over a real store where the
real ladder has played its pairs (each a small tournament marked in its config): the pairs are
tagged, left out by default with a visible toggle (``?ladder=show``), and the list is paged, on
the page (in chromium) as in the JSON API."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.ladder import Ladder, LadderSettings
from arena.ladder.runner import ladder_tournament_ids
from arena.rules.ruleset import RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.web import WebServer
from arena.web.app import WebConfig

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"
FAST = RuleSet(max_hands=2)
PAIRS = 3
TOURNAMENTS = 3

pytestmark = [pytest.mark.web, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[int], list[int]]]:
    """Three tournaments (one played) and three ladder pairs the ladder played, interleaved."""
    store = Store.open(str(tmp_path_factory.mktemp("tournaments") / "arena.db"))
    bots = [str(SAMPLES / "random"), str(SAMPLES / "heuristic")]
    plain = [create_tournament(store, TournamentSettings(bots=bots, games=1, seed=5, rules=FAST))]
    run_tournament(store, plain[0])
    Ladder(store, LadderSettings(max_pairs=PAIRS, rules=FAST, seed=1)).run(threading.Event())
    for seed in (6, 7):
        settings = TournamentSettings(bots=bots, games=1, seed=seed, rules=FAST)
        plain.append(create_tournament(store, settings))
    pairs = ladder_tournament_ids(store)
    assert len(pairs) == PAIRS and len(plain) == TOURNAMENTS
    server = WebServer(store, "127.0.0.1:0", WebConfig())
    server.start()
    try:
        yield server.url.rstrip("/"), plain, pairs
    finally:
        server.stop()
        store.close()


def test_the_api_leaves_ladder_pairs_out_by_default_and_pages(
    site: tuple[str, list[int], list[int]],
) -> None:
    url, plain, pairs = site
    with httpx.Client(base_url=url, timeout=30) as http:
        default = http.get("/api/tournaments").json()
        assert [t["id"] for t in default["tournaments"]] == sorted(plain, reverse=True)
        assert default["ladder"] == "hide" and default["ladder_pairs"] == PAIRS
        assert (default["page"], default["pages"], default["total"]) == (1, 1, TOURNAMENTS)
        shown = http.get("/api/tournaments", params={"ladder": "show"}).json()
        assert [t["id"] for t in shown["tournaments"]] == sorted(plain + pairs, reverse=True)
        assert {t["id"] for t in shown["tournaments"] if t["ladder_pair"] is not None} == set(pairs)
        # Paged: two a page, newest first, every tournament once.
        seen = []
        for page in (1, 2, 3):
            got = http.get("/api/tournaments", params={"ladder": "show", "per_page": 2,
                                                       "page": page}).json()  # fmt: skip
            assert got["pages"] == 3 and got["total"] == TOURNAMENTS + PAIRS
            seen += [t["id"] for t in got["tournaments"]]
        assert seen == sorted(plain + pairs, reverse=True)
        for query, message in (
            ({"ladder": "maybe"}, "query parameter ladder must be one of hide, show, got 'maybe'"),
            ({"page": "9"}, "query parameter page must be at most 1, got 9"),
            ({"per_page": "0"}, "query parameter per_page must be between 1 and 1000, got 0"),
        ):
            bad = http.get("/api/tournaments", params=query)
            assert bad.status_code == 400 and bad.json()["error"] == message


def test_the_page_tags_hides_shows_and_pages_ladder_pairs(
    site: tuple[str, list[int], list[int]], browser: Any
) -> None:
    url, plain, pairs = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def listed() -> list[int]:
        cells = page.locator("#tournaments tbody tr td:first-child a").all_inner_texts()
        return [int(c) for c in cells]

    page.goto(url + "/tournaments")
    assert listed() == sorted(plain, reverse=True)
    assert page.locator("#tournaments .tag").count() == 0
    toggle = page.locator("#ladder-switch", has_text="Show the ladder pairs")
    assert toggle.is_visible()
    assert f"the ladder's {PAIRS} pairs" in page.inner_text("#ladder-toggle")
    toggle.click()
    page.wait_for_url(re.compile(r"ladder=show"))
    assert listed() == sorted(plain + pairs, reverse=True)
    tagged = page.locator("#tournaments tr.ladder-pair td:first-child a").all_inner_texts()
    assert sorted(int(t) for t in tagged) == sorted(pairs)
    assert page.locator("#tournaments tr.ladder-pair .tag").all_inner_texts() == ["ladder"] * PAIRS
    # Paged: two a page, next and previous keep the toggle.
    page.goto(url + "/tournaments?ladder=show&per_page=2")
    first = listed()
    assert first == sorted(plain + pairs, reverse=True)[:2]
    assert page.locator("nav.pager a[rel=prev]").count() == 0
    page.click("nav.pager a[rel=next]")
    assert "page=2" in page.url and "ladder=show" in page.url
    assert listed() == sorted(plain + pairs, reverse=True)[2:4]
    assert "page 2 of 3 (6 tournaments)" in page.inner_text("nav.pager")
    page.click("nav.pager a[rel=prev]")
    assert listed() == first
    page.click("#ladder-switch")  # hide them again
    assert "ladder=hide" in page.url and listed() == sorted(plain, reverse=True)[:2]
    context.close()
    assert not errors, errors
