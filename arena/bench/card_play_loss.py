"""``arena bench card-play-loss``: does card-play loss order bots, and with how few matches?

Over every recorded match of a database (or of some tournaments) that a reference bot
(``--against``, default heuristic) played, each other bot's card-play loss per hand (mean par
loss, 95 % interval), beside its match score against the reference.

Matches needed to tell a bot from the reference at 95 %, from the same matches both ways:

- by match results: a match scores 1, 1/2 or 0 for the bot; with mean ``m`` and deviation ``s``
  per match, ``n = (1.96 s / (m - 1/2))^2``;
- by card-play loss: per match, the bot's mean loss per hand minus the reference's in the same
  match, ``d``; with mean ``m_d`` and deviation ``s_d``, ``n = (1.96 s_d / m_d)^2``.

The claim to check is the second needing at least 3x fewer matches than the first.

Beside it, for the bidding: the mean distance between a bot's bid and the tricks it could have
taken double-dummy, ``|bid - dd tricks|`` per hand (Double Nil hands left out), 95 % interval.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from arena.analysis import MatchAnalysis, summarise
from arena.referee.analysed import analyse_result

Z95 = 1.959963984540054


def _needed(xs: list[float], null: float) -> float | None:
    if len(xs) < 2:
        return None
    mean = statistics.fmean(xs) - null
    sd = statistics.stdev(xs)
    if mean == 0:
        return math.inf
    return (Z95 * sd / mean) ** 2


def measure(db: str | None, against: str, tournaments: list[int] | None = None) -> dict[str, Any]:
    from arena.store import Store

    pairs: list[tuple[Any, MatchAnalysis]] = []
    with Store.open(db) as store:
        summaries = (
            [s for t in tournaments for s in store.list_matches(tournament_id=t)]
            if tournaments
            else store.list_matches()
        )
        for s in summaries:
            names = [p.rpartition("@")[0] for p in s.players]
            if against in names and names[0] != names[1]:
                pairs.append((s, analyse_result(store.get_match(s.match_id).result)))
    rows: dict[str, dict[str, Any]] = {}
    reference: list[int] = []
    for s, analysis in pairs:
        ref_seat = [p.rpartition("@")[0] for p in s.players].index(against)
        seat = 1 - ref_seat
        row = rows.setdefault(
            s.players[seat],
            {"losses": [], "ref_losses": [], "scores": [], "diffs": [], "bid_gaps": []},
        )
        mine, ref = analysis.hand_losses(seat), analysis.hand_losses(ref_seat)
        row["losses"].extend(mine)
        row["ref_losses"].extend(ref)
        reference.extend(ref)
        row["bid_gaps"].extend(
            abs(h.bids[seat] - h.dd_tricks[seat]) for h in analysis.hands if not h.double_nil[seat]
        )
        row["scores"].append(1.0 if s.winner == seat else 0.5 if s.winner is None else 0.0)
        if mine and ref:
            row["diffs"].append(statistics.fmean(mine) - statistics.fmean(ref))
    out: list[dict[str, Any]] = []
    for player, row in rows.items():
        scores = row["scores"]
        n = len(scores)
        mean = statistics.fmean(scores)
        half = Z95 * statistics.stdev(scores) / math.sqrt(n) if n > 1 else None
        by_wins = _needed(scores, 0.5)
        by_loss = _needed(row["diffs"], 0.0)
        out.append(
            {
                "player": player,
                "matches": n,
                "card_play_loss": summarise(row["losses"]).to_dict(),
                "reference_loss_in_these_matches": summarise(row["ref_losses"]).to_dict(),
                "bid_off_dd": summarise(row["bid_gaps"]).to_dict() if row["bid_gaps"] else None,
                "match_score": mean,
                "match_score_interval": [mean - half, mean + half] if half is not None else None,
                "matches_needed_by_wins": by_wins,
                "matches_needed_by_loss": by_loss,
                "wins_over_loss": (by_wins / by_loss) if by_wins and by_loss else None,
            }
        )
    out.sort(key=lambda r: r["card_play_loss"]["mean"])
    return {
        "against": against,
        "matches": len(pairs),
        "reference_card_play_loss": summarise(reference).to_dict() if reference else None,
        "bots": out,
    }


def describe(r: dict[str, Any]) -> str:
    ref = r["reference_card_play_loss"]
    lines = [
        f"{r['matches']} matches against {r['against']}; card-play loss = mean par loss per "
        "hand (hand points), 95 % interval",
    ]
    if ref:
        lines.append(
            f"  {r['against']} (all these matches): {ref['mean']:.1f} "
            f"[{ref['low']:.1f}, {ref['high']:.1f}] over {ref['hands']} hands"
        )
    for b in r["bots"]:
        c = b["card_play_loss"]
        ci = b["match_score_interval"]
        lines.append(
            f"  {b['player']:<18} {c['mean']:6.1f} [{c['low']:.1f}, {c['high']:.1f}] over "
            f"{c['hands']} hands; match score {b['match_score']:.2f}"
            + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
            + f" over {b['matches']}"
            + (f"; |bid-dd| {b['bid_off_dd']['mean']:.2f}" if b["bid_off_dd"] else "")
            + f"; matches needed: by wins {_n(b['matches_needed_by_wins'])},"
            f" by card-play loss {_n(b['matches_needed_by_loss'])}"
        )
    return "\n".join(lines)


def _n(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.1f}"
