"""What a caller sees of a match: others see what happened, its bots' owners see everything.

- A match whose deal is still to be played in a running tournament (``deals.unplayed_seeds``)
  is shown without its seed, and its decisions (which show the cards) are sealed until then.
- ``Match.detail`` quotes a bot's own words (the details of the status it failed with, what it
  printed when it could not start) and may name server paths: shown to anyone but the owner of
  every bot of the match (or an admin), it says only what happened ("crashed during Play (exit
  code 3)"), with absolute paths and ``PATH`` values cut out.
"""

from __future__ import annotations

import re

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.errors import ArenaError
from arena.service.auth import Caller
from arena.service.convert import match_to_pb, stored_match_to_pb
from arena.service.deals import unplayed_seeds
from arena.store import MatchSummary, Store, StoredMatch

_CODES = (
    "OK|CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|"
    "PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|"
    "UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED"
)
_STATUS_DETAILS = re.compile(rf"\b(StatusCode\.)?({_CODES}): .*?(?=\)(?: \(fault|;|$)|$)")
_COULD_NOT_START = re.compile(r"(could not start): [^;]*")
_PATH_VALUE = re.compile(r"\bPATH=\S*")
_ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)*[\w.+-]+")


class SealedError(ArenaError):
    """A record not to be shown yet (FAILED_PRECONDITION); the message says until when."""


def public_detail(detail: str) -> str:
    """``detail`` without the bots' own words, server paths or ``PATH``."""
    text = _STATUS_DETAILS.sub(lambda m: m.group(2), detail)
    text = _COULD_NOT_START.sub(r"\1 (its owner sees why)", text)
    text = _PATH_VALUE.sub("PATH=…", text)
    return _ABSOLUTE_PATH.sub("…", text)


class MatchView:
    """Presents matches to one caller (one per call: it caches what it reads)."""

    def __init__(self, store: Store, caller: Caller) -> None:
        self._store = store
        self._caller = caller
        self._owners: dict[str, int | None] | None = None
        self._sealed: dict[int | None, frozenset[int]] = {}

    def forget_seals(self) -> None:
        self._sealed.clear()

    def _owns_all(self, players: tuple[str, str]) -> bool:
        if self._caller.admin:
            return True
        if self._caller.token_id is None:
            return False
        if self._owners is None:
            self._owners = {b.name: b.owner_token_id for b in self._store.list_bots()}
        return all(self._owners.get(p.partition("@")[0]) == self._caller.token_id for p in players)

    def _seed_sealed(self, m: MatchSummary) -> bool:
        if m.tournament_id not in self._sealed:
            self._sealed[m.tournament_id] = unplayed_seeds(self._store, m.tournament_id)
        return m.seed in self._sealed[m.tournament_id]

    def _finish(self, msg: pb.Match, m: MatchSummary) -> pb.Match:
        if self._seed_sealed(m):
            msg.seed = 0
        if not self._owns_all(m.players):
            msg.detail = public_detail(m.detail)
        return msg

    def match(self, m: MatchSummary) -> pb.Match:
        return self._finish(match_to_pb(m), m)

    def record(self, stored: StoredMatch) -> pb.GetMatchResponse:
        m = stored.summary
        if self._seed_sealed(m):
            raise SealedError(
                f"match {m.match_id}: its deal is still to be played in tournament "
                f"{m.tournament_id}; its record opens when that game is over"
            )
        response = stored_match_to_pb(stored)
        self._finish(response.match, m)
        return response
