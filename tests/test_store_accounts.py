"""Accounts in the store (migrations 0008, 0009), on SQLite and PostgreSQL: argon2id password
hashes, sign-in refusals counted per account and per address, invitations spent once,
disabling, named tokens each acting as the account, and a database of tokens upgraded into
accounts that own what their tokens submitted, each token its account's first named token."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.store import NotFoundError, Store, StoreError
from arena.store.accounts import (
    MAX_FAILURES_PER_ACCOUNT,
    MAX_FAILURES_PER_ADDRESS,
    RateLimitedError,
    SignInError,
)
from arena.store.database import resolve_url
from arena.store.migrate import alembic_config
from arena.store.models import Base


def test_a_password_is_kept_as_an_argon2id_hash_and_checked(db_url: str) -> None:
    with Store.open(db_url) as store:
        made = store.create_account("carol", "a long enough secret")
        assert (made.name, made.role, made.has_password, made.has_token) == (
            "carol", "member", True, False,
        )  # fmt: skip
        got = store.verify_password("carol", "a long enough secret", "10.0.0.1")
        assert got.token_id == made.token_id
        with pytest.raises(SignInError, match="wrong name or password"):
            store.verify_password("carol", "not the secret", "10.0.0.1")
        with pytest.raises(SignInError, match="wrong name or password"):
            store.verify_password("nobody", "a long enough secret", "10.0.0.1")
        engine = create_engine(resolve_url(db_url))
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT password_hash FROM accounts")).scalar_one()
        engine.dispose()
        assert stored.startswith("$argon2id$") and "secret" not in stored
        # The name is taken, by an account or a token alike; bad names and short passwords.
        with pytest.raises(StoreError, match="taken"):
            store.create_account("carol", "another long secret")
        store.create_token("dave")
        with pytest.raises(StoreError, match="taken"):
            store.create_account("dave", "another long secret")
        with pytest.raises(StoreError, match="2-40 letters"):
            store.create_account("<b>", "another long secret")
        with pytest.raises(StoreError, match="10 to 1024"):
            store.create_account("erin", "short")


def test_sign_in_refusals_are_limited_per_account_and_per_address(db_url: str) -> None:
    with Store.open(db_url) as store:
        store.create_account("frank", "the right password")
        for _ in range(MAX_FAILURES_PER_ACCOUNT):
            with pytest.raises(SignInError):
                store.verify_password("frank", "a wrong password", "10.0.0.2")
        # Now even the right password waits, from any address.
        with pytest.raises(RateLimitedError, match="too many wrong passwords for 'frank'"):
            store.verify_password("frank", "the right password", "10.0.0.3")
        # One address trying many names is stopped too.
        for i in range(MAX_FAILURES_PER_ADDRESS - MAX_FAILURES_PER_ACCOUNT):
            with pytest.raises(SignInError):
                store.verify_password(f"guess{i}", "whatever it is", "10.0.0.2")
        store.create_account("grace", "grace's password")
        with pytest.raises(RateLimitedError, match="from your address"):
            store.verify_password("grace", "grace's password", "10.0.0.2")
        assert store.verify_password("grace", "grace's password", "10.0.0.4").name == "grace"


def test_an_invitation_is_spent_once_and_expires(db_url: str) -> None:
    with Store.open(db_url) as store:
        code = store.create_invite("admin")
        with pytest.raises(StoreError, match="unknown, used or expired"):
            store.create_account("heidi", "heidi's password", invite="invite_wrong")
        store.create_account("heidi", "heidi's password", invite=code)
        with pytest.raises(StoreError, match="unknown, used or expired"):
            store.create_account("ivan", "ivan's password!", invite=code)
        # A refused sign-up leaves no account behind.
        with pytest.raises(Exception):  # noqa: B017 - NotFoundError, a StoreError
            store.account("ivan")
        old = store.create_invite("admin", days=1e-9)
        with pytest.raises(StoreError, match="unknown, used or expired"):
            store.create_account("ivan", "ivan's password!", invite=old)


def test_disabled_accounts_and_sign_out_everywhere(db_url: str) -> None:
    with Store.open(db_url) as store:
        judy = store.create_account("judy", "judy's password")
        token = store.issue_token(judy.token_id)
        assert store.verify_token(token) is not None
        assert store.account("judy").has_token
        sessions = [
            store.open_session(judy.token_id, timedelta(days=1), "password") for _ in range(2)
        ]
        assert store.sign_out_everywhere(judy.token_id) == 2
        assert [store.session(s.session_id) for s in sessions] == [None, None]
        # Revoking the token keeps the password sessions; disabling the account ends all.
        live = store.open_session(judy.token_id, timedelta(days=1), "password")
        store.revoke_token_id(judy.token_id)
        assert store.verify_token(token) is None
        assert store.session(live.session_id) is not None
        token = store.issue_token(judy.token_id)
        store.set_account_disabled("judy", True)
        assert store.session(live.session_id) is None
        assert store.verify_token(token) is None
        with pytest.raises(SignInError, match="disabled"):
            store.verify_password("judy", "judy's password", "10.0.0.5")
        store.set_account_disabled("judy", False)
        assert store.verify_token(token) is not None
        assert store.verify_password("judy", "judy's password", "10.0.0.5").name == "judy"


def test_migration_0008_makes_every_token_an_account(db_url: str) -> None:
    """A database at 0007 with tokens and a bot: each token becomes an account (no password)
    that owns what its token owned, and signed in with the token it can set a password."""
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0007")
            for i, (name, role) in enumerate([("kim", "member"), ("lee", "admin")], 1):
                conn.execute(
                    text(
                        "INSERT INTO api_tokens (id, name, token_hash, created_at, role) "
                        "VALUES (:i, :n, :h, CURRENT_TIMESTAMP, :r)"
                    ),
                    {"i": i, "n": name, "h": f"{i:064x}", "r": role},
                )
            conn.execute(
                text(
                    "INSERT INTO bots (id, name, owner_token_id, created_at) "
                    "VALUES (1, 'kimbot', 1, CURRENT_TIMESTAMP)"
                )
            )
        with Store.open(db_url, upgrade=True) as store:
            accounts = {a.name: a for a in store.list_accounts()}
            assert sorted(accounts) == ["kim", "lee"]
            assert (accounts["kim"].token_id, accounts["kim"].has_password) == (1, False)
            assert accounts["lee"].role == "admin"
            bots = {b.name: b for b in store.list_bots()}
            assert bots["kimbot"].owner_token_id == accounts["kim"].token_id
            with pytest.raises(SignInError):
                store.verify_password("kim", "anything at all", "10.0.0.6")
            store.set_password(accounts["kim"].id, "kim's new password")
            assert store.verify_password("kim", "kim's new password", "10.0.0.6").token_id == 1
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0007")
        assert not inspect(engine).has_table("accounts")
    finally:
        engine.dispose()


def test_named_tokens_each_act_as_the_account_and_revoke_one_by_one(db_url: str) -> None:
    with Store.open(db_url) as store:
        first = store.create_token("uma")
        uma = store.account("uma")
        laptop = store.issue_token(uma.token_id, "laptop")
        unnamed = store.issue_token(uma.token_id)
        tokens = store.named_tokens(uma.token_id)
        assert [t.name for t in tokens] == ["uma", "laptop", "token 3"]
        for token in (first, laptop, unnamed):
            info = store.verify_token(token)
            assert info is not None and (info.id, info.name) == (uma.token_id, "uma")
        with pytest.raises(StoreError, match="a live token named 'laptop' already"):
            store.issue_token(uma.token_id, "laptop")
        with pytest.raises(StoreError, match="1-100 printable characters"):
            store.issue_token(uma.token_id, "x" * 101)
        # Revoking one leaves the others working; it stays listed, revoked.
        assert store.revoke_named_token(uma.token_id, tokens[1].id) == "laptop"
        assert store.verify_token(laptop) is None
        assert store.verify_token(first) is not None and store.verify_token(unnamed) is not None
        assert store.named_tokens(uma.token_id)[1].revoked_at is not None
        with pytest.raises(StoreError, match="revoked already"):
            store.revoke_named_token(uma.token_id, tokens[1].id)
        # Someone else's token cannot be revoked by id.
        store.create_token("vic")
        vic = store.account("vic")
        vic_token = store.named_tokens(vic.token_id)[0]
        with pytest.raises(NotFoundError, match=f"you have no token with id {vic_token.id}"):
            store.revoke_named_token(uma.token_id, vic_token.id)
        # The name can be used again once its token is revoked; revoking all ends them all.
        store.issue_token(uma.token_id, "laptop")
        store.revoke_token("uma")
        assert store.verify_token(first) is None and store.verify_token(unnamed) is None
        assert not store.account("uma").has_token


def test_migration_0009_makes_each_token_its_accounts_first_named_token(db_url: str) -> None:
    """A database at 0008: each working token becomes its account's first named token and
    keeps working; a revoked one and a web account's unissued placeholder do not; downgraded,
    each account's oldest live named token is its one token again."""
    engine = create_engine(resolve_url(db_url))
    tokens = {"kim": "arena_kims_token", "lee": "arena_lees_token"}
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0008")
            rows = [
                (1, "kim", _sha(tokens["kim"])),
                (2, "lee", _sha(tokens["lee"])),
                (3, "max", "revoked:" + "0" * 48),
                (4, "ned", "account:" + "1" * 48),
            ]
            for i, name, hashed in rows:
                conn.execute(
                    text(
                        "INSERT INTO api_tokens (id, name, token_hash, created_at, role) "
                        "VALUES (:i, :n, :h, CURRENT_TIMESTAMP, 'member')"
                    ),
                    {"i": i, "n": name, "h": hashed},
                )
                conn.execute(
                    text(
                        "INSERT INTO accounts (name, token_id, created_at) "
                        "VALUES (:n, :i, CURRENT_TIMESTAMP)"
                    ),
                    {"i": i, "n": name},
                )
        with Store.open(db_url, upgrade=True) as store:
            for name, token in tokens.items():
                info = store.verify_token(token)
                account = store.account(name)
                assert info is not None and info.id == account.token_id and account.has_token
                assert [t.name for t in store.named_tokens(account.token_id)] == [name]
            assert store.named_tokens(3) == [] and store.named_tokens(4) == []
            assert not store.account("max").has_token and not store.account("ned").has_token
            store.issue_token(1, "second")  # gone after the downgrade
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0008")
        assert not inspect(engine).has_table("named_tokens")
        with engine.connect() as conn:
            hashes = dict(conn.execute(text("SELECT name, token_hash FROM api_tokens")).all())
        assert hashes["kim"] == _sha(tokens["kim"]) and hashes["lee"] == _sha(tokens["lee"])
        assert hashes["max"].startswith("revoked:") and hashes["ned"].startswith("account:")
    finally:
        engine.dispose()


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
