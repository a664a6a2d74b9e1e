"""Two-player Spades as an OpenSpiel game, ``spades_2p``, registered from Python on import.

    import pyspiel
    import arena.envs.spades_2p  # registers the game

    game = pyspiel.load_game("spades_2p", {"target_score": 200})

The rule set's fields are the game's parameters, with ``returns`` (``"win_loss"``: +1/-1, zero
sum; ``"points"``: the final scores). Chance is OpenSpiel's: at the start of each hand 52 chance
nodes shuffle the stock, a card each (R-2), and a Double Nil exchange draws its cards from the
discard pile at chance nodes of its own (R-3.4); the play is the engine's (``Match.from_hand``
on the dealt stock). Player actions are ``arena.envs.actions`` (71 ids); the information-state
and observation tensors are ``arena.envs.encoding`` (the seat's information set of the current
hand as the rules define it: earlier hands are known only by the scores and bags they left, so
the information state is not perfect recall across hands). ``resample_from_infostate`` samples
the hidden cards (``arena.envs.determinize``), which ISMCTS needs.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pyspiel

from arena.envs import actions as ids
from arena.envs import encoding
from arena.envs.determinize import sample_position
from arena.rules import Action, Decision, Match, Observation, RuleSet, card_name, format_cards

GAME_NAME = "spades_2p"
_DEFAULTS = RuleSet()
_PARAMETERS: dict[str, Any] = {
    "target_score": _DEFAULTS.target_score,
    "max_hands": _DEFAULTS.max_hands,
    "draw_decision_public": _DEFAULTS.draw_decision_public,
    "double_nil_allowed": _DEFAULTS.double_nil_allowed,
    "nil_tricks_count_as_bags": _DEFAULTS.nil_tricks_count_as_bags,
    "returns": "win_loss",
}
RETURNS = ("win_loss", "margin", "points")
"""``win_loss``: +1/-1, 0 for a draw (R-6); ``margin``: the final score difference, zero sum;
``points``: the final scores."""
_HAND_LENGTH = 52 + 2 + 26 + 2 * 4 + 2 * 3 + 2 + 26
"""The most moves of a hand: the shuffle, Double Nil questions, draws, exchange picks and
draws, bids and plays."""
_WORST_HAND, _BEST_HAND = -400, 200
"""A hand's points at worst (a failed Double Nil and two sandbag penalties, R-5) and best."""


_BEFORE_THE_DRAW: dict[tuple[Any, ...], Observation] = {}
"""Observations during the shuffle, which a random simulation asks for at each of 52 chance
nodes (frozen values, so shared)."""


_DECK = tuple(range(52))
_OUTCOMES = [[(c, 1.0 / n) if n else (c, 0.0) for c in range(52)] for n in range(53)]
"""``_OUTCOMES[n][c]``: card ``c``'s chance outcome among ``n`` equally likely (made once)."""


def _game_type(returns: str) -> pyspiel.GameType:
    zero_sum = returns != "points"
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Two-player Spades (arena rules)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMETERS,
    )


class SpadesGame(pyspiel.Game):
    """The game: the rule set from the parameters, and the kind of returns."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**_PARAMETERS, **(params or {})}
        unknown = set(values) - set(_PARAMETERS)
        if unknown:
            raise ValueError(f"unknown {GAME_NAME} parameters: {', '.join(sorted(unknown))}")
        self.returns_kind = str(values.pop("returns"))
        if self.returns_kind not in RETURNS:
            raise ValueError(
                f"returns must be one of {', '.join(RETURNS)}; got {self.returns_kind!r}"
            )
        self.rules = RuleSet(**values)
        self.observer: Any = encoding.observer(self.rules)
        """The C observer (``encoding.observer``): legal ids and quick actions read from the
        engine's state; None where it was not built."""
        hands = self.rules.max_hands
        low, high = {
            "win_loss": (-1.0, 1.0),
            "margin": (
                float((_WORST_HAND - _BEST_HAND) * hands),
                float((_BEST_HAND - _WORST_HAND) * hands),
            ),
            "points": (float(_WORST_HAND * hands), float(_BEST_HAND * hands)),
        }[self.returns_kind]
        info = pyspiel.GameInfo(
            num_distinct_actions=ids.NUM_ACTIONS,
            max_chance_outcomes=52,
            num_players=2,
            min_utility=low,
            max_utility=high,
            utility_sum=None if self.returns_kind == "points" else 0.0,
            max_game_length=_HAND_LENGTH * hands,
        )
        super().__init__(_game_type(self.returns_kind), info, {**_PARAMETERS, **(params or {})})

    def new_initial_state(self) -> SpadesState:
        return SpadesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SpadesObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return SpadesObserver()


class SpadesState(pyspiel.State):
    """A state: the hand's stock as dealt so far, then the engine's match on it."""

    def __init__(self, game: SpadesGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self._observer = game.observer
        self._returns = game.returns_kind
        self._hand_number = 1
        self._first_drawer = 0
        self._scores = (0, 0)
        self._bags = (0, 0)
        self._stock: list[int] = []
        self._left = list(_DECK)
        """The cards not yet dealt to the stock, ascending: the shuffle's chance outcomes."""
        self._match: Match | None = None
        self._log: list[Action] = []
        """The engine actions of this hand, replayed when an exchange's draws are known."""
        self._picked: tuple[int, ...] = ()
        self._exchange: tuple[int, ...] | None = None
        """An exchange decided and waiting for its chance draws (R-3.4)."""
        self._drawn: list[int] = []
        """This hand's exchange draws so far, in order."""
        self._drawn_before = 0
        """The draws of the hand before the exchange waiting for its own."""
        self._over = False

    def __deepcopy__(self, memo: dict[int, Any]) -> SpadesState:
        """OpenSpiel's clone: the match by its own ``copy``, the lists afresh."""
        new = SpadesState(self.get_game())
        new.__dict__.update(self.__dict__)
        new._stock = self._stock[:]
        new._left = self._left[:]
        new._log = self._log[:]
        new._drawn = self._drawn[:]
        new._match = None if self._match is None else self._match.copy()
        return new

    # --- whose move -------------------------------------------------------------------------

    def current_player(self) -> int:
        if self._over:
            return pyspiel.PlayerId.TERMINAL
        if self._match is None or self._exchange is not None:
            return pyspiel.PlayerId.CHANCE
        return self._match.to_act  # type: ignore[return-value]

    def is_terminal(self) -> bool:
        return self._over

    def is_chance_node(self) -> bool:
        """``current_player() == CHANCE``, answered here rather than through OpenSpiel's C++
        (which asks ``current_player`` back)."""
        return not self._over and (self._match is None or self._exchange is not None)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's ``legal_actions`` (``PyState::LegalActions``: none at the end, the
        chance outcomes' at a chance node, the player's own if it is to act, else none),
        answered here rather than through OpenSpiel's C++, which asks ``current_player``
        and ``is_terminal`` back several times a call."""
        if self._over:
            return []
        if self._match is None or self._exchange is not None:
            return [c for c, _ in self.chance_outcomes()]
        m = self._match
        if player is not None:
            if player < 0:
                raise ValueError(f"legal_actions of pseudo-player {player}")
            if player != m.to_act:
                return []
        return self._legal_actions(m.to_act)  # type: ignore[arg-type]

    def _legal_actions(self, player: int) -> list[int]:
        m = self._match
        assert m is not None
        observer = self._observer
        if observer is not None:
            return observer.legal_ids(m, self._picked)
        return ids.legal_ids(m, self._picked)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._match is None:
            left = self._left
        else:
            taken = set(self._drawn)
            left = [c for c in self._match.discard_pile if c not in taken]
        return list(map(_OUTCOMES[len(left)].__getitem__, left))

    # --- moves ------------------------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        if self._match is None:
            self._left.remove(action)  # ValueError for a card dealt already
            self._stock.append(action)
            if len(self._stock) == 52:
                self._match = self._new_hand()
            return
        if self._exchange is not None:
            self._drawn.append(action)
            if len(self._drawn) - self._drawn_before == len(self._exchange):
                cards, self._exchange = self._exchange, None
                self._match = self._new_hand()  # the draws are known now: replay the hand
                for a in self._log:
                    self._match.apply(a)
                self._play(cards)
            return
        observer = self._observer
        engine_action = (
            ids.quick_engine_action(self._match, action)
            if observer is None
            else observer.engine_action(self._match, action)
        )
        if engine_action is not None:  # a play, draw, bid or Double Nil answer, legal
            self._play(engine_action)
            return
        engine_action, self._picked = ids.to_engine(self._match, action, self._picked)
        if engine_action is None:
            return
        if self._match.decision is Decision.EXCHANGE and engine_action:
            self._exchange = engine_action  # type: ignore[assignment]
            self._drawn_before = len(self._drawn)
            return
        self._play(engine_action)

    def _play(self, action: Action) -> None:
        m = self._match
        assert m is not None
        hand = m.hand_number
        m.apply(action)
        self._log.append(action)
        if m.is_over:
            self._over = True
        elif m.hand_number != hand:  # the next hand starts with a new shuffle
            self._hand_number = m.hand_number
            self._first_drawer = m.first_drawer
            self._scores, self._bags = m.scores, m.bags
            self._match = None
            self._stock, self._log, self._drawn = [], [], []
            self._left = list(_DECK)

    def _new_hand(self) -> Match:
        return Match.from_hand(
            self.rules,
            hand_number=self._hand_number,
            first_drawer=self._first_drawer,
            scores=self._scores,
            bags=self._bags,
            stock=self._stock,
            exchange_draws=self._drawn,
        )

    def returns(self) -> list[float]:
        if not self._over:
            return [0.0, 0.0]
        assert self._match is not None and self._match.outcome is not None
        outcome = self._match.outcome
        s0, s1 = outcome.scores
        if self._returns == "points":
            return [float(s0), float(s1)]
        if self._returns == "margin":
            return [float(s0 - s1), float(s1 - s0)]
        if outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]

    # --- what a player knows ----------------------------------------------------------------

    def seat_observation(self, player: int) -> tuple[Observation, tuple[int, ...]]:
        """``player``'s information set, and its exchange picks under way."""
        m = self._match
        if m is None:  # the shuffle: the hand's facts but no card yet
            return self._before_the_draw(player), ()
        return m.observation(player), self.picks_of(player)

    def picks_of(self, player: int) -> tuple[int, ...]:
        """The cards ``player`` has picked in its exchange under way (its own knowledge)."""
        m = self._match
        if m is None or m.to_act != player:
            return ()
        return self._exchange if self._exchange is not None else self._picked

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SpadesState:
        """A state ``player_id`` cannot tell from this one, its hidden cards sampled
        (``arena.envs.determinize``); the sampler's first draw seeds the sampling."""
        seed = int(probability_sampler() * 2**53) if callable(probability_sampler) else None
        rng = random.Random(seed)
        new = SpadesState(self.get_game())
        new._hand_number, new._first_drawer = self._hand_number, self._first_drawer
        new._scores, new._bags = self._scores, self._bags
        if self._over:
            return self.clone()
        if self._match is None:  # during the shuffle no card is known: deal afresh
            return new
        if self._exchange is not None:
            raise ValueError("no resampling while an exchange's draws are being dealt (chance)")
        obs, _ = self.seat_observation(player_id)
        picked = self._picked if self._match.to_act == player_id else ()
        return state_from_observation(self.get_game(), obs, rng, picked)

    def _before_the_draw(self, player: int) -> Observation:
        """What ``player`` knows while the stock is shuffled: the hand's facts, no card."""
        key = (self._hand_number, self._first_drawer, self._scores, self._bags, player)
        cached = _BEFORE_THE_DRAW.get(key)
        if cached is None or cached.rules != self.rules:
            preview = Match.from_hand(
                self.rules,
                hand_number=self._hand_number,
                first_drawer=self._first_drawer,
                scores=self._scores,
                bags=self._bags,
                stock=list(range(52)),
            )
            cached = dataclasses.replace(preview.observation(player), looking_at=None)
            if len(_BEFORE_THE_DRAW) > 4096:
                _BEFORE_THE_DRAW.clear()
            _BEFORE_THE_DRAW[key] = cached
        return cached

    @property
    def match(self) -> Match | None:
        """The engine's match of this hand once the stock is dealt (the full state: never give
        it to a player)."""
        return self._match

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return ids.describe(action)

    def __str__(self) -> str:
        if self._match is None:
            return (
                f"hand {self._hand_number} shuffle: {len(self._stock)} cards dealt; "
                f"scores {self._scores[0]}-{self._scores[1]}"
            )
        m = self._match
        return (
            f"hand {m.hand_number} {m.decision.value if m.decision else 'over'}; "
            f"scores {m.scores[0]}-{m.scores[1]}; seat 0: {format_cards(m.hand(0))}; "
            f"seat 1: {format_cards(m.hand(1))}"
        )


def state_from_observation(
    game: SpadesGame, obs: Observation, rng: random.Random, picked: tuple[int, ...] = ()
) -> SpadesState:
    """A state of ``game`` in which ``obs.seat`` has the information set ``obs`` (and the
    exchange picks ``picked``), its hidden cards sampled: how a bot's request becomes a state
    to search from. The game's rule set must be the observation's, but for ``max_hands``,
    which may stop the game at the end of an earlier hand than the match's."""
    if obs.decision is None:
        raise ValueError("the observation is of a finished match")
    position = sample_position(obs, rng)
    state = SpadesState(game)
    state._hand_number, state._first_drawer = obs.hand_number, obs.first_drawer
    state._scores = (obs.seats[0].score, obs.seats[1].score)
    state._bags = (obs.seats[0].bags, obs.seats[1].bags)
    m = position.match
    if game.rules != m.rules:
        m = Match.from_hand(
            game.rules,
            hand_number=obs.hand_number,
            first_drawer=obs.first_drawer,
            scores=state._scores,
            bags=state._bags,
            stock=position.stock,
            exchange_draws=position.exchange_draws,
        )
        for action in position.actions:
            m.apply(action)
    state._match = m
    state._stock = position.stock
    state._left = []
    state._drawn = position.exchange_draws
    state._log = position.actions
    state._picked = picked
    return state


class SpadesObserver:
    """The information-state and observation tensor and string of a seat (the same: see the
    module's docstring)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(encoding.SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SpadesState, player: int) -> None:
        m = state.match
        if m is None:
            obs, picked = state.seat_observation(player)
            encoding.encode(obs, picked, out=self.tensor)
        else:
            self.tensor[:] = encoding.encode_match(m, player, state.picks_of(player))

    def string_from(self, state: SpadesState, player: int) -> str:
        obs, picked = state.seat_observation(player)
        return information_string(obs, picked)


def information_string(obs: Observation, picked: tuple[int, ...] = ()) -> str:
    """A seat's information set as one line of text: equal strings, equal information sets."""
    seats = " ".join(
        f"[{s.score} {s.bags} {s.bid} {int(s.double_nil)} {s.tricks_won} {s.cards_exchanged}"
        + ("" if s.draw_choices is None else " " + "".join("kr"[not k] for k in s.draw_choices))
        + "]"
        for s in obs.seats
    )
    plays = " ".join(f"{t.leader}:{format_cards(t.cards)}" for t in obs.tricks)
    look = "" if obs.looking_at is None else card_name(obs.looking_at)
    return (
        f"p{obs.seat} h{obs.hand_number} fd{obs.first_drawer} "
        f"{obs.decision.value if obs.decision else 'over'}:{obs.to_act} "
        f"hand[{format_cards(obs.hand)}] look[{look}] disc[{format_cards(obs.own_discards)}] "
        f"aside[{format_cards(obs.own_put_aside)}] pick[{format_cards(picked)}] "
        f"stock{obs.stock_size} broken{int(obs.spades_broken)} {seats} tricks[{plays}]"
    )


pyspiel.register_game(_game_type("win_loss"), SpadesGame)
