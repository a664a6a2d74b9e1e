"""``GET /api/matches/ID/analysis`` over real HTTP: the analysis is made on first request,
stored, and served from the store after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.analysis import PlayClass
from arena.referee.analysed import analyse_result
from arena.store import Store
from arena.web.server import WebServer
from tests.test_analyse_cli import played
from tests.test_web import artifacts, page  # noqa: F401 (the page fixtures; browser: conftest)


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[Store, httpx.Client]]:
    store = Store.open(sqlite_url)
    a = store.register_bot_version("alpha", "1", "ha", "/a").id
    b = store.register_bot_version("beta", "1", "hb", "/b").id
    store.record_match(played("m0", 70, ("alpha@1", "beta@1"), hands=2), seat_versions=(a, b))
    server = WebServer(store, "127.0.0.1:0")
    server.start()
    try:
        with httpx.Client(base_url=server.url.rstrip("/"), timeout=30) as client:
            yield store, client
    finally:
        server.stop()
        store.close()


def test_the_analysis_is_made_stored_and_served(served: tuple[Store, httpx.Client]) -> None:
    store, http = served
    assert store.get_analysis("m0") is None
    r = http.get("/api/matches/m0/analysis")
    assert r.status_code == 200, r.text
    data = r.json()
    expected = analyse_result(store.get_match("m0").result)
    assert data["match_id"] == "m0" and data["players"] == ["alpha@1", "beta@1"]
    assert data["solver_version"] == expected.solver_version
    assert [h["loss"] for h in data["hands"]] == [[h.loss(0), h.loss(1)] for h in expected.hands]
    assert store.get_analysis("m0") is not None
    assert http.get("/api/matches/m0/analysis").json() == data
    assert http.get("/api/matches/nope/analysis").status_code == 404


def test_the_leaderboard_shows_card_play_loss(served: tuple[Store, httpx.Client]) -> None:
    store, http = served
    rows = http.get("/api/leaderboard").json()["rows"]
    assert [r["card_play_loss"] for r in rows] == [None, None]  # nothing analysed yet
    analysis = store.analysis_for("m0")
    rows = {r["bot"]: r for r in http.get("/api/leaderboard").json()["rows"]}
    for seat, bot in enumerate(("alpha", "beta")):
        losses = analysis.hand_losses(seat)
        assert rows[bot]["card_play_loss"] == pytest.approx(sum(losses) / len(losses))
    html = http.get("/").text
    assert "Card-play loss" in html and 'class="card_play_loss num"' in html
    by_loss = http.get("/api/leaderboard?sort=card_play_loss").json()["rows"]
    assert [r["card_play_loss"] for r in by_loss] == sorted(r["card_play_loss"] for r in by_loss)


@pytest.mark.web
@pytest.mark.slow
def test_the_replay_marks_a_blunder_and_hides_it_in_a_seat_view_until_the_hand_ends(
    served: tuple[Store, httpx.Client],
    page: Any,  # noqa: F811
    artifacts: Path,  # noqa: F811
) -> None:
    store, http = served
    for seed in range(100, 200):  # the first deal of random play with a blunder mid-hand
        result = played("b0", seed, ("alpha@1", "beta@1"), hands=1)
        analysis = analyse_result(result)
        found = [p for p in analysis.plays if p.kind is PlayClass.BLUNDER and p.trick < 12]
        if found:
            blunder = found[0]
            break
    versions = [store.get_bot_version(n).id for n in ("alpha", "beta")]
    store.record_match(result, seat_versions=(versions[0], versions[1]))
    base = str(http.base_url).rstrip("/")
    page.goto(f"{base}/matches/b0?view=spectator&step={blunder.step - 3}")
    page.wait_for_selector("#viewer[data-analysis=ready]")
    for _ in range(4):  # step through to the frame just after the blunder
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#viewer[data-rendered='{blunder.step + 1}']")
    mark = page.locator("#mark")
    assert mark.get_attribute("data-class") == "blunder"
    assert mark.get_attribute("data-step") == str(blunder.step)
    assert f"par loss {blunder.loss}" in mark.inner_text()
    assert page.locator("#trick .played.mark-blunder").count() == 1
    page.screenshot(path=str(artifacts / "analysis-replay.png"), full_page=False)
    # the position before the blunder: its par and best cards, for the seat that then erred
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f"#viewer[data-rendered='{blunder.step}']")
    assert f"par: seat {blunder.seat} " in page.locator("#par").inner_text()
    # the toggle hides it
    page.click("#show-analysis")
    assert page.locator("#analysis").is_hidden()
    assert page.get_attribute("#viewer", "data-analysis") == "off"
    # a seat's view shows it only once the hand is over
    page.goto(f"{base}/matches/b0?view=seat{blunder.seat}&step={blunder.step + 1}")
    page.wait_for_selector("#viewer[data-analysis=ready]")
    assert page.locator("#analysis-held").count() == 1 and page.locator("#mark").count() == 0
    page.keyboard.press("End")
    page.wait_for_selector("#viewer[data-rendered]")
    assert page.locator("#analysis-held").count() == 0


def test_the_bot_page_charts_card_play_loss_and_links_its_worst_blunders(
    served: tuple[Store, httpx.Client],
) -> None:
    store, http = served
    assert http.get("/api/bots/alpha").json()["card_play_loss"] == [
        {"version": "alpha@1", "matches": 0, "per_hand": None}
    ]
    assert "No analysed match yet." in http.get("/bots/alpha").text
    analysis = store.analysis_for("m0")
    data = http.get("/api/bots/alpha").json()
    losses = analysis.hand_losses(0)
    [entry] = data["card_play_loss"]
    assert entry["matches"] == 1 and entry["per_hand"] == pytest.approx(sum(losses) / len(losses))
    blunders = sorted(
        (p for p in analysis.plays if p.seat == 0 and p.kind is PlayClass.BLUNDER),
        key=lambda p: (-p.loss, p.step),
    )
    assert [(w["step"], w["loss"]) for w in data["worst_blunders"]] == [
        (p.step, p.loss) for p in blunders[:5]
    ]
    html = http.get("/bots/alpha").text
    assert 'id="loss-plot"' in html and "analysed matches" in html
    for w in data["worst_blunders"]:
        assert f'/matches/m0?view=spectator&amp;step={w["step"] + 1}"' in html
