"""The web as the front door, in Debian's chromium against a real ``arena serve --web`` (a
child process: the gRPC service and the web arena over one database): an account's named
tokens used from the CLI against the service and revoked (refused at once, UNAUTHENTICATED);
"Is v2 better?" — a comparison started from the bot page (against a bot that forfeits, so
that it decides in a few pairs), its LLR moving live to a verdict, another cancelled, and a
non-owner refused."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.runtime.archive import pack_directory
from arena.service.client import ArenaClient, RemoteError

ROOT = Path(__file__).resolve().parents[1]
HEURISTIC = ROOT / "sample_bots" / "heuristic"
RANDOM = ROOT / "sample_bots" / "random"
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "bot.py"
PASSWORD = "correct horse battery"

pytestmark = pytest.mark.slow


class Served:
    """`arena serve --web` in a child process; its two addresses read from its log lines."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lines: list[str] = []
        self.grpc = ""
        self.web = ""
        self._ready = threading.Event()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--listen", "127.0.0.1:0",
             "--db", str(folder / "arena.db"), "--insecure-no-sandbox",
             "--web", "127.0.0.1:0", "--web-signup", "open"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=folder,
            env={**os.environ, "ARENA_ANALYSIS": "off"},
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(90) or not (self.grpc and self.web):
            self.proc.kill()
            raise AssertionError("arena serve --web did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if found := re.search(r"serving arena\.v1 on (\S+?)[;( ]", line):
                self.grpc = found.group(1)
            if found := re.search(r"web arena on (\S+)", line):
                self.web = found.group(1).rstrip("/")
            if self.grpc and self.web:
                self._ready.set()
        self._ready.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("served"))
    try:
        yield server
    finally:
        server.stop()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=300
    )


def bot_copy(folder: Path, source: Path, name: str, version: str = "1.0") -> Path:
    target = folder / f"{name}-{version}"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (target / "bot.toml").read_text()
    manifest = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', manifest)
    manifest = re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', manifest)
    (target / "bot.toml").write_text(manifest)
    return target


def wait_until(page: Any, expression: str, timeout_s: float = 60.0) -> Any:
    """Poll ``expression`` in the page (not ``wait_for_function``: the CSP has no unsafe-eval)."""
    deadline = time.monotonic() + timeout_s
    while not (value := page.evaluate(expression)):
        assert time.monotonic() < deadline, f"not true within {timeout_s:g} s: {expression}"
        page.wait_for_timeout(100)
    return value


def sign_up(page: Any, url: str, name: str) -> None:
    page.goto(url + "/signup")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("#signup button")
    page.wait_for_url(url + "/account")


def make_token(page: Any, url: str, name: str) -> str:
    page.goto(url + "/account")
    page.fill("#make-token input[name=name]", name)
    page.click("#issue-token")
    assert page.locator("#new-token-name").inner_text() == name
    return str(page.locator("#new-token").inner_text())


def sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url + "/login")
    page.fill("#password-login input[name=name]", name)
    page.fill("#password-login input[name=password]", PASSWORD)
    page.click("#password-login button[type=submit]")
    page.wait_for_url(url + "/")


@pytest.fixture(scope="module")
def tara(served: Served, browser: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The account tara, signed up in the browser, and her bot tarabot (the heuristic sample
    bot's code) submitted with a token made on her account page."""
    page = browser.new_page()
    try:
        sign_up(page, served.web, "tara")
        token = make_token(page, served.web, "setup")
    finally:
        page.close()
    folder = tmp_path_factory.mktemp("bots")
    # A bot that plays a card not following suit after three decisions: it forfeits
    # every match, so a comparison against it decides in a few pairs, however loaded the host.
    illegal = folder / "taraillegal"
    illegal.mkdir()
    shutil.copy(HOSTILE, illegal / "bot.py")
    (illegal / "bot.toml").write_text(
        'name = "taraillegal"\nversion = "1.0"\ncommand = ["{python}", "bot.py"]\n\n'
        '[env]\nHOSTILE_MODE = "illegal"\nHOSTILE_AFTER = "3"\n'
    )
    for bot in (bot_copy(folder, HEURISTIC, "tarabot"), illegal):
        done = cli("bot", "submit", str(bot), "--server", served.grpc, "--token", token)
        assert done.returncode == 0, done.stderr
    return token


def test_named_tokens_work_from_the_cli_until_revoked(
    served: Served, browser: Any, tara: str, tmp_path: Path
) -> None:
    page = browser.new_page()
    try:
        sign_in(page, served.web, "tara")
        laptop = make_token(page, served.web, "laptop")
        ci = make_token(page, served.web, "ci")
        assert laptop != ci
        page.goto(served.web + "/account")
        assert page.locator("#token-state").inner_text() == "3 live tokens."  # and "setup"
        assert laptop not in page.content() and ci not in page.content()
        # Either token submits as the account: the bot is tara's.
        bot = bot_copy(tmp_path, RANDOM, "taralaptop")
        done = cli("bot", "submit", str(bot), "--server", served.grpc, "--token", laptop)
        assert done.returncode == 0, done.stderr
        again = cli("bot", "submit", str(bot), "--server", served.grpc, "--token", ci)
        assert again.returncode == 0 and "unchanged" in again.stdout, again.stderr
        shown = cli("bot", "show", "taralaptop", "--server", served.grpc, "--json")
        assert '"owner": "tara"' in shown.stdout, shown.stdout
        # Revoked on the page, the laptop's token is refused at once; the CI's still works.
        page.goto(served.web + "/account")
        page.click("tr[data-token=laptop] button.revoke-token")
        assert page.locator("#account-notice").inner_text() == (
            "the token 'laptop' is revoked: it no longer works anywhere"
        )
        assert "revoked" in page.locator("tr[data-token=laptop]").inner_text()
        refused = cli("bot", "submit", str(bot), "--server", served.grpc, "--token", laptop)
        assert refused.returncode == 2
        assert "UNAUTHENTICATED" in refused.stderr and "unknown token" in refused.stderr
        assert refused.stderr.count("\n") == 1
        with ArenaClient(served.grpc, token=laptop) as client:
            with pytest.raises(RemoteError) as info:
                client.submit_archive(pack_directory(bot))
            assert info.value.code == grpc.StatusCode.UNAUTHENTICATED
        still = cli("bot", "submit", str(bot), "--server", served.grpc, "--token", ci)
        assert still.returncode == 0, still.stderr
    finally:
        page.close()


def start_compare(page: Any, url: str, opponent: str, elo0: str, elo1: str) -> int:
    page.goto(url + "/bots/tarabot")
    page.select_option("#compare-form select[name=opponent]", opponent)
    page.fill("#compare-form input[name=elo0]", elo0)
    page.fill("#compare-form input[name=elo1]", elo1)
    page.click("#start-compare")
    page.wait_for_url(re.compile(r".*/compare/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def test_a_comparison_started_from_the_bot_page_decides_live(
    served: Served, browser: Any, tara: str
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    try:
        sign_in(page, served.web, "tara")
        page.goto(served.web + "/bots/tarabot")
        assert page.locator("#compare-form input[name=elo1]").input_value() == "5.0"
        # Against a bot that forfeits every match, with wide bounds: decided in a few pairs.
        tid = start_compare(page, served.web, "taraillegal@1.0", "0", "150")
        llrs = set()
        wait_until(page, "Number(document.body.dataset.updates || 0) >= 1")
        deadline = time.monotonic() + 600  # a few pairs; minutes on a loaded machine
        while not page.locator("#verdict").is_visible() and time.monotonic() < deadline:
            llrs.add(page.locator("#llr-text").inner_text())
            page.wait_for_timeout(200)
        verdict = page.locator("#verdict").inner_text()
        assert verdict.startswith("H1 accepted after"), verdict
        assert "tarabot@1.0 is at least 150 Elo stronger than taraillegal@1.0" in verdict
        # The matches still in play when it decided end (recorded, not counted), then it is over.
        wait_until(
            page, "document.getElementById('state').textContent === 'finished'", timeout_s=300
        )
        assert len(llrs) >= 2, llrs  # the LLR moved while the page was open
        assert (
            page.locator("#cancel-compare").count() == 0
            or not page.locator("#cancel-compare").is_visible()
        )
        body = page.request.get(f"{served.web}/api/compare/{tid}").json()
        assert body["sprt"]["decision"] == "H1" and body["a"] == "tarabot@1.0"
        assert body["sprt"]["llr"] >= body["sprt"]["upper"]
        assert not errors, errors
    finally:
        page.close()


def test_the_owner_cancels_a_comparison_and_others_cannot_start_one(
    served: Served, browser: Any, tara: str
) -> None:
    owner = browser.new_context().new_page()
    other = browser.new_context().new_page()
    try:
        sign_in(owner, served.web, "tara")
        # Narrow bounds and the cap of 2000 pairs: it runs until cancelled.
        tid = start_compare(owner, served.web, "random", "0", "5")
        assert owner.locator("#state").inner_text() == "running"
        sign_up(other, served.web, "ursula")
        # A stranger sees the comparison but no cancel button, and the bot page has no form.
        other.goto(f"{served.web}/compare/{tid}")
        assert other.locator("#cancel-compare").count() == 0
        other.goto(served.web + "/bots/tarabot")
        assert other.locator("#compare-form").count() == 0
        # Posted anyway (a real form of this site, with ursula's CSRF token): refused.
        for action in ("/bots/tarabot/compare", f"/compare/{tid}/cancel"):
            other.goto(served.web + "/bots/tarabot")
            other.evaluate(
                """([action]) => {
                    const f = document.createElement("form");
                    f.method = "post"; f.action = action;
                    const csrf = document.querySelector("input[name=csrf]").value;
                    for (const [k, v] of [["csrf", csrf], ["opponent", "random"]]) {
                        const i = document.createElement("input");
                        i.type = "hidden"; i.name = k; i.value = v; f.append(i);
                    }
                    document.body.append(f); f.submit();
                }""",
                [action],
            )
            other.wait_for_load_state()
            other.wait_for_url(re.compile(re.escape(action) + "$"))
            text = other.locator("main").inner_text()
            if action.endswith("/compare"):
                assert "bot 'tarabot' is not yours: only its owner starts a comparison" in text
            else:
                assert "only that token or an admin token may cancel it" in text
        # The owner's own forms without their CSRF token: refused, and nothing is cancelled.
        for action in ("/bots/tarabot/compare", f"/compare/{tid}/cancel"):
            forged = owner.request.post(served.web + action, form={"opponent": "random"})
            assert forged.status == 403 and "CSRF" in forged.text()
        owner.goto(f"{served.web}/compare/{tid}")
        assert owner.locator("#state").inner_text() == "running"
        owner.click("#cancel-compare button")
        owner.wait_for_url(f"{served.web}/compare/{tid}")
        wait_until(owner, "document.getElementById('state').textContent === 'cancelled'")
        assert owner.locator("#verdict").inner_text().startswith("cancelled after")
    finally:
        owner.close()
        other.close()
