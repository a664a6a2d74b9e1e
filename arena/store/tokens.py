"""The store's API tokens: only a hash of each is kept."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from arena.store.core import StoreCore
from arena.store.errors import NotFoundError, StoreError
from arena.store.models import Account, ApiToken, WebSession, utcnow
from arena.store.rows import TokenInfo

TOKEN_PREFIX = "arena_"
ROLES = ("member", "admin")
"""A member submits bots and runs tournaments of its own bots; an admin may also run any
tournament and cancel any (docs/service.md, "Who may do what")."""


class TokensMixin(StoreCore):
    """API tokens: created, verified, listed, revoked."""

    def create_token(self, name: str, *, role: str = "member") -> str:
        """A new API token named ``name``, and its account of the same name (no password yet:
        signed in with the token, it can set one). The token is returned once; only its hash
        is kept."""
        if not name or len(name) > 100:
            raise StoreError("token name must be 1-100 characters")
        if role not in ROLES:
            raise StoreError(f"token role must be one of {', '.join(ROLES)}, not {role!r}")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            with self._write() as s:
                row = ApiToken(name=name, token_hash=_token_hash(token), role=role)
                s.add(row)
                s.flush()
                s.add(Account(name=name, token_id=row.id))
        except IntegrityError:
            raise StoreError(f"a token named {name!r} exists already") from None
        return token

    def verify_token(self, token: str) -> TokenInfo | None:
        """The token's owner, or None for a token that is unknown or revoked, or whose account
        is disabled."""
        with self._read() as s:
            found = s.execute(
                select(ApiToken, Account.disabled_at)
                .outerjoin(Account, Account.token_id == ApiToken.id)
                .where(ApiToken.token_hash == _token_hash(token))
            ).first()
            if found is None or found[1] is not None:
                return None
            row = found[0]
            return TokenInfo(row.id, row.name, row.created_at, row.role)

    def list_tokens(self) -> list[TokenInfo]:
        with self._read() as s:
            rows = s.scalars(select(ApiToken).order_by(ApiToken.id)).all()
            return [TokenInfo(r.id, r.name, r.created_at, r.role) for r in rows]

    def revoke_token(self, name: str) -> None:
        with self._write() as s:
            row = s.scalar(select(ApiToken).where(ApiToken.name == name))
            if row is None:
                raise NotFoundError(f"no token named {name!r}")
            # The row stays (bots may name it as owner); its hash no longer matches any token.
            row.token_hash = "revoked:" + secrets.token_hex(24)
            # Browsers signed in with it are signed out (arena.store.web_sessions); those
            # signed in to its account with a password stay.
            s.execute(
                update(WebSession)
                .where(WebSession.token_id == row.id)
                .where(WebSession.method == "api_token")
                .where(WebSession.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )

    def issue_token(self, token_id: int) -> str:
        """A new token for the identity row ``token_id`` (an account's): the one it had, if
        any, stops working. Returned once; only its hash is kept."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._write() as s:
            row = s.get(ApiToken, token_id)
            if row is None:
                raise NotFoundError(f"no token with id {token_id}")
            row.token_hash = _token_hash(token)
        return token

    def revoke_token_id(self, token_id: int) -> None:
        """Revoke the token of an identity row; the account and its password sessions stay."""
        with self._write() as s:
            row = s.get(ApiToken, token_id)
            if row is None:
                raise NotFoundError(f"no token with id {token_id}")
            row.token_hash = "revoked:" + secrets.token_hex(24)
            s.execute(
                update(WebSession)
                .where(WebSession.token_id == token_id)
                .where(WebSession.method == "api_token")
                .where(WebSession.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
