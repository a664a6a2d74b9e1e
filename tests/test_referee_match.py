"""The referee over real gRPC with real bot processes: clean matches, clocks, replay, threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bench.first_legal import manifest_dir
from arena.referee import (
    ClockConfig,
    FaultKind,
    FaultPolicy,
    MatchResult,
    Termination,
    play_match,
    render_text,
    verify,
)
from arena.rules import HandResult, RuleSet
from arena.runtime import RunningBot, load_manifest, start_bot

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_bots" / "random"
HOSTILE = ROOT / "tests" / "bots" / "hostile"
SHORT = RuleSet(target_score=150)


@pytest.fixture(scope="module")
def random_bot() -> Iterator[RunningBot]:
    """The random sample bot, seeded: its choices depend on the request alone."""
    manifest = load_manifest(RANDOM_BOT)
    with start_bot(replace(manifest, env={**manifest.env, "ARENA_BOT_SEED": "7"})) as bot:
        yield bot


@pytest.fixture(scope="module")
def fast_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningBot]:
    folder = manifest_dir(tmp_path_factory.mktemp("bots"))
    with start_bot(load_manifest(folder)) as bot:
        yield bot


def start_hostile(tmp_path: Path, mode: str, **env: str) -> RunningBot:
    """The hostile bot in ``mode``, from a manifest written for this test."""
    folder = tmp_path / f"hostile_{mode}"
    folder.mkdir(parents=True)
    lines = "".join(f'{k} = "{v}"\n' for k, v in {"HOSTILE_MODE": mode, **env}.items())
    (folder / "bot.toml").write_text(
        f'name = "hostile_{mode}"\ncommand = ["{{python}}", "{HOSTILE / "bot.py"}"]\n\n'
        f"[env]\n{lines}"
    )
    return start_bot(load_manifest(folder))


def assert_clean(result: MatchResult) -> None:
    assert result.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT)
    assert result.faults == (0, 0)
    assert result.detail == ""
    assert all(d.fault is None for d in result.decisions)


def test_clean_match_replays_to_the_same_hands(
    random_bot: RunningBot, fast_bot: RunningBot
) -> None:
    hands: list[HandResult] = []
    # A fixed match id: the seeded random bot derives its choices from it, so the match is
    # the same on every run.
    result = play_match(
        (random_bot, fast_bot),
        seed=17,
        rules=SHORT,
        match_id="replay-same-hands",
        on_hand=hands.append,
    )
    assert_clean(result)
    assert result.players == ("random", "first_legal")
    assert result.hands_played == len(hands) >= 1
    assert result.scores == hands[-1].scores
    assert result.termination is Termination.TARGET_REACHED
    assert result.winner == (0 if result.scores[0] > result.scores[1] else 1)
    assert max(result.scores) >= SHORT.target_score
    # Every decision is timed on the referee's clock, within the limit.
    assert all(0 < d.elapsed_us < 1_000_000 for d in result.decisions)
    assert {d.seat for d in result.decisions} == {0, 1}
    rebuilt = verify(result)
    assert rebuilt.scores == result.scores
    assert rebuilt.hand_results == hands  # bids, tricks (every card), points, scores, bags
    assert f"Hand {len(hands)} " in render_text(result)


def test_same_seed_same_bots_same_match(fast_bot: RunningBot, tmp_path: Path) -> None:
    """Deterministic bots and a seed give the same match, decision for decision."""
    with start_bot(load_manifest(manifest_dir(tmp_path, "first_legal_b"))) as other:
        a = play_match((fast_bot, other), seed=5, rules=SHORT)
        b = play_match((fast_bot, other), seed=5, rules=SHORT)
    assert [(d.seat, d.action) for d in a.decisions] == [(d.seat, d.action) for d in b.decisions]
    assert a.scores == b.scores and a.match_id != b.match_id


def test_recorded_match_replays_from_the_store(
    random_bot: RunningBot, fast_bot: RunningBot, sqlite_url: str
) -> None:
    from arena.store import Store

    hands: list[HandResult] = []
    result = play_match((fast_bot, random_bot), seed=3, rules=SHORT, on_hand=hands.append)
    with Store.open(sqlite_url) as store:
        a = store.register_bot_version("first_legal", "1", "a" * 64, "/nowhere/a")
        b = store.register_bot_version("random", "1", "b" * 64, "/nowhere/b")
        store.record_match(result, seat_versions=(a.id, b.id))
    with Store.open(sqlite_url) as store:
        stored = store.get_match(result.match_id).result
    assert stored.decisions == result.decisions
    rebuilt = verify(stored)
    assert rebuilt.scores == result.scores
    assert rebuilt.hand_results == hands


def test_concurrent_matches_share_the_bot_processes(
    random_bot: RunningBot, fast_bot: RunningBot
) -> None:
    results: dict[int, MatchResult] = {}

    def play(seed: int) -> None:
        pair = (random_bot, fast_bot) if seed % 2 else (fast_bot, random_bot)
        results[seed] = play_match(pair, seed=seed, rules=SHORT)

    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [0, 1, 2, 3]
    assert len({r.match_id for r in results.values()}) == 4
    for result in results.values():
        assert_clean(result)
        assert verify(result).scores == result.scores


def test_stop_event_aborts_the_match(random_bot: RunningBot, fast_bot: RunningBot) -> None:
    stop = threading.Event()
    hands: list[HandResult] = []

    def on_hand(hand: HandResult) -> None:
        hands.append(hand)
        if len(hands) == 2:
            stop.set()

    result = play_match(
        (random_bot, fast_bot),
        seed=1,
        rules=RuleSet(target_score=10_000),
        stop=stop,
        on_hand=on_hand,
    )
    assert result.termination is Termination.ABORTED
    assert result.winner is None
    assert result.hands_played == 2
    assert "stopped" in result.detail
    assert verify(result).scores == hands[-1].scores


def test_answer_just_inside_the_limit_is_clean(fast_bot: RunningBot, tmp_path: Path) -> None:
    """A bot that takes 70 % of its limit (read from the Clock in each request) is in time."""
    with start_hostile(tmp_path, "slow", HOSTILE_FRACTION="0.7", HOSTILE_SLOW_EVERY="6") as slow:
        result = play_match(
            (slow, fast_bot), seed=2, rules=RuleSet(max_hands=2), clock=ClockConfig(200)
        )
    assert_clean(result)
    slow_ones = [d.elapsed_us for d in result.decisions if d.seat == 0 and d.elapsed_us > 100_000]
    assert len(slow_ones) >= 8
    assert all(140_000 <= us < 200_000 for us in slow_ones)


def test_time_bank_pays_for_overruns_until_it_runs_out(
    fast_bot: RunningBot, tmp_path: Path
) -> None:
    """100 ms a move and a 450 ms bank: answers of 150 ms draw 50 ms each from the bank."""
    with start_hostile(tmp_path, "slow", HOSTILE_FRACTION="1.5", HOSTILE_AFTER="0") as slow:
        result = play_match(
            (fast_bot, slow), seed=4, clock=ClockConfig(move_time_ms=100, time_bank_ms=450)
        )
        assert slow.alive()
    assert result.termination is Termination.FORFEIT_TIMEOUT
    assert result.winner == 0 and result.faults == (0, 1)
    over = [d.elapsed_us - 100_000 for d in result.decisions if d.seat == 1]
    # Every answered decision was over the move limit and paid from the bank...
    assert len(over) >= 5 and all(o > 40_000 for o in over)
    assert sum(over) <= 450_000
    # ...until the bank could not pay for the next one.
    assert "seat 1 (hostile_slow)" in result.detail


def test_substitute_policy_counts_a_fault_and_plays_on(
    random_bot: RunningBot, tmp_path: Path
) -> None:
    """One error, substituted: the match ends normally, yet does not look clean."""
    with start_hostile(tmp_path, "error", HOSTILE_AFTER="4", HOSTILE_TIMES="1") as bot:
        result = play_match(
            (bot, random_bot), seed=8, rules=SHORT, policy=FaultPolicy("substitute")
        )
    assert result.termination in (Termination.TARGET_REACHED, Termination.HAND_LIMIT)
    assert result.faults == (1, 0)
    faulted = [d for d in result.decisions if d.fault is not None]
    assert len(faulted) == 1 and faulted[0].seat == 0
    assert faulted[0].fault is FaultKind.ERROR_STATUS
    assert "INTERNAL" in result.detail and "random legal action" in result.detail
    assert verify(result).scores == result.scores  # substitutes replay like any action
    assert "substituted" in render_text(result)


@pytest.mark.parametrize("kind", ["forfeit", "substitute"])
def test_substitutes_come_from_the_match_seed(
    fast_bot: RunningBot, tmp_path: Path, kind: str
) -> None:
    """The same faults in the same match give the same substitutes (reproducible records)."""
    policy = FaultPolicy(kind, max_faults=4)  # type: ignore[arg-type]
    runs = []
    for i in range(2):
        with start_hostile(tmp_path / str(i), "garbage", HOSTILE_AFTER="2") as bot:
            runs.append(play_match((fast_bot, bot), seed=9, rules=SHORT, policy=policy))
    a, b = runs
    assert a.termination is b.termination is Termination.FORFEIT_MALFORMED_ANSWER
    assert a.faults == b.faults == ((0, 1) if kind == "forfeit" else (0, 4))
    strip = [replace(d, elapsed_us=0) for d in a.decisions if d.seat == 1]
    assert strip == [replace(d, elapsed_us=0) for d in b.decisions if d.seat == 1]


def test_a_fault_on_end_hand_forfeits_only_while_the_match_is_undecided(
    fast_bot: RunningBot, tmp_path: Path
) -> None:
    """An error status on EndHand forfeits mid-match; on the last hand's EndHand the result is
    already decided: the fault is counted and shown, the result stands, the record replays."""
    with start_hostile(tmp_path, "error_end_hand") as bot:
        mid = play_match((bot, fast_bot), seed=6, rules=RuleSet(max_hands=2))
        last = play_match((bot, fast_bot), seed=6, rules=RuleSet(max_hands=1))
    assert mid.termination is Termination.FORFEIT_ERROR_STATUS
    assert (mid.winner, mid.faults, mid.hands_played) == (1, (1, 0), 1)
    assert "EndHand" in mid.detail
    assert verify(mid)
    assert last.termination is Termination.HAND_LIMIT
    assert last.hands_played == 1 and last.faults == (1, 0)
    assert "EndHand" in last.detail and "INTERNAL" in last.detail
    assert "random legal action" not in last.detail
    rebuilt = verify(last)
    assert rebuilt.outcome is not None and rebuilt.outcome.winner == last.winner


def test_a_bot_whose_channel_was_closed_by_a_restart_has_crashed(fast_bot: RunningBot) -> None:
    """A dead bot's connection closed by the arena (a tournament restarting it) is the bot's
    crash, not an arena abort: the match must not stay unsettled."""
    manifest = load_manifest(RANDOM_BOT)
    dead = start_bot(manifest)
    dead.stop()
    assert not dead.alive()
    result = play_match((fast_bot, dead), seed=4, rules=SHORT)
    assert result.termination is Termination.FORFEIT_CRASH, result.detail
    assert (result.winner, result.faults) == (0, (0, 1))
    assert "before the match began" in result.detail
    # The same in the middle of a match: the bot dies and its channel is closed after hand 1.
    dying = start_bot(manifest)
    result = play_match((dying, fast_bot), seed=4, rules=SHORT, on_hand=lambda hand: dying.stop())
    assert result.termination is Termination.FORFEIT_CRASH, result.detail
    assert (result.winner, result.faults, result.hands_played) == (1, (1, 0), 1)
    assert "before EndHand" in result.detail
    assert verify(result)
