"""A policy written against the research environments, served as a bot: the observation a
request gives it is the environment's, and a trained toy policy plays through real gRPC."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from bot_process import CLOCK

from arena.bot_protocol import messages
from arena.envs import actions as ids
from arena.envs import encoding
from arena.envs.toy_policy import ToyPolicy, train
from arena.referee import Termination, play_match
from arena.rules import Decision, Match, RuleSet
from arena.runtime import load_manifest, start_bot
from arena.sdk.policy import PolicyBot, PolicyError, observe
from arena.sdk.service import view_of
from arena.sdk.view import View

pytestmark = pytest.mark.research

ROOT = Path(__file__).resolve().parent.parent
RANDOM = ROOT / "sample_bots" / "random"


def _view(m: Match) -> View:
    """The SDK's view of the request the referee builds, read back from its wire bytes."""
    seat, decision = m.to_act, m.decision
    assert seat is not None and decision is not None
    legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else []
    req = messages.build_request(decision, "m", m.observation(seat), legal, CLOCK)
    wire = messages.rpc_for(decision).request_type.FromString(req.SerializeToString())
    return view_of(decision, wire)


@pytest.mark.parametrize("public", [False, True])
def test_a_requests_observation_and_mask_are_the_environments(public: bool) -> None:
    """Through the protocol's message and the SDK's view, the same array and mask as the
    environment builds from the engine (Double Nil exchanges included)."""
    for seed in range(4):
        m = Match(seed, RuleSet(max_hands=2, draw_decision_public=public))
        rng = random.Random(seed)
        while not m.is_over:
            seat = m.to_act
            assert seat is not None and m.decision is not None
            obs, mask = observe(_view(m))
            assert np.array_equal(obs, encoding.encode(m.observation(seat)))
            assert np.flatnonzero(mask).tolist() == ids.legal_ids(m)
            m.apply(m.random_action(rng))


def test_an_exchange_is_asked_card_by_card() -> None:
    m = Match(3)
    m.apply(True)  # seat 0 declares Double Nil
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision is not Decision.DOUBLE_NIL)
    hand = m.hand(0)
    asked: list[tuple[int, ...]] = []

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        picked = encoding.decode(observation).picked
        asked.append(picked)
        return [hand[2], hand[7], ids.EXCHANGE_DONE][len(picked)]

    assert PolicyBot(policy).exchange(_view(m)) == (hand[2], hand[7])
    assert asked == [(), (hand[2],), (hand[2], hand[7])]


def test_an_illegal_choice_is_an_error_naming_the_legal_ones() -> None:
    m = Match(1)
    view = _view(m)
    with pytest.raises(PolicyError, match="no double nil, double nil"):
        PolicyBot(lambda o, mask: ids.KEEP).decide_double_nil(view)


@pytest.mark.slow
def test_a_trained_toy_policy_plays_through_real_grpc(tmp_path: Path) -> None:
    """Trained in the environment, saved, loaded by a bot in its own process, served over gRPC
    and played by the referee against the random sample bot, both seatings of a deal."""
    policy = train(rounds=2, episodes=60, seed=1)
    folder = tmp_path / "toy"
    folder.mkdir()
    policy.save(folder / "weights.npz")
    assert np.array_equal(ToyPolicy.load(folder / "weights.npz").values, policy.values)
    (folder / "bot.py").write_text(
        textwrap.dedent(
            """\
            from pathlib import Path

            from arena.envs.toy_policy import ToyPolicy
            from arena.sdk.policy import serve_policy

            serve_policy(ToyPolicy.load(Path(__file__).with_name("weights.npz")), name="toy")
            """
        )
    )
    (folder / "bot.toml").write_text(  # this checkout's arena, whichever is installed
        f'name = "toy"\ncommand = ["{{python}}", "bot.py"]\n\n[env]\nPYTHONPATH = "{ROOT}"\n'
    )
    rules = RuleSet(target_score=200, double_nil_allowed=False)
    toy_total = random_total = 0
    with start_bot(load_manifest(folder)) as toy, start_bot(load_manifest(RANDOM)) as rnd:
        for toy_seat in (0, 1):
            pair = (toy, rnd) if toy_seat == 0 else (rnd, toy)
            result = play_match(pair, seed=7, rules=rules)
            assert result.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT), (
                result.detail
            )
            assert result.faults == (0, 0)
            assert any(d.seat == toy_seat for d in result.decisions)
            toy_total += result.scores[toy_seat]
            random_total += result.scores[toy_seat ^ 1]
    assert toy_total > random_total  # it learned to bid what it can take
