"""The ladder's page (``/ladder``) over a real server: what the ladder last published, with a
pause's reason through the visibility policy (a bot's own words to an admin only) and the
organiser's flags to an admin only."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from arena.store import Store
from arena.web import WebServer
from arena.web.app import WebConfig

SECRET = "Traceback: my-private-strategy.py line 7"


@pytest.fixture
def site(tmp_path: object) -> Iterator[tuple[Store, str]]:
    with Store.open(f"sqlite:///{tmp_path}/arena.db") as store:
        server = WebServer(store, "127.0.0.1:0", WebConfig())
        server.start()
        try:
            yield store, server.url.rstrip("/")
        finally:
            server.stop()


def status() -> dict[str, object]:
    """A status as ``Ladder.status`` publishes it (arena/ladder/runner.py)."""
    return {
        "updated_at": "2026-12-02T18:00:00+00:00", "per_owner": 2, "anonymous_opponents": True,
        "waiting": [{"bot": "third", "version_id": 3, "why": "its owner has 2 bots taking part"}],
        "flags": [{"why": "alpha forfeits mostly against beta"}],
        "pairs_scheduled": 7, "matches_last_24h": 12, "daily_budget": 100, "concurrency": 1,
        "playing": [{"tournament_id": 4, "bots": ["alpha", "beta"], "why": "most uncertain"}],
        "entrants": [
            {"bot": "alpha", "version_id": 1, "mu": 25.0, "sigma": 8.1, "pairs": 3},
            {"bot": "beta", "version_id": 2, "mu": 27.5, "sigma": 6.0, "pairs": 4},
        ],
        "paused": [{
            "bot": "crashy@1.0", "version_id": 5, "kind": "faults", "at": "2026-12-02T17:00:00",
            "reason": f"forfeited its last 3 ladder matches; the last: seat 0 crashed: {SECRET}",
        }],
    }  # fmt: skip


def test_no_ladder_yet(site: tuple[Store, str]) -> None:
    _, url = site
    page = httpx.get(url + "/ladder", timeout=20)
    assert page.status_code == 200 and 'id="no-ladder"' in page.text


def test_the_ladder_page_shows_the_status_through_the_policy(site: tuple[Store, str]) -> None:
    store, url = site
    store.set_ladder_status(status())
    page = httpx.get(url + "/ladder", timeout=20)
    assert page.status_code == 200
    assert "7 pairs scheduled, 12 matches in the last 24 h (budget 100)" in page.text
    assert re.search(r"alpha v beta</td><td>most uncertain", page.text)
    assert page.text.index(">alpha</a>") < page.text.index(">beta</a>")
    assert "its owner has 2 bots taking part" in page.text
    assert "crashy@1.0" in page.text and "forfeited its last 3 ladder matches" in page.text
    # Anyone: neither the bot's own words nor the organiser's flags.
    assert SECRET not in page.text and 'id="flags"' not in page.text
    admin = store.create_token("boss", role="admin")
    seen = httpx.get(url + "/ladder", headers={"authorization": f"Bearer {admin}"}, timeout=20)
    assert SECRET in seen.text and "alpha forfeits mostly against beta" in seen.text
