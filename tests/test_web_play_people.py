"""People are players at ``/play`` (Playwright, Debian's chromium): a signed-in person plays a
rated match as themselves and finds it on their player page and under the leaderboard's humans
filter; a person picks a version of their own bot (unrated: one owner). Real web server,
referee, bot processes and SQLite store. ``ARENA_PLAY_SCREENSHOTS=folder`` saves the signed-in
lobby and the leaderboard's humans (docs/web-play-lobby.png, docs/web-leaderboard-humans.png)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from test_web_play import SAMPLES, _new_page, _play_on

from arena.runtime import bot_content_hash
from arena.store import Store
from arena.web import WebConfig, WebServer
from arena.web.routes.play import PlayConfig

pytestmark = [pytest.mark.web, pytest.mark.slow]

PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    store = Store.open(str(tmp_path_factory.mktemp("people") / "arena.db"))
    config = WebConfig(play=PlayConfig(opponents={"random": SAMPLES / "random"}, reference=None))
    server = WebServer(store, "127.0.0.1:0", config)
    server.start()
    try:
        yield server.url.rstrip("/"), store
    finally:
        server.stop()
        store.close()


def _sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url + "/login?next=/play")
    page.fill("#password-login input[name=name]", name)
    page.fill("#password-login input[name=password]", PASSWORD)
    page.click("#password-login button[type=submit]")
    page.wait_for_url(re.compile(r"/play$"))


def _sit_down(page: Any, opponent: str, rated: bool) -> None:
    assert page.locator("input[name=name]").count() == 0  # a signed-in person is themselves
    page.select_option("select[name=opponent]", opponent)
    page.select_option("select[name=rules]", "one-hand")
    page.fill("input[name=clock]", "60")
    page.select_option("select[name=seat]", "0")
    if rated:
        page.check("#rated")
    page.click("#play-form button[type=submit]")
    page.wait_for_url(re.compile(r"/play/[A-Za-z0-9_-]+$"))


def test_a_signed_in_person_plays_rated_and_is_on_the_humans_leaderboard(
    site: tuple[str, Store], browser: Any
) -> None:
    url, store = site
    store.create_account("ada", PASSWORD)
    context, page, errors = _new_page(browser)
    _sign_in(page, url, "ada")
    assert page.inner_text("#player-link") == "human:ada"
    given = os.environ.get("ARENA_PLAY_SCREENSHOTS")
    if given:
        page.screenshot(path=str(Path(given) / "web-play-lobby.png"), full_page=True)
    _sit_down(page, "random", rated=True)
    assert page.inner_text("#player") == "human:ada"
    assert page.inner_text("#rated-note") == "rated"
    _play_on(page)
    match_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    summary = store.get_match(match_id).summary
    assert summary.players[0] == "human:ada@person" and summary.humans == (True, False)
    assert summary.rated, summary.unrated_reason
    # Their player page, like a bot's: marked human, the match listed, a rating.
    page.goto(url + "/bots/" + quote("human:ada", safe=""))
    assert page.locator("h1 .badge.human").count() == 1
    assert page.locator(f"a[href='/matches/{match_id}']").count() >= 1
    assert "not rated" not in page.inner_text("#versions")
    assert store.leaderboard(players="humans")[0].matches == 1
    # The leaderboard: the humans filter shows the person (ranked first among people), the
    # bots filter not, and both together show both.
    page.goto(url + "/")
    page.select_option("select[name=players]", "humans")
    page.click("form.filters button[type=submit]")
    page.wait_for_url(re.compile(r"players=humans"))
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == 1 and rows.first.get_attribute("data-bot") == "human:ada"
    assert rows.first.locator(".badge.human").count() == 1
    if given:
        page.screenshot(path=str(Path(given) / "web-leaderboard-humans.png"), full_page=True)
    page.goto(url + "/?players=bots")
    assert page.locator("#leaderboard tr[data-bot='human:ada']").count() == 0
    assert page.locator("#leaderboard tr[data-bot='random']").count() == 1
    page.goto(url + "/")
    assert page.locator("#leaderboard tr[data-human]").count() == 1
    # The match page marks the person too.
    page.goto(url + f"/matches/{match_id}")
    assert page.locator(".lead .badge.human, main .badge.human").count() >= 1
    context.close()
    assert not errors, errors
    board = httpx.get(url + "/api/leaderboard", params={"players": "humans"}).json()
    assert [(r["bot"], r["human"]) for r in board["rows"]] == [("human:ada", True)]
    bad = httpx.get(url + "/api/leaderboard", params={"players": "people"})
    assert bad.status_code == 400 and "players must be one of all, bots, humans" in bad.text


def test_a_person_picks_their_own_bot_and_it_stays_unrated(
    site: tuple[str, Store], browser: Any
) -> None:
    url, store = site
    bo = store.create_account("bo", PASSWORD)
    own = store.register_bot_version(
        "bobot", "2", bot_content_hash(SAMPLES / "random"), str(SAMPLES / "random"),
        owner_token_id=bo.token_id,
    )  # fmt: skip
    context, page, errors = _new_page(browser)
    _sign_in(page, url, "bo")
    option = page.locator(f"select[name=opponent] option[value='mine:{own.id}']")
    assert option.inner_text() == "bobot@2"
    _sit_down(page, f"mine:{own.id}", rated=True)
    assert page.inner_text("#opponent") == "bobot@2"
    _play_on(page)
    match_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    summary = store.get_match(match_id).summary
    assert summary.seat_versions[1] == own.id
    # Fair play for people too: a person against their own bot is one owner's match.
    assert (summary.rated, summary.unrated_reason) == (False, "same_owner")
    context.close()
    assert not errors, errors


def test_the_lobby_refuses_rated_guests_and_others_bots(site: tuple[str, Store]) -> None:
    url, store = site
    cy = store.create_account("cy", PASSWORD)
    dee_token = store.create_account("dee", PASSWORD).token_id
    theirs = store.register_bot_version(
        "cybot", "1", "cybot-1", str(SAMPLES / "random"), owner_token_id=cy.token_id
    )
    with httpx.Client(base_url=url, timeout=30) as http:
        lobby = http.get("/play")
        assert "Your bots" not in lobby.text and 'id="rated"' not in lobby.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "opponent": "random", "rules": "one-hand", "clock": "60"}
        rated = http.post("/play", data={**form, "rated": "on"})
        assert rated.status_code == 400
        assert "only a signed-in person plays rated: sign in, or play unrated" in rated.text
        mine = http.post("/play", data={**form, "opponent": f"mine:{theirs.id}"})
        assert mine.status_code == 400 and "sign in to play your own bots" in mine.text
        signed = http.post(
            "/login", data={"csrf": csrf.group(1), "name": "dee", "password": PASSWORD,
                            "next": "/play"},
        )  # fmt: skip
        assert signed.status_code == 303
        lobby = http.get("/play")
        csrf = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        assert csrf is not None
        others = http.post("/play", data={**form, "csrf": csrf.group(1),
                                          "opponent": f"mine:{theirs.id}"})  # fmt: skip
        assert others.status_code == 400
        assert f"mine:{theirs.id}&#39; is not a version of a bot of yours" in others.text
        # Their own bot whose folder no longer holds the registered files: refused.
        changed = store.register_bot_version(
            "deebot", "1", "not-these-files", str(SAMPLES / "random"), owner_token_id=dee_token
        )
        stale = http.post("/play", data={**form, "csrf": csrf.group(1),
                                         "opponent": f"mine:{changed.id}"})  # fmt: skip
        assert stale.status_code == 400
        assert "deebot@1: the files in its folder are not the version it was registered" in (
            stale.text
        )
