"""The store's bots and their versions: registering, looking up, listing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from arena.store import rating_order
from arena.store.core import StoreCore
from arena.store.errors import NotFoundError, NotOwnerError, StoreError, not_owner_message
from arena.store.models import Account, ApiToken, Bot, BotVersion, Rating
from arena.store.rated import member_owners
from arena.store.rows import HUMAN, BotInfo, BotVersionInfo

PERSON_PREFIX = "human:"
"""A signed-in person's player name: ``human:<account name>`` (never a bot's: a bot's name
comes from its manifest, which cannot hold a ':' that the arena gives people)."""
GUEST_PREFIX = "guest:"
"""An anonymous visitor's player name at ``/play``: ``guest:<name they typed>``, never rated."""
PERSON_VERSION = "person"
"""A person's one "version" (label and content hash): a person is not rebuilt."""


class BotsMixin(StoreCore):
    """Bots and bot versions (a version is created with its initial rating)."""

    def register_bot_version(
        self,
        name: str,
        version_label: str,
        content_hash: str,
        source: str,
        *,
        owner_token_id: int | None = None,
        owner_only: bool = False,
    ) -> BotVersionInfo:
        """The version of bot ``name`` with these files, created if new.

        Idempotent: the same name and content hash give the same version back (its first label
        and source are kept). Different content under a known name is a new version. With
        ``owner_only``, a bot first registered by another owner raises ``NotOwnerError`` (checked
        in the same transaction) and nothing is written.
        """
        _check_bot_name(name)
        if not version_label or len(version_label) > 100:
            raise StoreError(f"bot {name}: version label must be 1-100 characters")
        if not content_hash or len(content_hash) > 128:
            raise StoreError(f"bot {name}: content hash must be 1-128 characters")
        for attempt in range(3):
            try:
                with self._write() as s:
                    bot = s.scalar(select(Bot).where(Bot.name == name))
                    if bot is None:
                        bot = Bot(name=name, owner_token_id=owner_token_id)
                        s.add(bot)
                        s.flush()
                    elif owner_only and bot.owner_token_id != owner_token_id:
                        raise NotOwnerError(not_owner_message(name, bot.owner_token_id))
                    if bot.kind == HUMAN:
                        raise StoreError(f"{name!r} is a person at /play, not a bot")
                    version = s.scalar(
                        select(BotVersion).where(
                            BotVersion.bot_id == bot.id, BotVersion.content_hash == content_hash
                        )
                    )
                    if version is None:
                        version = BotVersion(
                            bot_id=bot.id,
                            version_label=version_label,
                            content_hash=content_hash,
                            source=source,
                            owner_token_id=bot.owner_token_id,
                        )
                        s.add(version)
                        s.flush()
                        mu, sigma = self._rater.initial()
                        s.add(Rating(bot_version_id=version.id, mu=mu, sigma=sigma))
                        rating_order.mark_ratings_changed(s)
                    return _version_info(version, bot.name)
            except IntegrityError:
                # Another process registered the same bot or version at the same moment.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def register_person(self, account_id: int) -> BotVersionInfo:
        """The player of a signed-in person (created at their first match): kind ``human``,
        named ``human:<account>``, owned by the account's token, so that the fair-play rules
        hold for people too (their match against their own bot is ``same_owner``)."""
        for attempt in range(3):
            try:
                with self._write() as s:
                    account = s.get(Account, account_id)
                    if account is None:
                        raise NotFoundError(f"no account with id {account_id}")
                    bot = s.scalar(select(Bot).where(Bot.account_id == account_id))
                    if bot is None:
                        name = PERSON_PREFIX + account.name
                        if s.scalar(select(Bot.id).where(Bot.name == name)) is not None:
                            # A name recorded before accounts had players: kept apart.
                            name = f"{name}~{account_id}"
                        bot = Bot(
                            name=name, owner_token_id=account.token_id, kind=HUMAN,
                            account_id=account_id,
                        )  # fmt: skip
                        s.add(bot)
                        s.flush()
                    return self._person_version(s, bot)
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def register_guest(self, name: str) -> BotVersionInfo:
        """The player of an anonymous visitor: kind ``human``, ``guest:<name>``, no owner."""
        full = GUEST_PREFIX + name
        _check_bot_name(full)
        for attempt in range(3):
            try:
                with self._write() as s:
                    bot = s.scalar(select(Bot).where(Bot.name == full))
                    if bot is None:
                        bot = Bot(name=full, kind=HUMAN)
                        s.add(bot)
                        s.flush()
                    elif bot.kind != HUMAN:
                        raise StoreError(f"{full!r} is a bot's name, not a person's")
                    return self._person_version(s, bot)
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _person_version(self, s: Any, bot: Bot) -> BotVersionInfo:
        version = s.scalar(select(BotVersion).where(BotVersion.bot_id == bot.id))
        if version is None:
            version = BotVersion(
                bot_id=bot.id, version_label=PERSON_VERSION, content_hash=PERSON_VERSION,
                source=HUMAN, owner_token_id=bot.owner_token_id,
            )  # fmt: skip
            s.add(version)
            s.flush()
            mu, sigma = self._rater.initial()
            s.add(Rating(bot_version_id=version.id, mu=mu, sigma=sigma))
            rating_order.mark_ratings_changed(s)
        return _version_info(version, bot.name)

    def person_of_account(self, account_id: int) -> str | None:
        """The player name of this account's person, None before their first match."""
        with self._read() as s:
            return s.scalar(select(Bot.name).where(Bot.account_id == account_id))

    def get_bot_version(self, ref: str | int) -> BotVersionInfo:
        """A version by id, ``name`` (its latest version) or ``name@version`` (the latest build
        with that label)."""
        with self._read() as s:
            if isinstance(ref, int):
                row = s.execute(
                    select(BotVersion, Bot.name)
                    .join(Bot, Bot.id == BotVersion.bot_id)
                    .where(BotVersion.id == ref)
                ).first()
                if row is None:
                    raise NotFoundError(f"no bot version with id {ref}")
                return _version_info(row[0], row[1])
            name, _, label = ref.partition("@")
            bot = s.scalar(select(Bot).where(Bot.name == name))
            if bot is None:
                known = s.scalars(select(Bot.name).order_by(Bot.name)).all()
                listing = ", ".join(known) if known else "none registered yet"
                raise NotFoundError(f"unknown bot {name!r}; known bots: {listing}")
            query = select(BotVersion).where(BotVersion.bot_id == bot.id)
            if label:
                query = query.where(BotVersion.version_label == label)
            version = s.scalar(query.order_by(BotVersion.id.desc()).limit(1))
            if version is None:
                labels = s.scalars(
                    select(BotVersion.version_label)
                    .where(BotVersion.bot_id == bot.id)
                    .order_by(BotVersion.id)
                ).all()
                raise NotFoundError(
                    f"bot {name!r} has no version {label!r}; its versions: {', '.join(labels)}"
                )
            return _version_info(version, bot.name)

    def list_bots(self) -> list[BotInfo]:
        with self._read() as s:
            bots = s.scalars(select(Bot).order_by(Bot.name)).all()
            versions = s.scalars(select(BotVersion).order_by(BotVersion.id)).all()
            owners = {tid: name for tid, name in s.execute(select(ApiToken.id, ApiToken.name))}
        by_bot: dict[int, list[BotVersion]] = {}
        for v in versions:
            by_bot.setdefault(v.bot_id, []).append(v)
        return [
            BotInfo(
                id=b.id,
                name=b.name,
                created_at=b.created_at,
                versions=tuple(_version_info(v, b.name) for v in by_bot.get(b.id, [])),
                owner_token_id=b.owner_token_id,
                owner=owners.get(b.owner_token_id) if b.owner_token_id is not None else None,
                kind=b.kind,
                account_id=b.account_id,
            )
            for b in bots
        ]

    def bots_mark(self) -> tuple[int, int, int, int]:
        """Changes when a bot or a bot version is added or removed: (bots, their highest id,
        versions, their highest id). Two index reads, for a reader that keeps the bots it
        listed (the ladder) and lists them again only when this changes."""
        with self._read() as s:
            row = s.execute(
                select(
                    select(func.count(Bot.id)).scalar_subquery(),
                    select(func.coalesce(func.max(Bot.id), 0)).scalar_subquery(),
                    select(func.count(BotVersion.id)).scalar_subquery(),
                    select(func.coalesce(func.max(BotVersion.id), 0)).scalar_subquery(),
                )
            ).one()
        return (int(row[0]), int(row[1]), int(row[2]), int(row[3]))

    def fair_play_owners(self, version_ids: Iterable[int]) -> dict[int, int | None]:
        """Each version's owner for the fair-play rules (``arena.store.rated``): a member
        token's id, or None for the organiser's bots (registered locally, or an admin's)."""
        with self._read() as s:
            return member_owners(s, version_ids)

    def list_versions(self, name: str) -> list[BotVersionInfo]:
        latest = self.get_bot_version(name)
        with self._read() as s:
            versions = s.scalars(
                select(BotVersion).where(BotVersion.bot_id == latest.bot_id).order_by(BotVersion.id)
            ).all()
        return [_version_info(v, latest.name) for v in versions]


def _check_bot_name(name: str) -> None:
    if not name or len(name) > 100 or "@" in name or name != name.strip():
        raise StoreError(
            f"bad bot name {name!r}: 1-100 characters, no '@', no leading or trailing spaces"
        )


def _version_info(v: BotVersion, name: str) -> BotVersionInfo:
    return BotVersionInfo(
        id=v.id,
        bot_id=v.bot_id,
        name=name,
        version_label=v.version_label,
        content_hash=v.content_hash,
        source=v.source,
        created_at=v.created_at,
        owner_token_id=v.owner_token_id,
    )
