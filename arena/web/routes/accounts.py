"""Accounts on the web: sign up (``/signup``, as the organiser allows: ``open``, by ``invite``,
or ``closed``), sign in with a password or an API token (``/login``), sign out here or
everywhere, and the account page (``/account``): my bots, my named API tokens (made — the
secret shown once —, listed by name, revoked one by one), my password, my quotas; an admin
also sees every account, disables or enables one, and makes invitation codes.

Every form is read through ``WebSessions.read_form`` (CSRF token, same origin); a password is
checked by ``Store.verify_password`` in a worker thread (argon2id costs tens of milliseconds),
which also counts refusals per account and per address (429 past the limit)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.store import NotFoundError, StoreError
from arena.store.accounts import AccountInfo, RateLimitedError, SignInError
from arena.store.models import utcnow
from arena.store.web_sessions import API_TOKEN, PASSWORD
from arena.web.routes import Site

SIGNUP_MODES = ("open", "invite", "closed")
"""Who may sign up on ``/signup``: anyone, whoever has an invitation code, or no one (accounts
then come from ``arena token create`` only)."""


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def safe_next(params: Any) -> str:
    """Where to go after signing in: a path on this site only (no open redirect)."""
    target = str(params.get("next", "") or "/")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def account_routes(arena: Site, timed: Callable[..., Any]) -> list[Route]:
    store = arena.store
    sessions = arena.sessions

    def mode() -> str:
        return arena.config.signup

    # -- signing up and in ---------------------------------------------------------------------

    def signup_page(request: Request) -> Response:
        return arena.render(
            request, "signup.html", mode=mode(), invite=request.query_params.get("invite", ""),
            status=403 if mode() == "closed" else 200, title="Sign up · Spades Arena",
        )  # fmt: skip

    async def signup_post(request: Request) -> Response:
        form = await sessions.read_form(request)
        if mode() == "closed":
            raise HTTPException(403, "sign-up is closed on this arena: ask its organiser")
        name = form.get("name", "").strip()
        password = form.get("password", "")
        invite = form.get("invite", "").strip() if mode() == "invite" else None

        def refuse(message: str, status: int = 400) -> Response:
            return arena.render(
                request, "signup.html", status=status, mode=mode(), error=message, typed_name=name,
                invite=invite or "", title="Sign up · Spades Arena",
            )  # fmt: skip

        if mode() == "invite" and not invite:
            return refuse("sign-up on this arena is by invitation: enter your invitation code")
        if password != form.get("password2", ""):
            return refuse("the two passwords differ")
        try:
            made = await anyio.to_thread.run_sync(
                lambda: store.create_account(name, password, invite=invite)
            )
        except StoreError as exc:
            return refuse(str(exc))
        response = RedirectResponse("/account", status_code=303)
        await anyio.to_thread.run_sync(sessions.sign_in, request, response, made.token_id, PASSWORD)
        return response

    def login_page(request: Request) -> Response:
        return arena.render(
            request, "login.html", next=safe_next(request.query_params), mode=mode(),
            title="Sign in · Spades Arena",
        )  # fmt: skip

    async def login_post(request: Request) -> Response:
        form = await sessions.read_form(request)  # 403 without its CSRF token
        target = safe_next(form)
        token = form.get("token", "").strip()
        name = form.get("name", "").strip()

        def refuse(message: str, status: int) -> Response:
            return arena.render(
                request, "login.html", status=status, next=target, mode=mode(), typed_name=name,
                error=message, title="Sign in · Spades Arena",
            )  # fmt: skip

        response = RedirectResponse(target, status_code=303)
        if "token" in form:
            info = await anyio.to_thread.run_sync(store.verify_token, token) if token else None
            if info is None:
                return refuse("unknown token: it was never issued by this arena, or revoked", 401)
            # The browser gets a session, never the token (sessions.py).
            await anyio.to_thread.run_sync(sessions.sign_in, request, response, info.id, API_TOKEN)
            return response
        password = form.get("password", "")
        try:
            account = await anyio.to_thread.run_sync(
                store.verify_password, name, password, client_address(request)
            )
        except RateLimitedError as exc:
            return refuse(str(exc), 429)
        except SignInError as exc:
            return refuse(str(exc), 401)
        await anyio.to_thread.run_sync(
            sessions.sign_in, request, response, account.token_id, PASSWORD
        )
        return response

    async def logout(request: Request) -> Response:
        await sessions.read_form(request)
        response = RedirectResponse("/", status_code=303)
        await anyio.to_thread.run_sync(sessions.sign_out, request, response)
        return response

    # -- the account page ----------------------------------------------------------------------

    def me(request: Request) -> AccountInfo:
        """The signed-in account (blocking); 401 when not signed in."""
        session = sessions.current(request)
        account = None if session is None else store.account_of_token(session.token_id)
        if account is None:
            raise HTTPException(401, "sign in first (/login)")
        return account

    def account_page(request: Request, **extra: Any) -> Response:
        session = sessions.current(request)
        if session is None:
            return RedirectResponse("/login?next=/account", status_code=303)
        account = me(request)
        bots = [b for b in store.list_bots() if b.owner_token_id == account.token_id]
        quotas = arena.config.quotas
        hour_ago = utcnow() - timedelta(hours=1)
        used = {
            "submissions": store.submissions_since(account.token_id, hour_ago),
            "stored": store.stored_bytes(account.token_id),
        }
        admin = account.role == "admin"
        return arena.render(
            request, "account.html", account=account, bots=bots, quotas=quotas, used=used,
            tokens=store.named_tokens(account.token_id),
            pauses=store.ladder_pauses(),
            accounts=store.list_accounts() if admin else None, admin=admin, mode=mode(),
            status=extra.pop("status", 200), title="Your account · Spades Arena", **extra,
        )  # fmt: skip

    def account_action(
        action: Callable[[Request, AccountInfo, dict[str, str]], dict[str, Any] | None],
        *, admin: bool = False,
    ) -> Callable[[Request], Any]:  # fmt: skip
        """A form of the account page: checked (CSRF; signed in; admin if ``admin``), done in
        a worker thread, answered with the account page and what the action says to show."""

        async def endpoint(request: Request) -> Response:
            form = await sessions.read_form(request)

            def run() -> Response:
                account = me(request)
                if admin and account.role != "admin":
                    raise HTTPException(403, "only an admin may do this")
                try:
                    shown = action(request, account, form) or {}
                except (StoreError, NotFoundError) as exc:
                    return account_page(request, error=str(exc), status=400)
                if shown.get("redirect"):
                    return RedirectResponse(shown["redirect"], status_code=303)
                return account_page(request, **shown)

            response: Response = await anyio.to_thread.run_sync(run)
            return response

        return endpoint

    def set_password(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        if form.get("password", "") != form.get("password2", ""):
            raise StoreError("the two passwords differ")
        store.set_password(account.id, form.get("password", ""))
        return {"notice": "your password is set: sign in with your name and it from now on"}

    def issue_token(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        name = form.get("name", "").strip() or None
        token = store.issue_token(account.token_id, name)
        made = [t for t in store.named_tokens(account.token_id) if t.revoked_at is None][-1]
        return {"new_token": token, "new_token_name": made.name}

    def revoke_token(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        raw = form.get("id", "")
        if not raw.isdigit():
            raise StoreError("which token? the form names none")
        name = store.revoke_named_token(account.token_id, int(raw))
        return {"notice": f"the token {name!r} is revoked: it no longer works anywhere"}

    def sign_out_everywhere(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        store.sign_out_everywhere(account.token_id)
        return {"redirect": "/login"}

    def make_invite(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        return {"new_invite": store.create_invite(account.name)}

    def set_disabled(request: Request, account: AccountInfo, form: dict[str, str]) -> Any:
        name = form.get("name", "")
        disable = form.get("disabled") == "1"
        if name == account.name and disable:
            raise StoreError("an admin cannot disable their own account")
        store.set_account_disabled(name, disable)
        return {"notice": f"account {name!r} {'disabled' if disable else 'enabled'}"}

    return [
        Route("/signup", timed(signup_page), methods=["GET"]),
        Route("/signup", signup_post, methods=["POST"]),
        Route("/login", timed(login_page), methods=["GET"]),
        Route("/login", login_post, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/account", timed(account_page), methods=["GET"]),
        Route("/account/password", account_action(set_password), methods=["POST"]),
        Route("/account/token", account_action(issue_token), methods=["POST"]),
        Route("/account/token/revoke", account_action(revoke_token), methods=["POST"]),
        Route(
            "/account/sign-out-everywhere", account_action(sign_out_everywhere), methods=["POST"]
        ),
        Route("/account/invites", account_action(make_invite, admin=True), methods=["POST"]),
        Route("/account/disabled", account_action(set_disabled, admin=True), methods=["POST"]),
    ]
