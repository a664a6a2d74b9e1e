"""``arena bench expert``: what time buys the expert sample bot.

For each time budget the expert (``sample_bots/expert``) plays an opponent over duplicate pairs
in-process (``arena.sdk.local``: the engine and the real protocol conversion, no sockets), and
the bot's own counters give the simulations it ran: sampled deals and play-outs per searched
decision (bids and plays with a choice; for the expert a play-out is a double-dummy solve, for
``expert_pimc`` a play-out of a simple policy), the mean search time per searched decision (the
bot shares a hand's time out over its decisions, so single decisions take more or less than the
budget) and play-outs per second of search.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.sdk.local import load_bot, play_duplicate

EXPERT_DIR = Path(__file__).resolve().parents[2] / "sample_bots" / "expert"


def measure(
    budgets: list[int], pairs: int, opponent: str, first_seed: int = 0, expert: str | None = None
) -> dict[str, Any]:
    os.environ.setdefault("ARENA_BOT_SEED", "0")
    rows = []
    for budget in budgets:
        bot = load_bot(expert or EXPERT_DIR)
        bot.budget_ms = budget  # type: ignore[attr-defined]
        bot.sims = None  # type: ignore[attr-defined]
        bot.work = None  # type: ignore[attr-defined]
        other = load_bot(opponent)
        result = play_duplicate(bot, other, pairs, first_seed)
        stats = bot.stats  # type: ignore[attr-defined]
        searches = max(1, bot.searches)  # type: ignore[attr-defined]
        rows.append(
            {
                "budget_ms": budget,
                "matches": result.matches,
                "wins": result.wins,
                "losses": result.losses,
                "draws": result.draws,
                "win_rate": round(result.win_rate, 4),
                "searches": bot.searches,  # type: ignore[attr-defined]
                "deals_per_search": round(stats.deals / searches, 1),
                "playouts_per_search": round(stats.playouts / searches, 1),
                "ms_per_search": round(1000 * stats.seconds / searches, 1),
                "playouts_per_s": round(stats.playouts / stats.seconds) if stats.seconds else 0,
                "seconds": round(result.seconds, 1),
            }
        )
    return {"opponent": opponent, "pairs": pairs, "first_seed": first_seed, "rows": rows}


def describe(r: dict[str, Any]) -> str:
    lines = [
        f"expert vs {Path(r['opponent']).name}, {r['pairs']} duplicate pairs a budget "
        f"(seeds {r['first_seed']}..{r['first_seed'] + r['pairs'] - 1}), in-process",
        f"{'budget':>8} {'win rate':>9} {'W-L-D':>9} {'deals/search':>13} "
        f"{'playouts/search':>16} {'ms/search':>10} {'playouts/s':>11}",
    ]
    for row in r["rows"]:
        wld = f"{row['wins']}-{row['losses']}-{row['draws']}"
        lines.append(
            f"{row['budget_ms']:>6}ms {100 * row['win_rate']:>8.1f}% {wld:>9} "
            f"{row['deals_per_search']:>13} {row['playouts_per_search']:>16} "
            f"{row['ms_per_search']:>10} {row['playouts_per_s']:>11,}"
        )
    return "\n".join(lines)
