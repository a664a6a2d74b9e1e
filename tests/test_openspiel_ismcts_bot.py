"""The OpenSpiel ISMCTS sample bot: its answers are legal and repeatable in-process, and it plays
a match over real gRPC from its own process."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from bot_process import CLOCK

pytest.importorskip("pyspiel")

from arena.bot_protocol import messages
from arena.referee import Termination, play_match
from arena.rules import Decision, Match, RuleSet
from arena.runtime import load_manifest, start_bot
from arena.sdk.local import load_bot, play_local
from arena.sdk.service import view_of
from arena.sdk.view import View

pytestmark = pytest.mark.research

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "sample_bots" / "openspiel_ismcts"


def _view(m: Match) -> View:
    """The SDK's view of the request the referee builds for ``m``'s decision."""
    seat, decision = m.to_act, m.decision
    assert seat is not None and decision is not None
    legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else []
    req = messages.build_request(decision, "m", m.observation(seat), legal, CLOCK)
    return view_of(
        decision, messages.rpc_for(decision).request_type.FromString(req.SerializeToString())
    )


@pytest.fixture()
def bot(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ARENA_BOT_SEED", "5")
    monkeypatch.setenv("ISMCTS_SIMULATIONS", "6")
    return load_bot(BOT)


def test_the_manifest_sets_the_search_budget() -> None:
    manifest = load_manifest(BOT)
    assert manifest.name == "openspiel_ismcts"
    assert int(manifest.env["ISMCTS_SIMULATIONS"]) > 0


def test_each_decision_is_legal_and_repeatable_with_a_seed(bot) -> None:
    m, rng = Match(4, RuleSet(max_hands=1)), random.Random(4)
    seen = set()
    while not m.is_over and len(seen) < 4:
        decision = m.decision
        assert decision is not None
        if decision in (Decision.DRAW, Decision.BID, Decision.PLAY) and decision not in seen:
            view = _view(m)
            method = {Decision.DRAW: bot.draw, Decision.BID: bot.bid, Decision.PLAY: bot.play}
            answer = method[decision](view)
            assert answer == method[decision](view)  # the same seed, the same search
            assert m.is_legal(answer)
            seen.add(decision)
        m.apply(m.random_action(rng))
    assert seen == {Decision.DRAW, Decision.BID, Decision.PLAY}


def test_a_double_nil_exchange_is_searched_card_by_card(bot) -> None:
    m = Match(3)
    m.apply(True)
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision is not Decision.DOUBLE_NIL)
    cards = tuple(bot.exchange(_view(m)))
    assert m.is_legal(cards)


def test_it_plays_a_hand_in_process(bot) -> None:
    result = play_local(
        bot, load_bot(ROOT / "sample_bots" / "random"), seed=2, rules=RuleSet(max_hands=1)
    )
    assert result.outcome.hands_played == 1


@pytest.mark.slow
def test_it_plays_over_real_grpc(tmp_path: Path) -> None:
    folder = tmp_path / "openspiel_ismcts"
    shutil.copytree(BOT, folder)
    manifest = (folder / "bot.toml").read_text()
    manifest = manifest.replace('ISMCTS_SIMULATIONS = "40"', 'ISMCTS_SIMULATIONS = "4"')
    (folder / "bot.toml").write_text(f'{manifest}PYTHONPATH = "{ROOT}"\n')  # this checkout
    with (
        start_bot(load_manifest(folder)) as ismcts,
        start_bot(load_manifest(ROOT / "sample_bots" / "random")) as rnd,
    ):
        result = play_match((ismcts, rnd), seed=9, rules=RuleSet(max_hands=1))
    assert result.termination in (Termination.HAND_LIMIT, Termination.TARGET_REACHED), result.detail
    assert result.faults == (0, 0)
    assert sum(1 for d in result.decisions if d.seat == 0) >= 28
