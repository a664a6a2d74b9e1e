"""What may be shown, to whom and when: the one policy that the gRPC service, the web pages, the
JSON API, the live event streams and the CLI's remote side all read through.

Who (``Viewer``): anyone (no token), a member (a token), a bot's owner (the token that submitted
it), an admin. When: the referee shuffles every hand's stock from the match's seed alone (R-2),
and no player may know the seed or the stock's order (spades-rules.md, "What each player may
know"), so a deal still to be played is a secret, and the records that show its cards stay
sealed until it is:

- **A running tournament's seed** (every deal seed derives from it) is shown to no one, an
  admin included, until the tournament is over: it shows as ``SEED_SECRET``, never as 0.
- **A deal still to be played** (a pending game of a running tournament, also one paused or
  interrupted) is sealed, and so is every played match with the same deal seed (its twin, the
  same deal with the seats swapped; in ``duplicate`` mode every pair of the round as well): its
  seed, its decisions, its replay, its frames and its detail (which may quote cards) are shown
  to no one until no game with that seed is left to play. Who plays it, and its result (which the
  standings count anyway), stay public; it shows as ``SEALED``.
- **A bot's own words** (its stderr, the details of the status it failed with, what it printed
  when it could not start) and server paths are its owner's: a match's detail is shown whole
  only to an admin or to the owner of every seat whose words it may quote (the seats that
  faulted); anyone else gets ``public_detail``: the referee's own notes read from the head of
  the detail up to the first place a bot's words could begin, and nothing after it (a bot may
  print text that looks like the referee's).
- **A bot's logs** are its owner's alone, and sealed with their match.

This module imports only the store and lower floors (the engine's records): the service and the
web each adapt its answers to their own wire (protobuf, HTML, JSON).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.referee.record import Termination
from arena.store import MatchSummary, NotOwnerError, Store, TournamentInfo, TournamentStatus

SEED_SECRET = "secret until finished"
"""How a running tournament's seed is shown, everywhere."""
SEALED = "sealed until its twin is played"
"""How a match whose deal is still to be played is shown, everywhere."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a token's id, name and role, or anyone (all None)."""

    token_id: int | None = None
    name: str | None = None
    role: str | None = None

    @property
    def anonymous(self) -> bool:
        return self.token_id is None

    @property
    def admin(self) -> bool:
        return self.role == "admin"


ANYONE = Viewer()


class SealedError(ArenaError):
    """A record not to be shown yet; the message says until when."""


# -- tournaments ---------------------------------------------------------------------------------


def tournament_seed_hidden(info: TournamentInfo) -> bool:
    """Whether a tournament's seed is secret: while it is to be played (running, paused or
    interrupted), every deal still to come derives from it."""
    return info.status is TournamentStatus.RUNNING


def shown_tournament_seed(info: TournamentInfo, seed: int) -> int | None:
    """The seed as it may be shown: None while it is secret (show ``SEED_SECRET``)."""
    return None if tournament_seed_hidden(info) else seed


def unplayed_seeds(store: Store, tournament_id: int | None) -> frozenset[int]:
    """Deal seeds of a running tournament's games still to be played: not to be shown."""
    if tournament_id is None:
        return frozenset()
    info = store.get_tournament(tournament_id)
    if not tournament_seed_hidden(info):
        return frozenset()
    return frozenset(g.seed for g in store.pending_games(tournament_id))


# -- a bot's words -------------------------------------------------------------------------------

_NAME = r"[a-z0-9][a-z0-9_-]{0,63}(?:@[\w.+-]{1,64})?"
_LABEL = rf"seat [01] \({_NAME}\)"
_EXIT = (
    r"its process has exited(?: \((?:exit code -?\d+|killed by [A-Z0-9]+|killed by signal \d+)"
    r"(?: at its memory limit \(\d+ MB\))?\))?"
    r"|the connection was lost"
)
_ACTION = (
    r"played [2-9TJQKA][cdhs]|bid -?\d+|kept the card|rejected the card|declared Double Nil"
    r"|declined Double Nil|exchanged \d cards \((?:[2-9TJQKA][cdhs] ?)*\)"
    r"|exchanged 0 cards \(none\)"
)
_COMPLETE = re.compile(
    # A note wholly the referee's (no bot's words in it), up to its fault count or its end.
    "(?:"
    + "|".join(
        (
            rf"{_LABEL}: no answer to \w+ within \d+ ms",
            rf"{_LABEL}: answered \w+ after \d+ ms, over its limit of \d+ ms",
            rf"the arena closed its connection to {_LABEL} during the match",
            r"the match was stopped by the arena",
            # An illegal action: the decoded action and the engine's message (R-…).
            rf"{_LABEL}: (?:{_ACTION}): R-\d+(?:\.\d+)*\b.*?(?= \(fault \d+|; earlier: |$)",
        )
    )
    + r")(?: \(fault \d+(?: of at most \d+|, [a-z ]{1,60})\))?"
)
_PREFIX = re.compile(
    # A note whose head is the referee's and whose rest may be a bot's words: the head only.
    "|".join(
        (
            rf"{_LABEL}: \w+ failed with status (?:[A-Z_]+|status \d+)",
            rf"{_LABEL}: malformed \w+ answer",
            rf"{_LABEL}: (?:{_EXIT}) (?:during \w+|before the match began"
            r"|before \w+ \(its connection is closed\))",
            rf"{_NAME} could not start\b",
        )
    )
)
EARLIER = "; earlier: "
"""Where the referee appends a match's earlier fault notes (either seat's) to its detail."""
OWNER_SEES_EARLIER = "(see the match)"
_SEPARATOR = re.compile(r"; earlier: |; ")
_PAUSED_AFTER = re.compile(r"forfeited its last \d+ ladder matches; the last: ")
_FILES_GONE = re.compile(r"its files are gone\b")
OWNER_SEES = "(the rest is its owner's)"


def public_detail(detail: str) -> str:
    """What anyone may read of a match's detail: the referee's notes read from the head, up to
    the first place a bot's own words (or a server path) could begin; the rest is the bots'
    owners'. Read from the head only: after a bot's words, text that looks like the referee's
    may be the bot's."""
    shown: list[str] = []
    pos = 0
    while pos < len(detail):
        note = _COMPLETE.match(detail, pos)
        if note is None:
            head = _PREFIX.match(detail, pos)
            shown.append(f"{head.group(0)} {OWNER_SEES}" if head else OWNER_SEES)
            break
        shown.append(note.group(0))
        pos = note.end()
        if pos == len(detail):
            break
        separator = _SEPARATOR.match(detail, pos)
        if separator is None:
            shown.append(f" {OWNER_SEES}")
            break
        shown.append(separator.group(0))
        pos = separator.end()
    return "".join(shown)


def public_pause_reason(reason: str) -> str:
    """A ladder pause's reason as anyone may read it (it quotes a match's detail)."""
    after = _PAUSED_AFTER.match(reason)
    if after is not None:
        return after.group(0) + public_detail(reason[after.end() :])
    gone = _FILES_GONE.match(reason)
    if gone is not None:
        return gone.group(0)  # without the server's path
    return OWNER_SEES


def quoted_seats(m: MatchSummary) -> tuple[int, ...]:
    """The seats whose words a match's detail may quote: those that faulted (a crash, an
    error status and a failed start each count as a fault)."""
    seats = tuple(s for s in (0, 1) if m.faults[s] > 0)
    if m.termination is Termination.FORFEIT_NO_START and not seats:
        seats = (0, 1) if m.winner is None else (1 - m.winner,)
    return seats


# -- the policy for one viewer -------------------------------------------------------------------


class Visibility:
    """The policy applied for one viewer. Made per request (or per event): it caches what it
    reads, the bots' owners and each tournament's sealed seeds."""

    def __init__(self, store: Store, viewer: Viewer) -> None:
        self.store = store
        self.viewer = viewer
        self._owners: dict[str, int | None] | None = None
        self._sealed: dict[int | None, frozenset[int]] = {}

    def forget_seals(self) -> None:
        """Read the sealed seeds afresh (the tournament moved on)."""
        self._sealed.clear()

    # -- owners ----------------------------------------------------------------------------

    def owner_of(self, bot: str) -> int | None:
        """The token id owning ``bot`` (a ``name`` or ``name@version``), None for none."""
        if self._owners is None:
            self._owners = {b.name: b.owner_token_id for b in self.store.list_bots()}
        return self._owners.get(bot.partition("@")[0])

    def owns(self, bot: str) -> bool:
        """Whether the viewer may read ``bot``'s own words and logs: its owner, or an admin."""
        if self.viewer.admin:
            return True
        if self.viewer.anonymous:
            return False
        return self.owner_of(bot) == self.viewer.token_id

    def check_log(self, m: MatchSummary, seat: int) -> None:
        """Raises ``NotOwnerError`` unless the viewer owns the bot in ``seat`` (its owner only:
        an admin reads the server's files, the API hands no one another's log), and
        ``SealedError`` while the match is sealed: a bot's log shows the cards it held, which
        are its opponent's in the twin still to be played."""
        bot = m.players[seat]
        owner = self.owner_of(bot)
        if owner is None or owner != self.viewer.token_id:
            raise NotOwnerError(
                f"only the owner of {bot.partition('@')[0]} (the token that submitted it) "
                "may read its log"
            )
        if self.sealed(m):
            raise SealedError(
                f"the log of match {m.match_id} is {SEALED}: it shows the cards of a deal "
                f"still to be played in tournament {m.tournament_id}"
            )

    # -- matches ---------------------------------------------------------------------------

    def sealed_seeds(self, tournament_id: int | None) -> frozenset[int]:
        if tournament_id not in self._sealed:
            self._sealed[tournament_id] = unplayed_seeds(self.store, tournament_id)
        return self._sealed[tournament_id]

    def seed_sealed(self, tournament_id: int | None, seed: int) -> bool:
        """Whether a deal of this tournament is still to be played (its seed is a secret)."""
        return seed in self.sealed_seeds(tournament_id)

    def sealed(self, m: MatchSummary) -> bool:
        """Whether a played match's deal is still to be played elsewhere (its twin)."""
        return self.seed_sealed(m.tournament_id, m.seed)

    def check_record(self, m: MatchSummary) -> None:
        """Raises ``SealedError`` for a match whose record (decisions, replay) is sealed."""
        if self.sealed(m):
            raise SealedError(
                f"match {m.match_id} is {SEALED}: its deal is still to be played in tournament "
                f"{m.tournament_id}, and its record opens when that game is over"
            )

    def check_analysis(self, m: MatchSummary) -> None:
        """Raises ``SealedError`` while a match's analysis may not be shown: an analysis (par,
        card-play loss) is computed from the deal, so it is sealed with the record."""
        self.check_record(m)

    def seed(self, m: MatchSummary) -> int | None:
        """The match's seed as it may be shown: None while sealed (show ``SEALED``)."""
        return None if self.sealed(m) else m.seed

    def sees_output(self, m: MatchSummary) -> bool:
        """Whether the viewer may read the bots' own words in this match's detail."""
        return all(self.owns(m.players[s]) for s in quoted_seats(m))

    def detail(self, m: MatchSummary) -> str:
        """The match's detail as the viewer may read it (none while sealed: it may quote
        cards)."""
        if self.sealed(m):
            return SEALED if m.detail else ""
        return m.detail if self.sees_output(m) else public_detail(m.detail)

    # -- the ladder ------------------------------------------------------------------------

    def pause_reason(self, bot: str, reason: str) -> str:
        """A ladder pause's reason: whole for an admin; for the paused bot's owner up to the
        match's earlier notes (which may quote the opponent's words); else
        ``public_pause_reason``."""
        if self.viewer.admin:
            return reason
        if self.owns(bot):
            own, earlier, _ = reason.partition(EARLIER)
            return own + (f"{EARLIER}{OWNER_SEES_EARLIER}" if earlier else "")
        return public_pause_reason(reason)
