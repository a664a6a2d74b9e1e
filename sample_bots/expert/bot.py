"""Expert: PIMC over exact play-outs. It samples the hidden cards and solves each sampled deal
with a double-dummy search, many times.

- Inference (spades_expert.inference): the opponent's hand is sampled from the cards it may hold
  (not ours, not played, not our discards unless its exchange drew them, not in a suit it has
  shown void), leaning towards hands that fit its bid and towards the good cards its draw
  would have kept.
- Play: Perfect Information Monte Carlo over those deals, each solved exactly by the
  double-dummy search of ``arena.analysis`` (the C search), every card valued by the hand's
  points for both players under the match situation (bags, Nils, the target).
- Bid: the expected value of every bid over the double-dummy tricks of sampled deals, and of
  Nil over the deals solved under a Nil's payoff; Double Nil as a gamble when far behind an
  opponent near the target.
- Draw and exchange: fast card values, no search.

The time is ``EXPERT_BUDGET_MS`` (100 by default, set in bot.toml) per searched decision on
average: a hand has ``HAND_SEARCHES`` budgets, shared out over its bid and plays by weight, the
early ones (whose deals cost most and matter most) getting more, and a search ends early once one
card is clearly best; what it leaves goes to the hand's later decisions. One decision never takes
more than ``MAX_SHARE`` budgets, nor more than the move time minus a safety margin: every
double-dummy solve is given the positions it may walk in the time left, and one that reaches
them is dropped (with no deal solved, a fast policy plays). Forced moves are not searched.
``EXPERT_SIMS`` instead fixes the number of sampled deals per decision (independent of the
machine's load). With ``ARENA_BOT_SEED`` each decision's generator is derived from the seed and
the decision's place in its match: with ``EXPERT_SIMS`` the bot is then fully repeatable.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spades_expert import search
from spades_expert.inference import knowledge_of

from arena.rules import Decision
from arena.sdk import Bot, HandEnd, MatchEnd, View, serve

DEFAULT_BUDGET_MS = 100
SAFETY_MS = 150
"""Kept free of the move time for the transport and a loaded machine."""
HAND_SEARCHES = 15
"""Searched decisions in a hand on average (the bid and the plays with a real choice): a hand's
time is this many budgets, shared out over its decisions by ``share``."""
MAX_SHARE = 2.0
"""No decision takes more than this many budgets."""
SHARE_POWER = 2.0
"""A decision's weight in the hand's time: the tricks left to the power of this (the bid
counts as the first play). A deal of an early play costs about tricks left times candidates,
so the early plays and the bid get most; the late ones, which end their race early, little."""


def _env_int(name: str) -> int | None:
    text = os.environ.get(name, "").strip()
    return int(text) if text else None


class ExpertBot(Bot):
    name = "expert"
    hand_searches = HAND_SEARCHES

    def __init__(
        self,
        budget_ms: int = DEFAULT_BUDGET_MS,
        seed: int | None = None,
        sims: int | None = None,
    ) -> None:
        self.budget_ms = budget_ms
        self.seed = seed
        self.sims = sims
        """Sampled deals per decision (every searched decision the same), instead of time."""
        self.share_power = SHARE_POWER
        self.stats = search.Stats()
        """Simulations of every search so far (for the benchmarks)."""
        self.searches = 0
        self._banks: dict[tuple[str, int, int], float] = {}
        """What is left of each hand's budget (seconds), by match, hand, seat."""
        self._lock = threading.Lock()
        self._rng = Random()

    # -- plumbing ---------------------------------------------------------------------------

    def rng(self, view: View) -> Random:
        if self.seed is None:
            return self._rng
        trick = view.current_trick
        key = (
            f"{self.seed}/{view.match_id}/{view.seat}/{view.hand_number}/{view.decision.value}/"
            f"{view.stock_size}/{len(view.tricks)}/{len(trick.cards) if trick else 0}"
        )
        return Random(key)

    def time_cap(self, view: View) -> float:
        """The most a search may take (seconds): a quarter of the move time, and at least
        ``SAFETY_MS`` short of it: the rest is left to the transport and a loaded machine (on
        a busy machine an answer planned at 250 ms was seen to take 900). The time bank is
        never counted on."""
        move = view.clock.move_time_ms
        return max(0, min(move // 4, move - SAFETY_MS)) / 1000

    def share(self, view: View, bank: float) -> float:
        """This decision's part of what is left of the hand's budget: its weight over the
        weights of the decisions still to come (a play of the last trick is always forced)."""
        p = self.share_power
        left = view.tricks_left if view.decision is Decision.PLAY else 13
        ahead = sum(t**p for t in range(2, left + 1))
        if view.decision is Decision.BID:
            ahead += 13**p
        return bank * left**p / ahead if ahead else bank

    def limit(self, view: View, start: float) -> tuple[search.Limit, tuple[str, int, int]]:
        key = (view.match_id, view.hand_number, view.seat)
        if self.sims is not None:  # a fixed number of deals: repeatable whatever the load
            return search.Limit(deals=max(1, self.sims)), key
        unit = self.budget_ms / 1000
        with self._lock:
            bank = self._banks.setdefault(key, unit * self.hand_searches)
        allowance = min(self.share(view, bank), MAX_SHARE * unit)
        return search.Limit(deadline=start + max(0.0, min(allowance, self.time_cap(view)))), key

    def knowledge(self, view: View):
        return knowledge_of(view)

    def _search(self, fn, view: View) -> int:
        start = time.perf_counter()
        limit, key = self.limit(view, start)
        k = self.knowledge(view)
        rng = self.rng(view)
        stats = search.Stats()
        result = fn(view, k, rng, limit, stats)
        used = time.perf_counter() - start
        with self._lock:
            if key in self._banks:
                self._banks[key] -= used
            self.searches += 1
            for name in search.Stats.__slots__:
                setattr(self.stats, name, getattr(self.stats, name) + getattr(stats, name))
        return result

    # -- decisions --------------------------------------------------------------------------

    def decide_double_nil(self, view: View) -> bool:
        return search.choose_double_nil(view)

    def draw(self, view: View) -> bool:
        return search.choose_draw(view)

    def exchange(self, view: View) -> Iterable[int]:
        return search.choose_exchange(view)

    def bid(self, view: View) -> int:
        return self._search(search.choose_bid, view)

    def play(self, view: View) -> int:
        if len(view.legal_cards) == 1:
            return view.legal_cards[0]
        return self._search(search.choose_play, view)

    # -- notices ----------------------------------------------------------------------------

    def end_hand(self, end: HandEnd) -> None:
        with self._lock:
            self._banks.pop((end.match_id, end.result.hand_number, end.seat), None)

    def end_match(self, end: MatchEnd) -> None:
        with self._lock:
            for key in [k for k in self._banks if k[0] == end.match_id]:
                del self._banks[key]


def make_bot() -> ExpertBot:
    return ExpertBot(
        budget_ms=_env_int("EXPERT_BUDGET_MS") or DEFAULT_BUDGET_MS,
        seed=_env_int("ARENA_BOT_SEED"),
        sims=_env_int("EXPERT_SIMS"),
    )


if __name__ == "__main__":
    from arena.analysis import C_SEARCH

    which = "C" if C_SEARCH is not None else "Python (the C module did not load: slow)"
    print(f"expert: double-dummy search in {which}", file=sys.stderr, flush=True)
    bot = make_bot()
    gc.freeze()  # the start-up objects stay out of every collection during the searches
    serve(bot)
