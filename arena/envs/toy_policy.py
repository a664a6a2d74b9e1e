"""A small policy learned from the environment in seconds with plain NumPy: the worked example
of docs/research.md, and the policy the tests serve as a bot.

It learns one number per card: how many tricks a hand holding it takes, by least squares of the
tricks won on the cards held, over one-hand episodes of ``spades_v0`` played by the policy of
the round before (random play at first). It bids the sum over its hand (never Nil), keeps a card
looked at when it is worth more than an average card, and plays its most valuable legal card
while its bid is not made, its least valuable after (bags cost, R-5.5).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena.envs import actions as ids
from arena.envs import encoding as enc
from arena.rules import RuleSet

_MY_BID = enc.SEATS + enc.S_BID
_MY_TRICKS = enc.SEATS + enc.S_TRICKS


class ToyPolicy:
    """``policy(observation, action_mask) -> action`` from per-card trick values."""

    def __init__(self, values: np.ndarray, bias: float = 0.0) -> None:
        self.values = np.asarray(values, np.float64)
        self.bias = float(bias)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if mask[ids.NO_DOUBLE_NIL]:
            return ids.NO_DOUBLE_NIL
        if mask[ids.EXCHANGE_DONE]:
            return ids.EXCHANGE_DONE
        if mask[ids.KEEP]:
            card = int(np.flatnonzero(observation[enc.LOOKING_AT : enc.LOOKING_AT + 52])[0])
            return ids.KEEP if self.values[card] >= self.values.mean() else ids.REJECT
        if mask[ids.BID_BASE]:
            hand = observation[enc.HAND : enc.HAND + 52] > 0
            bid = round(float(self.bias + self.values[hand].sum()))
            return ids.BID_BASE + min(13, max(1, bid))
        bid = int(np.flatnonzero(observation[_MY_BID : _MY_BID + 15])[0]) - 1
        won = round(float(observation[_MY_TRICKS]) * 13)
        worth = self.values[legal]
        return int(legal[np.argmax(worth)] if won < bid else legal[np.argmin(worth)])

    def save(self, path: str | Path) -> None:
        np.savez(path, values=self.values, bias=self.bias)

    @classmethod
    def load(cls, path: str | Path) -> ToyPolicy:
        data = np.load(path)
        return cls(data["values"], float(data["bias"]))


def random_policy(rng: np.random.Generator):
    """Uniform over the legal actions."""
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def collect(policy, episodes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``episodes`` one-hand matches of the policy against itself: each seat's hand when it
    bids (52 zeros and ones) and the tricks it then won."""
    from arena.envs import spades_v0

    env = spades_v0.raw_env(rules=RuleSet(max_hands=1, double_nil_allowed=False))
    hands, tricks = [], []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        at_bid: dict[str, np.ndarray] = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if obs["action_mask"][ids.BID_BASE]:
                at_bid[agent] = obs["observation"][enc.HAND : enc.HAND + 52].copy()
            env.step(policy(obs["observation"], obs["action_mask"]))
        m = env.match
        assert m is not None
        result = m.hand_results[-1]
        for seat, agent in enumerate(env.possible_agents):
            hands.append(at_bid[agent])
            tricks.append(result.tricks_won[seat])
    return np.array(hands), np.array(tricks, np.float64)


def train(rounds: int = 3, episodes: int = 200, seed: int = 0) -> ToyPolicy:
    """Fit the card values by least squares, ``rounds`` times, each on ``episodes`` hands of
    the policy fitted before (of random play first)."""
    policy = random_policy(np.random.default_rng(seed))
    fitted = None
    for r in range(rounds):
        hands, tricks = collect(policy, episodes, seed + r * episodes)
        design = np.hstack([hands, np.ones((len(hands), 1))])
        solution, *_ = np.linalg.lstsq(design, tricks, rcond=None)
        fitted = ToyPolicy(solution[:52], solution[52])
        policy = fitted
    assert fitted is not None
    return fitted
