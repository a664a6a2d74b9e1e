"""The OpenSpiel game ``spades_2p``: OpenSpiel's own random-simulation checks, its parameters,
chance, tensors, returns, resampling from an information state, and ISMCTS running on it."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from arena.envs import encoding  # noqa: E402
from arena.envs import spades_2p as game_module  # noqa: E402
from arena.envs.determinize import DeterminizeError, determinize  # noqa: E402
from arena.rules import Match, RuleSet  # noqa: E402

pytestmark = pytest.mark.research


def _random_to(state, rng: np.random.RandomState, steps: int):
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_openspiel_random_simulation_checks_pass() -> None:
    """pyspiel.random_sim_test: legal actions, chance probabilities, clones, tensors, returns
    (random play seldom reaches a target score: the hand limit, R-6.3, ends the matches)."""
    game = pyspiel.load_game("spades_2p", {"target_score": 120, "max_hands": 3})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    one_hand = pyspiel.load_game("spades_2p", {"max_hands": 1, "returns": "points"})
    pyspiel.random_sim_test(one_hand, num_sims=4, serialize=False, verbose=False)


def test_the_rule_set_is_the_games_parameters() -> None:
    game = pyspiel.load_game(
        "spades_2p", {"target_score": 300, "draw_decision_public": True, "returns": "margin"}
    )
    assert game.rules == RuleSet(target_score=300, draw_decision_public=True)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_distinct_actions() == 71 and game.max_chance_outcomes() == 52
    with pytest.raises(ValueError, match="returns must be one of"):
        game_module.SpadesGame({"returns": "elo"})


def test_the_shuffle_is_52_chance_nodes_then_the_first_drawer_acts() -> None:
    """R-2: the stock is shuffled card by card, uniformly; then seat 0 is asked (R-1.3, R-3.3)."""
    state = pyspiel.load_game("spades_2p").new_initial_state()
    for dealt in range(52):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 52 - dealt
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        state.apply_action(outcomes[0][0])
    assert state.current_player() == 0
    assert state.match is not None and list(state.match.stock) == list(range(52))


def test_tensors_and_strings_are_the_seats_information_set() -> None:
    game = pyspiel.load_game("spades_2p", {"max_hands": 2})
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if not state.is_chance_node() and state.match is not None:
            for seat in (0, 1):
                tensor = np.asarray(state.information_state_tensor(seat), np.float32)
                assert tensor.shape == (encoding.SIZE,)
                assert encoding.decode(tensor).observation == state.match.observation(seat)
                assert state.observation_tensor(seat) == state.information_state_tensor(seat)
            checked += 1
        _random_to(state, rng, 1)
    assert checked > 100
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_a_double_nil_exchange_draws_at_chance_nodes() -> None:
    """R-3.4: the replacements are chance outcomes, uniform over the discard pile."""
    game = pyspiel.load_game("spades_2p", {"max_hands": 1})
    state = game.new_initial_state()
    for card in range(52):
        state.apply_action(card)
    state.apply_action(69)  # seat 0 declares Double Nil before her first draw
    while state.match.decision.value != "exchange":
        state.apply_action(state.legal_actions()[0])
    hand = state.match.hand(0)
    state.apply_action(hand[0])
    state.apply_action(hand[1])
    state.apply_action(70)  # done: two cards put aside
    assert state.is_chance_node()
    pile = state.match.discard_pile
    assert [c for c, _ in state.chance_outcomes()] == list(pile)
    state.apply_action(pile[5])
    assert [c for c, _ in state.chance_outcomes()] == [c for c in pile if c != pile[5]]
    state.apply_action(pile[0])
    assert not state.is_chance_node()
    held = state.match.hand(0)
    assert pile[5] in held and pile[0] in held and hand[0] not in held
    assert state.match.observation(0).own_put_aside == (hand[0], hand[1])


def test_resampling_keeps_the_information_state_and_changes_the_hidden_cards() -> None:
    game = pyspiel.load_game("spades_2p", {"max_hands": 1})
    rng = np.random.RandomState(5)
    state = _random_to(game.new_initial_state(), rng, 52 + 40)
    player = state.current_player()
    key = state.information_state_string(player)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = set()
    for _ in range(5):
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == key
        assert sample.legal_actions() == state.legal_actions()
        hands.add(sample.match.hand(player ^ 1))
        _random_to(sample, rng, 10_000)  # the sampled world plays on to its end
        assert sample.is_terminal()
    assert len(hands) > 1


@pytest.mark.parametrize("public", [False, True])
def test_determinizations_fit_every_information_set_of_random_matches(public: bool) -> None:
    """Every seat's observation at every decision of random matches (Double Nil exchanges
    included): the sampled position gives that observation (determinize checks it)."""
    exchanges = 0
    for seed in range(6):
        m = Match(seed, RuleSet(max_hands=2, draw_decision_public=public))
        rng = random.Random(seed)
        while not m.is_over:
            for seat in (0, 1):
                obs = m.observation(seat)
                exchanges += obs.seats[seat ^ 1].cards_exchanged is not None
                assert determinize(obs, rng).observation(seat) == obs
            m.apply(m.random_action(rng))
    assert exchanges > 0


def test_an_impossible_observation_is_refused() -> None:
    obs = Match(1).observation(0)
    import dataclasses

    bad = dataclasses.replace(obs, stock_size=10)  # ten cards left, none in any hand
    with pytest.raises(DeterminizeError):
        determinize(bad, random.Random(0))


def test_openspiel_ismcts_plays_a_hand() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("spades_2p", {"max_hands": 1, "returns": "margin"})
    rng = np.random.RandomState(2)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, rng),
        uct_c=60.0,
        max_simulations=8,
        random_state=rng,
        allow_inconsistent_action_sets=True,
    )
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node() or state.current_player() == 1:
            _random_to(state, rng, 1)
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sum(state.returns()) == 0.0
