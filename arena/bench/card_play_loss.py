"""``arena bench card-play-loss``: does card-play loss order bots, and with how few matches?

Over every recorded match of a database (or of some tournaments) that a reference bot
(``--against``, default heuristic) played, each other bot's card-play loss per hand, beside its
match score against the reference. Three measures of the same plays, each a mean over hands
with its 95 % interval (``arena.analysis.summarise``):

- **card-play loss** (``card_play_loss``): the shares of the stake given away per hand, over
  every complete hand (``MatchAnalysis.hand_shares``): each card's par loss over the par less
  the worst card's value, 0-1 a decision;
- **in tricks** (``trick_loss``): double-dummy tricks given away per hand, over the complete
  hands in which no seat bid Nil (``MatchAnalysis.hand_trick_losses``);
- **in points** (``point_loss``): hand points given away per hand (the par losses,
  ``MatchAnalysis.hand_losses``), over every complete hand.

Matches needed to tell a bot from the reference at 95 %, from the same matches each way:

- by match results: a match scores 1, 1/2 or 0 for the bot; with mean ``m`` and deviation ``s``
  per match, ``n = (1.96 s / (m - 1/2))^2``;
- by a loss: per match, the bot's mean loss per hand minus the reference's in the same match,
  ``d``; with mean ``m_d`` and deviation ``s_d`` over matches, ``n = (1.96 s_d / m_d)^2``.

The claim to check is card-play loss needing at least 3x fewer matches than results.
The bots are listed by their card-play loss, least first.

Beside it, for the bidding: the mean distance between a bot's bid and the tricks it could have
taken double-dummy, ``|bid - dd tricks|`` per hand (Double Nil hands left out), 95 % interval.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from arena.analysis import MatchAnalysis, summarise
from arena.referee.analysed import analyse_result

Z95 = 1.959963984540054
MEASURES: dict[str, Callable[[MatchAnalysis, int], Sequence[float]]] = {
    "card_play_loss": MatchAnalysis.hand_shares,
    "trick_loss": MatchAnalysis.hand_trick_losses,
    "point_loss": MatchAnalysis.hand_losses,
}
"""Each measure's samples of one seat in one match: a loss per hand."""


def _needed(xs: list[float], null: float) -> float | None:
    if len(xs) < 2:
        return None
    mean = statistics.fmean(xs) - null
    sd = statistics.stdev(xs)
    if mean == 0:
        return math.inf
    return (Z95 * sd / mean) ** 2


def _row() -> dict[str, Any]:
    return {"scores": [], "bid_gaps": []} | {
        f"{k}_{part}": [] for k in MEASURES for part in ("x", "ref", "diffs")
    }


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
    reference: dict[str, list[float]] = {k: [] for k in MEASURES}
    for s, analysis in pairs:
        ref_seat = [p.rpartition("@")[0] for p in s.players].index(against)
        seat = 1 - ref_seat
        row = rows.setdefault(s.players[seat], _row())
        for k, samples in MEASURES.items():
            mine, ref = samples(analysis, seat), samples(analysis, ref_seat)
            row[f"{k}_x"].extend(mine)
            row[f"{k}_ref"].extend(ref)
            reference[k].extend(ref)
            if mine and ref:
                row[f"{k}_diffs"].append(statistics.fmean(mine) - statistics.fmean(ref))
        row["bid_gaps"].extend(
            abs(h.bids[seat] - h.dd_tricks[seat]) for h in analysis.hands if not h.double_nil[seat]
        )
        row["scores"].append(1.0 if s.winner == seat else 0.5 if s.winner is None else 0.0)
    out: list[dict[str, Any]] = []
    for player, row in rows.items():
        scores = row["scores"]
        n = len(scores)
        mean = statistics.fmean(scores)
        half = Z95 * statistics.stdev(scores) / math.sqrt(n) if n > 1 else None
        by_wins = _needed(scores, 0.5)
        entry: dict[str, Any] = {
            "player": player,
            "matches": n,
            "bid_off_dd": summarise(row["bid_gaps"]).to_dict() if row["bid_gaps"] else None,
            "match_score": mean,
            "match_score_interval": [mean - half, mean + half] if half is not None else None,
            "matches_needed_by_wins": by_wins,
        }
        for k in MEASURES:
            xs, ref = row[f"{k}_x"], row[f"{k}_ref"]
            by_loss = _needed(row[f"{k}_diffs"], 0.0)
            entry[k] = summarise(xs).to_dict() if xs else None
            entry[f"reference_{k}_in_these_matches"] = summarise(ref).to_dict() if ref else None
            entry[f"matches_needed_by_{k}"] = by_loss
            entry[f"wins_over_{k}"] = (by_wins / by_loss) if by_wins and by_loss else None
        out.append(entry)
    out.sort(key=lambda r: r["card_play_loss"]["mean"] if r["card_play_loss"] else math.inf)
    return {
        "against": against,
        "matches": len(pairs),
        "reference": {k: summarise(v).to_dict() if v else None for k, v in reference.items()},
        "bots": out,
        "order": {k: _order(out, k, against, reference[k]) for k in MEASURES},
    }


def _order(bots: list[dict[str, Any]], key: str, against: str, ref: list[float]) -> list[str]:
    """Every player, the reference among them, by its mean loss, least first."""
    means = [(b[key]["mean"], b["player"]) for b in bots if b[key]]
    if ref:
        means.append((statistics.fmean(ref), against))
    return [p for _, p in sorted(means)]


def _ci(s: dict[str, Any] | None, digits: int) -> str:
    if s is None:
        return "-"
    if s["low"] is None:
        return f"{s['mean']:.{digits}f} over {s['hands']} hands"
    return (
        f"{s['mean']:.{digits}f} [{s['low']:.{digits}f}, {s['high']:.{digits}f}] "
        f"over {s['hands']} hands"
    )


def describe(r: dict[str, Any]) -> str:
    ref = r["reference"]
    lines = [
        f"{r['matches']} matches against {r['against']}; per hand, 95 % intervals: card-play "
        "loss (shares of the stake given away), tricks (double-dummy tricks given away, hands "
        "without Nil), points (par losses)",
        f"  {r['against']} (all these matches): card-play loss "
        f"{_ci(ref['card_play_loss'], 2)}; tricks {_ci(ref['trick_loss'], 2)}; "
        f"points {_ci(ref['point_loss'], 1)}",
    ]
    for b in r["bots"]:
        ci = b["match_score_interval"]
        lines.append(
            f"  {b['player']:<14} card-play loss {_ci(b['card_play_loss'], 2)}; tricks "
            f"{_ci(b['trick_loss'], 2)}; points {_ci(b['point_loss'], 1)}; "
            f"match score {b['match_score']:.2f}"
            + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
            + f" over {b['matches']}"
            + (f"; |bid-dd| {b['bid_off_dd']['mean']:.2f}" if b["bid_off_dd"] else "")
        )
        ref_c, ref_t, ref_p = (b[f"reference_{k}_in_these_matches"] for k in MEASURES)
        lines.append(
            f"  {'':<14} {r['against']} in these matches: card-play loss {_ci(ref_c, 2)}; "
            f"tricks {_ci(ref_t, 2)}; points {_ci(ref_p, 1)}"
        )
        lines.append(
            f"  {'':<14} matches needed to tell from {r['against']}: by wins "
            f"{_n(b['matches_needed_by_wins'])}, by card-play loss "
            f"{_n(b['matches_needed_by_card_play_loss'])}, by tricks "
            f"{_n(b['matches_needed_by_trick_loss'])}, by points "
            f"{_n(b['matches_needed_by_point_loss'])}"
        )
    for k, label in (
        ("card_play_loss", "card-play loss"),
        ("trick_loss", "tricks"),
        ("point_loss", "points"),
    ):
        lines.append(f"order by {label}: " + " < ".join(r["order"][k]))
    return "\n".join(lines)


def _n(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.1f}"
