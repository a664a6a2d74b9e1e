"""The PettingZoo environment: PettingZoo's own API and seed tests, the observation against the
engine's information set at every step, rewards, the exchange's card-by-card actions."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from arena.envs import actions as ids
from arena.envs import encoding, spades_v0
from arena.rules import Decision, Match, RuleSet

pytestmark = pytest.mark.research


def test_pettingzoo_api_test_passes() -> None:
    api_test(spades_v0.env(), num_cycles=400)
    api_test(spades_v0.env(reward="points", rules=RuleSet(max_hands=1)), num_cycles=200)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(spades_v0.env, num_cycles=400)


def _play(env: spades_v0.raw_env, rng: random.Random, check: bool = True) -> dict[str, float]:
    """A random match to its end, checking each observation of both seats against the
    engine's information set; the seats' returns."""
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        m = env.match
        assert m is not None
        if check:
            for seat, name in enumerate(env.possible_agents):
                seen = env.observe(name)
                decoded = encoding.decode(seen["observation"])
                assert decoded.observation == m.observation(seat)  # exactly, both ways
                if m.to_act != seat:
                    assert not seen["action_mask"].any() and decoded.picked == ()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(list(legal))))
    return returns


@pytest.mark.parametrize(
    "rules", [RuleSet(max_hands=2), RuleSet(max_hands=2, draw_decision_public=True)]
)
def test_each_observation_is_exactly_the_seats_information_set(rules: RuleSet) -> None:
    """Decoding an observation gives the engine's Observation of that seat (spades-rules.md,
    "What each player may know"): nothing hidden in it, nothing missing."""
    env = spades_v0.raw_env(rules=rules)
    for seed in range(2):
        env.reset(seed=seed)
        _play(env, random.Random(seed))


def test_an_observation_holds_no_card_the_seat_has_not_seen() -> None:
    """The card planes hold only the seat's own cards, its discards, its put-aside cards and
    the cards played: the opponent's hand and the stock never appear."""
    env = spades_v0.raw_env()
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(400):
        m = env.match
        assert m is not None
        if m.is_over:
            break
        for seat, name in enumerate(env.possible_agents):
            v = env.observe(name)["observation"]
            o = m.observation(seat)
            played = {c for t in o.tricks for c in t.cards}
            known = set(o.hand) | set(o.own_discards) | set(o.own_put_aside) | played
            if o.looking_at is not None:
                known.add(o.looking_at)
            for base in range(encoding.HAND, encoding.STOCK, 52):
                assert set(np.flatnonzero(v[base : base + 52]).tolist()) <= known
            stock = set(m.stock[1:] if o.looking_at is not None else m.stock)
            assert not stock & known
            # an opponent's Double Nil exchange may draw this seat's discards: it
            # knows those cards, not where they went
            assert not (set(m.hand(seat ^ 1)) - set(o.own_discards)) & known
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(list(legal))))


def test_win_loss_and_points_rewards_sum_to_the_outcome() -> None:
    for kind in ("win_loss", "points"):
        env = spades_v0.raw_env(rules=RuleSet(target_score=120), reward=kind)
        env.reset(seed=11)
        returns = _play(env, random.Random(1), check=False)
        m = env.match
        assert m is not None and m.outcome is not None
        if kind == "points":
            assert (returns["player_0"], returns["player_1"]) == m.outcome.scores
        else:
            w = m.outcome.winner
            expected = (0.0, 0.0) if w is None else ((1.0, -1.0) if w == 0 else (-1.0, 1.0))
            assert (returns["player_0"], returns["player_1"]) == expected


def test_an_exchange_is_taken_card_by_card_in_ascending_order() -> None:
    """R-3.4: up to three cards put aside, one action each, ended by EXCHANGE_DONE."""
    env = spades_v0.raw_env()
    env.reset(seed=3)
    m = env.match
    assert m is not None
    env.step(ids.DOUBLE_NIL)  # seat 0 declares before her first draw
    while m.decision is not Decision.EXCHANGE:
        env.step(ids.NO_DOUBLE_NIL if m.decision is Decision.DOUBLE_NIL else ids.KEEP)
    assert m.to_act == 0
    hand = m.hand(0)
    env.step(hand[5])
    mask = env.observe("player_0")["action_mask"]
    assert set(np.flatnonzero(mask)) == {*hand[6:], ids.EXCHANGE_DONE}
    assert encoding.decode(env.observe("player_0")["observation"]).picked == (hand[5],)
    with pytest.raises(ids.IllegalEnvActionError, match=r"R-3\.4"):
        env.step(hand[2])  # below the last pick: each set has one order
    env.step(hand[9])
    env.step(ids.EXCHANGE_DONE)
    assert m.decision is Decision.BID
    assert m.observation(0).own_put_aside == (hand[5], hand[9])
    assert m.observation(1).seats[0].cards_exchanged == 2


def test_an_illegal_action_ends_the_wrapped_episode_with_a_penalty() -> None:
    env = spades_v0.env()
    env.reset(seed=2)
    env.step(ids.BID_BASE + 3)  # a bid where Double Nil is asked
    _, reward, term, _, _ = env.last()
    assert term and reward == -1
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_the_raw_environment_names_the_rule_an_illegal_action_breaks() -> None:
    env = spades_v0.raw_env()
    env.reset(seed=2)
    with pytest.raises(ids.IllegalEnvActionError, match=r"double_nil decision.*R-3\.3"):
        env.step(0)


def test_text_render_shows_the_table() -> None:
    env = spades_v0.raw_env(render_mode="ansi")
    env.reset(seed=4)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    text = env.render()
    assert text is not None and "seat 0: score 0" in text and "to act: seat" in text


def test_a_seed_gives_the_same_match_and_another_seed_another() -> None:
    def first_stock(seed: int) -> tuple[int, ...]:
        env = spades_v0.raw_env()
        env.reset(seed=seed)
        assert env.match is not None
        return env.match.stock

    assert first_stock(8) == first_stock(8) != first_stock(9)


def test_from_hand_starts_a_hand_in_a_given_position() -> None:
    """The engine's ``Match.from_hand``: the given stock, scores, bags and exchange draws."""
    base = Match(3)
    stock = list(reversed(base.stock))
    m = Match.from_hand(
        RuleSet(),
        hand_number=4,
        first_drawer=1,
        scores=(120, -40),
        bags=(3, 9),
        stock=stock,
        exchange_draws=[stock[1]],
    )
    assert (m.hand_number, m.first_drawer, m.scores, m.bags) == (4, 1, (120, -40), (3, 9))
    assert m.to_act == 1 and list(m.stock) == stock
    m.apply(True)  # seat 1 declares Double Nil
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision is not Decision.DOUBLE_NIL)
    pile = set(m.discard_pile)
    assert stock[1] in pile
    m.apply(m.hand(1)[:1])
    assert stock[1] in m.hand(1)  # the first draw the position asked for
    with pytest.raises(ValueError, match="bags"):
        Match.from_hand(
            RuleSet(), hand_number=1, first_drawer=0, scores=(0, 0), bags=(10, 0), stock=stock
        )
    with pytest.raises(ValueError, match="52 cards"):
        Match.from_hand(
            RuleSet(), hand_number=1, first_drawer=0, scores=(0, 0), bags=(0, 0), stock=stock[:-1]
        )


def _c_encoder() -> None:
    if not encoding.C_ENCODER:
        if os.environ.get("ARENA_TEST_REQUIRE_C_ENCODER") == "1":
            pytest.fail("the C observation encoder (arena/envs/_obs.c) was not built")
        pytest.skip("the C observation encoder was not built (no C compiler at install)")


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_encoders_give_the_observations_array_on_every_decision(seed: int) -> None:
    """``encode_match_py`` (from the engine's plain values, the reference) and
    ``encode_match_c`` (``arena/envs/_obs.c``, the environments' step) give ``encode``'s array
    (from an Observation, the SDK's) for both seats on every decision of whole matches of every
    rule set, exchanges under way included."""
    _c_encoder()
    rules = RuleSet(
        max_hands=3,
        target_score=150 + 50 * (seed % 3),
        draw_decision_public=seed % 2 == 0,
        double_nil_allowed=seed % 4 != 3,
        nil_tricks_count_as_bags=seed % 3 == 0,
    )
    m, rng = Match(seed, rules), random.Random(seed)
    cache = encoding.RulesCache()
    checked = 0
    while True:
        for seat in (0, 1):
            picked = (
                tuple(sorted(rng.sample(m.hand(seat), rng.randrange(3))))
                if (m.decision is Decision.EXCHANGE and m.to_act == seat)
                else ()
            )
            reference = encoding.encode(m.observation(seat), picked)
            assert encoding.encode_match_py(m, seat, picked).tobytes() == reference.tobytes()
            assert encoding.encode_match_c(m, seat, picked, cache).tobytes() == reference.tobytes()
            checked += 1
        if m.is_over:
            break
        m.apply(m.random_action(rng))
    assert checked > 100


def test_the_c_encoder_refuses_what_is_not_an_information_set() -> None:
    _c_encoder()
    from arena.envs import _obs

    m = Match(1)
    info = m.information_set(0)
    out = np.empty(encoding.SIZE, np.float32)
    floats = encoding.RulesCache().get(m.rules)
    with pytest.raises(TypeError, match="11-tuple"):
        _obs.fill(out, info[:10], 0, 1, 0, (), floats, 200, 500)
    with pytest.raises(ValueError, match="float32 array of 480"):
        _obs.fill(np.empty(10, np.float32), info, 0, 1, 0, (), floats, 200, 500)
    with pytest.raises(ValueError, match="float32 array of 480"):
        _obs.fill(np.empty(encoding.SIZE), info, 0, 1, 0, (), floats, 200, 500)  # float64
    with pytest.raises(ValueError, match="a card is 0-51, got 52"):
        _obs.fill(out, info, 0, 1, 0, (52,), floats, 200, 500)
    with pytest.raises(ValueError, match="bits 0-51"):
        _obs.fill(out, (*info[:2], 1 << 52, *info[3:]), 0, 1, 0, (), floats, 200, 500)
    with pytest.raises(ValueError, match="seat 0/1"):
        _obs.fill(out, info, 2, 1, 0, (), floats, 200, 500)
    with pytest.raises(ValueError, match="int8 array of 71"):
        _obs.card_mask(np.empty(52, np.int8), 1)


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("seed", range(4))
def test_env_behaves_as_raw_env_in_pettingzoos_three_wrappers(seed: int) -> None:
    """``env()`` builds in what TerminateIllegalWrapper(-1), AssertOutOfBoundsWrapper and
    OrderEnforcingWrapper do: played side by side, every ``last()``, reward and termination is
    the same, an illegal action (at a random step, or never) ends both alike."""
    rules = RuleSet(max_hands=2)
    ours, theirs = spades_v0.env(rules=rules), spades_v0.pettingzoo_wrapped(rules=rules)
    for e in (ours, theirs):
        with pytest.raises(AttributeError, match="agent_selection cannot be accessed before"):
            e.last()
        e.reset(seed=seed)
    rng = random.Random(seed)
    illegal_at = rng.randrange(150) if seed else -1
    steps = 0
    for agent, agent_2 in zip(ours.agent_iter(), theirs.agent_iter(), strict=True):
        assert agent == agent_2
        assert ours.agents == theirs.agents and ours.rewards == theirs.rewards
        assert ours.terminations == theirs.terminations
        assert ours.truncations == theirs.truncations
        last, last_2 = ours.last(), theirs.last()
        assert _same(list(last), list(last_2))
        obs, _, term, trunc, _ = last
        if term or trunc:
            action = None
        elif steps == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = int(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
        ours.step(action)
        theirs.step(action)
        steps += 1
    assert not ours.agents and not theirs.agents
    assert steps > (illegal_at if seed else 100)


def test_env_refuses_an_action_out_of_the_space_as_pettingzoo_does() -> None:
    for e in (spades_v0.env(), spades_v0.pettingzoo_wrapped()):
        e.reset(seed=1)
        for bad in (71, -1, None, "a", 2.5):
            with pytest.raises(AssertionError, match="not in action space"):
                e.step(bad)  # type: ignore[arg-type]
        e.step(np.int64(ids.NO_DOUBLE_NIL))  # a numpy integer is an action id
        assert e.rewards == {"player_0": 0, "player_1": 0}


def test_raw_env_names_an_action_that_is_no_action_id() -> None:
    env = spades_v0.raw_env()
    env.reset(seed=1)
    with pytest.raises(ids.IllegalEnvActionError, match=r"^'a' is not an action id \(0-70\)$"):
        env.step("a")  # type: ignore[arg-type]
    with pytest.raises(ids.IllegalEnvActionError, match=r"action 71 is not legal.*R-3\.3"):
        env.step(71)


@pytest.mark.parametrize("seed", range(4))
def test_the_c_observer_gives_the_reference_observation_and_mask(seed: int) -> None:
    """``raw_env.observe`` in C (``_obs.Observer``: array and mask in one call) and without it
    (the Python path, where the extension is not built) give the reference for both seats at
    every step, each card of an exchange under way included: ``encode`` of the engine's
    Observation, and the mask of ``legal_ids`` for the seat to act, all zero for the other."""
    _c_encoder()
    rules = RuleSet(max_hands=2, draw_decision_public=seed % 2 == 1)
    fast, plain = spades_v0.raw_env(rules=rules), spades_v0.raw_env(rules=rules)
    plain._observer = None
    rng = random.Random(seed)
    for e in (fast, plain):
        e.reset(seed=seed)
    exchanges = 0
    while fast.agents:
        m = fast.match
        assert m is not None and not m.is_over
        for seat, name in enumerate(fast.possible_agents):
            picked = fast._picked if m.to_act == seat else ()
            mask = np.zeros(ids.NUM_ACTIONS, np.int8)
            if m.to_act == seat:
                mask[ids.legal_ids(m, picked)] = 1
            reference = encoding.encode(m.observation(seat), picked)
            for got in (fast.observe(name), plain.observe(name)):
                assert got["observation"].tobytes() == reference.tobytes()
                assert got["action_mask"].dtype == np.int8
                assert np.array_equal(got["action_mask"], mask)
        exchanges += m.decision is Decision.EXCHANGE
        legal = list(np.flatnonzero(fast.observe(fast.agent_selection)["action_mask"]))
        # Double Nil often, so that exchanges come up
        action = ids.DOUBLE_NIL if ids.DOUBLE_NIL in legal else int(rng.choice(legal))
        for e in (fast, plain):
            e.step(action)
        if m.is_over:
            break
    assert exchanges >= 2


def test_the_c_observer_refuses_arrays_of_the_wrong_kind() -> None:
    _c_encoder()
    env = spades_v0.raw_env()
    env.reset(seed=1)
    observer, m = env._observer, env.match
    out, mask = np.empty(encoding.SIZE, np.float32), np.empty(ids.NUM_ACTIONS, np.int8)
    with pytest.raises(ValueError, match="int8 array of 71"):
        observer.observe(m, 0, (), out, np.empty(70, np.int8))
    with pytest.raises(ValueError, match="float32 array of 480"):
        observer.observe(m, 0, (), np.empty(encoding.SIZE, np.float64), mask)
    with pytest.raises(TypeError, match="picked must be a tuple"):
        observer.observe(m, 0, [1], out, mask)
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        observer.observe(m, 2, (), out, mask)


def test_env_enforces_the_order_of_calls_as_pettingzoo_does() -> None:
    for e in (spades_v0.env(), spades_v0.pettingzoo_wrapped()):
        with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
            e.agents  # noqa: B018
        with pytest.raises(Exception, match="reset\\(\\) needs to be called before step"):
            e.step(0)
        e.reset(seed=3)
        it = iter(e.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="need to call step\\(\\) or reset\\(\\)"):
            next(it)


def test_the_c_observer_refuses_what_is_no_match_or_seat() -> None:
    """``observe_new``, ``engine_action``, ``apply`` and ``legal_ids`` read a Match's slots:
    anything else, a seat other than 0/1 or picks that are no tuple are refused in one line."""
    _c_encoder()
    env = spades_v0.raw_env()
    env.reset(seed=1)
    observer, m = env._observer, env.match
    with pytest.raises(ValueError, match=r"^seat must be 0 or 1, got 2$"):
        observer.observe_new(m, 2, ())
    with pytest.raises(TypeError, match=r"^picked must be a tuple of cards$"):
        observer.observe_new(m, 0, [1])
    with pytest.raises(TypeError, match=r"^picked must be a tuple of cards$"):
        observer.legal_ids(m, [1])
    for call in (
        lambda: observer.observe_new("match", 0, ()),
        lambda: observer.engine_action(object(), 5),
        lambda: observer.apply(None, 5),
        lambda: observer.legal_ids(1, ()),
    ):
        with pytest.raises(TypeError, match="doesn't apply to a"):
            call()
    from arena.envs import _obs

    with pytest.raises(ValueError, match=r"the 20 Match slot descriptors"):
        _obs.Observer(encoding.DECISIONS, encoding.RulesCache().get(m.rules), 200, 500, ())
    bare = _obs.Observer(encoding.DECISIONS, encoding.RulesCache().get(m.rules), 200, 500)
    with pytest.raises(TypeError, match=r"^this Observer was made without the match's slots$"):
        bare.observe_new(m, 0, ())


@pytest.mark.parametrize("seed", range(3))
def test_the_c_legal_ids_and_step_are_the_python_ones(seed: int) -> None:
    """``Observer.legal_ids`` is ``actions.legal_ids`` (exchanges under way included), and
    ``engine_action`` is ``actions.quick_engine_action`` for ints, on every decision of whole
    matches with Double Nil exchanges; ``apply`` plays the same action and names the next
    seat."""
    _c_encoder()
    rules = RuleSet(max_hands=2, draw_decision_public=seed == 1)
    observer = encoding.observer(rules)
    m, twin, rng = Match(seed, rules), Match(seed, rules), random.Random(seed)
    exchanges = 0
    while not m.is_over:
        seat = m.to_act
        picked: tuple[int, ...] = ()
        if m.decision is Decision.EXCHANGE:
            exchanges += 1
            picked = tuple(sorted(rng.sample(m.hand(seat), rng.randrange(3))))
        legal = ids.legal_ids(m, picked)
        assert observer.legal_ids(m, picked) == legal
        for a in (*range(ids.NUM_ACTIONS), -1, 2**70):
            assert observer.engine_action(m, a) == ids.quick_engine_action(m, a)
        for other in ("5", 5.0, np.int64(5)):  # left to the Python path, which converts them
            assert observer.engine_action(m, other) is None
        if m.decision is Decision.EXCHANGE:
            assert observer.apply(m, legal[0]) is NotImplemented
            action = m.random_action(rng)
            m.apply(action)
            twin.apply(action)
            continue
        a = ids.DOUBLE_NIL if ids.DOUBLE_NIL in legal else rng.choice(legal)
        twin.apply(ids.quick_engine_action(twin, a))
        assert observer.apply(m, a) == twin.to_act
        assert m.observation(0) == twin.observation(0)
    assert observer.legal_ids(m, ()) == [] and exchanges > 0


def test_a_shared_observer_is_copied_as_itself_and_pickled_by_its_rule_set() -> None:
    """OpenSpiel's clone deep-copies a state's attributes and its serialization pickles them:
    the observer a state keeps holds nothing of a match."""
    import copy
    import pickle

    _c_encoder()
    rules = RuleSet(max_hands=3, target_score=250)
    observer = encoding.observer(rules)
    assert copy.deepcopy(observer) is observer and copy.copy(observer) is observer
    again = pickle.loads(pickle.dumps(observer))
    assert again.rules == rules
    m = Match(4, rules)
    assert np.array_equal(
        again.observe_new(m, 1, ())["observation"], observer.observe_new(m, 1, ())["observation"]
    )


def test_an_observation_kept_is_never_refilled() -> None:
    """``observe_new`` refills one of its last dicts only when nothing else holds it or its
    arrays: an observation kept whole, a kept array, a view, a weak reference, an array
    reshaped in place or a dict with a key more still hold what they held when given."""
    import weakref

    _c_encoder()
    env = spades_v0.raw_env(rules=RuleSet(max_hands=1))
    env.reset(seed=2)
    observer, m = env._observer, env.match
    assert observer is not None and m is not None
    keeps = (
        lambda obs: obs,
        lambda obs: obs["observation"],
        lambda obs: obs["action_mask"][3:],
        lambda obs: weakref.ref(obs["observation"]),
        _reshaped,
        _with_a_key_more,
    )
    kept: list[tuple[object, bytes, bytes]] = []
    rng = random.Random(2)
    while env.agents and not m.is_over:
        obs = env.last()[0]
        snapshot = (obs["observation"].tobytes(), obs["action_mask"].tobytes())
        held = keeps[len(kept) % len(keeps)](obs)
        kept.append((held, *snapshot))
        for _ in range(3):  # observations dropped at once, which the pool refills
            observer.observe_new(m, rng.randrange(2), ())
        legal = np.flatnonzero(obs["action_mask"])
        del obs
        env.step(int(rng.choice(list(legal))))
    assert len(kept) > 40
    for held, obs_bytes, mask_bytes in kept:
        if isinstance(held, dict):
            assert held["observation"].tobytes() == obs_bytes
            assert held["action_mask"].tobytes() == mask_bytes
        elif isinstance(held, weakref.ref):  # alive while the pool holds its dict
            array = held()
            assert array is None or array.tobytes() == obs_bytes
        else:
            assert held.tobytes() in (obs_bytes, mask_bytes[3:])  # type: ignore[attr-defined]


def _reshaped(obs: dict[str, np.ndarray]) -> np.ndarray:
    """The dict dropped, its observation array kept and reshaped in place."""
    array = obs["observation"]
    array.shape = (20, 24)
    return array


def _with_a_key_more(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    obs["extra"] = obs["action_mask"]
    return obs
