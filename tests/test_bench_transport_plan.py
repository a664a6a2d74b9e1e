"""The transport benchmark replays what a match sends: the notices around the decisions, in the
referee's order, so that ``arena bench referee --compare`` compares like with like."""

from __future__ import annotations

import pytest

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bench.transport import NOTICES, match_calls, match_plan
from arena.rules import Decision, Match


def test_a_match_plan_holds_the_notices_of_the_match_in_order() -> None:
    calls = match_calls(3, "m" * 32)
    kinds = [c.decision for c in calls]
    assert kinds[:2] == ["StartMatch", "StartMatch"] and kinds[-2:] == ["EndMatch", "EndMatch"]
    assert [c.seat for c in calls[:2]] == [0, 1] and [c.seat for c in calls[-2:]] == [0, 1]
    decisions = [c for c in calls if c.counted]
    assert all(isinstance(c.decision, Decision) for c in decisions)
    # One EndHand to each seat after each hand's last card, and only then.
    hands = 0
    for i, call in enumerate(calls):
        if call.decision == "EndHand":
            assert calls[i - 1].decision in (Decision.PLAY, "EndHand")
            hands += call.seat == 1
    m = Match(3)
    assert (decisions[0].seat, decisions[0].decision) == (m.to_act, m.decision)
    end = pb.EndMatchRequest.FromString(calls[-1].data)
    assert end.hands_played == hands >= 1
    start = pb.StartMatchRequest.FromString(calls[0].data)
    assert start.match_id == "m" * 32 and start.opponent == "first_legal_1"
    assert {c.decision for c in calls if not c.counted} == set(NOTICES)


def test_the_plan_replays_different_deals() -> None:
    plan = match_plan((1, 2))
    firsts = [next(c.data for c in match if c.counted) for match in plan]
    assert firsts[0] != firsts[1]


@pytest.mark.slow
def test_the_comparison_gives_each_slice_pairs_ratio() -> None:
    """``arena bench referee --compare``: the pooled ratio and each slice pair's, on real bots."""
    from arena.bench.referee import describe, measure

    result = measure(seconds=1.0, compare=True, slices=3)
    ratios = result["slice_ratios"]
    assert len(ratios) == 3 and ratios == sorted(ratios) and ratios[0] > 0
    assert ratios[0] <= result["median_slice_ratio"] == ratios[1] <= ratios[-1]
    assert result["decisions"] > 0 and result["transport"]["calls"] > 0
    assert "slice pairs: median" in describe(result)
