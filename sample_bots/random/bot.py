"""Random: uniformly random legal choices. The baseline every other bot must beat.

Set ARENA_BOT_SEED to an integer for repeatable choices: each decision's generator is then
derived from the seed and the decision's place in its match, so the choices do not depend on
how concurrent matches interleave.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable

from arena.sdk import Bot, View, serve

DOUBLE_NIL_CHANCE = 0.02
"""Declare Double Nil (R-3.3) rarely, so that matches still exercise it."""


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random()

    def rng(self, view: View) -> random.Random:
        if self.seed is None:
            return self._rng
        current = view.current_trick
        key = (
            f"{self.seed}/{view.match_id}/{view.seat}/{view.hand_number}/{view.decision.value}/"
            f"{view.stock_size}/{len(view.tricks)}/{len(current.cards) if current else 0}"
        )
        return random.Random(key)

    def decide_double_nil(self, view: View) -> bool:
        return self.rng(view).random() < DOUBLE_NIL_CHANCE

    def draw(self, view: View) -> bool:
        return self.rng(view).random() < 0.5

    def exchange(self, view: View) -> Iterable[int]:
        rng = self.rng(view)
        count = rng.randint(0, min(view.max_cards, len(view.hand)))
        return rng.sample(view.hand, count)

    def bid(self, view: View) -> int:
        return self.rng(view).choice(view.legal_bids)

    def play(self, view: View) -> int:
        return self.rng(view).choice(view.legal_cards)


def seed_from_env() -> int | None:
    text = os.environ.get("ARENA_BOT_SEED", "").strip()
    return int(text) if text else None


def make_bot() -> RandomBot:
    return RandomBot(seed_from_env())


if __name__ == "__main__":
    serve(make_bot())
