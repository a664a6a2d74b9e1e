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


def _signed_in(url: str, store: Store, name: str, role: str = "member") -> httpx.Client:
    store.create_account(name, "a long enough password", role=role)
    client = httpx.Client(base_url=url, timeout=20)  # the caller closes it
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
    assert csrf
    signed = client.post(
        "/login",
        data={"csrf": csrf[1], "name": name, "password": "a long enough password"},
    )
    assert signed.status_code == 303
    return client


def _post(client: httpx.Client, bot: str, action: str) -> httpx.Response:
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/account").text)
    assert csrf
    return client.post(f"/bots/{bot}/ladder", data={"csrf": csrf[1], "action": action})


def test_the_owner_pauses_and_resumes_her_bot_on_the_ladder(site: tuple[Store, str]) -> None:
    store, url = site
    wanda = _signed_in(url, store, "wanda")
    xavier = _signed_in(url, store, "xavier")
    admin = _signed_in(url, store, "yolanda", "admin")
    try:
        owner = store.account("wanda").token_id
        v = store.register_bot_version("wbot", "1.0", "a" * 64, "here", owner_token_id=owner)
        assert 'data-bot="wbot"' in wanda.get("/account").text
        assert _post(wanda, "wbot", "pause").status_code == 303
        assert store.ladder_pauses()[v.id]["kind"] == "owner"
        assert "paused (by hand)" in wanda.get("/account").text
        # Another member may not resume (or pause) it; its owner may.
        assert _post(xavier, "wbot", "resume").status_code == 403
        assert _post(wanda, "wbot", "resume").status_code == 303
        assert v.id not in store.ladder_pauses()
        # A pause the ladder made (for faults) is not the owner's to lift; an admin's.
        store.pause_ladder_version(v.id, "forfeited its last 3 ladder matches", "now")
        refused = _post(wanda, "wbot", "resume")
        assert refused.status_code == 403 and "submit a new version" in refused.text
        assert _post(admin, "wbot", "resume").status_code == 303
        assert v.id not in store.ladder_pauses()
        assert _post(wanda, "nobot", "pause").status_code == 404
    finally:
        for client in (wanda, xavier, admin):
            client.close()
