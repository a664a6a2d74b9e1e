"""The web arena over a real uvicorn server, a real SQLite file and real recorded matches.

The module's database holds a round robin of sample bots and a hostile bot (real bot processes
over gRPC, substitute policy, so faults are recorded), plus one match of a bot owned by an API
token. HTTP tests talk to the server with httpx; the tests marked ``web`` drive Debian's
chromium through Playwright, check the replay viewer's cards against the engine's replay of the
same match, watch a tournament played by another process update the page live, and save
screenshots (the folder is printed; ``$ARENA_TEST_ARTIFACTS`` chooses it).
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest

from arena.ratings import skill_interval
from arena.referee import FaultPolicy
from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Decision, Match, RuleSet
from arena.rules.cards import card_name
from arena.sandbox import probe
from arena.store import Store, TournamentStatus
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.web import WebServer
from arena.web.replay_view import build_frames

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
HOSTILE = ROOT / "tests" / "bots" / "hostile_illegal"
HOSTILE_CODE = ROOT / "tests" / "bots" / "hostile" / "bot.py"
CHROMIUM = "/usr/bin/chromium"
SANDBOX_ARGS = ("--sandbox", "on") if probe().sandbox else ("--insecure-no-sandbox",)
"""As tests/test_service.py starts the server: sandboxed where it can be."""
MAX_HANDS = 3


@dataclass
class Arena:
    db: str
    url: str
    store: Store
    tournament_id: int
    owner_token: str
    other_token: str
    owned_match: str


def _engine_match(seed: int, rules: RuleSet, rng_seed: int) -> MatchResult:
    """A match played through the engine by two random players (a real record, no bots)."""
    m = Match(seed, rules)
    rng = Random(rng_seed)
    decisions = []
    while not m.is_over:
        action = m.random_action(rng)
        decisions.append(DecisionRecord(m.to_act, m.decision, action, 100 + len(decisions)))
        m.apply(action)
    assert m.outcome is not None
    now = datetime.now(UTC)
    return MatchResult(
        match_id=f"owned-{seed}",
        seed=seed,
        rules=rules,
        engine_version=ENGINE_VERSION,
        players=("owned", "random"),
        winner=m.outcome.winner,
        scores=m.scores,
        hands_played=m.outcome.hands_played,
        termination=Termination.HAND_LIMIT,
        faults=(0, 0),
        detail="",
        decisions=tuple(decisions),
        started_at=now,
        finished_at=now,
    )


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    folder = tmp_path_factory.mktemp("web")
    db = str(folder / "arena.db")
    # The hostile bot as a self-contained folder (a tournament plays a copy of each bot's
    # folder, and the test manifests share ../hostile/bot.py).
    hostile = folder / "hostile_illegal"
    hostile.mkdir()
    shutil.copy(HOSTILE_CODE, hostile / "bot.py")
    (hostile / "bot.toml").write_text(
        (HOSTILE / "bot.toml").read_text().replace("../hostile/bot.py", "bot.py")
    )
    store = Store.open(db)
    tid = create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic"), str(hostile)],
            games=1,
            concurrency=2,
            seed=11,
            move_timeout_ms=5000,
            policy=FaultPolicy("substitute", max_faults=2),
            rules=RuleSet(max_hands=MAX_HANDS),
        ),
    )
    run_tournament(store, tid)
    owner = store.create_token("alice")
    other = store.create_token("bob")
    alice = store.verify_token(owner)
    assert alice is not None
    owned = store.register_bot_version(
        "owned", "1.0", "f" * 64, "submitted", owner_token_id=alice.id
    )
    rnd = store.get_bot_version("random")
    result = _engine_match(77, RuleSet(max_hands=2), 5)
    store.record_match(result, seat_versions=(owned.id, rnd.id))
    server = WebServer(store, "127.0.0.1:0")
    server.start()
    try:
        yield Arena(db, server.url.rstrip("/"), store, tid, owner, other, result.match_id)
    finally:
        server.stop()
        store.close()


@pytest.fixture(scope="module")
def http(arena: Arena) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=arena.url, timeout=30) as client:
        yield client


def _a_match(arena: Arena, *, faulted: bool = False) -> str:
    """A match of the fixture's tournament: one with faults, or one that ended by the rules."""
    matches = arena.store.list_matches(tournament_id=arena.tournament_id)
    for m in matches:
        if any(m.faults) if faulted else not m.termination.is_forfeit:
            return m.match_id
    raise AssertionError("no such match in the fixture's tournament")


# -- pages and the JSON API ------------------------------------------------------------------


def test_leaderboard_page_and_api_agree_with_the_store(arena: Arena, http: httpx.Client) -> None:
    page = http.get("/")
    assert page.status_code == 200
    assert "server-timing" in page.headers
    board = arena.store.leaderboard()
    data = http.get("/api/leaderboard").json()
    assert [(r["bot"], r["rank"]) for r in data["rows"]] == [(r.bot, r.rank) for r in board]
    for row, stored in zip(data["rows"], board, strict=True):
        assert row["mu"] == pytest.approx(stored.mu)
        assert (row["low"], row["high"]) == pytest.approx(skill_interval(stored.mu, stored.sigma))
        assert (row["wins"], row["losses"], row["draws"], row["faults"]) == (
            stored.wins,
            stored.losses,
            stored.draws,
            stored.faults,
        )
        assert f'data-bot="{stored.bot}"' in page.text
    assert data["interval"] == "mu ± 1.96 sigma"


def test_leaderboard_sorts_and_filters_by_tournament(arena: Arena, http: httpx.Client) -> None:
    by_mu = http.get("/api/leaderboard", params={"sort": "mu", "order": "asc"}).json()["rows"]
    assert [r["mu"] for r in by_mu] == sorted(r["mu"] for r in by_mu)
    by_faults = http.get("/api/leaderboard", params={"sort": "faults"}).json()
    assert by_faults["order"] == "desc"
    assert by_faults["rows"][0]["bot"] == "hostile_illegal"
    one = http.get("/api/leaderboard", params={"tournament": arena.tournament_id}).json()
    assert one["tournament"]["id"] == arena.tournament_id
    # The tournament's own leaderboard leaves out the bot that played outside it.
    assert {r["bot"] for r in one["rows"]} == {"random", "heuristic", "hostile_illegal"}
    assert "owned" in {r["bot"] for r in http.get("/api/leaderboard").json()["rows"]}


@pytest.mark.parametrize(
    "path",
    [
        "/?sort=nonsense",
        "/?order=sideways",
        "/?tournament=abc",
        "/?tournament=0",
        "/?min_matches=-1",
        "/api/leaderboard?tournament=1%3B%20DROP%20TABLE%20matches",
        "/api/matches/x/frames?view=seat2",
    ],
)
def test_a_malformed_query_parameter_is_a_400(http: httpx.Client, path: str) -> None:
    r = http.get(path)
    assert r.status_code == 400, r.text
    if path.startswith("/api/"):
        assert r.json()["status"] == 400
    else:
        assert "Bad request" in r.text and "Spades Arena" in r.text


@pytest.mark.parametrize(
    "path",
    [
        "/bots/nobody",
        "/bots/random' OR '1'='1",
        "/tournaments/999",
        "/tournaments/abc",
        "/matches/no-such-match",
        "/matches/x%27%3B%20DROP%20TABLE%20matches%3B--",
        "/api/bots/nobody",
        "/api/tournaments/999",
        "/api/matches/no-such-match",
        "/tournaments/999/events",
        "/nowhere",
    ],
)
def test_unknown_things_are_a_404_in_the_sites_style(
    arena: Arena, http: httpx.Client, path: str
) -> None:
    before = len(arena.store.list_matches())
    r = http.get(path)
    assert r.status_code == 404, r.text
    if path.startswith("/api/"):
        assert r.json()["status"] == 404
    else:
        assert "Not found" in r.text
        assert '<header class="top">' in r.text  # the site's own page, not a bare error
    # Nothing a request carried reached SQL as text: the tables are all still there.
    assert len(arena.store.list_matches()) == before


def test_bot_page_shows_versions_history_and_head_to_head(arena: Arena, http: httpx.Client) -> None:
    page = http.get("/bots/hostile_illegal")
    assert page.status_code == 200
    assert '<svg class="plot"' in page.text
    data = http.get("/api/bots/hostile_illegal").json()
    (version,) = data["versions"]
    stored = arena.store.rating(version["id"])
    # The history is TrueSkill replayed in recorded order: its last point is the stored rating.
    last = version["history"][-1]
    assert (last["mu"], last["sigma"]) == (stored.mu, stored.sigma)
    assert len(version["history"]) == stored.matches
    assert version["content_hash"] == arena.store.get_bot_version("hostile_illegal").content_hash
    opponents = {o["opponent"]: o for o in data["head_to_head"]}
    assert set(opponents) == {"random", "heuristic"}
    assert sum(o["matches"] for o in opponents.values()) == 4
    assert sum(o["faults"] for o in opponents.values()) == stored.faults > 0
    faulted = [m for m in data["recent_matches"] if m["faults"][m["me"]]]
    assert faulted, "the hostile bot's faults are shown with its matches"
    assert data["tournaments"] == [arena.tournament_id]
    owned = http.get("/api/bots/owned").json()
    assert owned["owner"] == "alice"


def test_tournament_page_and_api(arena: Arena, http: httpx.Client) -> None:
    data = http.get(f"/api/tournaments/{arena.tournament_id}").json()
    assert data["state"] == "finished"
    assert (data["games_done"], data["games_total"]) == (6, 6)
    assert len(data["standings"]) == 3
    assert len(data["head_to_head"]) == 3
    ids = {g["match"]["match_id"] for g in data["games"]}
    page = http.get(f"/tournaments/{arena.tournament_id}").text
    for mid in ids:
        assert f'href="/matches/{mid}"' in page
    assert 'id="matrix"' in page
    listing = http.get("/api/tournaments").json()["tournaments"]
    assert [t["id"] for t in listing] == [arena.tournament_id]


def test_match_api_and_frames_follow_the_engine(arena: Arena, http: httpx.Client) -> None:
    faults_seen = 0
    for summary in arena.store.list_matches(tournament_id=arena.tournament_id):
        mid = summary.match_id
        stored = arena.store.get_match(mid)
        data = http.get(f"/api/matches/{mid}").json()
        assert data["scores"] == list(summary.scores)
        assert len(data["decisions"]) == len(stored.result.decisions)
        finished = [h for h in data["replay"]["hands"] if h["result"]]
        frames = http.get(f"/api/matches/{mid}/frames", params={"view": "spectator"}).json()
        assert len(frames["frames"]) == len(stored.result.decisions) + 1
        m = Match(stored.result.seed, stored.result.rules)
        for i, d in enumerate(stored.result.decisions):
            f = frames["frames"][i]
            if not f.get("scored"):
                assert f["seats"][0]["hand"] == list(m.hand(0))
                assert f["seats"][1]["hand"] == list(m.hand(1))
                assert f["to_act"] == m.to_act
                assert (f["seats"][0]["score"], f["seats"][1]["score"]) == m.scores
            m.apply(d.action)
            last = frames["frames"][i + 1]["last"]
            assert (last["seat"], last["kind"], last["us"]) == (
                d.seat,
                d.decision.value,
                d.elapsed_us,
            )
            if d.fault is not None:
                assert last["fault"] == d.fault.value
                faults_seen += 1
        final = frames["frames"][-1]
        if summary.termination.is_forfeit:
            assert not final["over"]
            page = http.get(f"/matches/{mid}").text
            assert summary.detail and html.escape(summary.detail) in page
        else:
            assert final["over"] and final["scored"]["scores"] == list(summary.scores)
            assert finished[-1]["result"]["scores"] == list(summary.scores)
    assert faults_seen > 0, "the hostile bot's substituted faults are in the frames"


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_view_holds_only_that_seats_information_set(arena: Arena, seat: int) -> None:
    stored = arena.store.get_match(_a_match(arena))
    frames = build_frames(stored.result, f"seat{seat}").frames
    m = Match(stored.result.seed, stored.result.rules)
    opp = 1 - seat
    public = {
        "bid",
        "double_nil",
        "won",
        "score",
        "bags",
        "exchanged",
        "draw_choices",
        "hand_count",
        "discard_count",
        "looking",
    }
    for i, d in enumerate(stored.result.decisions):
        f = frames[i]
        assert set(f["seats"][opp]) <= public, f"frame {i} shows the opponent's private data"
        if not f.get("scored"):
            obs = m.observation(seat)
            assert f["seats"][seat]["hand"] == list(obs.hand)
            assert f["seats"][seat]["discards"] == list(obs.own_discards)
            assert (f["seats"][seat]["aside"] or []) == list(obs.own_put_aside)
            assert f["stock"] == obs.stock_size
            assert f["seats"][opp]["hand_count"] == len(m.hand(opp))
        m.apply(d.action)
        last = frames[i + 1]["last"]
        if d.seat == opp:
            assert "us" not in last and "fault" not in last
            assert "kept" not in last and "aside" not in last
            if d.decision.value in ("draw", "exchange"):
                assert "hidden" in last["text"]
    # The opponent's hand never appears in the data sent for this view.
    assert '"hand":' not in json.dumps([f["seats"][opp] for f in frames])


def test_bot_logs_are_for_the_owner_only(arena: Arena, http: httpx.Client) -> None:
    path = f"/matches/{arena.owned_match}/logs/0"
    r = http.get(path)
    assert r.status_code == 401 and "Give your API token" in r.text
    r = http.get(path, headers={"authorization": f"Bearer {arena.other_token}"})
    assert r.status_code == 403 and "does not own" in r.text
    r = http.get(path, headers={"authorization": "Bearer arena_not-a-token"})
    assert r.status_code == 401 and "unknown token" in r.text
    r = http.get(path, headers={"authorization": "Basic abc"})
    assert r.status_code == 401 and "malformed" in r.text
    r = http.get(path, headers={"authorization": f"Bearer {arena.owner_token}"})
    assert r.status_code == 200 and "No log kept for this match" in r.text
    # A locally registered bot has no owner: no token reads its logs.
    r = http.get(
        f"/matches/{arena.owned_match}/logs/1",
        headers={"authorization": f"Bearer {arena.owner_token}"},
    )
    assert r.status_code == 403
    assert http.get(f"/matches/{arena.owned_match}/logs/2").status_code == 404


def test_login_opens_a_session_and_redirects_only_on_site(arena: Arena) -> None:
    """Sessions and CSRF in depth: tests/test_web_hardening.py."""
    path = f"/matches/{arena.owned_match}/logs/0"
    with httpx.Client(base_url=arena.url, timeout=30) as client:
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
        assert csrf
        bad = client.post("/login", data={"token": "nope", "next": path, "csrf": csrf[1]})
        assert bad.status_code == 401
        r = client.post("/login", data={"token": arena.owner_token, "next": path,
                                        "csrf": csrf[1]})  # fmt: skip
        assert r.status_code == 303 and r.headers["location"] == path
        cookie = next(c for c in r.headers.get_list("set-cookie") if "arena_session=" in c)
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        assert client.get(path).status_code == 200
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
        assert csrf
        away = client.post("/login", data={"token": arena.owner_token, "next": "//evil.test/",
                                           "csrf": csrf[1]})  # fmt: skip
        assert away.headers["location"] == "/"


def test_live_events_stream_reports_a_recorded_match(arena: Arena) -> None:
    """A tournament's event stream sends an update when a match of it is recorded."""
    store = arena.store
    tid = create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")],
            games=1,
            seed=5,
            rules=RuleSet(max_hands=1),
        ),
    )
    game = store.pending_games(tid)[0]
    with (
        # A read timeout below the 15 s heartbeat: no update in time fails, never hangs.
        httpx.Client(base_url=arena.url, timeout=10) as client,
        client.stream("GET", f"/tournaments/{tid}/events") as events,
    ):
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        assert next(lines).startswith("retry:")
        result = _engine_match(game.seed, RuleSet(max_hands=1), 1)
        result = dataclasses.replace(result, match_id=f"live-{game.ordinal}")
        store.record_match(result, seat_versions=game.seat_versions, tournament_game_id=game.id)
        deadline = time.monotonic() + 20
        for line in lines:
            if line.startswith("data: "):
                update = json.loads(line[6:])
                break
            assert time.monotonic() < deadline
        assert update["games_done"] == 1
        assert list(update["rows"]) == [str(game.ordinal)]
        assert result.match_id in update["rows"][str(game.ordinal)]
    store.set_tournament_status(tid, TournamentStatus.CANCELLED)


@pytest.mark.slow
def test_arena_web_command_serves_and_refuses_a_bad_address(arena: Arena) -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "arena", "web", "--listen", "nowhere", "--db", arena.db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("arena: error: --listen")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--listen", "127.0.0.1:0", "--db", arena.db],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        url = re.search(r"http://\S+/", line)
        assert url, line
        r = httpx.get(url.group(0) + "api/leaderboard", timeout=30)
        assert r.status_code == 200 and r.json()["rows"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_arena_serve_web_serves_pages_beside_grpc(arena: Arena) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--web",
            "127.0.0.1:0",
            "--db",
            arena.db,
            "--data-dir",
            str(Path(arena.db).parent / "data"),
            *SANDBOX_ARGS,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        url = None
        for _ in range(5):
            line = proc.stderr.readline()
            found = re.search(r"web arena on (http://\S+/)", line)
            if found:
                url = found.group(1)
                break
        assert url, "arena serve --web printed no URL"
        r = httpx.get(url + "api/tournaments", timeout=30)
        assert r.status_code == 200
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0


# -- in a real browser ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def artifacts(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("ARENA_TEST_ARTIFACTS")
    folder = Path(given) / "web" if given else tmp_path_factory.mktemp("web-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    capture = pytestconfig.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line(f"\nweb screenshots: {folder}")
    return folder


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # Everything is served by the arena itself: any other host is a failure.
    pg.route(re.compile(r"^(?!http://127\.0\.0\.1:).*"), lambda route: route.abort())
    yield pg
    context.close()
    assert not errors, errors


def _wait_true(page: Any, expression: str, timeout_s: float = 30.0) -> None:
    """Wait until ``expression`` is true in the page. Not ``wait_for_function``: its polling
    evaluates strings inside the page, which the site's CSP (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true within {timeout_s:g} s: {expression}"
        page.wait_for_timeout(100)


def _cards(page: Any, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)")


@pytest.mark.web
@pytest.mark.slow
def test_browser_pages_render_and_link_up(arena: Arena, page: Any, artifacts: Path) -> None:
    page.goto(arena.url + "/")
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(arena.store.leaderboard())
    page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)
    page.click("#leaderboard th.mu a")
    assert "sort=mu" in page.url
    page.click("#leaderboard tbody tr >> nth=0 >> td.bot a")
    page.wait_for_selector("#rating-plot svg.plot")
    assert page.locator("#head-to-head tbody tr").count() >= 1
    page.screenshot(path=str(artifacts / "bot.png"), full_page=True)
    page.goto(f"{arena.url}/tournaments/{arena.tournament_id}")
    assert page.locator("#games tbody tr.game.done").count() == 6
    assert page.locator("#matrix tbody tr").count() == 3
    page.screenshot(path=str(artifacts / "tournament.png"), full_page=True)
    page.goto(arena.url + "/bots/nobody")
    assert page.locator("h1").inner_text() == "Not found"
    page.screenshot(path=str(artifacts / "not-found.png"))


@pytest.mark.web
@pytest.mark.slow
def test_browser_replay_shows_the_engines_cards(arena: Arena, page: Any, artifacts: Path) -> None:
    mid = _a_match(arena)
    stored = arena.store.get_match(mid)
    decisions = stored.result.decisions
    first_play = next(i for i, d in enumerate(decisions) if d.decision.value == "play")
    step = first_play + 5

    def engine_at(n: int) -> Match:
        m = Match(stored.result.seed, stored.result.rules)
        for d in decisions[:n]:
            m.apply(d.action)
        return m

    def names(cards: tuple[int, ...]) -> list[str]:
        return [card_name(c) for c in cards]

    page.goto(f"{arena.url}/matches/{mid}?step={step}")
    page.wait_for_selector(f'#viewer[data-rendered="{step}"]')
    m = engine_at(step)
    assert _cards(page, "#hand-0 svg.card") == names(m.hand(0))
    assert _cards(page, "#hand-1 svg.card") == names(m.hand(1))
    trick = m.observation(0).tricks[-1]
    assert _cards(page, "#trick svg.card") == names(trick.cards)
    page.screenshot(path=str(artifacts / "replay-spectator.png"), full_page=True)

    # Step forward with the button and the keyboard; the cards follow the engine.
    page.click("#fwd")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'#viewer[data-rendered="{step + 2}"]')
    m = engine_at(step + 2)
    assert _cards(page, "#hand-0 svg.card") == names(m.hand(0))
    assert f"step={step + 2}" in page.url  # the permalink follows the position
    # Early in the draw: the card looked at is shown to the spectator.
    page.keyboard.press("Home")
    page.wait_for_selector('#viewer[data-rendered="0"]')
    draw_step = next(n for n in range(1, 10) if engine_at(n).decision is Decision.DRAW)
    for _ in range(draw_step):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#viewer[data-rendered="{draw_step}"]')
    m = engine_at(draw_step)
    looking = page.locator("svg.card.looking")
    assert looking.count() == 1 and looking.get_attribute("data-card") == card_name(m.stock[0])
    # Jump to the last hand with the selector, then to the end: the final scores show.
    last_hand = stored.summary.hands_played
    page.select_option("#hand-select", str(last_hand))
    assert page.locator("#hand-no").inner_text() == str(last_hand)
    page.keyboard.press("End")
    scored = page.locator("#scored").inner_text()
    assert f"scores {stored.summary.scores[0]} : {stored.summary.scores[1]}" in scored

    # Play, then pause: the position moves on by itself.
    page.keyboard.press("Home")
    page.select_option("#speed", "120")
    page.click("#play")
    _wait_true(page, "Number(document.getElementById('viewer').dataset.rendered) >= 3")
    page.click("#play")

    # A permalink opens the same position in the seat's view: the opponent's cards are backs.
    page.goto(f"{arena.url}/matches/{mid}?view=seat0&step={step}")
    page.wait_for_selector(f'#viewer[data-rendered="{step}"]')
    m = engine_at(step)
    assert _cards(page, "#hand-0 svg.card") == names(m.observation(0).hand)
    hidden = _cards(page, "#hand-1 svg.card")
    assert hidden == ["hidden"] * len(m.hand(1))
    assert _cards(page, "#discards-1 svg.card") == ["hidden"] * 13
    assert _cards(page, "#discards-0 svg.card") == names(m.observation(0).own_discards)
    page.screenshot(path=str(artifacts / "replay-seat0.png"), full_page=True)

    # A substituted fault is shown at its decision, with its reason.
    faulted = arena.store.get_match(_a_match(arena, faulted=True))
    at = next(i for i, d in enumerate(faulted.result.decisions) if d.fault is not None) + 1
    page.goto(f"{arena.url}/matches/{faulted.summary.match_id}?step={at}")
    page.wait_for_selector(f'#viewer[data-rendered="{at}"]')
    fault = faulted.result.decisions[at - 1].fault
    assert fault is not None
    assert fault.value.replace("_", " ") in page.locator("#last-action .fault").inner_text()
    assert faulted.summary.detail in page.locator("#detail").inner_text()


@pytest.mark.web
@pytest.mark.slow
def test_browser_tournament_page_updates_live(arena: Arena, page: Any, artifacts: Path) -> None:
    """A tournament played by another process appears on an open page without a reload."""
    tid = create_tournament(
        arena.store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")],
            games=2,
            concurrency=1,
            seed=21,
            move_timeout_ms=5000,
            rules=RuleSet(max_hands=2),
        ),
    )
    page.goto(f"{arena.url}/tournaments/{tid}")
    assert page.locator("#games tbody tr.game.pending").count() == 4
    page.evaluate("window.__notReloaded = true")
    page.wait_for_selector("#live:not([hidden])")
    env = dict(os.environ)
    resume = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "resume", str(tid), "--db", arena.db],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        page.wait_for_selector("#games tbody tr.game.done", timeout=120_000)
        page.screenshot(path=str(artifacts / "tournament-live.png"), full_page=True)
        _wait_true(page, "document.querySelectorAll('#games tbody tr.game.done').length === 4", 120)
        page.wait_for_selector("#state.finished", timeout=30_000)
    finally:
        _, err = resume.communicate(timeout=120)
    assert resume.returncode == 0, err
    assert page.evaluate("window.__notReloaded") is True
    assert page.locator("#progress-text").inner_text() == "4 of 4 matches played"
    ids = {m.match_id for m in arena.store.list_matches(tournament_id=tid)}
    shown = set(
        page.eval_on_selector_all("#games tr[data-match]", "e => e.map(x => x.dataset.match)")
    )
    assert shown == ids
    assert page.locator("#standings tbody tr").count() == 2


def test_migration_0003_indexes_matches_by_bot_and_tournament(tmp_path: Path) -> None:
    """An 0001 database upgrades to the web's indexes, and the models say the same."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, text

    from arena.store.migrate import alembic_config
    from arena.store.models import Base

    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
    with Store.open(str(path), upgrade=True) as store:
        assert store.list_matches() == []
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        indexes = {
            name
            for (name,) in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'"))
        }
        assert {"ix_matches_seat0_version_id_id", "ix_matches_tournament_id_id"} <= indexes
        assert "ix_matches_seat0_version_id" not in indexes
        plan = " ".join(
            str(row[-1])
            for row in conn.execute(
                text(
                    "EXPLAIN QUERY PLAN SELECT count(*), max(id) FROM matches "
                    "WHERE tournament_id = 1"
                )
            )
        )
        assert "COVERING INDEX ix_matches_tournament_id_id" in plan
    engine.dispose()


def test_an_unrated_match_says_why_on_its_page_and_in_the_api(
    arena: Arena, http: httpx.Client
) -> None:
    """A match between two bots of one owner is recorded, not rated, and the page says why."""
    alice = arena.store.verify_token(arena.owner_token)
    assert alice is not None
    twin = arena.store.register_bot_version(
        "owned-twin", "1.0", "e" * 64, "submitted", owner_token_id=alice.id
    )
    owned = arena.store.get_bot_version("owned")
    result = _engine_match(78, RuleSet(max_hands=2), 6)
    recorded = arena.store.record_match(result, seat_versions=(owned.id, twin.id))
    assert not recorded.rated
    data = http.get(f"/api/matches/{result.match_id}").json()
    assert data["rated"] is False and data["unrated_reason"] == "same_owner"
    page = http.get(f"/matches/{result.match_id}").text
    assert "not rated: both bots have one owner" in page
