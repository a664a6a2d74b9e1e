"""Expert: a search bot that samples the hidden cards and plays the hand out, many times.

- Inference (spades_expert.inference): the opponent's hand is sampled from the cards it may hold
  (not ours, not played, not our discards unless its exchange drew them, not in a suit it has
  shown void), leaning towards hands that fit its bid.
- Play: Perfect Information Monte Carlo over those deals, each card scored by the hand's points
  for both players under the match situation (bags, Nils, the target).
- Bid: the expected value of every bid, and of Nil, over simulated deals; Double Nil as a
  gamble when far behind an opponent near the target.
- Draw and exchange: fast card values, no search.

The time per searched decision is ``EXPERT_BUDGET_MS`` (100 by default, set in bot.toml), never
more than the move time minus a safety margin. ``EXPERT_SIMS`` instead fixes the number of
sampled deals per decision. With ``ARENA_BOT_SEED`` each decision's generator is derived from the
seed and the decision's place in its match: with ``EXPERT_SIMS`` the bot is then fully
repeatable; with a time budget, repeatable up to how many deals the time allowed.
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

from arena.sdk import Bot, HandEnd, MatchEnd, View, mask_of, serve

DEFAULT_BUDGET_MS = 100
SAFETY_MS = 150
"""Kept free of the move time for the transport and a loaded machine."""


def _env_int(name: str) -> int | None:
    text = os.environ.get(name, "").strip()
    return int(text) if text else None


class ExpertBot(Bot):
    name = "expert"

    def __init__(
        self, budget_ms: int = DEFAULT_BUDGET_MS, seed: int | None = None, sims: int | None = None
    ) -> None:
        self.budget_ms = budget_ms
        self.seed = seed
        self.sims = sims
        self.stats = search.Stats()
        """Simulations of every search so far (for the benchmarks)."""
        self.searches = 0
        self._aside: dict[tuple[str, int], int] = {}
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

    def deadline(self, view: View, start: float) -> float:
        """When the search stops: the budget, within the move time less a margin."""
        move = view.clock.move_time_ms
        ms = min(self.budget_ms, move - max(SAFETY_MS, move // 4))
        return start + max(0, ms) / 1000

    def knowledge(self, view: View):
        with self._lock:
            aside = self._aside.get((view.match_id, view.hand_number), 0)
        return knowledge_of(view, aside)

    def _search(self, fn, view: View) -> int:
        start = time.perf_counter()
        k = self.knowledge(view)
        rng = self.rng(view)
        stats = search.Stats()
        if self.sims is not None:  # a fixed number of deals: repeatable whatever the load
            result = fn(view, k, rng, 0.0, stats, max(1, self.sims))
        else:
            result = fn(view, k, rng, self.deadline(view, start), stats)
        with self._lock:
            self.searches += 1
            self.stats.deals += stats.deals
            self.stats.playouts += stats.playouts
            self.stats.seconds += stats.seconds
        return result

    # -- decisions --------------------------------------------------------------------------

    def decide_double_nil(self, view: View) -> bool:
        return search.choose_double_nil(view)

    def draw(self, view: View) -> bool:
        return search.choose_draw(view)

    def exchange(self, view: View) -> Iterable[int]:
        cards = search.choose_exchange(view)
        with self._lock:
            self._aside[(view.match_id, view.hand_number)] = mask_of(cards)
        return cards

    def bid(self, view: View) -> int:
        return self._search(search.choose_bid, view)

    def play(self, view: View) -> int:
        if len(view.legal_cards) == 1:
            return view.legal_cards[0]
        return self._search(search.choose_play, view)

    # -- notices ----------------------------------------------------------------------------

    def end_hand(self, end: HandEnd) -> None:
        with self._lock:
            self._aside.pop((end.match_id, end.result.hand_number), None)

    def end_match(self, end: MatchEnd) -> None:
        with self._lock:
            for key in [k for k in self._aside if k[0] == end.match_id]:
                del self._aside[key]


def make_bot() -> ExpertBot:
    return ExpertBot(
        budget_ms=_env_int("EXPERT_BUDGET_MS") or DEFAULT_BUDGET_MS,
        seed=_env_int("ARENA_BOT_SEED"),
        sims=_env_int("EXPERT_SIMS"),
    )


if __name__ == "__main__":
    bot = make_bot()
    gc.freeze()  # the start-up objects stay out of every collection during the searches
    serve(bot)
