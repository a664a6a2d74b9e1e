"""A person plays a bot at ``/play`` in a real browser (Playwright, Debian's chromium).

The web server, the referee, the `random` sample bot (a child process) and the SQLite store are
all real; the person clicks. The first test plays a whole one-hand match (draw, Double Nil,
bid, play, one illegal click the server refuses) and finds it recorded and replayable, and
compared hand by hand with the expert's play of the same deal (beat the bot); the
second closes the tab mid-match, resumes at the same URL and finishes with the keyboard.
``ARENA_PLAY_SCREENSHOTS=folder`` saves the page at 1280 and 390 px and the end
(docs/web-play-*.png were made so).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.referee import verify
from arena.store import Store
from arena.web import WebConfig, WebServer
from arena.web.routes.play import PlayConfig

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"

pytestmark = [pytest.mark.web, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    store = Store.open(str(tmp_path_factory.mktemp("play") / "arena.db"))
    config = WebConfig(play=PlayConfig(opponents={"random": SAMPLES / "random"}))
    server = WebServer(store, "127.0.0.1:0", config)
    server.start()
    try:
        yield server.url.rstrip("/"), store
    finally:
        server.stop()
        store.close()


def _new_page(browser: Any, width: int = 1280) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # A refused answer is a 409 the browser logs; any other console error is a failure.
    page.on(
        "console",
        lambda m: errors.append(m.text) if m.type == "error" and "409" not in m.text else None,
    )
    page.route(re.compile(r"^(?!http://127\.0\.0\.1:).*"), lambda route: route.abort())
    return context, page, errors


def _wait(page: Any, expression: str, timeout_s: float = 30.0) -> Any:
    """Poll ``expression`` in the page (not ``wait_for_function``: the CSP has no unsafe-eval)."""
    deadline = time.monotonic() + timeout_s
    while not (value := page.evaluate(expression)):
        assert time.monotonic() < deadline, f"not true within {timeout_s:g} s: {expression}"
        page.wait_for_timeout(50)
    return value


_NEXT = "(() => { const t = document.getElementById('table'); " \
    "return t.dataset.over === 'recorded' ? 'over' : (t.dataset.seq ? t.dataset.seq + ':' + " \
    "t.dataset.kind : ''); })()"  # fmt: skip


def _sit_down(page: Any, url: str, seat: str, compare: bool = False) -> str:
    page.goto(url + "/play")
    page.fill("input[name=name]", "ada")
    page.select_option("select[name=opponent]", "random")
    page.select_option("select[name=rules]", "one-hand")
    page.fill("input[name=clock]", "60")
    page.select_option("select[name=seat]", seat)
    if compare:
        page.check("#compare")
    page.click("#play-form button[type=submit]")
    page.wait_for_url(re.compile(r"/play/[A-Za-z0-9_-]+$"))
    return str(page.url)


def _answer(page: Any, kind: str, refuse_once: dict[str, bool], keys: bool = False) -> None:
    """Answer the open request by clicking, as a person would (or with the keyboard)."""
    if keys:
        keyboard = page.keyboard
        if kind == "draw":
            keyboard.press("r")
        elif kind == "double_nil":
            keyboard.press("n")
        elif kind == "exchange":
            keyboard.press("Enter")
        elif kind == "bid":
            keyboard.press("1")
            keyboard.press("Enter")
        else:  # the first legal card has the focus; move right and back, then play it
            keyboard.press("ArrowRight")
            keyboard.press("ArrowLeft")
            focused = page.evaluate("document.activeElement.dataset.card || ''")
            assert focused, "a card of the hand has the keyboard focus"
            keyboard.press("Enter")
        return
    if kind == "draw":
        page.click("#keep")
    elif kind == "double_nil":
        page.click("#decline")
    elif kind == "exchange":
        page.click("#exchange-send")
    elif kind == "bid":
        page.click("#bids button[data-bid='2']")
    else:
        illegal = page.locator("#hand button[aria-disabled='true']")
        if not refuse_once["done"] and illegal.count():
            seq = page.evaluate("document.getElementById('table').dataset.seq")
            title = illegal.first.get_attribute("title")
            illegal.first.click(force=True)  # aria-disabled: a person can still click it
            _wait(page, "!document.getElementById('refusal').hidden")
            text = page.inner_text("#refusal")
            assert re.search(r"Refused: .* may not be played: .*\(R-4\.[35]\)", text), text
            assert title and title in text
            # Refused, not applied: the same request is still open.
            assert page.evaluate("document.getElementById('table').dataset.seq") == seq
            refuse_once["done"] = True
        page.locator("#hand button.legal").first.click()


def _play_on(
    page: Any, until_seq: int | None = None, shots: Path | None = None, keys: bool = False
) -> str:
    """Answer requests until the match is recorded (or request ``until_seq`` is open)."""
    refused = {"done": False}
    seen = ""
    while True:
        now = _wait(page, f"(() => {{ const v = {_NEXT}; return v && v !== {seen!r} && v; }})()")
        if now == "over":
            return seen
        seq, kind = now.split(":")
        if until_seq is not None and int(seq) >= until_seq:
            return now
        if shots is not None and kind == "play":
            page.set_viewport_size({"width": 1280, "height": 900})
            page.screenshot(path=str(shots / "web-play-1280.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=str(shots / "web-play-390.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
            shots = None
        _answer(page, kind, refused, keys)
        seen = now


def test_a_person_plays_a_whole_match_by_clicking(site: tuple[str, Store], browser: Any) -> None:
    url, store = site
    context, page, errors = _new_page(browser)
    table_url = _sit_down(page, url, "1", compare=True)
    given = os.environ.get("ARENA_PLAY_SCREENSHOTS")
    _play_on(page, shots=Path(given) if given else None)
    assert "You" in page.inner_text("#result") or "won" in page.inner_text("#result")
    assert page.locator("#hands tbody tr").count() == 1
    # Beat the bot: the expert played the same deal in this seat; the hand is compared.
    versus = _wait(page, "!document.getElementById('versus').hidden && "
                   "document.getElementById('versus').textContent")  # fmt: skip
    assert re.search(r"^[+-]?\d+ points against expert on hand 1; [+-]?\d+ over 1 hand", versus)
    if given:
        page.screenshot(path=str(Path(given) / "web-play-end.png"), full_page=True)
    match_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    stored = store.get_match(match_id)
    assert stored.summary.players[1].startswith("guest:ada")
    assert stored.result.faults == (0, 0)
    verify(stored.result)  # the engine replays the record
    # The refusal was never applied: the record holds only legal actions (verify) and the
    # person's one decision per request.
    page.goto(url + f"/matches/{match_id}")
    assert "guest:ada" in page.inner_text("main")
    # A late or repeated answer after the end is refused, not applied.
    with httpx.Client() as http:
        r = http.post(table_url.replace("/play/", "/api/play/") + "/answer",
                      data={"seq": "1", "answer": '"keep"', "csrf": "x"})  # fmt: skip
        assert r.status_code == 403  # without this browser's CSRF token
    context.close()
    assert not errors, errors


def test_a_person_who_closes_the_tab_resumes_at_the_same_url(
    site: tuple[str, Store], browser: Any
) -> None:
    url, store = site
    context, page, errors = _new_page(browser, 390)
    table_url = _sit_down(page, url, "0")
    open_now = _play_on(page, until_seq=6)
    context.close()  # the tab is gone; the referee's clock runs on
    assert not errors, errors
    context, page, errors = _new_page(browser, 390)
    page.goto(table_url)
    assert _wait(page, _NEXT) == open_now  # the same request, still open
    _play_on(page, keys=True)  # the rest of the match with the keyboard alone
    match_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    assert store.get_match(match_id).result.faults == (0, 0)
    context.close()
    assert not errors, errors


def test_the_lobby_refuses_what_it_does_not_offer(site: tuple[str, Store]) -> None:
    url, _ = site
    with httpx.Client(base_url=url, timeout=30) as http:
        lobby = http.get("/play")
        assert lobby.status_code == 200 and 'value="random"' in lobby.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "opponent": "expert", "rules": "one-hand", "clock": "60"}
        refused = http.post("/play", data=form, headers={"origin": url})
        assert refused.status_code == 400 and "unknown opponent" in refused.text
        forged = http.post("/play", data={**form, "csrf": "forged", "opponent": "random"})
        assert forged.status_code == 403
        gone = http.get("/api/play/no-such-table")
        assert gone.status_code == 404 and "no such table" in gone.json()["error"]


def test_a_table_serves_a_bounded_number_of_waiting_pages(site: tuple[str, Store]) -> None:
    """A crowd of long polls on one table is refused past 16 (429), the others still served."""
    url, _ = site
    with httpx.Client(base_url=url, timeout=30) as http:
        lobby = http.get("/play")
        csrf = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "opponent": "random", "rules": "one-hand", "clock": "8"}
        opened = http.post("/play", data=form)
        assert opened.status_code == 303
        table = opened.headers["location"].rsplit("/", 1)[1]
        state = http.get(f"/api/play/{table}").json()
        while state["request"] is None:  # until the first request waits on the person
            state = http.get(f"/api/play/{table}", params={"since": state["version"]}).json()
        version = state["version"]

    def poll(_: int) -> int:
        # Far in the future: every poll waits, until the person's clock runs out (8 s).
        with httpx.Client(base_url=url, timeout=60) as client:
            since = version + 10_000
            return client.get(f"/api/play/{table}", params={"since": since}).status_code

    # Threads, not asyncio.run: Playwright's sync API may hold this thread's event loop.
    with ThreadPoolExecutor(20) as pool:
        codes = list(pool.map(poll, range(20)))
    assert codes.count(429) == 4 and codes.count(200) == 16, codes


def test_an_answers_response_brings_the_next_request(site: tuple[str, Store]) -> None:
    """The POST of an answer waits a moment for what comes next (the bot's turn) and returns
    the whole state: the page's next request comes with it, one request an answer, not two.
    A refused answer's response is its reason (409), and no state."""
    url, _ = site
    with httpx.Client(base_url=url, timeout=30) as http:
        lobby = http.get("/play")
        csrf = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        assert csrf is not None
        # A short clock: the match left open at the end times out soon after (the server's
        # close waits for it).
        form = {"csrf": csrf.group(1), "opponent": "random", "rules": "one-hand", "clock": "5"}
        opened = http.post("/play", data=form)
        assert opened.status_code == 303
        table = opened.headers["location"].rsplit("/", 1)[1]
        state = http.get(f"/api/play/{table}").json()
        carried = 0
        for _ in range(8):
            while state["request"] is None:
                state = http.get(f"/api/play/{table}", params={"since": state["version"]}).json()
            req = state["request"]
            value = {"draw": '"keep"', "double_nil": '"decline"'}.get(req["kind"])
            if value is None:  # the draw is over
                break
            answer = {"csrf": csrf.group(1), "seq": str(req["seq"]), "answer": value}
            got = http.post(f"/api/play/{table}/answer", data=answer)
            assert got.status_code == 200, got.text
            after = got.json()
            assert after["ok"] and after["version"] > state["version"] and "hands" in after
            carried += after["request"] is not None and after["request"]["seq"] == req["seq"] + 1
            again = http.post(f"/api/play/{table}/answer", data=answer)
            assert again.status_code == 409 and "already answered" in again.json()["error"]
            state = after
        # The bot's turn takes milliseconds: nearly every response carries the next request.
        assert carried >= 4, carried
