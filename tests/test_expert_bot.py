"""The expert sample bot (PIMC over double-dummy solves): its sampled deals never contradict
what it knows and lean on the draw's evidence, it plays the double-dummy best card when the deal
is known, never an illegal card, falls back on a fast policy under a tiny budget, bids clear
hands right, and plays a real match over gRPC."""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.analysis import Position, new_search, solve
from arena.rules import Decision, Match, RuleSet, cards_of, mask_of, parse_card
from arena.rules.observation import SeatView
from arena.sdk import Clock, View
from arena.sdk.local import load_bot, play_local

ROOT = Path(__file__).resolve().parent.parent
EXPERT = ROOT / "sample_bots" / "expert"
sys.path.insert(0, str(EXPERT))

from spades_expert import search  # noqa: E402
from spades_expert.inference import knowledge_of, sample_hand, sample_weighted  # noqa: E402

SUIT = tuple(0x1FFF << (13 * s) for s in range(4))


def view_of(m: Match, legal: tuple[int, ...] = ()) -> View:
    seat = m.to_act
    assert seat is not None
    obs = m.observation(seat)
    return View(
        match_id="t",
        decision=obs.decision,
        seat=seat,
        rules=obs.rules,
        hand_number=obs.hand_number,
        first_drawer=obs.first_drawer,
        hand=obs.hand,
        looking_at=obs.looking_at,
        own_discards=obs.own_discards,
        stock_size=obs.stock_size,
        seats=obs.seats,
        tricks=obs.tricks,
        spades_broken=obs.spades_broken,
        clock=Clock(1000, 0),
        legal_cards=legal,
        legal_bids=tuple(range(14)) if obs.decision is Decision.BID else (),
        own_put_aside=obs.own_put_aside,
    )


def revealed_voids(view: View) -> int:
    """Suits the opponent failed to follow, recomputed independently of the bot."""
    voids = 0
    for t in view.tricks:
        if t.leader == view.seat and len(t.cards) == 2 and t.cards[0] // 13 != t.cards[1] // 13:
            voids |= 1 << (t.cards[0] // 13)
    return voids


def test_no_sampled_deal_contradicts_a_void_or_a_seen_card() -> None:
    rng = random.Random(5)
    positions = exchanges = 0
    for seed in range(70):
        m = Match(seed, RuleSet())  # random play declares Double Nil half the time: exchanges
        aside: list[int] = [0, 0]
        while not m.is_over and m.hand_number == 1:
            seat = m.to_act
            if m.decision is Decision.PLAY and rng.random() < 0.3:
                view = view_of(m, tuple(m.legal_actions()))
                assert mask_of(view.own_put_aside) == aside[seat]
                k = knowledge_of(view)
                truth = mask_of(m.hand(seat ^ 1))
                assert truth & ~k.possible == 0, "the facts exclude the opponent's real cards"
                seen = view.hand_mask | view.played_mask | aside[seat]
                if not view.opp.cards_exchanged:
                    seen |= mask_of(view.own_discards)
                voids = revealed_voids(view)
                for s in range(4):
                    if voids >> s & 1:
                        assert not truth & SUIT[s]
                for _ in range(8):
                    for sample in (sample_hand(k, rng), sample_weighted(k, rng)):
                        assert sample.bit_count() == len(m.hand(seat ^ 1))
                        assert sample & seen == 0
                        for s in range(4):
                            if voids >> s & 1:
                                assert sample & SUIT[s] == 0
                positions += 1
                exchanges += bool(view.opp.cards_exchanged)
            action = m.random_action(rng)
            if m.decision is Decision.EXCHANGE:
                aside[seat] = mask_of(action)
            m.apply(action)
    assert positions > 150 and exchanges > 10


def _bid_view(hand: str, opp_bid: int | None = None) -> View:
    held = tuple(sorted(parse_card(c) for c in hand.split()))
    rest = [c for c in range(52) if c not in held]
    discards = tuple(sorted(random.Random(1).sample(rest, 13)))

    def seat(bid: int | None) -> SeatView:
        return SeatView(
            score=0, bags=0, bid=bid, double_nil=False, tricks_won=0, cards_exchanged=None
        )

    return View(
        match_id="b",
        decision=Decision.BID,
        seat=0,
        rules=RuleSet(),
        hand_number=1,
        first_drawer=0 if opp_bid is not None else 1,
        hand=held,
        looking_at=None,
        own_discards=discards,
        stock_size=0,
        seats=(seat(None), seat(opp_bid)),
        tricks=(),
        spades_broken=False,
        clock=Clock(1000, 0),
        legal_bids=tuple(range(14)),
    )


def test_good_unseen_cards_lean_into_the_opponents_hand() -> None:
    """The draw's evidence: a sensible drawer keeps good cards, so an unseen ace is likelier in
    the opponent's hand than on the pile, a low card less likely; the bot's own discards never."""
    m = Match(8, RuleSet())
    rng = random.Random(1)
    while m.decision is not Decision.BID:
        if m.decision is Decision.DOUBLE_NIL:
            m.apply(False)
        else:
            m.apply(m.random_action(rng))
    view = view_of(m)
    k = knowledge_of(view)
    good = [c for c in k.pool if c % 13 >= 10 and c < 39]
    poor = [c for c in k.pool if c % 13 <= 5 and c < 39]
    assert good and poor
    held = dict.fromkeys(k.pool, 0)
    n = 3000
    for _ in range(n):
        hand = sample_hand(k, rng)
        assert hand & mask_of(view.own_discards) == 0 and hand & view.hand_mask == 0
        for c in k.pool:
            held[c] += hand >> c & 1
    share_good = sum(held[c] for c in good) / (n * len(good))
    share_poor = sum(held[c] for c in poor) / (n * len(poor))
    assert share_good > 1.3 * share_poor, (share_good, share_poor)


def test_a_known_deal_is_played_as_the_double_dummy_solver_plays_it() -> None:
    """With the opponent's cards known (the knowledge narrowed to them), every sampled deal is
    the real one and PIMC must play a card the solver finds best."""
    checked = 0
    for truth, view in _play_positions(120, seed=21):
        if len(view.legal_cards) < 2:
            continue
        k = knowledge_of(view)
        opp = mask_of(truth)
        known = cards_of(opp)
        k = replace(k, pool=known, weights=(-1.0,) * len(known), discards=(), discard_draws=0)
        card = search.choose_play(view, k, random.Random(1), search.Limit(deals=2))
        seats = view.seats
        hands = (k.hand, opp) if view.seat == 0 else (opp, k.hand)
        trick = view.current_trick
        p = Position(
            hands=hands,
            to_act=view.seat,
            lead=trick.cards[0] if trick is not None else -1,
            tricks_won=(seats[0].tricks_won, seats[1].tricks_won),
            bids=(seats[0].bid or 0, seats[1].bid or 0),
            double_nil=(seats[0].double_nil, seats[1].double_nil),
            bags=(seats[0].bags, seats[1].bags),
            spades_broken=view.spades_broken,
            rules=view.rules,
        )
        payoff = search.payoff_of(view, p.bids)
        best = solve(p, new_search(payoff))
        assert best.card_values[card] == best.value, (view, card, best)
        checked += 1
    assert checked > 60


def test_every_card_is_legal_and_a_tiny_budget_falls_back_on_the_fast_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MIN_NODES", 1)
    fallbacks = 0
    for _, view in _play_positions(200, seed=5):
        k = knowledge_of(view)
        stats = search.Stats()
        past = search.Limit(deadline=time.perf_counter() - 1.0)  # no time at all
        card = search.choose_play(view, k, random.Random(2), past, stats)
        assert card in view.legal_cards
        if stats.playouts:
            assert stats.cut == stats.playouts == 1  # the one solve tried was cut
            fallbacks += 1
        card = search.choose_play(view, k, random.Random(2), search.Limit(deals=2))
        assert card in view.legal_cards
    assert fallbacks > 50


def test_a_bid_with_no_time_is_still_a_legal_bid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "MIN_NODES", 1)
    for hand in (
        "As Ks Qs Js Ac Kc Ad Kd Ah Kh 2c 2d 2h",
        "2c 3c 4c 5c 2d 3d 4d 5d 2h 3h 4h 5h 6h",
    ):
        view = _bid_view(hand, opp_bid=3)
        stats = search.Stats()
        bid = search.choose_bid(
            view, knowledge_of(view), random.Random(1), search.Limit(deadline=0.0), stats
        )
        assert bid in view.legal_bids and stats.cut == 1


@pytest.fixture
def expert(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ARENA_BOT_SEED", "3")
    monkeypatch.setenv("EXPERT_SIMS", "40")
    return load_bot(EXPERT)


def test_all_the_top_spades_bid_thirteen(expert) -> None:
    spades = " ".join(f"{r}s" for r in "23456789TJQKA")
    assert expert.bid(_bid_view(spades)) == 13
    assert expert.bid(_bid_view(spades, opp_bid=3)) == 13


def test_a_hand_of_low_side_cards_bids_nil(expert) -> None:
    assert expert.bid(_bid_view("2c 3c 4c 5c 2d 3d 4d 5d 2h 3h 4h 5h 6h", opp_bid=4)) == 0


def test_a_sure_tricks_hand_bids_them_and_not_nil(expert) -> None:
    bid = expert.bid(_bid_view("As Ks Qs Js Ac Kc Ad Kd Ah Kh 2c 2d 2h", opp_bid=2))
    assert 7 <= bid <= 11  # four top spades and three aces at least; never Nil


def test_the_bot_is_repeatable_with_a_seed_and_a_fixed_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_BOT_SEED", "9")
    monkeypatch.setenv("EXPERT_SIMS", "4")
    heuristic = load_bot(ROOT / "sample_bots" / "heuristic")
    rules = RuleSet(max_hands=2)
    runs = [play_local(load_bot(EXPERT), heuristic, seed=4, rules=rules) for _ in range(2)]
    assert runs[0].hand_results == runs[1].hand_results


def test_the_budget_keeps_a_margin_of_the_move_time() -> None:
    bot = load_bot(EXPERT)
    v = _bid_view("2c 3c 4c 5c 2d 3d 4d 5d 2h 3h 4h 5h 6h")
    bot.budget_ms = 10_000
    assert bot.limit(v, 0.0)[0].deadline == pytest.approx(0.25)  # a quarter of the 1 s move
    short = View(
        **{**{f: getattr(v, f) for f in View.__dataclass_fields__}, "clock": Clock(180, 0)}
    )
    assert bot.limit(short, 5.0)[0].deadline == pytest.approx(5.03)  # 180 ms less 150
    bot.budget_ms = 100
    deadline = bot.limit(v, 0.0)[0].deadline
    assert 0.1 < deadline <= 0.2 + 1e-9  # the bid gets more than a budget, at most 2


def _play_positions(count: int, seed: int = 11):
    """Play decisions of random matches, as (match, view)."""
    rng = random.Random(seed)
    out = []
    m = Match(seed, RuleSet())
    while len(out) < count:
        if m.is_over:
            seed += 1
            m = Match(seed, RuleSet())
        if m.decision is Decision.PLAY:
            out.append((m.hand(m.to_act ^ 1), view_of(m, tuple(m.legal_actions()))))
        m.apply(m.random_action(rng))
    return out


def test_double_nil_only_when_far_behind_near_the_end() -> None:
    def dn_view(me: int, opp: int) -> View:
        v = _bid_view("2c")
        seats = (
            SeatView(
                score=me, bags=0, bid=None, double_nil=False, tricks_won=0, cards_exchanged=None
            ),
            SeatView(
                score=opp, bags=0, bid=None, double_nil=False, tricks_won=0, cards_exchanged=None
            ),
        )
        return View(**{**{f: getattr(v, f) for f in View.__dataclass_fields__}, "seats": seats})

    assert not search.choose_double_nil(dn_view(0, 0))
    assert not search.choose_double_nil(dn_view(300, 420))  # the opponent is not that close
    assert not search.choose_double_nil(dn_view(400, 460))  # a normal hand may catch up
    assert not search.choose_double_nil(dn_view(100, 460))  # even +200 would not
    assert search.choose_double_nil(dn_view(300, 460))


def test_a_real_match_over_grpc_against_random() -> None:
    """Real processes over real gRPC, the bot's default budget and the default clock."""
    from arena.referee import ClockConfig, Termination, play_match, verify
    from arena.runtime import load_manifest, start_bot

    with (
        start_bot(load_manifest(EXPERT)) as a,
        start_bot(load_manifest(ROOT / "sample_bots" / "random")) as b,
    ):
        result = play_match(
            (a, b),
            seed=3,
            rules=RuleSet(target_score=150, max_hands=3),
            clock=ClockConfig(move_time_ms=1000),
        )
    assert result.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT)
    assert result.faults == (0, 0)
    assert result.winner == 0, result.scores
    verify(result)
