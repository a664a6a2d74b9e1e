"""A match's analysis as JSON-ready data, and back (what the store keeps and the API serves)."""

from __future__ import annotations

from typing import Any

from arena.analysis.par import HandAnalysis, MatchAnalysis, PlayAnalysis
from arena.rules import card_name, parse_card


def analysis_to_dict(analysis: MatchAnalysis) -> dict[str, Any]:
    """Cards by name (``"Ah"``); values in hand points, ``par`` and ``value`` for the player."""
    return {
        "solver_version": analysis.solver_version,
        "hands": [
            {
                "hand_number": h.hand_number,
                "bids": list(h.bids),
                "double_nil": list(h.double_nil),
                "dd_tricks": list(h.dd_tricks),
                "par": h.par,
                "complete": h.complete,
                "loss": [h.loss(0), h.loss(1)],
                "trick_loss": [h.trick_loss(0), h.trick_loss(1)],
                "share": [h.share(0), h.share(1)],
                "plays": [
                    {
                        "step": p.step,
                        "trick": p.trick,
                        "seat": p.seat,
                        "card": card_name(p.card),
                        "par": p.par,
                        "value": p.value,
                        "loss": p.loss,
                        "class": p.kind.value,
                        "best": [card_name(c) for c in p.best],
                        "trick_loss": p.trick_loss,
                        "low": p.low,
                    }
                    | ({"substituted": True} if p.substituted else {})
                    for p in h.plays
                ],
            }
            for h in analysis.hands
        ],
    }


def analysis_from_dict(data: dict[str, Any]) -> MatchAnalysis:
    """The inverse of ``analysis_to_dict`` (derived fields, loss and class, are recomputed)."""
    hands = []
    for h in data["hands"]:
        plays = tuple(
            PlayAnalysis(
                step=p["step"],
                hand_number=h["hand_number"],
                trick=p["trick"],
                seat=p["seat"],
                card=parse_card(p["card"]),
                par=p["par"],
                value=p["value"],
                best=tuple(parse_card(c) for c in p["best"]),
                trick_loss=p["trick_loss"],
                low=p["low"],
                substituted=p.get("substituted", False),
            )
            for p in h["plays"]
        )
        hands.append(
            HandAnalysis(
                hand_number=h["hand_number"],
                bids=(h["bids"][0], h["bids"][1]),
                double_nil=(h["double_nil"][0], h["double_nil"][1]),
                dd_tricks=(h["dd_tricks"][0], h["dd_tricks"][1]),
                par=h["par"],
                plays=plays,
                complete=h["complete"],
            )
        )
    return MatchAnalysis(solver_version=data["solver_version"], hands=tuple(hands))
