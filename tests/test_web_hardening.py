"""The web arena under attack, for real: a Hypercorn server on 127.0.0.1, raw sockets, httpx
and Debian's chromium (issue 28, section 5).

Covered: connections that never finish their request head are closed; live event streams are
capped per address and in total, and a refused page falls back to polling; every response
carries the security headers and the pages run under the Content-Security-Policy without a
violation.
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest

from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store, TournamentStatus
from arena.tournament import TournamentSettings, create_tournament
from arena.web import WebServer
from arena.web.app import WebConfig

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
RULES = RuleSet(max_hands=1)
HEAD_TIMEOUT_S = 2.0
ATTACKERS = 300


@dataclass
class Site:
    store: Store
    server: WebServer
    url: str
    played: int
    """A tournament with a recorded match."""
    owner_token: str
    owned_match: str
    """A match of bot ``owned``, submitted with ``owner_token`` (its logs are the owner's)."""


def engine_match(match_id: str, seed: int, rng_seed: int = 1) -> MatchResult:
    """A match played through the engine by two random players (a real record, no bots)."""
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


def new_tournament(store: Store, seed: int) -> int:
    return create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=2, seed=seed,
            rules=RULES,
        ),
    )  # fmt: skip


def play_one(store: Store, tid: int) -> str:
    """Record the next pending game of tournament ``tid`` (as a runner would); its match id."""
    game = store.pending_games(tid)[0]
    result = engine_match(f"t{tid}-g{game.ordinal}", game.seed, game.ordinal)
    store.record_match(result, seat_versions=game.seat_versions, tournament_game_id=game.id)
    return result.match_id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("web-hardening")
    store = Store.open(str(folder / "arena.db"))
    played = new_tournament(store, 3)
    play_one(store, played)
    owner = store.create_token("alice")
    alice = store.verify_token(owner)
    assert alice is not None
    owned = store.register_bot_version(
        "owned", "1.0", "f" * 64, "submitted", owner_token_id=alice.id
    )
    result = engine_match("owned-1", 77)
    store.record_match(result, seat_versions=(owned.id, store.get_bot_version("random").id))
    config = WebConfig(
        live_interval_s=0.2, request_head_timeout_s=HEAD_TIMEOUT_S, max_streams=6,
        max_streams_per_address=3,
    )  # fmt: skip
    server = WebServer(store, "127.0.0.1:0", config)
    server.start()
    try:
        yield Site(store, server, server.url.rstrip("/"), played, owner, result.match_id)
    finally:
        server.stop()
        store.close()


# -- slow request heads ----------------------------------------------------------------------


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed this connection (reading gives EOF or a reset)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        while chunk := sock.recv(65536):
            del chunk
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable:
                return False
    except (ConnectionResetError, BlockingIOError):
        return True
    return True


def test_connections_that_never_finish_their_request_head_are_closed(site: Site) -> None:
    """On main (uvicorn), 300 such connections were all still held after 30 s. A third of them
    trickle a byte of header every half second, which must not buy them time."""
    host, port = site.server.host, site.server.port
    attackers = []
    try:
        for _ in range(ATTACKERS):
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: arena\r\nX-Slow: ")
            attackers.append(sock)
        opened = time.monotonic()
        # The site still answers while they hang on.
        assert httpx.get(f"{site.url}/api/tournaments", timeout=10).status_code == 200
        open_ = list(attackers)
        while open_ and time.monotonic() - opened < HEAD_TIMEOUT_S + 8:
            for sock in open_[: ATTACKERS // 3]:
                # A write to a connection the server has just closed may fail: that is the point.
                with contextlib.suppress(OSError):
                    sock.send(b"x")
            time.sleep(0.5)
            open_ = [s for s in open_ if not _closed_by_server(s)]
        took = time.monotonic() - opened
        assert open_ == [], f"{len(open_)} of {ATTACKERS} still open after {took:.1f} s"
        assert took >= HEAD_TIMEOUT_S - 0.5  # not refused at once: given their time, no more
    finally:
        for sock in attackers:
            sock.close()
    # A whole request on a fresh connection is served as ever.
    assert httpx.get(f"{site.url}/api/tournaments", timeout=10).status_code == 200


# -- live event streams -----------------------------------------------------------------------


def _hold_stream(stack: contextlib.ExitStack, url: str, local: str = "127.0.0.1") -> int:
    """Open a live stream from ``local`` and keep it open until ``stack`` closes; its status
    (a served stream has sent its first line by then)."""
    client = stack.enter_context(
        httpx.Client(transport=httpx.HTTPTransport(local_address=local), timeout=10)
    )
    response = stack.enter_context(client.stream("GET", url))
    if response.status_code == 200:
        # Kept until the stack closes: a dropped line iterator would close the stream.
        lines = stack.enter_context(contextlib.closing(response.iter_lines()))
        assert next(lines).startswith("retry:")
    return response.status_code


def test_live_streams_are_capped_per_address_and_in_total(site: Site) -> None:
    """On main 10,000 open streams from one address stopped every other page (no cap)."""
    tid = new_tournament(site.store, 31)
    url = f"{site.url}/tournaments/{tid}/events"
    try:
        with contextlib.ExitStack() as stack:
            # Three from one address (its cap), a fourth is refused with a Retry-After.
            assert [_hold_stream(stack, url, "127.0.0.2") for _ in range(3)] == [200] * 3
            with httpx.Client(
                transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=10
            ) as client:
                refused = client.get(url)
            assert refused.status_code == 429
            assert "3 live streams are open from your address" in refused.text
            assert int(refused.headers["retry-after"]) > 0
            # Other addresses until the server's total (6), then everyone is refused.
            assert [_hold_stream(stack, url, "127.0.0.3") for _ in range(3)] == [200] * 3
            with httpx.Client(
                transport=httpx.HTTPTransport(local_address="127.0.0.4"), timeout=10
            ) as client:
                refused = client.get(url)
                assert refused.status_code == 429
                assert "the server has 6 live streams open" in refused.text
                # Every other page still answers.
                assert client.get(f"{site.url}/api/tournaments").status_code == 200
                assert client.get(f"{site.url}/tournaments/{tid}").status_code == 200
        # Closed streams give their places back.
        deadline = time.monotonic() + 10
        while True:
            with contextlib.ExitStack() as stack:
                statuses = [_hold_stream(stack, url, "127.0.0.4") for _ in range(3)]
            if statuses == [200] * 3:
                break
            assert time.monotonic() < deadline, statuses
            time.sleep(0.2)
    finally:
        site.store.set_tournament_status(tid, TournamentStatus.CANCELLED)


def test_the_poll_api_answers_what_the_stream_sends(site: Site) -> None:
    tid = new_tournament(site.store, 37)
    try:
        with httpx.Client(base_url=site.url, timeout=10) as client:
            first = client.get(f"/api/tournaments/{tid}/update").json()
            assert first["games_done"] == 0 and first["rows"] == {}
            match_id = play_one(site.store, tid)
            update = client.get(f"/api/tournaments/{tid}/update?after={first['sequence']}")
            data = update.json()
            assert data["games_done"] == 1 and data["sequence"] > first["sequence"]
            assert [match_id in row for row in data["rows"].values()] == [True]
            again = client.get(f"/api/tournaments/{tid}/update?after={data['sequence']}").json()
            assert again["rows"] == {} and again["games_done"] == 1
            assert client.get("/api/tournaments/999999/update").status_code == 404
            assert client.get(f"/api/tournaments/{tid}/update?after=-1").status_code == 400
    finally:
        site.store.set_tournament_status(tid, TournamentStatus.CANCELLED)


# -- security headers ----------------------------------------------------------------------


def _check_headers(response: httpx.Response) -> None:
    h = response.headers
    csp = h.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp, (response.url, csp)
    assert "frame-ancestors 'none'" in csp
    assert "default-src 'none'" in csp
    assert h.get("x-content-type-options") == "nosniff"
    assert h.get("referrer-policy") == "same-origin"
    assert h.get("x-frame-options") == "DENY"


def test_every_response_carries_the_security_headers(site: Site) -> None:
    """On main no response had a Content-Security-Policy, nosniff or a Referrer-Policy."""
    # A match of no tournament: the tournament's own are sealed while its twins are to be played.
    match_id = site.owned_match
    with httpx.Client(base_url=site.url, timeout=10) as client:
        for path in (
            "/", "/api/leaderboard", "/bots/random", f"/tournaments/{site.played}",
            f"/matches/{match_id}", f"/api/matches/{match_id}/frames", "/static/arena.css",
            "/bots/nobody", "/api/bots/nobody", "/login", "/api",
        ):  # fmt: skip
            response = client.get(path)
            assert response.status_code in (200, 404), path
            _check_headers(response)
            # Plain HTTP: no HSTS (a browser ignores it there, and it would be a false promise).
            assert "strict-transport-security" not in response.headers
        posted = client.post("/login", data={"token": "nope"})
        _check_headers(posted)


def test_behind_tls_every_response_carries_hsts(site: Site) -> None:
    server = WebServer(site.store, "127.0.0.1:0", WebConfig(secure_cookies=True))
    server.start()
    try:
        for path in ("/", "/api/tournaments", "/static/arena.css", "/bots/nobody"):
            response = httpx.get(server.url.rstrip("/") + path, timeout=10)
            _check_headers(response)
            assert response.headers["strict-transport-security"] == "max-age=31536000"
    finally:
        server.stop()


# -- sign-in: server-side sessions and CSRF tokens -------------------------------------------


def _csrf_of(page_html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page_html)
    assert found, "no CSRF field in the form"
    return found.group(1)


def _signed_in(site: Site, client: httpx.Client) -> httpx.Response:
    form = client.get("/login")
    return client.post(
        "/login", data={"token": site.owner_token, "next": "/", "csrf": _csrf_of(form.text)}
    )


def test_signing_in_opens_a_session_and_the_browser_never_holds_the_token(site: Site) -> None:
    """On main the login cookie held the raw API token for 30 days."""
    logs = f"/matches/{site.owned_match}/logs/0"
    with httpx.Client(base_url=site.url, timeout=10) as client:
        signed = _signed_in(site, client)
        assert signed.status_code == 303
        cookies = signed.headers.get_list("set-cookie")
        assert not any(site.owner_token in c for c in cookies)
        session = next(c for c in cookies if c.startswith("arena_session="))
        assert "httponly" in session.lower() and "samesite=strict" in session.lower()
        session_id = client.cookies["arena_session"]
        assert session_id != site.owner_token and len(session_id) >= 40
        assert client.get(logs).status_code == 200
        # Signing in again gives a new session and ends the one before.
        again = client.post(
            "/login", data={"token": site.owner_token, "next": "/",
                            "csrf": _csrf_of(client.get("/login").text)},
        )  # fmt: skip
        assert again.status_code == 303 and client.cookies["arena_session"] != session_id
        assert site.store.session(session_id) is None
        session_id = client.cookies["arena_session"]
        # Signing out needs the session's CSRF token, and ends the session on the server: the
        # old cookie, replayed, opens nothing.
        page = client.get(logs)
        assert client.post("/logout", data={"csrf": "wrong"}).status_code == 403
        assert client.get(logs).status_code == 200
        out = client.post("/logout", data={"csrf": _csrf_of(page.text)})
        assert out.status_code == 303
        assert client.get(logs).status_code == 401
    replay = httpx.get(site.url + logs, cookies={"arena_session": session_id}, timeout=10)
    assert replay.status_code == 401
    # The cookie of older versions, holding the raw token, signs in no more.
    legacy = httpx.get(site.url + logs, cookies={"arena_token": site.owner_token}, timeout=10)
    assert legacy.status_code == 401


def test_a_session_ends_when_it_expires_or_its_token_is_revoked(site: Site) -> None:
    logs = f"{site.url}/matches/{site.owned_match}/logs/0"
    token = site.store.create_token("carol")
    info = site.store.verify_token(token)
    assert info is not None
    short = site.store.open_session(info.id, timedelta(seconds=1))
    long = site.store.open_session(info.id, timedelta(days=1))
    # carol owns no bot: a 403 says she is signed in, a 401 that she is not.
    assert httpx.get(logs, cookies={"arena_session": short.session_id}).status_code == 403
    time.sleep(1.2)
    assert httpx.get(logs, cookies={"arena_session": short.session_id}).status_code == 401
    assert httpx.get(logs, cookies={"arena_session": long.session_id}).status_code == 403
    site.store.revoke_token("carol")
    assert httpx.get(logs, cookies={"arena_session": long.session_id}).status_code == 401


def test_every_form_that_changes_anything_needs_its_csrf_token(site: Site) -> None:
    """On main the login form had no CSRF token: another site could sign a browser in (to
    the attacker's token) or out."""
    with httpx.Client(base_url=site.url, timeout=10) as client:
        form = client.get("/login")
        csrf = _csrf_of(form.text)
        pre = next(c for c in form.headers.get_list("set-cookie") if c.startswith("arena_csrf="))
        assert "httponly" in pre.lower() and "samesite=strict" in pre.lower()
        login = {"token": site.owner_token, "next": "/"}
        for data, headers in (
            (login, {}),  # no token
            ({**login, "csrf": "x" * 43}, {}),  # a wrong one
            ({**login, "csrf": csrf}, {"origin": "http://evil.test"}),  # from another site
            ({**login, "csrf": csrf}, {"sec-fetch-site": "cross-site"}),
        ):
            refused = client.post("/login", data=data, headers=headers)
            assert refused.status_code == 403, (data, headers)
            assert "CSRF" in refused.text or "only be posted from this site" in refused.text
            assert "arena_session" not in client.cookies
        # Without the cookie, the form's token alone is worth nothing (double submit).
        with httpx.Client(base_url=site.url, timeout=10) as stranger:
            assert stranger.post("/login", data={**login, "csrf": csrf}).status_code == 403
        assert client.post("/login", data={**login, "csrf": csrf}).status_code == 303
        # Signed in, the forms carry the session's token, and the old one no longer works.
        page = client.get(f"/matches/{site.owned_match}/logs/0")
        assert _csrf_of(page.text) != csrf
        assert client.post("/logout", data={"csrf": csrf}).status_code == 403
        assert client.post("/logout", data={"csrf": _csrf_of(page.text)}).status_code == 303


@pytest.mark.slow
def test_arena_web_behind_tls_sends_hsts_and_secure_cookies(site: Site, tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store.open(str(db)).close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--listen", "127.0.0.1:0", "--db", str(db),
         "--behind-tls"],
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        url = re.search(r"http://\S+/", line)
        assert url, line
        form = httpx.get(url.group(0) + "login", timeout=30)
        assert form.headers["strict-transport-security"] == "max-age=31536000"
        cookie = form.headers["set-cookie"].lower()
        assert cookie.startswith("arena_csrf=") and "secure" in cookie
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


# -- in a real browser ----------------------------------------------------------------------


REPORT_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`);
});
"""


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that records script errors and Content-Security-Policy violations (as events
    and as console messages); the test fails on any."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(REPORT_VIOLATIONS)
    pg = context.new_page()
    errors: list[str] = []
    refused: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on(
        "console",
        lambda m: (
            refused.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text
            else None
        ),
    )
    pg.route(re.compile(r"^(?!http://127\.0\.0\.1:).*"), lambda route: route.abort())
    pg.csp_console = refused  # a test that provokes a violation on purpose empties it
    yield pg
    context.close()
    assert not errors, errors
    assert not refused, refused


def _wait_true(page: Any, expression: str, timeout_s: float = 30.0) -> None:
    """Wait until ``expression`` is true in the page. Not ``wait_for_function``: its polling
    evaluates strings inside the page, which the site's CSP (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true within {timeout_s:g} s: {expression}"
        page.wait_for_timeout(100)


def _no_violations(page: Any) -> None:
    assert page.evaluate("window.__violations") == []


@pytest.mark.web
@pytest.mark.slow
def test_browser_pages_work_under_the_content_security_policy(site: Site, page: Any) -> None:
    # A match of no tournament: the tournament's own are sealed while its twins are to be played.
    match_id = site.owned_match
    response = page.goto(site.url + "/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    rows = page.locator("#leaderboard tbody tr").count()
    assert rows == len(site.store.leaderboard()) >= 2
    # The interval bars are drawn (SVG attributes, no style attribute).
    assert page.locator("#leaderboard td.interval svg.bar rect.span").count() == rows
    _no_violations(page)
    page.click("#leaderboard tbody tr >> nth=0 >> td.bot a")
    page.wait_for_selector("#rating-plot svg.plot")
    _no_violations(page)
    # The replay viewer is all script: it renders, steps, and breaks no rule.
    page.goto(f"{site.url}/matches/{match_id}?step=3")
    page.wait_for_selector('#viewer[data-rendered="3"]')
    page.click("#fwd")
    page.wait_for_selector('#viewer[data-rendered="4"]')
    assert page.locator("#hand-0 svg.card").count() > 0
    _no_violations(page)
    page.goto(f"{site.url}/tournaments/{site.played}")
    assert page.locator("#games tbody tr.game.done").count() == 1
    page.goto(f"{site.url}/login")
    _no_violations(page)
    # And the policy is really enforced: an inline script injected now is refused.
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__ran = true'; document.body.append(s); }"
    )
    _wait_true(page, "window.__violations.length > 0")
    assert page.evaluate("window.__ran") is None
    assert "script-src" in page.evaluate("window.__violations")[0]
    page.csp_console.clear()


@pytest.mark.web
@pytest.mark.slow
def test_a_page_refused_its_stream_follows_the_tournament_by_polling(site: Site, page: Any) -> None:
    tid = new_tournament(site.store, 41)
    url = f"{site.url}/tournaments/{tid}/events"
    try:
        with contextlib.ExitStack() as stack:
            # The browser's address (127.0.0.1) has every stream it may have open already.
            assert [_hold_stream(stack, url) for _ in range(3)] == [200] * 3
            page.goto(f"{site.url}/tournaments/{tid}")
            _wait_true(page, "document.body.dataset.polling === 'true'", 15)
            page.evaluate("window.__notReloaded = true")
            assert page.locator("#games tbody tr.game.done").count() == 0
            match_id = play_one(site.store, tid)
            _wait_true(
                page, "document.querySelectorAll('#games tbody tr.game.done').length === 1", 20
            )
            assert page.evaluate("window.__notReloaded") is True
            assert page.locator("#progress-text").inner_text() == "1 of 4 matches played"
            assert page.locator(f'#games tr[data-match="{match_id}"]').count() == 1
            play_one(site.store, tid)
            _wait_true(
                page, "document.querySelectorAll('#games tbody tr.game.done').length === 2", 20
            )
            _no_violations(page)
    finally:
        site.store.set_tournament_status(tid, TournamentStatus.CANCELLED)


@pytest.mark.web
@pytest.mark.slow
def test_browser_signs_in_and_out_with_a_session(site: Site, page: Any) -> None:
    logs = f"{site.url}/matches/{site.owned_match}/logs/0"
    page.goto(logs)
    assert page.locator("#need-login").count() == 1
    page.click("#need-login a")
    page.fill("input[name=token]", site.owner_token)
    page.click("#token-login button")
    page.wait_for_url(logs)
    assert page.locator("#need-login").count() == 0
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert site.owner_token not in [c["value"] for c in cookies.values()]
    assert cookies["arena_session"]["httpOnly"] and cookies["arena_session"]["sameSite"] == "Strict"
    page.click("text=Sign out")
    page.wait_for_url(site.url + "/")
    page.goto(logs)
    assert page.locator("#need-login").count() == 1
    _no_violations(page)
