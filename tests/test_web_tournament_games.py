"""A tournament's games are a list like any other: paged on ``/tournaments/{id}`` and in
``/api/tournaments/{id}`` (all of a small tournament on its first page), over a real store and
a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.rules.ruleset import RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament
from arena.web import WebServer
from arena.web.app import WebConfig

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    """A scheduled tournament (nothing played: its games are all there, pending)."""
    store = Store.open(str(tmp_path_factory.mktemp("games") / "arena.db"))
    bots = [str(SAMPLES / "random"), str(SAMPLES / "heuristic")]
    settings = TournamentSettings(bots=bots, games=5, seed=3, rules=RuleSet(max_hands=2))
    tid = create_tournament(store, settings)
    games = len(store.tournament_games(tid))
    server = WebServer(store, "127.0.0.1:0", WebConfig())
    server.start()
    try:
        yield server.url.rstrip("/"), tid, games
    finally:
        server.stop()
        store.close()


def test_games_are_paged_in_the_api_and_all_on_one_page_by_default(
    site: tuple[str, int, int],
) -> None:
    url, tid, games = site
    assert games == 10  # one pair, five deals, both seatings
    with httpx.Client(base_url=url, timeout=30) as http:
        whole = http.get(f"/api/tournaments/{tid}").json()
        assert [g["ordinal"] for g in whole["games"]] == list(range(games))
        assert whole["games_page"] == {"page": 1, "per_page": 500, "pages": 1, "total": games}
        assert "matrix" not in whole  # the page's drawing only
        seen = []
        for page in (1, 2, 3):
            got = http.get(f"/api/tournaments/{tid}", params={"per_page": 4, "page": page}).json()
            assert got["games_page"]["pages"] == 3 and got["games_total"] == games
            seen += [g["ordinal"] for g in got["games"]]
        assert seen == list(range(games))
        bad = http.get(f"/api/tournaments/{tid}", params={"per_page": 4, "page": 4})
        assert bad.status_code == 400
        assert bad.json()["error"] == "query parameter page must be at most 3, got 4"
        page = http.get(f"/tournaments/{tid}", params={"per_page": 4, "page": 2}).text
        assert "page 2 of 3 (10 games)" in page
        assert page.count('class="game ') == 4 and 'id="game-4"' in page
        assert "data-appends" not in page  # a new game's row goes to the last page only
        assert (
            "data-appends"
            in http.get(f"/tournaments/{tid}", params={"per_page": 4, "page": 3}).text
        )
