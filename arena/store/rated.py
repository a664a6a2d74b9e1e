"""What is rated, and why a match that is kept is not.

A rating says how strong a bot is against others. A result that says nothing about that is
recorded (nothing is lost) but never rated, and the record says why:

- ``aborted``: the arena stopped before the match ended (a tournament game is played again);
- ``self_play``: a bot version against itself;
- ``not_started``: a bot could not start, so no card was dealt; a win nobody played for is not
  a win (a bot that cannot start is paused by the ladder instead);
- ``no_winner``: a forfeit with no winner (neither side could play);
- ``same_owner``: both versions belong to one member. A member's second bot could throw its
  matches to the first (a "shill" losing on purpose to its "star"); between one owner's bots no
  result is evidence of strength. An admin's bots, like bots registered locally, are the
  organiser's: the arena's own, rated against each other (an admin may pit any bots anyway).
- ``unrated_play``: recorded with ``rate=False``: a person's match at ``/play`` (rating is
  opt-in for people), or the reference bot's match on the same deal ("beat the bot").
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.referee.record import MatchResult, Termination
from arena.store.models import ApiToken, BotVersion


class UnratedReason(enum.Enum):
    ABORTED = "aborted"
    SELF_PLAY = "self_play"
    NOT_STARTED = "not_started"
    NO_WINNER = "no_winner"
    SAME_OWNER = "same_owner"
    UNRATED_PLAY = "unrated_play"

    @property
    def text(self) -> str:
        """How a page or the CLI says it: ``not rated: both bots have one owner``."""
        return _TEXT[self]


_TEXT = {
    UnratedReason.ABORTED: "aborted",
    UnratedReason.SELF_PLAY: "a bot version against itself",
    UnratedReason.NOT_STARTED: "never started (a bot could not start)",
    UnratedReason.NO_WINNER: "a forfeit with no winner",
    UnratedReason.SAME_OWNER: "both bots have one owner",
    UnratedReason.UNRATED_PLAY: "played at /play (a person's match, or its reference bot's)",
}


def unrated_reason(
    result: MatchResult, seats: tuple[int, int], owners: tuple[int | None, int | None]
) -> UnratedReason | None:
    """Why this match is not rated; None when it is. ``owners``: each seat's owner (the token
    id recorded with its version; None for a bot registered locally, an organiser's)."""
    if result.termination is Termination.ABORTED:
        return UnratedReason.ABORTED
    if seats[0] == seats[1]:
        return UnratedReason.SELF_PLAY
    if result.termination is Termination.FORFEIT_NO_START:
        return UnratedReason.NOT_STARTED
    if result.termination.is_forfeit and result.winner is None:
        return UnratedReason.NO_WINNER
    if owners[0] is not None and owners[0] == owners[1]:
        return UnratedReason.SAME_OWNER
    return None


def member_owners(s: Session, version_ids: Iterable[int]) -> dict[int, int | None]:
    """Each version's owner for the fair-play rules: its member token's id; None for a bot
    registered locally or owned by an admin token (the organiser's)."""
    rows = s.execute(
        select(BotVersion.id, BotVersion.owner_token_id, ApiToken.role)
        .outerjoin(ApiToken, ApiToken.id == BotVersion.owner_token_id)
        .where(BotVersion.id.in_(list(version_ids)))
    )
    return {vid: owner if role == "member" else None for vid, owner, role in rows}


def describe_unrated(reason: str | None) -> str:
    """``not rated: …`` for a stored reason (a database from before revision 0005: no reason)."""
    if reason is None:
        return "not rated"
    try:
        return f"not rated: {UnratedReason(reason).text}"
    except ValueError:
        return f"not rated: {reason}"
