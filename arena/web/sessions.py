"""Signing in to the web arena, and the CSRF tokens of its forms.

A browser signs in with an API token once (``/login``); the token is checked and forgotten, and
the browser gets a server-side session instead (``arena.store.web_sessions``): a random id in an
HttpOnly, SameSite=Strict cookie, of which the database keeps a hash only. Signing out (or
revoking the token) ends it; it ends by itself after ``WebConfig.session_days``.

Every form that changes anything posts a CSRF token and is read through :meth:`read_form`,
which refuses (403) a form without the right one, or posted from another site (``Origin``,
``Sec-Fetch-Site``). Signed in, the token is the session's own (the synchronizer token); before
signing in (the login form itself), it is the value of a random cookie that the form repeats
(double submit): another site can neither read the cookie nor set it.
"""

from __future__ import annotations

import hmac
import secrets
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.store import Store
from arena.store.web_sessions import API_TOKEN, SessionInfo

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
"""The login form's token before there is a session (double submit)."""
LEGACY_TOKEN_COOKIE = "arena_token"
"""Where older versions kept the raw API token: removed at sign-in and sign-out, never read."""
CSRF_FIELD = "csrf"
MAX_FORM_BYTES = 8192
CSRF_COOKIE_AGE_S = 86400


class CsrfToken:
    """The CSRF token of one page, made only if the page has a form (``str()`` in the
    template); a page that made a new pre-session token sets its cookie (``new_cookie``)."""

    def __init__(self, sessions: WebSessions, request: Request) -> None:
        self._sessions = sessions
        self._request = request
        self._value: str | None = None
        self.new_cookie: str | None = None

    def __str__(self) -> str:
        if self._value is None:
            session = self._sessions.current(self._request)
            if session is not None:
                self._value = session.csrf_token
            else:
                self._value = self._request.cookies.get(CSRF_COOKIE) or ""
                if len(self._value) < 32:
                    self._value = self.new_cookie = secrets.token_urlsafe(32)
        return self._value

    def set_cookie(self, response: Response, secure: bool) -> None:
        if self.new_cookie is not None:
            response.set_cookie(
                CSRF_COOKIE, self.new_cookie, max_age=CSRF_COOKIE_AGE_S, httponly=True,
                samesite="strict", secure=secure,
            )  # fmt: skip


class WebSessions:
    """Sessions and CSRF checks of one web arena over its store."""

    def __init__(self, store: Store, *, lifetime: timedelta, secure: bool) -> None:
        self.store = store
        self.lifetime = lifetime
        self.secure = secure

    def current(self, request: Request) -> SessionInfo | None:
        """The request's live session (blocking: reads the store), cached on the request."""
        cached = request.scope.get("arena.session", False)
        if cached is not False:
            return cached
        session_id = request.cookies.get(SESSION_COOKIE)
        found = self.store.session(session_id) if session_id else None
        request.scope["arena.session"] = found
        return found

    def sign_in(
        self, request: Request, response: Response, token_id: int, method: str = API_TOKEN
    ) -> None:
        """Open a session for the API token ``token_id`` and hand the browser its cookie; a
        session the browser had is ended (a new id at every sign-in: no session fixation)."""
        old = request.cookies.get(SESSION_COOKIE)
        if old:
            self.store.revoke_session(old)
        new = self.store.open_session(token_id, self.lifetime, method)
        response.set_cookie(
            SESSION_COOKIE, new.session_id, max_age=int(self.lifetime.total_seconds()),
            httponly=True, samesite="strict", secure=self.secure,
        )  # fmt: skip
        response.delete_cookie(CSRF_COOKIE)
        response.delete_cookie(LEGACY_TOKEN_COOKIE)

    def sign_out(self, request: Request, response: Response) -> None:
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id:
            self.store.revoke_session(session_id)
        for name in (SESSION_COOKIE, CSRF_COOKIE, LEGACY_TOKEN_COOKIE):
            response.delete_cookie(name)

    async def read_form(self, request: Request) -> dict[str, str]:
        """The posted urlencoded form (first value of each field), once it proved to come from
        a page of this site: same origin, and the CSRF token of this browser. 403 otherwise."""
        _check_origin(request)
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise HTTPException(400, f"the form is over {MAX_FORM_BYTES} bytes")
        fields = parse_qs(body.decode("utf-8", errors="replace"), max_num_fields=20)
        form = {k: v[0] for k, v in fields.items() if v}
        sent = form.pop(CSRF_FIELD, "")
        session = (
            await anyio.to_thread.run_sync(self.current, request)
            if request.cookies.get(SESSION_COOKIE)
            else self.current(request)  # no session cookie: nothing to read, no thread
        )
        expected = (
            session.csrf_token if session is not None else request.cookies.get(CSRF_COOKIE, "")
        )
        if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
            raise HTTPException(
                403,
                "this form has no valid CSRF token (it is stale, or was posted from another "
                "site): reload the page and send it again",
            )
        return form

    async def read_upload(
        self, request: Request, field: str, max_bytes: int
    ) -> tuple[dict[str, str], str, bytes]:
        """A posted multipart form with one file in ``field`` of at most ``max_bytes``: its
        other fields, the file's name and its bytes; checked as :meth:`read_form` checks (same
        origin, the session's CSRF token), and refused (413) when larger, before it is read."""
        _check_origin(request)
        declared = request.headers.get("content-length")
        if declared is None or not declared.isdigit() or int(declared) > max_bytes + 64 * 1024:
            raise HTTPException(413, f"the upload is over {max_bytes} bytes")
        async with request.form(max_files=1, max_fields=20, max_part_size=MAX_FORM_BYTES) as got:
            form = {k: v for k, v in got.items() if isinstance(v, str)}
            upload = got.get(field)
            sent = form.pop(CSRF_FIELD, "")
            session = await anyio.to_thread.run_sync(self.current, request)
            expected = "" if session is None else session.csrf_token
            if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
                raise HTTPException(
                    403, "this form has no valid CSRF token (it is stale, or was posted from "
                    "another site, or you are signed out): reload the page and send it again",
                )  # fmt: skip
            if upload is None or isinstance(upload, str):
                raise HTTPException(400, f"choose a file to upload ({field})")
            data = await upload.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise HTTPException(413, f"the upload is over {max_bytes} bytes")
            return form, upload.filename or "", data


def _check_origin(request: Request) -> None:
    """A browser says where a form was posted from; another site's is refused."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise HTTPException(403, "a form of this site may only be posted from this site")
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise HTTPException(403, "a form of this site may only be posted from this site")
