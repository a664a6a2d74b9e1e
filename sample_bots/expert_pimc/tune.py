"""Compare settings of expert_pimc in-process: duplicate pairs against an opponent, one JSON line.

    python sample_bots/expert_pimc/tune.py PAIRS FIRST_SEED [name=value ...]

A name is an attribute of the bot (``work``, ``sims``, ``budget_ms``, ``share_power``) or a
constant of one of its modules (``search.RACE_Z``, ``search.BID_SHADE``, ``inference.KEEP_WEIGHT``
…). With ``work`` or ``sims`` the run is repeatable and independent of the machine's load (run
settings side by side to compare them); with neither, the bot thinks ``budget_ms`` of wall
clock. ``OPP`` names the opponent's directory (heuristic by default), ``ARENA_BOT_SEED`` the
bot's seed (0 by default).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spades_pimc import inference, rollout, search  # noqa: E402

from arena.sdk.local import load_bot, play_duplicate  # noqa: E402

MODULES = {"search": search, "inference": inference, "rollout": rollout}


def _number(text: str) -> int | float:
    return float(text) if "." in text or "e" in text else int(text)


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit(__doc__)
    pairs, first = int(argv[0]), int(argv[1])
    os.environ.setdefault("ARENA_BOT_SEED", "0")
    bot = load_bot(HERE)
    bot.sims = bot.work = None  # type: ignore[attr-defined]
    for arg in argv[2:]:
        name, _, value = arg.partition("=")
        module, _, constant = name.rpartition(".")
        if module:
            if module not in MODULES or not hasattr(MODULES[module], constant):
                raise SystemExit(f"tune: error: no constant {name}")
            setattr(MODULES[module], constant, _number(value))
        elif hasattr(bot, name):
            setattr(bot, name, _number(value))
        else:
            raise SystemExit(f"tune: error: the bot has no setting {name}")
    opponent = load_bot(os.environ.get("OPP", str(HERE.parent / "heuristic")))
    start = time.perf_counter()
    result = play_duplicate(bot, opponent, pairs, first)
    stats, searches = bot.stats, max(1, bot.searches)  # type: ignore[attr-defined]
    row = {
        "settings": argv[2:],
        "pairs": pairs,
        "first_seed": first,
        "wins": result.wins,
        "losses": result.losses,
        "draws": result.draws,
        "win_rate": round(result.win_rate, 3),
        "deals_per_search": round(stats.deals / searches, 1),
        "work_per_search": round(stats.work / searches),
        "ms_per_search": round(1000 * stats.seconds / searches, 1),
        "seconds": round(time.perf_counter() - start),
    }
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
