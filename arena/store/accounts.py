"""Accounts of the web arena: a name and a password (argon2id, the hash only), sign-up by
invitation codes, sign-in attempts limited per account and per address, and disabling.

An account's identity is an API token row (``Account.token_id``): bots, versions and the
service's quotas have always named their owner by token row, so an account owns exactly what
its token submitted, and a token made on the shell (``arena token create``) is an account too.
The tokens themselves are the account's named tokens (``arena.store.tokens``, migration 0009):
any number, each acting as the account; one that signed up on the web has none until it makes
one on its account page."""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, exists, func, select, update
from sqlalchemy.exc import IntegrityError

from arena.store.core import StoreCore
from arena.store.errors import NotFoundError, StoreError
from arena.store.models import (
    Account,
    ApiToken,
    InviteCode,
    NamedToken,
    SignInFailure,
    WebSession,
    utcnow,
)
from arena.store.tokens import UNISSUED

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,39}")
"""An account's name: 2-40 letters, digits, ``_ . -``, starting with a letter or digit."""
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
FAILURE_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ACCOUNT = 5
"""Refused sign-ins of one account within ``FAILURE_WINDOW`` before its sign-in pauses."""
MAX_FAILURES_PER_ADDRESS = 20
"""Refused sign-ins from one address (of any accounts) within ``FAILURE_WINDOW``."""
INVITE_DAYS = 14.0

_HASHER = PasswordHasher()  # argon2id with the library's (RFC 9106 low-memory) parameters


@functools.cache
def _dummy_hash() -> str:
    """Verified against for an unknown name, so that a refusal takes as long either way (made at
    the first sign-in, not on import: every process that imports the store would pay for it)."""
    return _HASHER.hash("an account that does not exist")


class SignInError(StoreError):
    """A password sign-in refused: a wrong name or password, or a disabled account."""


class RateLimitedError(StoreError):
    """Too many refused sign-ins lately, of this account or from this address."""


@dataclass(frozen=True, slots=True)
class AccountInfo:
    id: int
    name: str
    token_id: int
    """The identity row: the owner of the account's bots, and its quotas' key."""
    role: str
    has_password: bool
    has_token: bool
    """Whether the account has a live named token."""
    created_at: datetime
    disabled: bool


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise StoreError(
            "an account's name is 2-40 letters, digits, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return name


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise StoreError(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _info(account: Account, token: ApiToken, has_token: bool) -> AccountInfo:
    return AccountInfo(
        account.id, account.name, account.token_id, token.role,
        account.password_hash is not None, has_token,
        account.created_at, account.disabled_at is not None,
    )  # fmt: skip


_HAS_TOKEN = (
    exists()
    .where(NamedToken.token_id == ApiToken.id)
    .where(NamedToken.revoked_at.is_(None))
    .correlate(ApiToken)
)
"""Whether the identity row has a live named token (``arena.store.tokens``)."""


class AccountsMixin(StoreCore):
    """Accounts: signed up, signed in with a password, invited, listed, disabled."""

    def create_account(
        self, name: str, password: str, *, invite: str | None = None, role: str = "member"
    ) -> AccountInfo:
        """A new account with a password. With ``invite``, the code is spent in the same
        transaction (an unknown, used or expired code refuses the sign-up)."""
        check_name(name)
        check_password(password)
        hashed = _HASHER.hash(password)
        now = utcnow()
        try:
            with self._write() as s:
                code = None
                if invite is not None:
                    code = s.scalar(
                        select(InviteCode).where(InviteCode.code_hash == _code_hash(invite))
                    )
                    if code is None or code.used_by is not None or code.expires_at <= now:
                        raise StoreError("this invitation code is unknown, used or expired")
                token = ApiToken(name=name, token_hash=UNISSUED + secrets.token_hex(24), role=role)
                s.add(token)
                s.flush()
                account = Account(name=name, token_id=token.id, password_hash=hashed)
                s.add(account)
                s.flush()
                if code is not None:
                    spent = s.execute(
                        update(InviteCode)
                        .where(InviteCode.id == code.id)
                        .where(InviteCode.used_by.is_(None))
                        .values(used_by=account.id, used_at=now)
                    )
                    if not spent.rowcount:  # type: ignore[attr-defined]
                        raise StoreError("this invitation code is unknown, used or expired")
                return _info(account, token, False)
        except IntegrityError:
            raise StoreError(f"the name {name!r} is taken") from None

    def account(self, name: str) -> AccountInfo:
        with self._read() as s:
            row = s.execute(
                select(Account, ApiToken, _HAS_TOKEN)
                .join(ApiToken, ApiToken.id == Account.token_id)
                .where(Account.name == name)
            ).first()
            if row is None:
                raise NotFoundError(f"no account named {name!r}")
            return _info(*row)

    def account_of_token(self, token_id: int) -> AccountInfo | None:
        with self._read() as s:
            row = s.execute(
                select(Account, ApiToken, _HAS_TOKEN)
                .join(ApiToken, ApiToken.id == Account.token_id)
                .where(Account.token_id == token_id)
            ).first()
            return None if row is None else _info(*row)

    def list_accounts(self) -> list[AccountInfo]:
        with self._read() as s:
            rows = s.execute(
                select(Account, ApiToken, _HAS_TOKEN)
                .join(ApiToken, ApiToken.id == Account.token_id)
                .order_by(Account.id)
            ).all()
            return [_info(*r) for r in rows]

    def verify_password(self, name: str, password: str, address: str) -> AccountInfo:
        """The account, if ``password`` is its password. Refused (``SignInError``) otherwise,
        and refused without a look (``RateLimitedError``) after too many refusals lately of
        this account or from this address; each refusal is counted."""
        now = utcnow()
        since = now - FAILURE_WINDOW
        name = name[:100]
        address = address[:64]
        with self._read() as s:
            by_name = s.scalar(
                select(func.count()).select_from(SignInFailure)
                .where(SignInFailure.account_name == name).where(SignInFailure.at >= since)
            ) or 0  # fmt: skip
            by_address = s.scalar(
                select(func.count()).select_from(SignInFailure)
                .where(SignInFailure.address == address).where(SignInFailure.at >= since)
            ) or 0  # fmt: skip
            row = s.execute(
                select(Account, ApiToken, _HAS_TOKEN)
                .join(ApiToken, ApiToken.id == Account.token_id)
                .where(Account.name == name)
            ).first()
        minutes = int(FAILURE_WINDOW.total_seconds() // 60)
        if by_name >= MAX_FAILURES_PER_ACCOUNT:
            raise RateLimitedError(
                f"too many wrong passwords for {name!r} lately: try again in {minutes} minutes"
            )
        if by_address >= MAX_FAILURES_PER_ADDRESS:
            raise RateLimitedError(
                f"too many refused sign-ins from your address lately: try again in "
                f"{minutes} minutes"
            )
        stored = row[0].password_hash if row is not None else None
        try:
            _HASHER.verify(stored or _dummy_hash(), password)
            ok = stored is not None
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or row is None or row[0].disabled_at is not None:
            with self._write() as s:
                s.execute(delete(SignInFailure).where(SignInFailure.at < now - timedelta(days=1)))
                s.add(SignInFailure(account_name=name, address=address, at=now))
            if ok and row is not None:
                raise SignInError(f"the account {name!r} is disabled")
            raise SignInError("wrong name or password")
        account, token, has_token = row
        if _HASHER.check_needs_rehash(stored or ""):
            self.set_password(account.id, password)
        return _info(account, token, has_token)

    def set_password(self, account_id: int, password: str) -> None:
        check_password(password)
        hashed = _HASHER.hash(password)
        with self._write() as s:
            done = s.execute(
                update(Account).where(Account.id == account_id).values(password_hash=hashed)
            )
            if not done.rowcount:  # type: ignore[attr-defined]
                raise NotFoundError(f"no account with id {account_id}")

    def sign_out_everywhere(self, token_id: int) -> int:
        """End every web session of the account (any way it signed in); how many."""
        with self._write() as s:
            done = s.execute(
                update(WebSession)
                .where(WebSession.token_id == token_id)
                .where(WebSession.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
            return int(done.rowcount)  # type: ignore[attr-defined]

    def set_account_disabled(self, name: str, disabled: bool) -> None:
        """Disable an account (its sessions end; it signs in nowhere, its tokens fail) or
        enable it again. Its bots and matches stay."""
        with self._write() as s:
            account = s.scalar(select(Account).where(Account.name == name))
            if account is None:
                raise NotFoundError(f"no account named {name!r}")
            account.disabled_at = utcnow() if disabled else None
            if disabled:
                s.execute(
                    update(WebSession)
                    .where(WebSession.token_id == account.token_id)
                    .where(WebSession.revoked_at.is_(None))
                    .values(revoked_at=utcnow())
                )

    def create_invite(self, created_by: str, *, days: float = INVITE_DAYS) -> str:
        """A new invitation code, valid for ``days``; shown once, its hash kept."""
        if days <= 0:
            raise StoreError("an invitation's lifetime must be positive")
        code = "invite_" + secrets.token_urlsafe(18)
        with self._write() as s:
            s.add(
                InviteCode(
                    code_hash=_code_hash(code), created_by=created_by[:100],
                    expires_at=utcnow() + timedelta(days=days),
                )
            )  # fmt: skip
        return code
