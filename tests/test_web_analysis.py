"""``GET /api/matches/ID/analysis`` over real HTTP: the analysis is made on first request,
stored, and served from the store after."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from arena.referee.analysed import analyse_result
from arena.store import Store
from arena.web.server import WebServer
from tests.test_analyse_cli import played


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
    page = http.get("/").text
    assert "Card-play loss" in page and 'class="card_play_loss num"' in page
    by_loss = http.get("/api/leaderboard?sort=card_play_loss").json()["rows"]
    assert [r["card_play_loss"] for r in by_loss] == sorted(r["card_play_loss"] for r in by_loss)
