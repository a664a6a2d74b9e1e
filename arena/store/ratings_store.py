"""The store's ratings: one TrueSkill rating per bot version, the leaderboard, a rebuild from
the match history, and the TrueSkill settings the ratings were computed with."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.ratings import RatingConfig, conservative_score
from arena.store import rating_order
from arena.store.core import StoreCore
from arena.store.errors import NotFoundError, StoreError
from arena.store.models import Bot, BotVersion, Rating, Setting
from arena.store.rows import HUMAN, LeaderboardRow, RatingInfo, player_filter_kinds

RATING_SETTINGS_KEY = "trueskill"


class RatingsMixin(StoreCore):
    """Ratings by bot version, ranked into the leaderboard."""

    def rating(self, bot_version_id: int) -> RatingInfo:
        with self._read() as s:
            r = s.get(Rating, bot_version_id)
            if r is None:
                raise NotFoundError(f"no bot version with id {bot_version_id}")
            return rating_info(r)

    def ratings(self) -> dict[int, RatingInfo]:
        with self._read() as s:
            return {r.bot_version_id: rating_info(r) for r in s.scalars(select(Rating))}

    def leaderboard(self, *, min_matches: int = 1, players: str = "all") -> list[LeaderboardRow]:
        """Bot versions ranked by mu - 3 sigma; ties by mu, then name, then age. People rated
        at ``/play`` are in the same pool: ``players`` (``all``, ``bots``, ``humans``) says
        whom to show; a rank is the place among those shown."""
        try:
            kinds = player_filter_kinds(players)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        with self._read() as s:
            rows = s.execute(
                select(
                    Rating, Bot.name, BotVersion.version_label, BotVersion.content_hash, Bot.kind
                )
                .join(BotVersion, BotVersion.id == Rating.bot_version_id)
                .join(Bot, Bot.id == BotVersion.bot_id)
                .where(Rating.matches >= min_matches, Bot.kind.in_(kinds))
            ).all()
            label_counts = {
                (name, label): n
                for name, label, n in s.execute(
                    select(Bot.name, BotVersion.version_label, func.count())
                    .join(Bot, Bot.id == BotVersion.bot_id)
                    .group_by(Bot.name, BotVersion.version_label)
                ).all()
            }
        scored = sorted(
            rows,
            key=lambda row: (
                -conservative_score(row[0].mu, row[0].sigma),
                -row[0].mu,
                row[1],
                row[0].bot_version_id,
            ),
        )
        board = []
        for rank, (r, name, label, content_hash, kind) in enumerate(scored, start=1):
            shared = label_counts.get((name, label), 1) > 1
            shown = f"{label}+{content_hash[:8]}" if shared else label
            board.append(
                LeaderboardRow(
                    rank=rank,
                    bot=name,
                    version=shown,
                    mu=r.mu,
                    sigma=r.sigma,
                    score=conservative_score(r.mu, r.sigma),
                    matches=r.matches,
                    wins=r.wins,
                    losses=r.losses,
                    draws=r.draws,
                    faults=r.faults,
                    bot_version_id=r.bot_version_id,
                    human=kind == HUMAN,
                )
            )
        return board

    def recompute_ratings(self) -> int:
        """Rebuild every rating from the applied matches in rating order (rating_order.py),
        with this store's TrueSkill settings; returns the number of matches applied."""
        with self._write() as s:
            rating_order.lock(s, self.dialect)
            rating_order.apply_all_ready(s, self._rater, self.dialect)
            applied = rating_order.rebuild(s, self._rater, self.dialect)
            self._write_rating_settings(s)
            return applied

    def ratings_stale(self) -> bool:
        """True when the stored ratings were computed in an older order (rating_order.py)."""
        with self._read() as s:
            return s.get(Setting, rating_order.STALE_KEY) is not None

    def rating_settings(self) -> RatingConfig | None:
        """The TrueSkill settings the stored ratings were computed with."""
        with self._read() as s:
            row = s.get(Setting, RATING_SETTINGS_KEY)
            return None if row is None else RatingConfig.from_dict(row.value)

    def _ensure_rating_settings(self) -> None:
        """Note the settings in a database that has none yet (a new one)."""
        if self.rating_settings() is not None:
            return
        with self._write() as s:
            s.execute(
                self._insert(Setting)
                .values(key=RATING_SETTINGS_KEY, value=self.rating_config.to_dict())
                .on_conflict_do_nothing(index_elements=["key"])
            )

    def effective_rating_config(self) -> RatingConfig:
        """The settings the stored ratings follow: those stored in the database (what every
        rated match so far was computed with), not the shell's ``ARENA_TRUESKILL_*``."""
        stored = self.rating_settings()
        return self.rating_config if stored is None else stored

    def check_rating_settings(self) -> None:
        """Refuse, before any match is played, to rate under settings other than the stored
        ones (``StoreError`` saying how to recompute or restore them)."""
        with self._read() as s:
            self._check_rating_settings(s, write=False)

    def _check_rating_settings(self, s: Session, *, write: bool = True) -> None:
        row = s.get(Setting, RATING_SETTINGS_KEY, populate_existing=True)
        stored = None if row is None else RatingConfig.from_dict(row.value)
        if stored is None:
            if write:
                self._write_rating_settings(s)
        elif stored != self.rating_config:
            raise StoreError(
                f"the ratings in {self.url} were computed with TrueSkill {stored.describe()}, "
                f"not the {self.rating_config.describe()} now set: run "
                "`arena ratings --recompute` to rebuild them with the new settings, or restore "
                "the old ARENA_TRUESKILL_* values"
            )

    def _write_rating_settings(self, s: Session) -> None:
        row = s.get(Setting, RATING_SETTINGS_KEY)
        if row is None:
            s.add(Setting(key=RATING_SETTINGS_KEY, value=self.rating_config.to_dict()))
        else:
            row.value = self.rating_config.to_dict()


def rating_info(r: Rating) -> RatingInfo:
    return RatingInfo(
        bot_version_id=r.bot_version_id,
        mu=r.mu,
        sigma=r.sigma,
        matches=r.matches,
        wins=r.wins,
        losses=r.losses,
        draws=r.draws,
        faults=r.faults,
    )
