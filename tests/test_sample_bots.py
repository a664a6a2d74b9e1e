"""The Python sample bots: manifests, in-process matches, strength, and the heuristic's habits."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.rules import Decision, RuleSet, parse_card
from arena.rules.observation import SeatView, TrickView
from arena.sdk import Bot, Clock, View
from arena.sdk.local import BotLoadError, load_bot, play_duplicate, play_local

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"
PYTHON_BOTS = ("random", "heuristic", "cautious")


@pytest.fixture(autouse=True)
def _seeded_random_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_BOT_SEED", "11")


def bot(name: str) -> Bot:
    return load_bot(SAMPLES / name)


def test_every_sample_bot_has_a_manifest_in_the_documented_format() -> None:
    dirs = sorted(p for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert {p.name for p in dirs} >= {*PYTHON_BOTS, "expert", "expert_pimc", "node_random"}
    for d in dirs:
        with (d / "bot.toml").open("rb") as f:
            manifest = tomllib.load(f)
        assert manifest["name"] == d.name
        command = manifest["command"]
        assert isinstance(command, list) and all(isinstance(a, str) for a in command)
        if command[0].startswith("./"):  # a compiled bot: its Makefile builds the program
            assert Path(command[0]).name in (d / "Makefile").read_text()
        else:
            assert (d / command[-1]).is_file()
        if d.name in PYTHON_BOTS:
            assert command == ["{python}", "bot.py"]


def test_a_compiled_sample_bot_not_yet_built_is_skipped_with_the_reason(tmp_path: Path) -> None:
    from arena.tournament.entrants import sample_bot_unavailable

    bot = tmp_path / "cpp_lowest"
    bot.mkdir()
    for name in ("bot.toml", "bot.cc", "Makefile"):
        (bot / name).write_bytes((SAMPLES / "cpp_lowest" / name).read_bytes())
    why = sample_bot_unavailable(bot)
    assert why is not None and "./build/cpp_lowest is not built" in why and "make" in why
    (bot / "build").mkdir()
    (bot / "build" / "cpp_lowest").write_text("#!/bin/sh\n")
    assert sample_bot_unavailable(bot) is not None  # not executable: still not built
    (bot / "build" / "cpp_lowest").chmod(0o755)
    assert sample_bot_unavailable(bot) is None


def test_the_runtime_reads_every_sample_manifest() -> None:
    manifest = pytest.importorskip("arena.runtime.manifest")
    for name in (*PYTHON_BOTS, "expert", "expert_pimc", "node_random"):
        m = manifest.load_manifest(SAMPLES / name)
        assert m.name == name


def test_load_bot_finds_each_python_bot() -> None:
    for name in PYTHON_BOTS:
        assert bot(name).name == name


def test_load_bot_refuses_a_directory_without_a_bot(tmp_path: Path) -> None:
    with pytest.raises(BotLoadError, match="no Python bot script"):
        load_bot(tmp_path)
    (tmp_path / "bot.py").write_text("X = 1\n")
    with pytest.raises(BotLoadError, match="exactly one Bot subclass"):
        load_bot(tmp_path)


@pytest.mark.parametrize(("a", "b"), list(itertools.product(PYTHON_BOTS, repeat=2)))
def test_matches_between_every_pair_of_python_bots_finish(a: str, b: str) -> None:
    result = play_local(bot(a), bot(b), seed=5, rules=RuleSet(target_score=200, max_hands=40))
    outcome = result.outcome
    assert outcome.hands_played == len(result.hand_results) >= 1
    assert outcome.scores == result.hand_results[-1].scores
    assert result.decisions >= 56 * outcome.hands_played - 8  # draws, bids, plays and more
    if outcome.winner is not None:
        assert outcome.scores[outcome.winner] > outcome.scores[1 - outcome.winner]


def test_the_random_bot_is_repeatable_with_a_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> tuple[Any, ...]:
        r = play_local(bot("random"), bot("random"), seed=3, rules=RuleSet(max_hands=3))
        return tuple(r.hand_results)

    first = run()
    assert run() == first
    monkeypatch.setenv("ARENA_BOT_SEED", "12")
    assert run() != first


def test_random_bot_declares_double_nil_sometimes() -> None:
    results = play_local(bot("random"), bot("random"), seed=1, rules=RuleSet(max_hands=60))
    declared = sum(sum(h.double_nil) for h in results.hand_results)
    assert 0 < declared < 12  # about 2 % of 120 questions


def test_heuristic_beats_random() -> None:
    result = play_duplicate(bot("heuristic"), bot("random"), pairs=10, first_seed=100)
    assert result.win_rate >= 0.8, result


@pytest.mark.slow
def test_cautious_beats_random() -> None:
    result = play_duplicate(bot("cautious"), bot("random"), pairs=5, first_seed=100)
    assert result.win_rate >= 0.8, result


@pytest.mark.slow
def test_heuristic_beats_cautious() -> None:
    result = play_duplicate(bot("heuristic"), bot("cautious"), pairs=30, first_seed=200)
    assert result.win_rate >= 0.6, result


# -- the heuristic's habits ------------------------------------------------------------------


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_card(c) for c in text.split()))


def seat(bid: int | None, won: int = 0) -> SeatView:
    return SeatView(
        score=0, bags=0, bid=bid, double_nil=False, tricks_won=won, cards_exchanged=None
    )


def view(
    decision: Decision,
    hand: str,
    discards: str = "",
    *,
    tricks: tuple[TrickView, ...] = (),
    me: SeatView | None = None,
    opp: SeatView | None = None,
    looking_at: str | None = None,
    legal: str | None = None,
) -> View:
    held = cards(hand)
    if legal is None and decision is Decision.PLAY:
        legal = hand
    return View(
        match_id="m",
        decision=decision,
        seat=0,
        rules=RuleSet(),
        hand_number=1,
        first_drawer=0,
        hand=held,
        looking_at=parse_card(looking_at) if looking_at else None,
        own_discards=cards(discards),
        stock_size=0,
        seats=(me or seat(None), opp or seat(None)),
        tricks=tricks,
        spades_broken=False,
        clock=Clock(1000, 0),
        legal_cards=cards(legal) if legal else (),
        legal_bids=tuple(range(14)) if decision is Decision.BID else (),
    )


def led(card: str, by: int = 1) -> tuple[TrickView, ...]:
    return (TrickView(leader=by, cards=(parse_card(card),), winner=None),)


HIGH_DISCARDS = "Ac Kc Qc Ad Kd Qd Ah Kh Qh Ts Ks Qs Js"


def test_heuristic_bids_nil_with_a_hand_of_low_cards() -> None:
    hand = "2c 3c 4c 2d 3d 4d 5d 2h 3h 4h 5h 6h 2s"
    assert bot("heuristic").bid(view(Decision.BID, hand, HIGH_DISCARDS)) == 0
    assert bot("cautious").bid(view(Decision.BID, hand, HIGH_DISCARDS)) == 1  # never Nil


def test_heuristic_bids_its_tricks_with_a_strong_hand() -> None:
    hand = "As Ks Qs Js Ts 9s Ah Kh Ad Kd Ac Kc 2c"
    strong = bot("heuristic").bid(
        view(Decision.BID, hand, "2h 3h 4h 5h 6h 2d 3d 4d 5d 3c 4c 5c 6c")
    )
    assert 10 <= strong <= 13
    cautious = bot("cautious").bid(
        view(Decision.BID, hand, "2h 3h 4h 5h 6h 2d 3d 4d 5d 3c 4c 5c 6c")
    )
    assert cautious == strong - 1


def test_heuristic_never_bids_nil_holding_the_ace_of_spades() -> None:
    hand = "2c 3c 4c 2d 3d 4d 5d 2h 3h 4h 5h 6h As"
    assert (
        bot("heuristic").bid(view(Decision.BID, hand, "Ac Kc Qc Ad Kd Qd Ah Kh Qh Ts Ks Qs Js"))
        >= 1
    )


def test_heuristic_draw_keeps_high_cards_and_rejects_low_ones() -> None:
    h = bot("heuristic")
    hand = "9c Kd 7s"
    assert h.draw(view(Decision.DRAW, hand, "4h", looking_at="As")) is True
    assert h.draw(view(Decision.DRAW, hand, "4h", looking_at="Ah")) is True
    assert h.draw(view(Decision.DRAW, hand, "4h", looking_at="3h")) is False


def test_heuristic_keeps_its_nil_by_playing_the_highest_card_under() -> None:
    v = view(
        Decision.PLAY, "5h Qh Ah 2c", tricks=led("Kh"), me=seat(0), opp=seat(4), legal="5h Qh Ah"
    )
    assert bot("heuristic").play(v) == parse_card("Qh")


def test_heuristic_keeps_its_nil_by_throwing_its_most_dangerous_card_when_void() -> None:
    v = view(Decision.PLAY, "2c Ad 3d 4h", tricks=led("Ks"), me=seat(0), opp=seat(4))
    assert bot("heuristic").play(v) == parse_card("Ad")


def test_heuristic_plays_under_a_nil_bidder_and_never_ruffs_it() -> None:
    h = bot("heuristic")
    under = view(
        Decision.PLAY, "3h 9h Ah 4s", tricks=led("Th"), me=seat(5), opp=seat(0), legal="3h 9h Ah"
    )
    assert h.play(under) == parse_card("9h")
    void = view(Decision.PLAY, "3c 9c 4s", tricks=led("Th"), me=seat(5), opp=seat(0))
    assert h.play(void) in cards("3c 9c")


def test_heuristic_leads_low_against_a_nil_bidder() -> None:
    v = view(Decision.PLAY, "2c Kc 7h Ah 9d", "3c 4c 5c 6c", me=seat(5), opp=seat(0))
    assert bot("heuristic").play(v) == parse_card("2c")


def test_heuristic_ducks_once_its_bid_is_made() -> None:
    v = view(
        Decision.PLAY,
        "4h Jh Ah",
        tricks=led("Qh"),
        me=seat(3, won=3),
        opp=seat(4, won=5),
        legal="4h Jh Ah",
    )
    assert bot("heuristic").play(v) == parse_card("Jh")


def test_heuristic_wins_cheaply_while_its_bid_needs_tricks() -> None:
    v = view(
        Decision.PLAY,
        "4h Kh Ah 2s",
        tricks=led("Qh"),
        me=seat(4, won=1),
        opp=seat(4),
        legal="4h Kh Ah",
    )
    assert bot("heuristic").play(v) == parse_card("Kh")
    void = view(Decision.PLAY, "4c 2s 9s", tricks=led("Qh"), me=seat(4, won=1), opp=seat(4))
    assert bot("heuristic").play(void) == parse_card("2s")
