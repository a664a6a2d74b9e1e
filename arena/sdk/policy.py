"""Any ``policy(observation, action_mask) -> action`` written against the research environments
served as a bot: the arena's way from a trained agent to a rated one.

    from arena.sdk.policy import serve_policy

    serve_policy(my_policy, name="my-agent")

The observation is built from the request's information set with the environments' own
encoder (``arena.envs.encoding``: the request carries exactly what ``Match.observation`` gives
a seat, so it is the same array), and the mask from its legal options; the action is an id of
``arena.envs.actions``. A Double Nil exchange is asked card by card, as in the environments.
Needs numpy (the ``research`` extra).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arena.envs import actions as ids
from arena.envs import encoding
from arena.rules import Decision
from arena.sdk.bot import Bot
from arena.sdk.server import serve
from arena.sdk.view import View

Policy = Callable[[np.ndarray, np.ndarray], int]


class PolicyError(RuntimeError):
    """The policy chose an action the mask does not allow (the referee records a fault)."""


def observe(view: View, picked: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The observation array and action mask of a request, as the environments build them."""
    obs = encoding.encode(view.observation, picked)
    mask = np.zeros(ids.NUM_ACTIONS, np.int8)
    mask[ids.legal_ids_for(view.decision, view.hand, view.legal_cards, picked)] = 1
    return obs, mask


class PolicyBot(Bot):
    """A bot that asks ``policy`` for every decision."""

    def __init__(self, policy: Policy, name: str = "policy") -> None:
        self.policy = policy
        self.name = name

    def ask(self, view: View, picked: tuple[int, ...] = ()) -> int:
        obs, mask = observe(view, picked)
        action = int(self.policy(obs, mask))
        if not 0 <= action < ids.NUM_ACTIONS or not mask[action]:
            legal = ", ".join(ids.describe(int(a)) for a in np.flatnonzero(mask))
            raise PolicyError(
                f"the policy chose action {action}, not legal in a {view.decision.value} "
                f"decision (legal: {legal})"
            )
        return action

    def decide_double_nil(self, view: View) -> bool:
        return self.ask(view) == ids.DOUBLE_NIL

    def draw(self, view: View) -> bool:
        return self.ask(view) == ids.KEEP

    def exchange(self, view: View) -> tuple[int, ...]:
        picked: tuple[int, ...] = ()
        while len(picked) < view.max_cards:
            action = self.ask(view, picked)
            if action == ids.EXCHANGE_DONE:
                break
            picked = (*picked, action)
        return picked

    def bid(self, view: View) -> int:
        return self.ask(view) - ids.BID_BASE

    def play(self, view: View) -> int:
        return self.ask(view)


def serve_policy(policy: Policy, name: str = "policy", address: str | None = None) -> None:
    """Serve ``policy`` as a bot until stopped (``arena.sdk.serve``: ``--listen`` or
    $ARENA_BOT_ADDRESS)."""
    serve(PolicyBot(policy, name), address)


__all__ = ["Decision", "Policy", "PolicyBot", "PolicyError", "observe", "serve_policy"]
