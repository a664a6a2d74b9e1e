"""Accounts on the web arena, over a real Hypercorn server and httpx: sign-up as the organiser
allows (open, invite, closed), sign-in with a password (refusals limited per account and per
address), the account page's named tokens, password, sign-out everywhere, and an admin's accounts.
A token made on the shell before accounts existed is an account that can set a password."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest

from arena.store import Store
from arena.store.accounts import MAX_FAILURES_PER_ACCOUNT
from arena.web import WebServer
from arena.web.app import WebConfig

PASSWORD = "correct horse battery"


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field in the page"
    return found.group(1)


def post(client: httpx.Client, page: str, action: str, **fields: str) -> httpx.Response:
    """Post a form of ``page`` as a browser would: with the CSRF token the page carries."""
    token = csrf_of(client.get(page).text)
    return client.post(action, data={"csrf": token, **fields})


def first_line(response: httpx.Response, element_id: str) -> str:
    found = re.search(rf'id="{element_id}">([^<]*)<', response.text)
    assert found, f"no #{element_id} in the page ({response.status_code})"
    return html.unescape(found.group(1))


@pytest.fixture
def store(tmp_path: object) -> Iterator[Store]:
    with Store.open(f"sqlite:///{tmp_path}/arena.db") as s:
        yield s


@contextmanager
def served(store: Store, signup: str) -> Iterator[str]:
    server = WebServer(store, "127.0.0.1:0", WebConfig(signup=signup))
    server.start()
    try:
        yield server.url.rstrip("/")
    finally:
        server.stop()


Client = Callable[[], httpx.Client]


@pytest.fixture
def open_site(store: Store) -> Iterator[tuple[str, Client]]:
    with served(store, "open") as url:
        yield url, lambda: httpx.Client(base_url=url, timeout=20)


def signup(client: httpx.Client, name: str, **extra: str) -> httpx.Response:
    fields = {"name": name, "password": PASSWORD, "password2": PASSWORD, **extra}
    return post(client, "/signup", "/signup", **fields)


def test_open_signup_makes_an_account_signed_in(
    store: Store, open_site: tuple[str, Client]
) -> None:
    _, client = open_site
    with client() as browser:
        made = signup(browser, "mallory")
        assert made.status_code == 303 and made.headers["location"] == "/account"
        page = browser.get("/account")
        assert page.status_code == 200 and "<h1>mallory</h1>" in page.text
        assert 'id="nav-account"' in page.text
        # The same name again, or a mistyped second password: one readable line each.
        with client() as other:
            taken = signup(other, "mallory")
            assert taken.status_code == 400
            assert first_line(taken, "signup-error") == "the name 'mallory' is taken"
            differ = signup(other, "nina", password2="something else entirely")
            assert first_line(differ, "signup-error") == "the two passwords differ"
            assert other.get("/account", follow_redirects=False).headers["location"] == (
                "/login?next=/account"
            )
    stored = store.account("mallory")
    assert stored.has_password and not stored.has_token and stored.role == "member"


def test_sign_in_with_a_password_and_its_rate_limit(
    store: Store, open_site: tuple[str, Client]
) -> None:
    _, client = open_site
    store.create_account("olive", PASSWORD)
    with client() as browser:
        wrong = post(browser, "/login", "/login", name="olive", password="not it at all")
        assert wrong.status_code == 401
        assert first_line(wrong, "login-error") == "wrong name or password"
        ok = post(browser, "/login", "/login", name="olive", password=PASSWORD, next="/account")
        assert ok.status_code == 303 and ok.headers["location"] == "/account"
        assert "<h1>olive</h1>" in browser.get("/account").text
    with client() as attacker:
        for _ in range(MAX_FAILURES_PER_ACCOUNT - 1):
            assert (
                post(attacker, "/login", "/login", name="olive", password="guess guess").status_code
                == 401
            )
        limited = post(attacker, "/login", "/login", name="olive", password=PASSWORD)
        assert limited.status_code == 429
        assert first_line(limited, "login-error").startswith("too many wrong passwords for")
        assert "arena_session" not in attacker.cookies


def test_the_account_page_makes_names_and_revokes_tokens_and_signs_out_everywhere(
    store: Store, open_site: tuple[str, Client]
) -> None:
    _, client = open_site
    with client() as laptop, client() as phone:
        signup(laptop, "petra")
        post(phone, "/login", "/login", name="petra", password=PASSWORD)
        assert first_line(laptop.get("/account"), "token-state") == "No token is issued."
        issued = post(laptop, "/account", "/account/token", name="laptop")
        token = first_line(issued, "new-token")
        assert token.startswith("arena_") and first_line(issued, "new-token-name") == "laptop"
        second = first_line(post(laptop, "/account", "/account/token", name="ci"), "new-token")
        for each in (token, second):
            info = store.verify_token(each)
            assert info is not None and info.id == store.account("petra").token_id
        # Shown once: the page after it lists the tokens by name only.
        page = laptop.get("/account")
        assert token not in page.text and second not in page.text
        assert first_line(page, "token-state") == "2 live tokens."
        assert 'data-token="laptop"' in page.text and 'data-token="ci"' in page.text
        same = post(laptop, "/account", "/account/token", name="ci")
        assert same.status_code == 400
        assert first_line(same, "account-error") == "you have a live token named 'ci' already"
        # Revoked, it no longer authenticates (the service's and the API's check alike); the
        # other keeps working.
        laptop_id = store.named_tokens(store.account("petra").token_id)[0].id
        done = post(laptop, "/account", "/account/token/revoke", id=str(laptop_id))
        assert first_line(done, "account-notice") == (
            "the token 'laptop' is revoked: it no longer works anywhere"
        )
        assert store.verify_token(token) is None and store.verify_token(second) is not None
        assert first_line(laptop.get("/account"), "token-state") == "1 live token."
        # Someone else's token id, no id, and a form without its CSRF token are refused.
        store.create_token("other")
        theirs = store.named_tokens(store.account("other").token_id)[0].id
        refused = post(laptop, "/account", "/account/token/revoke", id=str(theirs))
        assert first_line(refused, "account-error") == f"you have no token with id {theirs}"
        assert store.named_tokens(store.account("other").token_id)[0].revoked_at is None
        bare = post(laptop, "/account", "/account/token/revoke")
        assert first_line(bare, "account-error") == "which token? the form names none"
        forged = laptop.post("/account/token/revoke", data={"id": str(theirs)})
        assert forged.status_code == 403
        assert laptop.get("/account", follow_redirects=False).status_code == 200
        # Sign out everywhere: the phone's session ends too.
        out = post(laptop, "/account", "/account/sign-out-everywhere")
        assert out.status_code == 303
        for browser in (laptop, phone):
            assert browser.get("/account", follow_redirects=False).status_code == 303


def test_a_tokens_owner_sets_a_password(store: Store, open_site: tuple[str, Client]) -> None:
    """A token made on the shell (as before accounts) signs in and sets a password."""
    _, client = open_site
    token = store.create_token("quinn")
    with client() as browser:
        assert post(browser, "/login", "/login", token=token).status_code == 303
        page = browser.get("/account")
        assert "Set a password" in page.text and first_line(page, "token-state") == "1 live token."
        short = post(browser, "/account", "/account/password", password="short", password2="short")
        assert short.status_code == 400
        assert first_line(short, "account-error") == "a password is 10 to 1024 characters"
        post(browser, "/account", "/account/password", password=PASSWORD, password2=PASSWORD)
    with client() as again:
        ok = post(again, "/login", "/login", name="quinn", password=PASSWORD)
        assert ok.status_code == 303
    assert store.verify_token(token) is not None  # the CLI's token keeps working


def test_an_admin_disables_an_account_and_makes_invitations(store: Store) -> None:
    admin_token = store.create_token("root", role="admin")
    store.create_account("rita", PASSWORD)
    with served(store, "invite") as url:
        with (
            httpx.Client(base_url=url, timeout=20) as admin,
            httpx.Client(base_url=url, timeout=20) as rita,
        ):
            post(admin, "/login", "/login", token=admin_token)
            post(rita, "/login", "/login", name="rita", password=PASSWORD)
            # A member may not.
            refused = post(rita, "/account", "/account/disabled", name="root", disabled="1")
            assert refused.status_code == 403
            page = admin.get("/account")
            assert 'data-account="rita"' in page.text
            post(admin, "/account", "/account/disabled", name="rita", disabled="1")
            assert store.account("rita").disabled
            assert rita.get("/account", follow_redirects=False).status_code == 303
            code = first_line(post(admin, "/account", "/account/invites"), "new-invite")
        with httpx.Client(base_url=url, timeout=20) as newcomer:
            without = signup(newcomer, "sam")
            assert first_line(without, "signup-error") == (
                "sign-up on this arena is by invitation: enter your invitation code"
            )
            assert signup(newcomer, "sam", invite=code).status_code == 303
        with httpx.Client(base_url=url, timeout=20) as second:
            spent = signup(second, "tess", invite=code)
            assert (
                first_line(spent, "signup-error")
                == "this invitation code is unknown, used or expired"
            )


def test_closed_signup_refuses(store: Store) -> None:
    with served(store, "closed") as url, httpx.Client(base_url=url, timeout=20) as browser:
        page = browser.get("/signup")
        assert page.status_code == 403 and 'id="signup-closed"' in page.text
        assert 'href="/signup"' not in browser.get("/login").text
        csrf = csrf_of(browser.get("/login").text)
        refused = browser.post(
            "/signup",
            data={"csrf": csrf, "name": "uma", "password": PASSWORD, "password2": PASSWORD},
        )
        assert refused.status_code == 403
    assert store.list_accounts() == []


def test_the_organisers_account_commands(tmp_path: object) -> None:
    """``arena account invite|list|disable|enable`` and a bad ``--signup``, as a shell runs them."""
    import subprocess
    import sys

    db = f"{tmp_path}/cli.db"

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=60
        )

    code = arena("account", "invite", "--db", db).stdout.strip()
    assert code.startswith("invite_")
    with Store.open(db) as store:
        store.create_account("vera", PASSWORD, invite=code)
    assert arena("account", "disable", "vera", "--db", db).returncode == 0
    assert arena("account", "list", "--db", db).stdout == "vera\tmember\tpassword\tdisabled\n"
    assert arena("account", "enable", "vera", "--db", db).returncode == 0
    unknown = arena("account", "disable", "nobody", "--db", db)
    assert unknown.returncode == 2 and "no account named 'nobody'" in unknown.stderr
    bad = arena("web", "--db", db, "--signup", "maybe")
    assert bad.returncode == 2
    assert (
        bad.stderr.strip() == "arena: error: --signup must be open, invite or closed, not 'maybe'"
    )
