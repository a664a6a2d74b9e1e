"""The web arena's sessions: a signed-in browser holds a random id in a cookie, the database
keeps its SHA-256 only (a copy of the database opens no session), and a session can be revoked
(signing out, or revoking the API token it was opened with) and always expires.

A browser signs in with an API token (``api_token``: checked once, never stored in the browser)
or with an account's password (``password``, ``arena.store.accounts``); either way the session
names the account's identity row (``token_id``). A disabled account's sessions are none."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from arena.store.core import StoreCore
from arena.store.errors import StoreError
from arena.store.models import Account, ApiToken, WebSession, utcnow

API_TOKEN = "api_token"
"""``WebSession.method`` of a session opened with an API token."""
PASSWORD = "password"
"""``WebSession.method`` of a session opened with an account's password."""
METHODS = (API_TOKEN, PASSWORD)
PURGE_AFTER = timedelta(days=30)
"""Expired or revoked sessions are deleted this long after they ended."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A live session: who it is (the API token's id, name and role) and its CSRF token."""

    token_id: int
    name: str
    role: str
    csrf_token: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class NewSession:
    session_id: str
    """The cookie's value: shown once, never stored."""
    csrf_token: str
    expires_at: datetime


def session_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class WebSessionsMixin(StoreCore):
    """Web sessions: opened, looked up, revoked, purged."""

    def open_session(
        self, token_id: int, lifetime: timedelta, method: str = API_TOKEN
    ) -> NewSession:
        """A session for the identity row ``token_id``, opened by ``method``, valid for
        ``lifetime``."""
        if lifetime <= timedelta(0):
            raise StoreError("a session's lifetime must be positive")
        if method not in METHODS:
            raise StoreError(f"unknown sign-in method {method!r}")
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = utcnow()
        expires = now + lifetime
        with self._write() as s:
            s.execute(delete(WebSession).where(WebSession.expires_at < now - PURGE_AFTER))
            s.execute(delete(WebSession).where(WebSession.revoked_at < now - PURGE_AFTER))
            s.add(
                WebSession(
                    id_hash=session_hash(session_id), method=method, token_id=token_id,
                    csrf_token=csrf, created_at=now, expires_at=expires,
                )
            )  # fmt: skip
        return NewSession(session_id, csrf, expires)

    def session(self, session_id: str) -> SessionInfo | None:
        """The live session with this id; None when unknown, expired, revoked, its account
        disabled, or (signed in with a token) its token revoked."""
        now = utcnow()
        with self._read() as s:
            row = s.execute(
                select(WebSession, ApiToken, Account.disabled_at)
                .join(ApiToken, ApiToken.id == WebSession.token_id)
                .outerjoin(Account, Account.token_id == ApiToken.id)
                .where(WebSession.id_hash == session_hash(session_id))
            ).first()
            if row is None:
                return None
            sess, token, disabled_at = row
            if sess.revoked_at is not None or sess.expires_at <= now or disabled_at is not None:
                return None
            if sess.method == API_TOKEN and token.token_hash.startswith("revoked:"):
                return None
            return SessionInfo(token.id, token.name, token.role, sess.csrf_token, sess.expires_at)

    def revoke_session(self, session_id: str) -> bool:
        """End a session (signing out); whether a live one was ended."""
        with self._write() as s:
            done = s.execute(
                update(WebSession)
                .where(WebSession.id_hash == session_hash(session_id))
                .where(WebSession.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def revoke_sessions_of_token(self, token_id: int) -> int:
        """End every session opened with an API token (it was revoked); how many."""
        with self._write() as s:
            done = s.execute(
                update(WebSession)
                .where(WebSession.token_id == token_id)
                .where(WebSession.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
            return int(done.rowcount)  # type: ignore[attr-defined]
