"""The store's API tokens: only a hash of each is kept."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.core import StoreCore
from arena.store.errors import NotFoundError, StoreError
from arena.store.models import Account, ApiToken, NamedToken, WebSession, utcnow
from arena.store.rows import NamedTokenInfo, TokenInfo

TOKEN_PREFIX = "arena_"
ROLES = ("member", "admin")
"""A member submits bots and runs tournaments of its own bots; an admin may also run any
tournament and cancel any (docs/service.md, "Who may do what")."""
UNISSUED = "account:"
"""Prefix of an identity row's hash: never a SHA-256 hex digest, so no token matches it (its
tokens are ``NamedToken`` rows)."""
MAX_LIVE_TOKENS = 20


class TokensMixin(StoreCore):
    """API tokens: created, verified, listed, revoked. An account (its identity row,
    ``ApiToken``) holds any number of named tokens (``NamedToken``), each acting as it."""

    def create_token(self, name: str, *, role: str = "member") -> str:
        """A new account named ``name`` (no password yet: signed in with the token, it can set
        one) and its first API token, named ``name`` too. The token is returned once; only its
        hash is kept."""
        if not name or len(name) > 100:
            raise StoreError("token name must be 1-100 characters")
        if role not in ROLES:
            raise StoreError(f"token role must be one of {', '.join(ROLES)}, not {role!r}")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            with self._write() as s:
                row = ApiToken(name=name, token_hash=UNISSUED + secrets.token_hex(24), role=role)
                s.add(row)
                s.flush()
                s.add(Account(name=name, token_id=row.id))
                s.add(NamedToken(token_id=row.id, name=name, token_hash=_token_hash(token)))
        except IntegrityError:
            raise StoreError(f"a token named {name!r} exists already") from None
        return token

    def verify_token(self, token: str) -> TokenInfo | None:
        """The account a token acts as (its identity row), or None for a token that is unknown
        or revoked, or whose account is disabled."""
        with self._read() as s:
            found = s.execute(
                select(ApiToken, Account.disabled_at)
                .join(NamedToken, NamedToken.token_id == ApiToken.id)
                .outerjoin(Account, Account.token_id == ApiToken.id)
                .where(NamedToken.token_hash == _token_hash(token))
                .where(NamedToken.revoked_at.is_(None))
            ).first()
            if found is None or found[1] is not None:
                return None
            row = found[0]
            return TokenInfo(row.id, row.name, row.created_at, row.role)

    def list_tokens(self) -> list[TokenInfo]:
        """The identities (accounts' rows), each with its role; never a token."""
        with self._read() as s:
            rows = s.scalars(select(ApiToken).order_by(ApiToken.id)).all()
            return [TokenInfo(r.id, r.name, r.created_at, r.role) for r in rows]

    def named_tokens(self, token_id: int) -> list[NamedTokenInfo]:
        """An account's named tokens, live and revoked, oldest first."""
        with self._read() as s:
            rows = s.scalars(
                select(NamedToken).where(NamedToken.token_id == token_id).order_by(NamedToken.id)
            ).all()
            return [NamedTokenInfo(r.id, r.name, r.created_at, r.revoked_at) for r in rows]

    def issue_token(self, token_id: int, name: str | None = None) -> str:
        """A new named token for the account whose identity row is ``token_id``; its other
        tokens keep working. Without a name it is ``token N``. Returned once; only its hash
        is kept."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._write() as s:
            if s.get(ApiToken, token_id) is None:
                raise NotFoundError(f"no token with id {token_id}")
            live = set(
                s.scalars(
                    select(NamedToken.name)
                    .where(NamedToken.token_id == token_id)
                    .where(NamedToken.revoked_at.is_(None))
                ).all()
            )
            if name is None or not name.strip():
                n = len(live) + 1
                while f"token {n}" in live:
                    n += 1
                name = f"token {n}"
            name = name.strip()
            if len(name) > 100 or not name.isprintable():
                raise StoreError("a token's name is 1-100 printable characters")
            if name in live:
                raise StoreError(f"you have a live token named {name!r} already")
            if len(live) >= MAX_LIVE_TOKENS:
                raise StoreError(
                    f"an account holds at most {MAX_LIVE_TOKENS} live tokens: revoke one first"
                )
            s.add(NamedToken(token_id=token_id, name=name, token_hash=_token_hash(token)))
        return token

    def revoke_named_token(self, token_id: int, named_id: int) -> str:
        """Revoke one of the account's tokens (at once: the service checks every call); its
        name. Browsers signed in with a token of the account are signed out."""
        with self._write() as s:
            row = s.get(NamedToken, named_id)
            if row is None or row.token_id != token_id:
                raise NotFoundError(f"you have no token with id {named_id}")
            if row.revoked_at is not None:
                raise StoreError(f"the token {row.name!r} is revoked already")
            _revoke(row)
            _end_token_sessions(s, token_id)
            return row.name

    def revoke_token(self, name: str) -> None:
        """Revoke every token of the account ``name`` (as ``arena token revoke``)."""
        with self._write() as s:
            row = s.scalar(select(ApiToken).where(ApiToken.name == name))
            if row is None:
                raise NotFoundError(f"no token named {name!r}")
            _revoke_all(s, row.id)

    def revoke_token_id(self, token_id: int) -> None:
        """Revoke every token of an identity row; the account and its password sessions stay."""
        with self._write() as s:
            if s.get(ApiToken, token_id) is None:
                raise NotFoundError(f"no token with id {token_id}")
            _revoke_all(s, token_id)


def _revoke(row: NamedToken) -> None:
    # The row stays listed; its hash no longer matches any token.
    row.revoked_at = utcnow()
    row.token_hash = "revoked:" + secrets.token_hex(24)


def _revoke_all(s: Session, token_id: int) -> None:
    for row in s.scalars(
        select(NamedToken)
        .where(NamedToken.token_id == token_id)
        .where(NamedToken.revoked_at.is_(None))
    ):
        _revoke(row)
    _end_token_sessions(s, token_id)


def _end_token_sessions(s: Session, token_id: int) -> None:
    # Browsers signed in with a token of the account are signed out (arena.store.web_sessions);
    # those signed in to it with a password stay.
    s.execute(
        update(WebSession)
        .where(WebSession.token_id == token_id)
        .where(WebSession.method == "api_token")
        .where(WebSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
