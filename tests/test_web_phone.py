"""Every page of the web arena on a phone, in Debian's chromium: at 390 px wide (and at 1280)
no page scrolls sideways (``scrollWidth <= innerWidth``): wide tables scroll in their own
boxes, the nav wraps, the replay's card table scales. ``ARENA_PHONE_SCREENSHOTS=docs`` keeps
screenshots of a few in docs/ (a run without it writes nothing into the checkout). The person's
table (``/play/TABLE``) is a live one, waiting on the person; its scoreboard and hands table fit
the phone's width without a scroll box of their own, with a hand of the widest figures."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest

from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament
from arena.web import WebServer
from arena.web.app import WebConfig
from arena.web.routes.play import PlayConfig

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
RULES = RuleSet(max_hands=2)
PASSWORD = "correct horse battery"
WIDTHS = (390, 1280)
SCREENSHOTS = {
    390: {"/": "home", "/account": "account", "/matches/": "replay"},
    1280: {"/account": "account"},
}
"""width -> {page (a path, or the start of one) -> name}: kept in docs/ as web-<name>-<width>.png
(the window only, not the whole page: a few, small)."""

pytestmark = [pytest.mark.web, pytest.mark.slow]


def engine_match(match_id: str, seed: int, rng_seed: int) -> MatchResult:
    """A match played through the engine by random players (a real record, no bots)."""
    m = Match(seed, RULES)
    rng = Random(rng_seed)
    decisions = []
    while not m.is_over:
        action = m.random_action(rng)
        decisions.append(DecisionRecord(m.to_act, m.decision, action, 100 + len(decisions)))
        m.apply(action)
    assert m.outcome is not None
    now = datetime.now(UTC)
    return MatchResult(
        match_id=match_id, seed=seed, rules=RULES, engine_version=ENGINE_VERSION,
        players=("random", "heuristic"), winner=m.outcome.winner, scores=m.scores,
        hands_played=m.outcome.hands_played, termination=Termination.HAND_LIMIT, faults=(0, 0),
        detail="", decisions=tuple(decisions), started_at=now, finished_at=now,
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A finished tournament (so its matches replay), an admin account; the pages to visit."""
    folder = tmp_path_factory.mktemp("web-phone")
    store = Store.open(str(folder / "arena.db"))
    tid = create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=2, seed=5,
            rules=RULES,
        ),
    )  # fmt: skip
    match_id = ""
    for game in store.pending_games(tid):
        result = engine_match(f"p-{game.ordinal}", game.seed, game.ordinal)
        store.record_match(result, seat_versions=game.seat_versions, tournament_game_id=game.id)
        match_id = match_id or result.match_id
    store.create_account("organiser", PASSWORD, role="admin")
    play = PlayConfig(opponents={"random": SAMPLES / "random"})
    server = WebServer(store, "127.0.0.1:0", WebConfig(signup="invite", play=play))
    server.start()
    pages = [
        "/", "/bots/random", "/tournaments", f"/tournaments/{tid}", f"/matches/{match_id}?step=20",
        "/ladder", "/api", "/login", "/signup", "/account", "/submit", "/bots/nobody", "/play",
    ]  # fmt: skip
    try:
        yield server.url.rstrip("/"), pages
    finally:
        server.stop()
        store.close()


def _open_table(url: str) -> str:
    """A person's table against ``random``, with the reference bot's column (the widest hands
    table). Its clock is short: the page is visited at once, and a request still waiting on a
    person holds the seat's thread (and so the end of the test process) until it runs out."""
    with httpx.Client(base_url=url, timeout=60) as http:
        csrf = re.search(r'name="csrf" value="([^"]+)"', http.get("/play").text)
        assert csrf is not None
        form = {
            "csrf": csrf[1], "name": "ada", "opponent": "random", "rules": "one-hand",
            "clock": "30", "bank": "0", "seat": "1", "compare": "on",
        }  # fmt: skip
        opened = http.post("/play", data=form)
        assert opened.status_code == 303, opened.text
        return str(opened.headers["location"])


WIDEST_HAND = (
    "<td>13</td><td>13 / 13</td><td>13 / 13</td><td>-230 / -230</td><td>-1000 / -1000</td>"
    '<td>12 / 12</td><td class="ref">-230 (+460)</td>'
)
"""A row of the hands table (as static/play.js writes it) with the widest figures a match has."""


def _check_table(page: Any) -> None:
    """The live table: its request open, its tables as wide as the page at most."""
    deadline = time.monotonic() + 25
    while not page.evaluate("document.getElementById('table').dataset.seq || ''"):
        assert time.monotonic() < deadline, "no request of the table's waits on the person"
        page.wait_for_timeout(100)
    page.evaluate(
        "row => { const tr = document.createElement('tr'); tr.innerHTML = row; "
        "document.querySelector('#hands tbody').appendChild(tr); }",
        WIDEST_HAND,
    )
    for table in ("#scoreboard", "#hands"):
        inner = page.evaluate(
            f"(() => {{ const t = document.querySelector('{table}'); "
            "return [t.scrollWidth, t.clientWidth, t.getBoundingClientRect().right, "
            "document.documentElement.clientWidth]; })()"
        )
        assert inner[0] <= inner[1] and inner[2] <= inner[3], (table, inner)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(site: tuple[str, list[str]], browser: Any, width: int) -> None:
    url, pages = site
    given = os.environ.get("ARENA_PHONE_SCREENSHOTS")
    shots = Path(given) if given else None
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    page.goto(url + "/login")
    page.fill("#password-login input[name=name]", "organiser")
    page.fill("#password-login input[name=password]", PASSWORD)
    page.click("#password-login button")
    page.wait_for_url(url + "/")
    wide = {}
    for path in [_open_table(url), *pages]:  # the live table first, while it waits
        page.goto(url + path)
        page.wait_for_load_state("load")
        if path.startswith("/matches/"):  # the replay draws its card table by script
            page.wait_for_selector('#viewer[data-rendered="20"]')
            page.locator("#viewer").scroll_into_view_if_needed()
        if path.startswith("/play/"):
            _check_table(page)
        sizes = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if sizes[0] > sizes[1]:
            wide[path] = sizes
        for start, name in SCREENSHOTS.get(width, {}).items() if shots is not None else ():
            if path == start or (start.endswith("/") and start != "/" and path.startswith(start)):
                page.screenshot(path=str(shots / f"web-{name}-{width}.png"))
    context.close()
    assert not wide, f"pages wider than the window (scrollWidth, innerWidth): {wide}"
