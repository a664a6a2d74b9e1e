"""Scoring of one hand (R-5): a pure function of bid, tricks and bag count, used by the Match."""

from __future__ import annotations

NIL_VALUE = 100
"""R-5.3: won for a Nil made, lost for a Nil broken."""
DOUBLE_NIL_VALUE = 200
"""R-5.4: the same for Double Nil."""
BAG_LIMIT = 10
BAG_PENALTY = -100
"""R-5.5: points lost each time a player's bag count reaches ``BAG_LIMIT``."""


def hand_points(
    bid: int, double_nil: bool, tricks: int, nil_tricks_count_as_bags: bool = False
) -> tuple[int, int]:
    """``(points, bags)`` of one player's hand by R-5.1 to R-5.4, before any sandbag penalty.

    A (Double) Nil bidder's tricks score nothing: her hand is exactly +/-100 (+/-200). With
    ``nil_tricks_count_as_bags`` each of them is also a bag (R-5.3, R-5.4), unlike the
    overtricks of R-5.1, which are a point each as well as a bag.
    """
    if bid == 0:
        value = DOUBLE_NIL_VALUE if double_nil else NIL_VALUE
        if tricks == 0:
            return value, 0
        return -value, tricks if nil_tricks_count_as_bags else 0
    if tricks >= bid:
        return 10 * bid + tricks - bid, tricks - bid
    return -10 * bid, 0


def bag_penalty(bags_before: int, new_bags: int) -> tuple[int, int]:
    """``(penalty, bags_after)`` by R-5.5: -100 for each 10 bags reached, the rest carries over."""
    total = bags_before + new_bags
    times = total // BAG_LIMIT
    return BAG_PENALTY * times, total - BAG_LIMIT * times
