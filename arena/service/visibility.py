"""The visibility policy (``arena.visibility``) on the service's wire: matches as arena.v1
messages for one caller.

A sealed match (its deal still to be played) carries ``sealed`` and seed 0, never its detail;
``GetMatch`` of it is FAILED_PRECONDITION. A match's detail quotes a bot's own words only for
their owner (or an admin)."""

from __future__ import annotations

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.service.auth import Caller
from arena.service.convert import match_to_pb, stored_match_to_pb
from arena.store import MatchSummary, Store, StoredMatch
from arena.visibility import SealedError, Visibility, public_detail

__all__ = ["MatchView", "SealedError", "public_detail"]


class MatchView:
    """Presents matches to one caller (one per call: its policy caches what it reads)."""

    def __init__(self, store: Store, caller: Caller) -> None:
        self.policy = Visibility(store, caller)

    def forget_seals(self) -> None:
        self.policy.forget_seals()

    def _finish(self, msg: pb.Match, m: MatchSummary) -> pb.Match:
        if self.policy.sealed(m):
            msg.seed = 0
            msg.sealed = True
        msg.detail = self.policy.detail(m)
        return msg

    def match(self, m: MatchSummary) -> pb.Match:
        return self._finish(match_to_pb(m), m)

    def record(self, stored: StoredMatch) -> pb.GetMatchResponse:
        self.policy.check_record(stored.summary)
        response = stored_match_to_pb(stored)
        self._finish(response.match, stored.summary)
        return response
