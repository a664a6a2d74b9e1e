"""Bots stop at once after a match: the arena's channel to a bot is closed before its SIGTERM."""

from __future__ import annotations

import time
from pathlib import Path

from arena.referee import play_match
from arena.rules import RuleSet
from arena.runtime import load_manifest, start_bot
from arena.runtime.process import DEFAULT_GRACE_S


def test_a_bot_stops_at_once_after_a_match() -> None:
    """A gRPC server's graceful stop waits for its clients' connections (on gRPC's classic I/O
    manager a channel that nobody polls keeps one open): stopping a bot closes the arena's
    channel first, so a bot that has just played ends on its SIGTERM at once, not after its
    whole grace."""
    samples = Path(__file__).resolve().parents[1] / "sample_bots"
    bots = [start_bot(load_manifest(samples / name)) for name in ("random", "heuristic")]
    try:
        result = play_match((bots[0], bots[1]), seed=2, rules=RuleSet(max_hands=1))
        assert result.faults == (0, 0), result.detail
    finally:
        took = []
        for bot in bots:
            t0 = time.monotonic()
            bot.stop()
            took.append(time.monotonic() - t0)
    assert max(took) < DEFAULT_GRACE_S / 2, took
