"""Two-player Spades as a PettingZoo AEC environment, on the arena's engine.

    from arena.envs import spades_v0

    env = spades_v0.env(reward="win_loss")
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)
        env.step(action)

Agents ``player_0`` and ``player_1`` are seats 0 and 1 (seat 0 draws first in hand 1, R-1.3).
Actions: ``arena.envs.actions`` (71 ids); observations: ``{"observation": float32[SIZE],
"action_mask": int8[71]}`` (``arena.envs.encoding``), all zero in the mask of the seat not to
act. Rewards: ``"win_loss"`` gives +1/-1 (0 for a draw by R-6.3) when the match ends;
``"points"`` gives each seat what its score changed by at the end of every hand (R-5), so a
seat's return is its final score. Pass ``rules=RuleSet(max_hands=1)`` for one-hand episodes.
The game is turn-based, so there is no parallel form (PettingZoo's ``aec_to_parallel`` is for
simultaneous moves).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable

from arena.envs import actions as ids
from arena.envs import encoding
from arena.envs.render import render_table
from arena.rules import Decision, Match, RuleSet

REWARDS = ("win_loss", "points")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual guards: an illegal action ends the episode with
    reward -1 for the seat that made it, out-of-range actions and calls out of order raise.

    What it wraps: ``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (``_OrderEnforcing``,
    a subclass: the same checks, and after reset its ``last`` and ``step`` are the
    environment's own, whose step keeps the wrapper's ``_has_updated``), with
    ``AssertOutOfBoundsWrapper``'s check and ``TerminateIllegalWrapper(illegal_reward=-1)``'s
    ending built into the environment's step, off the path of a legal action
    (``_GuardedEnv``). It behaves as ``raw_env`` in PettingZoo's three stacked
    (``pettingzoo_wrapped``; a test plays both side by side); stacked, their attribute
    forwarding costs several times the environment itself per step (docs/benchmarks.md)."""
    return _OrderEnforcing(_GuardedEnv(**kwargs))


def pettingzoo_wrapped(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's own three wrappers, as ``env()`` behaves: for comparison."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """The bare environment: an illegal action raises ``IllegalEnvActionError``."""

    _guarded = False
    """env()'s guards in the step (``_GuardedEnv``)."""

    metadata: dict[str, Any] = {
        "name": "spades_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: RuleSet | None = None,
        reward: str = "win_loss",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'human' or 'ansi'; got {render_mode!r}")
        self.rules = rules or RuleSet()
        self.reward_kind = reward
        self._points = reward == "points"
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        low = np.zeros(encoding.SIZE, np.float32)
        high = np.ones(encoding.SIZE, np.float32)
        for k in range(2):  # scores have no bound; the rule set's numbers none either
            low[encoding.SEATS + k * encoding.SEAT_SIZE + encoding.S_SCORE] = -np.inf
            high[encoding.SEATS + k * encoding.SEAT_SIZE + encoding.S_SCORE] = np.inf
        high[encoding.RULES : encoding.RULES + 2] = np.inf
        space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (ids.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ids.NUM_ACTIONS) for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self.match: Match | None = None
        self._picked: tuple[int, ...] = ()
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._rules_cache = encoding.RulesCache()
        self._observer: Any = encoding.observer(self.rules)
        """The C observer (``encoding.observer``): the step's two reads of the engine's state,
        the observation with its mask and a play, draw, bid or Double Nil action's engine
        action; None where it was not built (then the Python path)."""
        self._rewarded = False
        self._own_observe = type(self).observe is raw_env.observe
        self._plain = not self._points and render_mode != "human"
        """Whether a step's only effects are the move and, at the end, win/loss rewards."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """``AECEnv.agent_iter``: the agent to act until none is left or ``max_iter`` were
        given; its iterator a generator (``_agents``) rather than a Python ``__next__``."""
        return _AgentIterable(self, max_iter)

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match; its engine seed is drawn from the environment's generator, which
        ``seed`` seeds (so a seed gives the same stocks and exchange draws)."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.match = Match(int(self.np_random.integers(0, 2**63 - 1)), self.rules)
        self._picked = ()
        self._rewarded = False
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.match.to_act or 0]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``, the observation read in C without the ``observe`` call where the
        class does not change ``observe`` (the same dict)."""
        agent = self.agent_selection
        assert agent is not None
        observer = self._observer
        if not observe:
            observation = None
        elif observer is not None and self._own_observe:
            observation = observer.observe_new(self.match, self._seat_of[agent], self._picked)
        else:
            observation = self.observe(agent)
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        m = self.match
        assert m is not None, "reset() first"
        seat = self._seat_of[agent]
        observer = self._observer
        if observer is not None:  # the array and the mask in one call, in C
            return observer.observe_new(m, seat, self._picked)
        to_act = m.to_act
        if to_act == seat:
            picked = self._picked
            mask = _legal_mask(m, picked)
        else:
            picked = ()
            mask = np.zeros(ids.NUM_ACTIONS, np.int8)
        return {
            "observation": encoding.encode_match(m, seat, picked, self._rules_cache),
            "action_mask": mask,
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        observer = self._observer
        if (
            observer is not None
            and self._plain
            and not self._rewarded
            and not (self.terminations[agent] or self.truncations[agent])
        ):
            # a legal play, draw, bid or Double Nil answer checked and applied in one C call
            m = cast(Match, self.match)  # reset() made it (the C call checks)
            to_act = observer.apply(m, action)
            if to_act is not NotImplemented:
                self._cumulative_rewards[agent] = 0.0
                self._picked = ()
                if to_act is not None:
                    self.agent_selection = self.possible_agents[to_act]
                else:
                    self._match_over(m)
                    self._accumulate_rewards()
                return
        if not self._guarded:
            self._step(agent, action)
            return
        # env(): AssertOutOfBoundsWrapper's check, TerminateIllegalWrapper(-1)'s ending
        dead = self.terminations[agent] or self.truncations[agent]
        if not (action is None and dead) and not (
            (action.__class__ is int and 0 <= action < ids.NUM_ACTIONS)
            or self.action_spaces[agent].contains(action)
        ):
            raise AssertionError(
                f"action {action!r} is not in action space (0-{ids.NUM_ACTIONS - 1})"
            )
        try:
            self._step(agent, action)
        except ids.IllegalEnvActionError:  # raised before the step changed anything
            self._terminate_illegal(agent)

    def _step(self, agent: str, action: int | None) -> None:
        """The step of any action: dead steps, exchanges, illegal actions, "points" rewards,
        rendering."""
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        m = self.match
        assert m is not None, "reset() first"
        observer = self._observer
        # An illegal action raises here, before anything changes (env() relies on it).
        engine_action = (
            ids.quick_engine_action(m, action)
            if observer is None
            else observer.engine_action(m, action)
        )
        if engine_action is not None:  # a legal play, draw, bid or Double Nil answer
            picked: tuple[int, ...] = ()
        else:  # an exchange, or an action to look at closely
            engine_action, picked = self._exchange_step(action)
        if self._rewarded:  # the last step's rewards are over; zeros need no accumulating
            for a in self.agents:
                self.rewards[a] = 0.0
            self._rewarded = False
        self._cumulative_rewards[agent] = 0.0
        self._picked = picked
        if engine_action is not None:
            if self._points:
                hand, before = m.hand_number, m.scores
            m.apply(engine_action)
            to_act = m.to_act
            if to_act is not None:
                self.agent_selection = self.possible_agents[to_act]
                if self._points and m.hand_number != hand:
                    self._hand_rewards(before)
            else:
                if self._points:
                    self._hand_rewards(before)
                self._match_over(m)
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _match_over(self, m: Match) -> None:
        """Both seats terminated; ``"win_loss"``: +1/-1 (R-6)."""
        outcome = m.outcome
        assert outcome is not None
        for s, a in enumerate(self.possible_agents):
            self.terminations[a] = True
            if self.reward_kind == "win_loss" and outcome.winner is not None:
                self.rewards[a] = 1.0 if outcome.winner == s else -1.0
                self._rewarded = True

    def _exchange_step(self, action: Any) -> tuple[Any, tuple[int, ...]]:
        """The engine action of an action id (None while an exchange is being chosen) and the
        exchange's picks after it; raises IllegalEnvActionError naming the rule."""
        assert self.match is not None
        try:
            action_id = int(action)
        except (TypeError, ValueError):
            raise ids.IllegalEnvActionError(
                f"{action!r} is not an action id (0-{ids.NUM_ACTIONS - 1})"
            ) from None
        return ids.to_engine(self.match, action_id, self._picked)

    def _hand_rewards(self, before: tuple[int, int]) -> None:
        """``"points"``: what each seat's score changed by in the hand just ended (R-5)."""
        assert self.match is not None
        after = self.match.scores
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(after[s] - before[s])
        self._rewarded = True

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        assert self.match is not None, "reset() first"
        text = render_table(self.match, self._picked)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


ILLEGAL_REWARD = -1.0


class _GuardedEnv(raw_env):
    """``raw_env`` with what ``AssertOutOfBoundsWrapper`` and ``TerminateIllegalWrapper``
    (``illegal_reward=-1``) add, in its own step: an action out of the space raises
    AssertionError, an illegal one ends the episode (``raw_env.step``); and
    ``OrderEnforcingWrapper``'s step after reset (``_has_updated`` set, a warning once no agent
    is left), which its wrapper (``_OrderEnforcing``) hands straight to this one."""

    _guarded = True
    _has_updated = False
    """``OrderEnforcingWrapper._has_updated``, kept here so that its wrapper's ``step`` is this
    one's."""

    def step(self, action: int | None) -> None:
        self._has_updated = True
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        raw_env.step(self, action)

    def _terminate_illegal(self, agent: str) -> None:
        """As ``TerminateIllegalWrapper``: both seats terminated and truncated, -1 for the seat
        that made the illegal move, 0 for the other."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.truncations, 0)
        self.rewards[agent] = ILLEGAL_REWARD
        self._rewarded = True
        self._accumulate_rewards()
        self._deads_step_first()


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, the same checks, fewer calls a step: before
    reset its own ``last``, ``step``, ``agents`` and ``agent_selection`` check and raise; after
    reset, when nothing is left to check but the order of ``step`` and the iterator, ``last``
    and ``step`` are the environment's own (bound on the instance: ``_GuardedEnv.step`` sets
    ``_has_updated``, kept in the environment), and ``agents`` and ``agent_selection`` are read
    from it without ``__getattr__``."""

    def __init__(self, env: _GuardedEnv) -> None:
        self.env = env  # before the base class sets _has_updated, which the environment keeps
        super().__init__(env)

    @property
    def _has_updated(self) -> bool:
        return self.env._has_updated

    @_has_updated.setter
    def _has_updated(self, value: bool) -> None:
        self.env._has_updated = value

    def _unreset(self, name: str) -> AttributeError:
        return AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise self._unreset("agent_selection")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise self._unreset("agents")
        return self.env.agents

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.last = self.env.last  # type: ignore[method-assign]
        self.step = self.env.step  # type: ignore[method-assign]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        raise self._unreset("agent_selection")  # after reset, the environment's own

    def step(self, action: Any) -> None:
        EnvLogger.error_step_before_reset()  # after reset, the environment's own

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)


class _AgentIterable(AECIterable):
    def __iter__(self) -> Iterator[str]:
        return _agents(self.env, self.max_iter)


def _agents(env: raw_env, max_iter: int) -> Iterator[str]:
    """``AECIterator``: the agent to act, while there is one, ``max_iter`` times at most."""
    while env.agents and max_iter > 0:
        max_iter -= 1
        yield env.agent_selection


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> Iterator[str]:
        return _ordered_agents(self.env.env, self.max_iter)


def _ordered_agents(env: _GuardedEnv, max_iter: int) -> Iterator[str]:
    """``AECOrderEnforcingIterator``: ``_agents``, each after a ``step`` or ``reset``."""
    while env.agents and max_iter > 0:
        max_iter -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        yield env.agent_selection


_PLAY, _DRAW, _BID, _DOUBLE_NIL = Decision.PLAY, Decision.DRAW, Decision.BID, Decision.DOUBLE_NIL
_CARD_MASK = getattr(encoding._obs, "card_mask", None) if encoding.C_ENCODER else None


def _constant_mask(legal: list[int]) -> np.ndarray:
    mask = np.zeros(ids.NUM_ACTIONS, np.int8)
    mask[legal] = 1
    mask.flags.writeable = False
    return mask


_MASKS: dict[Decision | None, np.ndarray] = {
    d: _constant_mask(ids.legal_ids_for(d, (), ())) for d in (_DRAW, _BID, _DOUBLE_NIL)
}
"""The masks that do not depend on the cards: one copy each, copied out."""


def _legal_mask(m: Match, picked: tuple[int, ...]) -> np.ndarray:
    """The action mask of the seat to act: a card play's from the engine's legal mask."""
    decision = m.decision
    if decision is _PLAY:
        mask = np.empty(ids.NUM_ACTIONS, np.int8)
        if _CARD_MASK is not None:
            _CARD_MASK(mask, m.legal_mask)
        else:
            mask[ids.NUM_CARDS :] = 0
            mask[: ids.NUM_CARDS] = encoding._mask_bits(m.legal_mask)
        return mask
    constant = _MASKS.get(decision)
    if constant is not None:
        return constant.copy()
    mask = np.zeros(ids.NUM_ACTIONS, np.int8)
    mask[ids.legal_ids(m, picked)] = 1
    return mask
