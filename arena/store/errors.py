"""Errors of the store: each says what to do about it."""

from __future__ import annotations

from arena.errors import ArenaError


class StoreError(ArenaError):
    """The database cannot be used, or a request to it makes no sense."""


class SchemaError(StoreError):
    """The database's schema is not the one this version of the arena works with."""


class AlreadyRecordedError(StoreError):
    """A match or a scheduled tournament game was recorded before: recording it again would
    count it twice."""


class NotOwnerError(StoreError):
    """A bot belongs to another API token: only its owner may add versions to it."""


class NotFoundError(StoreError):
    """No bot, version, match or tournament by that name or id."""


def not_owner_message(name: str, owner_token_id: int | None) -> str:
    """Why a token may not add a version of bot ``name``, and what to do instead."""
    if owner_token_id is None:
        return (
            f"bot {name!r} was registered locally, without a token, and no token may add "
            "versions to it (submit under another name with --name)"
        )
    return (
        f"bot {name!r} belongs to another token; only the token that first submitted it may "
        "add versions (choose another name)"
    )
