"""OpenSpiel's ISMCTS on the ``spades_2p`` game: a search bot the arena did not write.

Each decision builds an OpenSpiel state from the request's information set (the hidden cards
sampled, ``arena.envs.spades_2p.state_from_observation``) and asks OpenSpiel's own
``ISMCTSBot`` (Cowling, Powley and Whitehouse 2012) for the action, with its random-rollout
evaluator. The game it searches ends with the current hand and pays the score margin, so a
play-out stays short; the match situation (scores, bags, target) is in the state. Budget:
``ISMCTS_SIMULATIONS`` per decision (bot.toml); forced decisions are answered at once. A Double
Nil exchange is searched card by card, as the game asks it. With ``ARENA_BOT_SEED`` each
decision's generator comes from the seed and the decision's place in its match.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable
from functools import lru_cache
from random import Random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from arena.envs import actions as ids
from arena.envs import spades_2p
from arena.rules import RuleSet
from arena.sdk import Bot, View, serve

UCT_C = 100.0
"""The exploration constant, in score-margin units (a hand moves the margin by tens to
hundreds of points)."""


@lru_cache(maxsize=64)
def game_for(rules: RuleSet, hand_number: int) -> pyspiel.Game:
    """``spades_2p`` under ``rules``, ending with hand ``hand_number`` (R-6.3) and paying the
    score margin."""
    params = {**rules.to_dict(), "max_hands": hand_number, "returns": "margin"}
    return pyspiel.load_game(spades_2p.GAME_NAME, params)


class IsmctsBot(Bot):
    name = "openspiel_ismcts"

    def __init__(self, simulations: int, seed: int | None = None) -> None:
        self.simulations = simulations
        self.seed = seed

    def _rng(self, view: View, picked: tuple[int, ...]) -> np.random.RandomState:
        if self.seed is None:
            return np.random.RandomState()
        current = view.current_trick
        key = (
            f"{self.seed}/{view.match_id}/{view.seat}/{view.hand_number}/{view.decision.value}/"
            f"{view.stock_size}/{len(view.tricks)}/{len(current.cards) if current else 0}/{picked}"
        )
        return np.random.RandomState(zlib.crc32(key.encode()))

    def search(self, view: View, picked: tuple[int, ...] = ()) -> int:
        game = game_for(view.rules, view.hand_number)
        rng = self._rng(view, picked)
        state = spades_2p.state_from_observation(
            game, view.observation, Random(int(rng.randint(2**31))), picked
        )
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        bot = ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
            uct_c=UCT_C,
            max_simulations=self.simulations,
            random_state=rng,
            allow_inconsistent_action_sets=True,
        )
        # Deals sampled from this decision's generator, not OpenSpiel's own (unseeded) one.
        bot.set_resampler(lambda s, player: s.resample_from_infostate(player, rng.uniform))
        return int(bot.step(state))

    def decide_double_nil(self, view: View) -> bool:
        return self.search(view) == ids.DOUBLE_NIL

    def draw(self, view: View) -> bool:
        return self.search(view) == ids.KEEP

    def exchange(self, view: View) -> Iterable[int]:
        picked: tuple[int, ...] = ()
        while len(picked) < view.max_cards:
            action = self.search(view, picked)
            if action == ids.EXCHANGE_DONE:
                break
            picked = (*picked, action)
        return picked

    def bid(self, view: View) -> int:
        return self.search(view) - ids.BID_BASE

    def play(self, view: View) -> int:
        return self.search(view)


def make_bot() -> IsmctsBot:
    seed = os.environ.get("ARENA_BOT_SEED", "").strip()
    return IsmctsBot(
        simulations=int(os.environ.get("ISMCTS_SIMULATIONS", "40")),
        seed=int(seed) if seed else None,
    )


if __name__ == "__main__":
    serve(make_bot())
