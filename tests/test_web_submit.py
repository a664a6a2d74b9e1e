"""Submitting a bot from the browser (``/submit``), over a real Hypercorn server: a .tar.gz
or .zip of a bot directory goes through the service's own submission path, start-up check
included (a real child process), and each refusal is one line on the form. The last test does
it all in Debian's chromium: sign up, make a token, upload, see the bot's page."""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.runtime.archive import ArchiveLimits, pack_directory
from arena.runtime.start_check import check_starts
from arena.service.permissions import Quotas
from arena.service.submission import BotSubmissions
from arena.store import Store
from arena.web import WebServer
from arena.web.app import WebConfig

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "random"
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "correct horse battery"


@dataclass
class Site:
    store: Store
    url: str
    folder: Path


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    store = Store.open(f"sqlite:///{tmp_path}/arena.db")
    submissions = BotSubmissions(
        store, tmp_path / "data", ArchiveLimits(), Quotas(), start_check=check_starts
    )
    server = WebServer(store, "127.0.0.1:0", WebConfig(signup="open", submissions=submissions))
    server.start()
    try:
        yield Site(store, server.url.rstrip("/"), tmp_path)
    finally:
        server.stop()
        store.close()


def bot_dir(
    site: Site, name: str, version: str, *, command: str = '["{python}", "bot.py"]'
) -> Path:
    """A copy of the random sample bot under another name and version."""
    folder = site.folder / f"{name}-{version}-{len(list(site.folder.glob(name + '-*')))}"
    shutil.copytree(RANDOM_BOT, folder)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\ncommand = {command}\n'
    )
    return folder


def zipped(folder: Path, extra: dict[str, bytes] | None = None, link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            z.write(path, path.relative_to(folder).as_posix())
        for name, data in (extra or {}).items():
            z.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo("link")
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, link)
    return buffer.getvalue()


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field in the page"
    return found.group(1)


@contextmanager
def signed_up(site: Site, name: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site.url, timeout=60) as client:
        csrf = csrf_of(client.get("/signup").text)
        made = client.post(
            "/signup",
            data={"csrf": csrf, "name": name, "password": PASSWORD, "password2": PASSWORD},
        )
        assert made.status_code == 303
        yield client


def upload(client: httpx.Client, data: bytes, filename: str = "bot.tar.gz") -> httpx.Response:
    csrf = csrf_of(client.get("/submit").text)
    return client.post("/submit", data={"csrf": csrf}, files={"archive": (filename, data)})


def refusal(response: httpx.Response) -> str:
    assert response.status_code == 400, response.status_code
    found = re.search(r'id="submit-error">([^<]*)<', response.text)
    assert found, "no refusal line on the page"
    return found.group(1)


def test_an_upload_becomes_a_version_of_my_bot(site: Site) -> None:
    with httpx.Client(base_url=site.url, timeout=30) as stranger:
        assert stranger.get("/submit").headers["location"] == "/login?next=/submit"
    with signed_up(site, "wendy") as client:
        first = upload(client, pack_directory(bot_dir(site, "wendybot", "1.0")))
        assert first.status_code == 303, first.text[:500]
        assert first.headers["location"].startswith("/bots/wendybot")
        second = upload(client, zipped(bot_dir(site, "wendybot", "1.1")), "bot.zip")
        assert second.status_code == 303, second.text[:500]
        page = client.get("/bots/wendybot")
        assert page.status_code == 200 and "1.0" in page.text and "1.1" in page.text
        assert ">wendybot</a>" in client.get("/account").text
        # The quota page counts them.
        assert re.search(r'id="submissions-left">28<', client.get("/account").text)
    (bot,) = [b for b in site.store.list_bots() if b.name == "wendybot"]
    assert bot.owner_token_id == site.store.account("wendy").token_id
    assert [v.version_label for v in bot.versions] == ["1.0", "1.1"]


def test_each_refusal_is_one_line(site: Site) -> None:
    with signed_up(site, "xena") as client:
        assert upload(client, pack_directory(bot_dir(site, "xenabot", "1.0"))).status_code == 303
        again = bot_dir(site, "xenabot", "1.0")
        (again / "notes.txt").write_text("other content, same label")
        assert refusal(upload(client, pack_directory(again))).startswith(
            "bot xenabot already has version 1.0 with other content"
        )
        broken = bot_dir(site, "brokenbot", "1.0", command='["{python}", "missing.py"]')
        assert refusal(upload(client, pack_directory(broken))).startswith(
            "the bot did not start, so it was not accepted"
        )
        sample = bot_dir(site, "random", "9.9")
        assert "is reserved for the arena&#39;s sample bot" in refusal(
            upload(client, pack_directory(sample))
        )
        assert refusal(upload(client, b"just some text")) == (
            "not a gzip-compressed tar archive (`arena bot submit DIR` packs one)"
        )
        linked = zipped(bot_dir(site, "linkbot", "1.0"), link="/etc/passwd")
        assert "is a symbolic link" in refusal(upload(client, linked, "bot.zip"))
        escaping = zipped(bot_dir(site, "escbot", "1.0"), {"../evil.py": b"x"})
        assert refusal(upload(client, escaping, "bot.zip"))
        # Nothing of the refused uploads was kept.
        assert {b.name for b in site.store.list_bots()} == {"xenabot"}
        # Without the page's CSRF token the upload is refused before it is read.
        forged = client.post(
            "/submit", data={"csrf": "x" * 43}, files={"archive": ("b.tar.gz", b"\x1f\x8b")}
        )
        assert forged.status_code == 403


@pytest.mark.web
@pytest.mark.slow
def test_in_a_browser_sign_up_make_a_token_and_submit(site: Site, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {CHROMIUM} is missing: .ci/run installs chromium")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    good = tmp_path / "yvesbot.tar.gz"
    good.write_bytes(pack_directory(bot_dir(site, "yvesbot", "1.0")))
    bad = tmp_path / "notes.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page: Any = browser.new_page(viewport={"width": 390, "height": 844})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(  # a refusal's 400 is logged too: only the CSP's complaints count
                "console",
                lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
            )
            page.goto(site.url + "/signup")
            page.fill("input[name=name]", "yves")
            page.fill("input[name=password]", PASSWORD)
            page.fill("input[name=password2]", PASSWORD)
            page.click("#signup button")
            page.wait_for_url(site.url + "/account")
            page.click("#issue-token")
            token = page.locator("#new-token").inner_text()
            assert site.store.verify_token(token) is not None
            page.goto(site.url + "/submit")
            page.set_input_files("input[name=archive]", str(bad))
            page.click("#submit button")
            assert (
                page.locator("#submit-error").inner_text().startswith("not a readable zip archive")
            )
            page.set_input_files("input[name=archive]", str(good))
            page.click("#submit button")
            page.wait_for_url(re.compile(r".*/bots/yvesbot.*"))
            assert "1.0" in page.content()
            assert not errors, errors
        finally:
            browser.close()
